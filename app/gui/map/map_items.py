"""The map's pieces: a card per screen and an arrow per pair of screens, built from Qt's own items.

Each piece is a few stock items (a rectangle, a picture, simple text, a path), which Qt paints in C++
with no Python call per paint and no shadow or effect: a map of hundreds of screens repaints quickly
at any zoom. What changes after drawing (selected, current, on a played run's path) changes a pen.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainterPath, QPen, QPixmap, QPolygonF
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsPixmapItem,
    QGraphicsPolygonItem,
    QGraphicsRectItem,
    QGraphicsSimpleTextItem,
)

from app.core.learning.screen_graph import ScreenNode
from app.gui.theme import Colors

from .map_layout import CARD_HEIGHT, CARD_WIDTH, LABEL_SPACE, PICTURE_HEIGHT, PICTURE_WIDTH, Route

CURRENT_COLOUR = "#f08c00"
"""The frame around the screen the phone shows now."""
HEAD_LENGTH = 10.0
CORNER = 12.0
NAME_LINES = 2
PATH_PASSED, PATH_NOW = 1, 2


def fonts() -> tuple[QFont, QFont]:
    """The card names' font and the arrows' labels' font."""
    name = QFont()
    name.setPointSizeF(9.5)
    label = QFont()
    label.setPointSizeF(8.5)
    return name, label


def wrapped(text: str, metrics: QFontMetricsF, width: float, lines: int = NAME_LINES) -> str:
    """`text` broken into at most `lines` lines of `width`, the last one cut with "…" when it is longer."""
    words, out, line = text.split(), [], ""
    for index, word in enumerate(words):
        trial = f"{line} {word}".strip()
        if metrics.horizontalAdvance(trial) <= width or not line:
            line = trial
            continue
        out.append(line)
        line = word
        if len(out) == lines - 1:
            line = " ".join([word, *words[index + 1:]])
            break
    out.append(line)
    out[-1] = metrics.elidedText(out[-1], Qt.TextElideMode.ElideRight, width)
    return "\n".join(out[:lines])


class ScreenCard(QGraphicsRectItem):
    """One screen: its picture (or a plain box with its name when it has none) and its name under it."""

    def __init__(self, node: ScreenNode, pixmap: QPixmap | None, colors: Colors, font: QFont) -> None:
        super().__init__(0, 0, CARD_WIDTH, CARD_HEIGHT)
        self.screen_id = node.id
        self.entry = node.entry
        self.colors = colors
        self.selected = False
        self.path_state = 0
        self.current = False
        self.setZValue(1)
        self.setBrush(QColor(colors.base))
        self.setToolTip(node.name + ("\n(seen only on another version of the app)" if node.stale else ""))
        metrics = QFontMetricsF(font)
        box = QRectF((CARD_WIDTH - PICTURE_WIDTH) / 2, 8, PICTURE_WIDTH, PICTURE_HEIGHT)
        if pixmap is not None:
            self.picture: QGraphicsPixmapItem | QGraphicsRectItem = QGraphicsPixmapItem(pixmap, self)
            self.picture.setTransformationMode(Qt.TransformationMode.SmoothTransformation)
            self.picture.setPos(box.x() + (box.width() - pixmap.width()) / 2,
                                box.y() + (box.height() - pixmap.height()) / 2)
            if node.stale:
                self.picture.setOpacity(0.5)
        else:                                   # a plain box with the name in it
            self.picture = QGraphicsRectItem(box, self)
            self.picture.setBrush(QColor(colors.alternate))
            self.picture.setPen(QPen(QColor(colors.border), 1, Qt.PenStyle.DashLine))
            inside = QGraphicsSimpleTextItem(wrapped(node.name, metrics, box.width() - 16, 4), self)
            inside.setFont(font)
            inside.setBrush(QColor(colors.placeholder))
            bounds = inside.boundingRect()
            inside.setPos(box.center().x() - bounds.width() / 2, box.center().y() - bounds.height() / 2)
        self.name = QGraphicsSimpleTextItem(wrapped(node.name, metrics, CARD_WIDTH - 10), self)
        self.name.setFont(font)
        self.name.setBrush(QColor(colors.placeholder if node.stale else colors.text))
        bounds = self.name.boundingRect()
        self.name.setPos((CARD_WIDTH - bounds.width()) / 2, box.bottom() + 6)
        self.badge: QGraphicsSimpleTextItem | None = None
        if node.entry:
            badge_back = QGraphicsRectItem(0, 0, 44, 18, self)
            badge_back.setBrush(QColor(colors.accent))
            badge_back.setPen(QPen(Qt.PenStyle.NoPen))
            badge_back.setPos(-6, -9)
            badge_back.setZValue(2)              # above the orange frame of the phone's screen
            self.badge = QGraphicsSimpleTextItem("Start", badge_back)
            self.badge.setFont(font)
            self.badge.setBrush(QColor(colors.accent_text))
            size = self.badge.boundingRect()
            badge_back.setRect(0, 0, size.width() + 12, size.height() + 2)
            self.badge.setPos(6, 1)
        self.ring = QGraphicsRectItem(-7, -7, CARD_WIDTH + 14, CARD_HEIGHT + 14, self)
        self.ring.setPen(QPen(QColor(CURRENT_COLOUR), 6))
        self.ring.setBrush(Qt.BrushStyle.NoBrush)
        self.ring.setZValue(1)
        self.ring.setVisible(False)
        self._restyle()

    def set_selected(self, selected: bool) -> None:
        if selected != self.selected:
            self.selected = selected
            self._restyle()

    def set_path_state(self, state: int) -> None:
        if state != self.path_state:
            self.path_state = state
            self._restyle()

    def set_smooth(self, smooth: bool) -> None:
        """Smooth scaling of the picture (off when zoomed far out: it cannot be seen there)."""
        if isinstance(self.picture, QGraphicsPixmapItem):
            self.picture.setTransformationMode(Qt.TransformationMode.SmoothTransformation if smooth
                                               else Qt.TransformationMode.FastTransformation)

    def set_current(self, current: bool) -> None:
        self.current = current
        self.ring.setVisible(current)

    def _restyle(self) -> None:
        colors = self.colors
        if self.selected:
            pen = QPen(QColor(colors.accent), 4)
        elif self.path_state == PATH_NOW:
            pen = QPen(QColor(colors.accent), 5)
        elif self.path_state == PATH_PASSED:
            pen = QPen(QColor(colors.accent), 3, Qt.PenStyle.DashLine)
        elif self.entry:
            pen = QPen(QColor(colors.accent), 2)
        else:
            pen = QPen(QColor(colors.border), 1)
        pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
        self.setPen(pen)


def route_path(route: Route) -> QPainterPath:
    """The arrow's line, stopping where its head begins."""
    points = [QPointF(x, y) for x, y in route.points]
    tip, before = points[-1], points[-2]
    length = math.hypot(tip.x() - before.x(), tip.y() - before.y()) or 1.0
    points[-1] = tip - (tip - before) * (HEAD_LENGTH * 0.8 / length)
    path = QPainterPath(points[0])
    if route.curved:
        start, end = points[1], points[2]
        middle = (start.x() + end.x()) / 2
        path.lineTo(start)
        path.cubicTo(QPointF(middle, start.y()), QPointF(middle, end.y()), end)
        path.lineTo(points[3])
        return path
    for index in range(1, len(points) - 1):           # straight runs with rounded corners
        corner, previous, following = points[index], points[index - 1], points[index + 1]
        into = math.hypot(corner.x() - previous.x(), corner.y() - previous.y())
        out = math.hypot(following.x() - corner.x(), following.y() - corner.y())
        radius = min(CORNER, into / 2, out / 2)
        if radius < 1:
            path.lineTo(corner)
            continue
        path.lineTo(corner - (corner - previous) * (radius / into))
        path.quadTo(corner, corner + (following - corner) * (radius / out))
    path.lineTo(points[-1])
    return path


def head_polygon(route: Route) -> QPolygonF:
    (bx, by), (tx, ty) = route.points[-2], route.points[-1]
    angle = math.atan2(ty - by, tx - bx)
    left = (tx - HEAD_LENGTH * math.cos(angle - 0.45), ty - HEAD_LENGTH * math.sin(angle - 0.45))
    right = (tx - HEAD_LENGTH * math.cos(angle + 0.45), ty - HEAD_LENGTH * math.sin(angle + 0.45))
    return QPolygonF([QPointF(tx, ty), QPointF(*left), QPointF(*right)])


class MapArrow(QGraphicsPathItem):
    """The one arrow from a screen to another: its line, its head, and the action's words by its start.
    `style` is "normal", "faded" (pale and dashed: its actions keep failing) or "stale" (grey and dashed:
    seen only on another version of the app)."""

    def __init__(self, from_id: str, to_id: str, route: Route, words: str, more: str, style: str, tooltip: str,
                 colors: Colors, font: QFont, metrics: QFontMetricsF) -> None:
        super().__init__(route_path(route))
        self.from_id, self.to_id, self.style, self.colors = from_id, to_id, style, colors
        self.path_state = 0
        self.setZValue(0)
        self.setToolTip(tooltip)
        self.head = QGraphicsPolygonItem(head_polygon(route), self)
        room = LABEL_SPACE - 14 - metrics.horizontalAdvance(more)
        self.label = QGraphicsSimpleTextItem(metrics.elidedText(words, Qt.TextElideMode.ElideRight, room) + more,
                                             self)
        self.label.setFont(font)
        self.label.setPos(route.label_at[0], route.label_at[1] - metrics.height() + 2)
        self.label.setToolTip(tooltip)
        self._restyle()

    def colour(self) -> QColor:
        colors = self.colors
        if self.path_state:
            return QColor(colors.accent)
        if self.style == "faded":
            colour = QColor(colors.error)
            colour.setAlpha(90)
            return colour
        if self.style == "stale":
            return QColor(colors.disabled_text)
        return QColor(colors.placeholder)

    def set_path_state(self, state: int) -> None:
        if state != self.path_state:
            self.path_state = state
            self._restyle()

    def _restyle(self) -> None:
        colour = self.colour()
        width = 4.0 if self.path_state == PATH_NOW else 3.0 if self.path_state else 1.4
        pen = QPen(colour, width)
        if self.style in ("faded", "stale") and not self.path_state:
            pen.setStyle(Qt.PenStyle.DashLine if self.style == "faded" else Qt.PenStyle.DotLine)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        self.setPen(pen)
        self.head.setPen(QPen(colour, 1))
        self.head.setBrush(QBrush(colour))
        self.setZValue(0.5 if self.path_state else 0)
        text = QColor(colors_text(self.colors, self.style, self.path_state))
        self.label.setBrush(text)

    def show_label(self, shown: bool) -> None:
        self.label.setVisible(shown)


def colors_text(colors: Colors, style: str, path_state: int) -> str:
    if path_state:
        return colors.accent
    return colors.disabled_text if style != "normal" else colors.text


def entry_lead(points: list[tuple[float, float]], colors: Colors, font: QFont) -> QGraphicsItem:
    """The short arrow pointing at the entry screen: opening the app leads here."""
    route = Route(points, False, points[0])
    lead = QGraphicsPathItem(route_path(route))
    lead.setPen(QPen(QColor(colors.accent), 2.5))
    head = QGraphicsPolygonItem(head_polygon(route), lead)
    head.setBrush(QColor(colors.accent))
    head.setPen(QPen(QColor(colors.accent), 1))
    words = QGraphicsSimpleTextItem("open", lead)
    words.setFont(font)
    words.setBrush(QColor(colors.accent))
    words.setPos(points[0][0], points[0][1] - QFontMetricsF(font).height() - 2)
    lead.setToolTip("Opening the app leads here")
    return lead
