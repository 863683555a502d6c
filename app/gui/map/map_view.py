"""The map itself: one app's screens as cards joined by arrows, on a zoomable, draggable canvas.

`draw()` takes a `MapDrawing` made off the GUI thread (layout, arrows, pictures) and adds its items to
the scene in pieces of at most `CHUNK_MS` of GUI-thread time each, giving the event loop a turn
between pieces, so a map of hundreds of screens never freezes the window while it appears. The scene
has a fixed-depth BSP index (built as the pieces come, never rebuilt whole) and the view repaints
only the bounding rectangle of what changed. Zoomed far out, the arrows' words are hidden (unreadable
there, and costly to draw).

What the window shows over the map: the selected screen, the screen the phone shows now (an orange
frame, scrolled into view when it changes), and a past run's way, step by step.
"""

from __future__ import annotations

import asyncio
import time

from PySide6.QtCore import QPoint, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPixmap
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene, QGraphicsView, QWidget

from app.gui.theme import current_colors

from .map_data import MapDrawing
from .map_items import PATH_NOW, PATH_PASSED, MapArrow, ScreenCard, entry_lead, fonts

CHUNK_MS = 8.0
"""GUI-thread time spent adding items before the event loop gets a turn."""
LABEL_MIN_SCALE = 0.45
"""Below this zoom the arrows' words are hidden."""
SMOOTH_MIN_SCALE = 0.25
"""Below this zoom lines and pictures are drawn without smoothing."""
MIN_SCALE, MAX_SCALE = 0.04, 2.5
BSP_DEPTH = 8
MARGIN = 40.0
CLICK_SLOP = 5


class MapView(QGraphicsView):
    screen_clicked = Signal(object)          # a screen id, or None for empty space
    screen_menu = Signal(str, QPoint)        # a screen id and where (global) its menu was asked for

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.map_scene = QGraphicsScene(self)
        self.map_scene.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        self.map_scene.setBspTreeDepth(BSP_DEPTH)
        self.setScene(self.map_scene)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.BoundingRectViewportUpdate)
        self.setOptimizationFlags(QGraphicsView.OptimizationFlag.DontSavePainterState)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing
                            | QPainter.RenderHint.SmoothPixmapTransform)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setBackgroundBrush(QColor(current_colors().window))
        self.cards: dict[str, ScreenCard] = {}
        self.arrows: dict[tuple[str, str], MapArrow] = {}
        self.drawing: MapDrawing | None = None
        self.complete = False                 # every item of the drawing is on the scene
        self.selected: str | None = None
        self.current: str | None = None
        self._path_items: list = []
        self._labels_shown = True
        self._smooth = True
        self._pressed_at: QPoint | None = None

    # ------------------------------------------------------------------ drawing

    def clear_map(self) -> None:
        self.map_scene.clear()
        self.cards.clear()
        self.arrows.clear()
        self._path_items.clear()
        self.drawing, self.complete = None, False

    def _makers(self, drawing: MapDrawing) -> list:
        """One small function per item to add: cards from the entry's side first, then arrows."""
        colors = current_colors()
        name_font, label_font = fonts()
        metrics = QFontMetricsF(label_font)
        layout = drawing.layout

        def card(node):
            def make() -> None:
                image = drawing.pictures.get(node.id)
                item = ScreenCard(node, QPixmap.fromImage(image) if image is not None else None, colors, name_font)
                item.setPos(*layout.positions[node.id])
                self.map_scene.addItem(item)
                self.cards[node.id] = item
                item.set_selected(node.id == self.selected)
                item.set_smooth(self._smooth)
                item.set_current(node.id == self.current)
            return make

        def arrow(shape):
            def make() -> None:
                pair = (shape.from_id, shape.to_id)
                route = layout.routes.get(pair)
                if route is None:
                    return
                item = MapArrow(shape.from_id, shape.to_id, route, shape.words, shape.more, shape.style,
                                drawing.tooltips.get(pair, ""), colors, label_font, metrics)
                item.show_label(self._labels_shown)
                self.map_scene.addItem(item)
                self.arrows[pair] = item
            return make

        screens = sorted(drawing.screens, key=lambda node: (layout.columns[node.id], layout.rows[node.id]))
        makers = [card(node) for node in screens] + [arrow(shape) for shape in drawing.arrows]
        if layout.entry_lead:
            makers.append(lambda: self.map_scene.addItem(entry_lead(layout.entry_lead, colors, label_font)))
        return makers

    def _begin(self, drawing: MapDrawing) -> list:
        self.clear_map()
        self.drawing = drawing
        layout = drawing.layout
        self.map_scene.setSceneRect(QRectF(-MARGIN, -MARGIN, layout.width + 2 * MARGIN, layout.height + 2 * MARGIN))
        return self._makers(drawing)

    async def draw(self, drawing: MapDrawing, chunk_ms: float = CHUNK_MS) -> None:
        """Put the drawing on the scene, a piece at a time (cancel the task to stop part way)."""
        makers = self._begin(drawing)
        self._place_view_start()
        deadline = time.perf_counter() + chunk_ms / 1000
        for make in makers:
            make()
            if time.perf_counter() >= deadline:
                await asyncio.sleep(0)
                deadline = time.perf_counter() + chunk_ms / 1000
        self.complete = True
        self._finish()

    def draw_now(self, drawing: MapDrawing) -> None:
        """Put the whole drawing on the scene in one go (the benchmark's baseline)."""
        for make in self._begin(drawing):
            make()
        self._place_view_start()
        self.complete = True
        self._finish()

    def _finish(self) -> None:
        if self.current is not None and self.current in self.cards:
            self.set_current(self.current)

    def _place_view_start(self) -> None:
        """Small maps fit the view; large ones open at a readable zoom on the entry screen."""
        if self.drawing is None:
            return
        self.fit()
        if self.transform().m11() < LABEL_MIN_SCALE:
            self.set_zoom(0.6)
            entry = self.drawing.entry
            if entry is not None and entry in self.drawing.layout.positions:
                x, y = self.drawing.layout.positions[entry]
                self.centerOn(x + self.viewport().width() / 2 / 0.6 - 60, y + 150)

    # ------------------------------------------------------------------ zoom

    def zoom(self) -> float:
        return self.transform().m11()

    def set_zoom(self, scale: float) -> None:
        scale = max(MIN_SCALE, min(MAX_SCALE, scale))
        factor = scale / (self.zoom() or 1.0)
        self.scale(factor, factor)
        self._zoom_changed()

    def fit(self) -> None:
        """The whole map in view (never enlarged past its own size)."""
        rect = self.map_scene.sceneRect()
        if rect.isEmpty():
            return
        self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
        if self.zoom() > 1.0:
            self.set_zoom(1.0)
        self._zoom_changed()

    def wheelEvent(self, event) -> None:
        """The wheel zooms (with or without Ctrl) around the pointer; dragging moves the map."""
        delta = event.angleDelta().y() or event.angleDelta().x()
        if not delta:
            return super().wheelEvent(event)
        self.set_zoom(self.zoom() * 1.0015 ** delta)
        event.accept()

    def _zoom_changed(self) -> None:
        smooth = self.zoom() >= SMOOTH_MIN_SCALE      # far out, smoothing is invisible and costs most of a repaint
        if smooth != self._smooth:
            self._smooth = smooth
            self.setRenderHint(QPainter.RenderHint.Antialiasing, smooth)
            for card in self.cards.values():
                card.set_smooth(smooth)
        shown = self.zoom() >= LABEL_MIN_SCALE
        if shown != self._labels_shown:
            self._labels_shown = shown
            for item in self.arrows.values():
                item.show_label(shown)

    # ------------------------------------------------------------------ clicks

    def card_at(self, position: QPoint) -> str | None:
        item: QGraphicsItem | None = self.itemAt(position)
        while item is not None and not isinstance(item, ScreenCard):
            item = item.parentItem()
        return item.screen_id if isinstance(item, ScreenCard) else None

    def mousePressEvent(self, event) -> None:
        self._pressed_at = event.position().toPoint()
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        super().mouseReleaseEvent(event)
        pressed, self._pressed_at = self._pressed_at, None
        at = event.position().toPoint()
        if (pressed is not None and event.button() == Qt.MouseButton.LeftButton
                and (at - pressed).manhattanLength() <= CLICK_SLOP):
            self.screen_clicked.emit(self.card_at(at))

    def contextMenuEvent(self, event) -> None:
        screen = self.card_at(event.pos())
        if screen is not None:
            self.screen_clicked.emit(screen)
            self.screen_menu.emit(screen, event.globalPos())

    # ------------------------------------------------------------------ what is shown over the map

    def select(self, screen_id: str | None) -> None:
        if self.selected in self.cards:
            self.cards[self.selected].set_selected(False)
        self.selected = screen_id
        if screen_id in self.cards:
            self.cards[screen_id].set_selected(True)

    def set_current(self, screen_id: str | None, scroll: bool = True) -> None:
        """Frame the screen the phone shows now (None: none of this map's), and scroll it into view."""
        if self.current in self.cards and self.current != screen_id:
            self.cards[self.current].set_current(False)
        self.current = screen_id
        card = self.cards.get(screen_id) if screen_id is not None else None
        if card is not None:
            card.set_current(True)
            if scroll:
                self.ensureVisible(card, 60, 60)

    def show_path(self, screens: list[str | None], upto: int) -> None:
        """A run's way up to step `upto` (0: its first screen): passed screens and arrows in the accent
        colour, the latest one bold and scrolled into view. Screens not on this map are skipped."""
        self.clear_path()
        shown = screens[:upto + 1]
        for index, screen in enumerate(shown):
            state = PATH_NOW if index == len(shown) - 1 else PATH_PASSED
            if screen in self.cards:
                self.cards[screen].set_path_state(state)
                self._path_items.append(self.cards[screen])
            previous = shown[index - 1] if index else None
            if previous is not None and screen is not None:
                arrow = self.arrows.get((previous, screen))
                if arrow is not None:
                    arrow.set_path_state(state)
                    self._path_items.append(arrow)
        last = next((screen for screen in reversed(shown) if screen in self.cards), None)
        if last is not None:
            self.ensureVisible(self.cards[last], 60, 60)

    def clear_path(self) -> None:
        for item in self._path_items:
            item.set_path_state(0)
        self._path_items.clear()

    def path_arrows(self) -> list[tuple[str, str]]:
        return [(item.from_id, item.to_id) for item in self._path_items if isinstance(item, MapArrow)]
