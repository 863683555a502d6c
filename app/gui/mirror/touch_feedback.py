"""The person's own touch on the mirror: the finger's trail while it drags and a ripple where it tapped,
fading out once the touch ends (widget pixels)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QObject, QPointF, Qt, QVariantAnimation, Signal
from PySide6.QtGui import QBrush, QColor, QPainter, QPen, QPolygonF


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


class TouchFeedback(QObject):
    """The trail and ripple of the person's own touch, fading out once it ends; `changed`
    asks for a repaint."""

    changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.trail: list[QPointF] = []
        self.ripple: QPointF | None = None
        self.fade = 0.0
        self._animation = QVariantAnimation(self, startValue=0.0, endValue=1.0, duration=420)
        self._animation.valueChanged.connect(self._on_fade)
        self._animation.finished.connect(self.clear)

    def begin(self, pos: QPointF) -> None:
        """A finger down: a fresh trail from `pos`; earlier feedback is dropped unfaded."""
        self._animation.stop()
        self.trail, self.ripple, self.fade = [pos], None, 0.0

    def tapped(self, pos: QPointF) -> None:
        self.trail, self.ripple = [], pos

    def fade_out(self) -> None:
        self._animation.start()

    def stop(self) -> None:
        """Gone at once, without fading."""
        self._animation.stop()
        self.clear()

    def clear(self) -> None:
        self.trail, self.ripple, self.fade = [], None, 0.0
        self.changed.emit()

    def _on_fade(self, value: float) -> None:
        self.fade = float(value)
        self.changed.emit()

    def paint(self, painter: QPainter, colour: QColor) -> None:
        if self.trail or self.ripple is not None:
            paint_touch_feedback(painter, self.trail, self.ripple, self.fade, colour)
