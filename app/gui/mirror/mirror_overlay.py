"""What the mirror draws over the phone's frame with QPainter: numbered control boxes, the
hovered and selected control and the placeholder (the agent's proposed action is drawn by
`proposal_overlay.py`, the person's touches by `touch_feedback.py`).

Everything here is in widget pixels except where a name says `device`; `DeviceMapping`
converts between the two. The control boxes, which do not change from one paint to the
next, are drawn once into an image by `ControlLayer`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image
from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPainter,
    QPalette,
    QPen,
    QStaticText,
)

from app.core.perception.annotate import control_colour, is_labelled_box
from app.core.perception.badge_layout import labels_covered, place_badges
from app.core.perception.controls import Control, Rect
from app.core.perception.protected_screen import looks_protected

BADGE_FONT_PX = 11
SEE_THROUGH_ALPHA = 120
"""A badge over a label is filled at this opacity (of 255): the letters under it stay readable."""
LABEL_NAME_LIMIT = 40
_HALO = QColor(255, 255, 255, 150)
_SPOTLIGHT = QColor(0, 0, 0, 70)
_SEE_THROUGH_INK = QColor(Qt.GlobalColor.black)     # with a white rim: readable over any label
_HALO_OFFSETS = (QPointF(-1, 0), QPointF(1, 0), QPointF(0, -1), QPointF(0, 1))


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


def hover_lines(control: Control) -> list[str]:
    """The hover card over the mirror: `hover_label` and the attributes a locator is made of
    (text, content-desc, resource-id, class, bounds), then the flags that are on."""
    def cut(text: str) -> str:
        text = " ".join(text.split())
        return text if len(text) <= LABEL_NAME_LIMIT else text[: LABEL_NAME_LIMIT - 1].rstrip() + "…"

    lines = [hover_label(control)]
    for key, value in (("text", "•" * 6 if control.password and control.text else control.text),
                       ("desc", control.content_desc), ("id", control.resource_id), ("class", control.class_name)):
        if value:
            lines.append(f"{key}: {cut(value)}")
    lines.append("bounds: [{},{}][{},{}]".format(*control.rect) + "  centre: {},{}".format(*control.center))
    flags = [name.replace("_", "-") for name in ("clickable", "long_clickable", "scrollable", "checkable",
                                                "checked", "selected", "focused", "password") if getattr(control, name)]
    if not control.enabled:
        flags.append("disabled")
    if flags:
        lines.append(" · ".join(flags))
    return lines


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
        self.badge_rects: list[QRectF] = []       # where each control's badge went (widget px), last render
        self.see_through: list[bool] = []         # which of them lie over words, so are filled see-through

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
        labelled = [is_labelled_box(c) for c in self._controls]
        badges = _place_badges(boxes, [(style[3], style[4]) for style in self._badge_style], labelled, mapping)
        self.badge_rects = badges
        self.see_through = labels_covered([_box(b) for b in boxes], [_box(b) for b in badges], labelled)
        outlines: dict[int, tuple[QColor, list[QRectF]]] = {}  # colour → (colour, boxes)
        fills: dict[int, tuple[QColor, list[QRectF]]] = {}     # fill (with its opacity) → (fill, badges)
        texts: dict[int, tuple[QColor, list[tuple[QPointF, QStaticText]]]] = {}  # ink → (ink, labels)
        haloed: list[tuple[QPointF, QStaticText]] = []        # a white rim around the see-through badges' ink
        for box, badge, see_through, (colour, ink, text, _, _) in zip(boxes, badges, self.see_through,
                                                                      self._badge_style, strict=True):
            outlines.setdefault(colour.rgb(), (colour, []))[1].append(box)
            fill = QColor(colour)
            point = QPointF(badge.left() + 3.5, badge.top() + 0.5)
            if see_through:
                fill.setAlpha(SEE_THROUGH_ALPHA)
                ink = _SEE_THROUGH_INK
                haloed.extend((point + offset, text) for offset in _HALO_OFFSETS)
            fills.setdefault(fill.rgba(), (fill, []))[1].append(badge)
            texts.setdefault(ink.rgb(), (ink, []))[1].append((point, text))
        # Grouped by colour: a few calls per colour instead of several per control.
        painter = QPainter(image)
        painter.setPen(QPen(_HALO, 4))
        painter.drawRects(boxes)
        for colour, group_boxes in outlines.values():
            painter.setPen(QPen(colour, 2))
            painter.drawRects(group_boxes)
        painter.setPen(Qt.PenStyle.NoPen)
        for fill, group_badges in fills.values():
            painter.setBrush(fill)
            painter.drawRects(group_badges)
        painter.setFont(self.font)
        painter.setPen(Qt.GlobalColor.white)
        for point, text in haloed:
            painter.drawStaticText(point, text)
        for ink, labels in texts.values():
            painter.setPen(ink)
            for point, text in labels:
                painter.drawStaticText(point, text)
        painter.end()
        return image


def _box(rect: QRectF) -> tuple[float, float, float, float]:
    return rect.left(), rect.top(), rect.right(), rect.bottom()


def _place_badges(boxes: list[QRectF], sizes: list[tuple[float, float]], labelled: list[bool],
                  mapping: DeviceMapping) -> list[QRectF]:
    """A badge per box, beside it rather than over its label, kept on the frame: the same rules
    as the model's annotated image (`badge_layout.place_badges`)."""
    frame = mapping.rect((0, 0, mapping.device_width, mapping.device_height))
    corners = place_badges([(b.left(), b.top(), b.right(), b.bottom()) for b in boxes], sizes, labelled,
                           (frame.left(), frame.top(), frame.right(), frame.bottom()))
    return [QRectF(x, y, width, height) for (x, y), (width, height) in zip(corners, sizes, strict=True)]


# ---------------------------------------------------------------- hover and selection


def paint_outlined(painter: QPainter, box: QRectF, colour: QColor, fill_alpha: int, halo_width: float,
                   style: Qt.PenStyle = Qt.PenStyle.SolidLine) -> None:
    """A box tinted with `colour` at `fill_alpha`, outlined in it (3 px, `style`) over a `halo_width` halo."""
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    fill = QColor(colour)
    fill.setAlpha(fill_alpha)
    painter.fillRect(box, fill)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.setPen(QPen(_HALO, halo_width))
    painter.drawRect(box)
    painter.setPen(QPen(colour, 3, style))
    painter.drawRect(box)


def paint_hover(painter: QPainter, box: QRectF, colour: QColor) -> None:
    """The control under the cursor: translucent fill and a thicker outline."""
    paint_outlined(painter, box, colour, 60, 6)


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


def paint_label(painter: QPainter, text: str | Sequence[str], anchor: QPointF, bounds: QRectF, palette: QPalette,
                edge: QColor) -> QRectF:
    """A floating tooltip-like card below-right of `anchor` (above it when there is no room below),
    kept inside `bounds`, each line elided to fit; the first line bold. Returns where it was drawn."""
    lines = [text] if isinstance(text, str) else list(text)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    regular = QFont(painter.font())
    bold = QFont(regular)
    bold.setBold(True)
    metrics, bold_metrics = QFontMetricsF(regular), QFontMetricsF(bold)
    limit = max(40.0, bounds.width() - 32)
    shown = [(bold if row == 0 else regular,
              (bold_metrics if row == 0 else metrics).elidedText(line, Qt.TextElideMode.ElideRight, limit))
             for row, line in enumerate(lines)]
    width = max((bold_metrics if font is bold else metrics).horizontalAdvance(line) for font, line in shown) + 16
    line_height = metrics.height()
    height = line_height * len(shown) + 8
    x = min(max(anchor.x() + 14, bounds.left() + 4), bounds.right() - width - 4)
    y = anchor.y() + 20
    if y + height > bounds.bottom() - 4:
        y = anchor.y() - height - 12
    rect = QRectF(x, max(y, bounds.top() + 4), width, height)
    painter.setPen(QPen(edge, 1.5))
    painter.setBrush(palette.color(QPalette.ColorRole.ToolTipBase))
    painter.drawRoundedRect(rect, 6, 6)
    painter.setPen(palette.color(QPalette.ColorRole.ToolTipText))
    for row, (font, line) in enumerate(shown):
        painter.setFont(font)
        line_rect = QRectF(rect.left() + 8, rect.top() + 4 + row * line_height, width - 16, line_height)
        alignment = Qt.AlignmentFlag.AlignCenter if len(shown) == 1 else Qt.AlignmentFlag.AlignLeft
        painter.drawText(line_rect, alignment | Qt.AlignmentFlag.AlignVCenter, line)
    painter.setFont(regular)
    return rect


def paint_highlight(painter: QPainter, box: QRectF, colour: QColor) -> None:
    """A rect the inspector points at (the row or node under its mouse): a dashed outline and a faint fill."""
    paint_outlined(painter, box, colour, 45, 5, Qt.PenStyle.DashLine)


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


PROTECTED_NOTE = ("Protected screen: this app forbids screenshots, so its picture is black. "
                  "The model gets its controls as text only.")


def frame_looks_protected(frame: QImage, controls: Sequence[Control], device_size: tuple[int, int]) -> bool:
    """Whether a mirrored frame is a protected (FLAG_SECURE) screen: black where the dump's text
    controls are. Judged on a small grey copy of the frame (cheap enough for every frame)."""
    if frame.isNull() or not controls or device_size[0] <= 0:
        return False
    small = frame.scaled(max(1, frame.width() // 4), max(1, frame.height() // 4),
                         Qt.AspectRatioMode.IgnoreAspectRatio, Qt.TransformationMode.FastTransformation)
    grey = small.convertToFormat(QImage.Format.Format_Grayscale8)
    pixels = Image.frombuffer("L", (grey.width(), grey.height()), bytes(grey.constBits()), "raw", "L",
                              grey.bytesPerLine(), 1)
    return looks_protected(pixels, controls, device_size)


def paint_protected_note(painter: QPainter, frame: QRectF, font: QFont) -> None:
    """A short note over the top of a black (protected) frame saying why it is black."""
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setFont(font)
    margin = 8.0
    width = frame.width() - 2 * margin
    bounds = QFontMetricsF(font).boundingRect(QRectF(0, 0, width - 16, 1000),
                                              int(Qt.TextFlag.TextWordWrap), PROTECTED_NOTE)
    box = QRectF(frame.left() + margin, frame.top() + frame.height() * 0.08, width, bounds.height() + 12)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(255, 196, 0, 235))
    painter.drawRoundedRect(box, 6, 6)
    painter.setPen(QColor(20, 20, 20))
    painter.drawText(box.adjusted(8, 6, -8, -6), int(Qt.TextFlag.TextWordWrap | Qt.AlignmentFlag.AlignLeft),
                     PROTECTED_NOTE)
    painter.restore()
