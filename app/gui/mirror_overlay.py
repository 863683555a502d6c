"""What the mirror draws over the phone's frame with QPainter: numbered control boxes, the
hovered and selected control, the agent's proposed action and touch feedback.

Everything here is in widget pixels except where a name says `device`; `DeviceMapping`
converts between the two. The control boxes, which do not change from one paint to the
next, are drawn once into an image by `ControlLayer`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QLineF, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QBrush, QColor, QFont, QFontMetricsF, QImage, QPainter, QPalette, QPen, QPolygonF, QStaticText,
)

from app.core.agent.actions import (
    Action, ClickControl, LongPressControl, Scroll, Swipe, Tap, describe_action,
)
from app.core.perception.annotate import control_colour
from app.core.perception.controls import Control, Rect

BADGE_FONT_PX = 11
LABEL_NAME_LIMIT = 40
PROPOSAL_COLOUR = QColor(255, 122, 0)
"""The agent's proposal: a warm accent that is neither a box colour nor the selection's."""
_HALO = QColor(255, 255, 255, 150)
_SHADOW = QColor(0, 0, 0, 110)
_SPOTLIGHT = QColor(0, 0, 0, 70)
_BUBBLE = QColor(24, 24, 28, 228)
_BADGE_CELL = 32  # px: grid cell used to find overlapping badges quickly


def control_qcolor(control_id: int) -> QColor:
    """The palette colour of a control (the same as on the annotated images sent to the model)."""
    return QColor(*control_colour(control_id))


def hover_label(control: Control) -> str:
    """`#id Type “name” resource-id-tail`, the name cut to LABEL_NAME_LIMIT characters."""
    parts = [f"#{control.id}", control.type]
    name = control.name
    if name and name != control.type:
        if len(name) > LABEL_NAME_LIMIT:
            name = name[: LABEL_NAME_LIMIT - 1].rstrip() + "…"
        parts.append(f"“{name}”")
    id_tail = control.resource_id.rpartition("/")[2]
    if id_tail and id_tail != control.name:
        parts.append(id_tail)
    return " ".join(parts)


@dataclass(frozen=True, slots=True)
class DeviceMapping:
    """Device pixels ↔ widget pixels for a frame drawn with its top-left at (left, top)."""

    left: float
    top: float
    scale_x: float
    scale_y: float
    device_width: int
    device_height: int

    @classmethod
    def between(cls, frame_rect: QRectF, device_size: tuple[int, int]) -> DeviceMapping | None:
        width, height = device_size
        if frame_rect.isEmpty() or width <= 0 or height <= 0:
            return None
        return cls(frame_rect.left(), frame_rect.top(), frame_rect.width() / width,
                   frame_rect.height() / height, width, height)

    def point(self, x: float, y: float) -> QPointF:
        return QPointF(self.left + x * self.scale_x, self.top + y * self.scale_y)

    def rect(self, rect: Rect) -> QRectF:
        left, top, right, bottom = rect
        return QRectF(self.point(left, top), self.point(right, bottom))

    def to_device(self, pos: QPointF) -> tuple[int, int] | None:
        """The device pixel under a widget point, or None outside the frame."""
        x = (pos.x() - self.left) / self.scale_x
        y = (pos.y() - self.top) / self.scale_y
        if not (0 <= x < self.device_width and 0 <= y < self.device_height):
            return None
        return int(x), int(y)

    def clamped_to_device(self, pos: QPointF) -> tuple[int, int]:
        """Like `to_device`, with points outside the frame pulled to its nearest edge."""
        x = (pos.x() - self.left) / self.scale_x
        y = (pos.y() - self.top) / self.scale_y
        return (min(max(int(x), 0), self.device_width - 1), min(max(int(y), 0), self.device_height - 1))


class ControlLayer:
    """The numbered boxes of one screen's controls. They are drawn once into a transparent
    image the size of the view, redrawn only when the controls or the geometry change, so a
    paint costs one `drawImage` whatever the number of controls."""

    def __init__(self) -> None:
        self._controls: list[Control] = []
        self._badge_style: list[tuple[QColor, QColor, QStaticText, float, float]] = []
        self._image = QImage()
        self._image_key: tuple | None = None
        self.font = QFont()
        self.font.setPixelSize(BADGE_FONT_PX)
        self.font.setBold(True)
        self._metrics = QFontMetricsF(self.font)
        self._badges_by_id: dict[int, tuple[QColor, QColor, QStaticText, float, float]] = {}

    @property
    def controls(self) -> list[Control]:
        return self._controls

    def set_controls(self, controls: Sequence[Control]) -> None:
        self._controls = list(controls)
        self._badge_style = [self._badge(control.id) for control in self._controls]
        self._image_key = None

    def _badge(self, control_id: int) -> tuple[QColor, QColor, QStaticText, float, float]:
        """Fill, ink, prepared text and size of a badge; kept per id, as ids repeat on every screen."""
        badge = self._badges_by_id.get(control_id)
        if badge is None:
            colour = control_qcolor(control_id)
            ink = QColor(Qt.GlobalColor.black if colour.lightnessF() > 0.6 else Qt.GlobalColor.white)
            text = QStaticText(str(control_id))
            text.prepare(font=self.font)
            badge = (colour, ink, text, self._metrics.horizontalAdvance(text.text()) + 7, self._metrics.height() + 1)
            self._badges_by_id[control_id] = badge
        return badge

    def paint(self, painter: QPainter, mapping: DeviceMapping, view_size: QSize, pixel_ratio: float) -> None:
        if not self._controls:
            return
        key = (mapping, view_size.width(), view_size.height(), pixel_ratio)
        if key != self._image_key:
            self._image_key = key
            self._image = self._render(mapping, view_size, pixel_ratio)
        painter.drawImage(QPointF(0, 0), self._image)

    def _render(self, mapping: DeviceMapping, view_size: QSize, pixel_ratio: float) -> QImage:
        image = QImage(view_size * pixel_ratio, QImage.Format.Format_ARGB32_Premultiplied)
        image.setDevicePixelRatio(pixel_ratio)
        image.fill(Qt.GlobalColor.transparent)
        boxes = [mapping.rect(c.rect).adjusted(1, 1, -1, -1) for c in self._controls]
        badges = _place_badges(boxes, [(style[3], style[4]) for style in self._badge_style])
        outlines: dict[int, tuple[QColor, list[QRectF], list[QRectF]]] = {}  # colour → (colour, boxes, badges)
        texts: dict[int, tuple[QColor, list[tuple[QPointF, QStaticText]]]] = {}  # ink → (ink, labels)
        for box, badge, (colour, ink, text, _, _) in zip(boxes, badges, self._badge_style):
            group = outlines.setdefault(colour.rgb(), (colour, [], []))
            group[1].append(box)
            group[2].append(badge)
            texts.setdefault(ink.rgb(), (ink, []))[1].append((QPointF(badge.left() + 3.5, badge.top() + 0.5), text))
        # Grouped by colour: a few calls per colour instead of several per control.
        painter = QPainter(image)
        painter.setPen(QPen(_HALO, 4))
        painter.drawRects(boxes)
        for colour, group_boxes, _ in outlines.values():
            painter.setPen(QPen(colour, 2))
            painter.drawRects(group_boxes)
        painter.setPen(Qt.PenStyle.NoPen)
        for colour, _, group_badges in outlines.values():
            painter.setBrush(colour)
            painter.drawRects(group_badges)
        painter.setFont(self.font)
        for ink, labels in texts.values():
            painter.setPen(ink)
            for point, text in labels:
                painter.drawStaticText(point, text)
        painter.end()
        return image


def _place_badges(boxes: list[QRectF], sizes: list[tuple[float, float]]) -> list[QRectF]:
    """A badge per box, in the first inside corner (top-left, top-right, bottom-left,
    bottom-right) not covering an earlier badge; top-left when every corner is taken."""
    taken: dict[tuple[int, int], list[QRectF]] = {}
    placed = []
    for box, (width, height) in zip(boxes, sizes):
        corners = [QRectF(x, y, width, height) for y in (box.top(), box.bottom() - height)
                   for x in (box.left(), box.right() - width)]
        badge = next((c for c in corners if not _overlaps_taken(c, taken)), corners[0])
        for cell in _cells(badge):
            taken.setdefault(cell, []).append(badge)
        placed.append(badge)
    return placed


def _cells(rect: QRectF) -> list[tuple[int, int]]:
    return [(x, y) for x in range(int(rect.left()) // _BADGE_CELL, int(rect.right()) // _BADGE_CELL + 1)
            for y in range(int(rect.top()) // _BADGE_CELL, int(rect.bottom()) // _BADGE_CELL + 1)]


def _overlaps_taken(rect: QRectF, taken: dict[tuple[int, int], list[QRectF]]) -> bool:
    return any(rect.intersects(other) for cell in _cells(rect) for other in taken.get(cell, ()))


# ---------------------------------------------------------------- hover and selection


def paint_hover(painter: QPainter, box: QRectF, colour: QColor) -> None:
    """The control under the cursor: translucent fill and a thicker outline."""
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    fill = QColor(colour)
    fill.setAlpha(60)
    painter.fillRect(box, fill)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.setPen(QPen(_HALO, 6))
    painter.drawRect(box)
    painter.setPen(QPen(colour, 3))
    painter.drawRect(box)


def paint_selection(painter: QPainter, box: QRectF, frame: QRectF, accent: QColor) -> None:
    """The selected control: the rest of the frame dimmed, an accent outline, corner handles."""
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    inner = box.intersected(frame)
    for shade in (QRectF(frame.left(), frame.top(), frame.width(), inner.top() - frame.top()),
                  QRectF(frame.left(), inner.bottom(), frame.width(), frame.bottom() - inner.bottom()),
                  QRectF(frame.left(), inner.top(), inner.left() - frame.left(), inner.height()),
                  QRectF(inner.right(), inner.top(), frame.right() - inner.right(), inner.height())):
        if shade.width() > 0 and shade.height() > 0:
            painter.fillRect(shade, _SPOTLIGHT)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.setPen(QPen(Qt.GlobalColor.white, 5))
    painter.drawRect(box)
    painter.setPen(QPen(accent, 3))
    painter.drawRect(box)
    for corner in (box.topLeft(), box.topRight(), box.bottomLeft(), box.bottomRight()):
        handle = QRectF(corner.x() - 4, corner.y() - 4, 8, 8)
        painter.fillRect(handle.adjusted(-1, -1, 1, 1), Qt.GlobalColor.white)
        painter.fillRect(handle, accent)


def paint_label(painter: QPainter, text: str, anchor: QPointF, bounds: QRectF, palette: QPalette,
                edge: QColor) -> None:
    """A floating tooltip-like label below-right of `anchor`, kept inside `bounds` and elided to fit."""
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    metrics = QFontMetricsF(painter.font())
    text = metrics.elidedText(text, Qt.TextElideMode.ElideRight, max(40.0, bounds.width() - 24))
    width, height = metrics.horizontalAdvance(text) + 16, metrics.height() + 8
    x = min(max(anchor.x() + 14, bounds.left() + 4), bounds.right() - width - 4)
    y = anchor.y() + 20
    if y + height > bounds.bottom() - 4:
        y = anchor.y() - height - 12
    rect = QRectF(x, max(y, bounds.top() + 4), width, height)
    painter.setPen(QPen(edge, 1.5))
    painter.setBrush(palette.color(QPalette.ColorRole.ToolTipBase))
    painter.drawRoundedRect(rect, 6, 6)
    painter.setPen(palette.color(QPalette.ColorRole.ToolTipText))
    painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)


# ---------------------------------------------------------------- the agent's proposal


@dataclass(frozen=True, slots=True)
class ProposalShape:
    """What to draw for a proposed action, in device pixels."""

    target: Rect | None = None
    tap: tuple[float, float] | None = None
    long_press: bool = False
    arrow: tuple[float, float, float, float] | None = None
    caption: str = ""


def proposal_shape(action: Action, target: Control | None, device_size: tuple[int, int]) -> ProposalShape:
    """Turn an action (and the control it targets, if any) into marks on the screen."""
    args = action.args
    rect = target.rect if target is not None else None
    if isinstance(args, (ClickControl, LongPressControl)) and target is not None:
        return ProposalShape(rect, target.center, isinstance(args, LongPressControl))
    if isinstance(args, Tap):
        return ProposalShape(rect, (args.x, args.y))
    if isinstance(args, Swipe):
        return ProposalShape(rect, arrow=(args.start_x, args.start_y, args.end_x, args.end_y))
    if isinstance(args, Scroll):
        width, height = device_size
        left, top, right, bottom = rect or (0, height * 0.15, width, height * 0.85)
        cx, cy = (left + right) / 2, (top + bottom) / 2
        dx, dy = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}[args.direction]
        half_x, half_y = (right - left) * 0.3 * dx, (bottom - top) * 0.3 * dy
        return ProposalShape(rect, arrow=(cx - half_x, cy - half_y, cx + half_x, cy + half_y),
                             caption=f"Scroll {args.direction}")
    # type_text, actions with no place on the screen (keys, apps, waits), a click on an unknown id.
    return ProposalShape(rect, caption=describe_action(action, [target] if target else None))


def paint_proposal(painter: QPainter, shape: ProposalShape, mapping: DeviceMapping, frame: QRectF) -> None:
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    box = mapping.rect(shape.target) if shape.target else None
    if box is not None:
        painter.setPen(QPen(_SHADOW, 8))
        painter.drawRoundedRect(box, 4, 4)
        painter.setPen(QPen(PROPOSAL_COLOUR, 4))
        painter.drawRoundedRect(box, 4, 4)
    if shape.tap is not None:
        _paint_tap(painter, mapping.point(*shape.tap), shape.long_press)
    if shape.arrow is not None:
        x1, y1, x2, y2 = shape.arrow
        _paint_arrow(painter, mapping.point(x1, y1), mapping.point(x2, y2))
    if shape.caption:
        _paint_caption(painter, shape.caption, box, frame)


def _paint_tap(painter: QPainter, centre: QPointF, long_press: bool) -> None:
    radii = (16.0, 24.0) if long_press else (16.0,)
    for pen in (QPen(_SHADOW, 6), QPen(PROPOSAL_COLOUR, 3)):
        painter.setPen(pen)
        for radius in radii:
            painter.drawEllipse(centre, radius, radius)
        reach = radii[-1] + 8
        painter.drawLine(QLineF(centre.x() - reach, centre.y(), centre.x() - 6, centre.y()))
        painter.drawLine(QLineF(centre.x() + 6, centre.y(), centre.x() + reach, centre.y()))
        painter.drawLine(QLineF(centre.x(), centre.y() - reach, centre.x(), centre.y() - 6))
        painter.drawLine(QLineF(centre.x(), centre.y() + 6, centre.x(), centre.y() + reach))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(PROPOSAL_COLOUR)
    painter.drawEllipse(centre, 3.5, 3.5)
    painter.setBrush(Qt.BrushStyle.NoBrush)


def _paint_arrow(painter: QPainter, start: QPointF, end: QPointF) -> None:
    line = QLineF(start, end)
    if line.length() < 1:
        return
    angle = math.atan2(end.y() - start.y(), end.x() - start.x())
    head = min(22.0, line.length() * 0.45)
    points = [end] + [QPointF(end.x() - head * math.cos(angle + turn), end.y() - head * math.sin(angle + turn))
                      for turn in (0.45, -0.45)]
    shaft_end = QPointF(end.x() - head * 0.8 * math.cos(angle), end.y() - head * 0.8 * math.sin(angle))
    for colour, width in ((_SHADOW, 9), (PROPOSAL_COLOUR, 5)):
        painter.setPen(QPen(colour, width, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin))
        painter.setBrush(colour)
        painter.drawLine(QLineF(start, shaft_end))
        painter.drawPolygon(QPolygonF(points))
        painter.drawEllipse(start, 4, 4)
    painter.setBrush(Qt.BrushStyle.NoBrush)


def _paint_caption(painter: QPainter, text: str, box: QRectF | None, frame: QRectF) -> None:
    """A dark bubble under the target (above it when there is no room), else at the frame's foot."""
    metrics = QFontMetricsF(painter.font())
    text = metrics.elidedText(text, Qt.TextElideMode.ElideRight, max(40.0, frame.width() - 40))
    width, height = metrics.horizontalAdvance(text) + 20, metrics.height() + 12
    if box is not None and box.bottom() + height + 8 <= frame.bottom():
        top = box.bottom() + 8
    elif box is not None and box.top() - height - 8 >= frame.top():
        top = box.top() - height - 8
    else:
        top = frame.bottom() - height - frame.height() * 0.08
    centre_x = box.center().x() if box is not None else frame.center().x()
    left = min(max(centre_x - width / 2, frame.left() + 6), frame.right() - width - 6)
    bubble = QRectF(left, top, width, height)
    painter.setPen(QPen(PROPOSAL_COLOUR, 2))
    painter.setBrush(_BUBBLE)
    painter.drawRoundedRect(bubble, height / 2, height / 2)
    painter.setPen(Qt.GlobalColor.white)
    painter.drawText(bubble, Qt.AlignmentFlag.AlignCenter, text)
    painter.setBrush(Qt.BrushStyle.NoBrush)


# ---------------------------------------------------------------- touch feedback


def paint_touch_feedback(painter: QPainter, trail: Sequence[QPointF], ripple: QPointF | None,
                         fade: float, colour: QColor) -> None:
    """The finger's trail while it drags, and a ripple where it tapped; `fade` runs 0 → 1 as both vanish."""
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    if len(trail) > 1:
        ink = QColor(colour)
        ink.setAlphaF(0.75 * (1 - fade))
        painter.setPen(QPen(ink, 6, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin))
        painter.drawPolyline(QPolygonF(list(trail)))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(ink)
        painter.drawEllipse(trail[-1], 11, 11)
        painter.setBrush(Qt.BrushStyle.NoBrush)
    if ripple is not None:
        ink = QColor(colour)
        ink.setAlphaF(0.9 * (1 - fade))
        radius = 10 + 26 * fade
        painter.setPen(QPen(ink, 3))
        painter.drawEllipse(ripple, radius, radius)
        ink.setAlphaF(0.35 * (1 - fade))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QBrush(ink))
        painter.drawEllipse(ripple, 9, 9)
        painter.setBrush(Qt.BrushStyle.NoBrush)


def paint_placeholder(painter: QPainter, area: QRectF, text: str, palette: QPalette, font: QFont) -> None:
    """No frame yet: a phone outline with the message inside it."""
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    height = min(area.height() * 0.7, area.width() * 0.6 * 2.1)
    outline = QRectF(0, 0, height / 2.1, height)
    outline.moveCenter(area.center())
    painter.setPen(QPen(palette.color(QPalette.ColorRole.PlaceholderText), 1.5))
    painter.setBrush(palette.color(QPalette.ColorRole.Base))
    painter.drawRoundedRect(outline, outline.width() * 0.12, outline.width() * 0.12)
    painter.setPen(palette.color(QPalette.ColorRole.Text))
    painter.setFont(font)
    painter.drawText(outline.adjusted(16, 0, -16, 0), Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, text)
