"""The agent's proposed action drawn over the mirror: the target's box, the tap point (a
double ring for a long press), the swipe or scroll arrow and a caption.

`proposal_shape` turns an action into marks in device pixels; `paint_proposal` draws them
through the mirror's `DeviceMapping`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPen, QPolygonF

from app.core.agent.action_kinds import kind_of
from app.core.agent.actions import Action, Scroll, describe_action
from app.core.perception.controls import Control, Rect
from app.gui.mirror.mirror_overlay import DeviceMapping

PROPOSAL_COLOUR = QColor(255, 122, 0)
"""The agent's proposal: a warm accent that is neither a box colour nor the selection's."""
_SHADOW = QColor(0, 0, 0, 110)
_BUBBLE = QColor(24, 24, 28, 228)


@dataclass(frozen=True, slots=True)
class ProposalShape:
    """What to draw for a proposed action, in device pixels."""

    target: Rect | None = None
    tap: tuple[float, float] | None = None
    long_press: bool = False
    arrow: tuple[float, float, float, float] | None = None
    caption: str = ""
    end_target: Rect | None = None      # the control the arrow ends on (a drag's drop), outlined thinner


def proposal_shape(action: Action, target: Control | None, device_size: tuple[int, int],
                   controls: Sequence[Control] = ()) -> ProposalShape:
    """Turn an action (and the control it targets, if any; `controls`: the screen's, for the other controls it
    names, such as where a drag drops) into marks on the screen."""
    args = action.args
    rect = target.rect if target is not None else None
    if isinstance(args, Scroll):
        width, height = device_size
        left, top, right, bottom = rect or (0, height * 0.15, width, height * 0.85)
        cx, cy = (left + right) / 2, (top + bottom) / 2
        dx, dy = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}[args.direction]
        half_x, half_y = (right - left) * 0.3 * dx, (bottom - top) * 0.3 * dy
        return ProposalShape(rect, arrow=(cx - half_x, cy - half_y, cx + half_x, cy + half_y),
                             caption=f"Scroll {args.direction}")
    kind = kind_of(action.function)
    box = (float(rect[0]), float(rect[1]), float(rect[2]), float(rect[3])) if rect is not None else None
    boxes = {c.id: (float(c.rect[0]), float(c.rect[1]), float(c.rect[2]), float(c.rect[3])) for c in controls}
    gesture = kind.gesture(args, box, device_size, boxes.get) if kind is not None else None
    if gesture is not None and gesture.ring is not None:          # a tap, a long press (a double ring)
        return ProposalShape(rect, gesture.ring, gesture.held)
    if gesture is not None and gesture.arrow is not None:         # a swipe, a drag
        drop = gesture.end_box
        return ProposalShape(rect, arrow=gesture.arrow, end_target=(
            round(drop[0]), round(drop[1]), round(drop[2]), round(drop[3])) if drop is not None else None)
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
    end_box = mapping.rect(shape.end_target) if shape.end_target else None
    if end_box is not None:
        painter.setPen(QPen(_SHADOW, 5))
        painter.drawRoundedRect(end_box, 4, 4)
        painter.setPen(QPen(PROPOSAL_COLOUR, 2, Qt.PenStyle.DashLine))
        painter.drawRoundedRect(end_box, 4, 4)
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
