"""The timeline's table model: a row per recorded step, and the step thumbnails, decoded off the GUI thread."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from pathlib import Path

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QSize, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPainter, QPalette, QPixmap
from shiboken6 import isValid

from app.core.agent.records import StepRecord
from app.core.agent.trajectory import step_file
from app.core.providers import Pricing, cost_words

from app.gui.runs.step_detail import (CHIP_COLOUR_ROLE, CHIP_NOTE_ROLE, decision_chip, error_colour, format_ms, read_scaled_image,
                          result_text, step_action_text, step_duration_ms, token_counts)

THUMBNAILS_KEPT = 500
THUMBNAILS_AT_ONCE = 2             # decoding threads used at a time, so phone and model calls keep theirs


def placeholder_pixmap(box: QSize) -> QPixmap:
    """A grey phone-shaped card, shown until a thumbnail has loaded (or when there is none)."""
    pixmap = QPixmap(box.width() - 4, box.height())
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QGuiApplication.palette().color(QPalette.ColorRole.Mid))
    painter.drawRoundedRect(pixmap.rect(), 4, 4)
    painter.end()
    return pixmap


class ThumbnailCache(QObject):
    """Step thumbnails, decoded in worker threads when first asked for and kept (least recently used go first)."""

    ready = Signal(str)   # the key of a thumbnail that finished loading

    def __init__(self, box: QSize, parent: QObject | None = None):
        super().__init__(parent)
        self.box = box
        self.placeholder = placeholder_pixmap(box)
        self._pixmaps: OrderedDict[str, QPixmap | None] = OrderedDict()   # None: there is no readable image
        self.loading: dict[str, asyncio.Future] = {}           # decoding in a worker thread now
        self._queued: OrderedDict[str, list[Path]] = OrderedDict()   # waiting for a free decoding slot
        self._loop: asyncio.AbstractEventLoop | None = None

    def get(self, paths: list[Path]) -> QPixmap | None:
        """The thumbnail for the first readable of `paths`, or None until it has loaded (it starts loading)."""
        if not paths:
            return None
        key = str(paths[0])
        if key in self._pixmaps:
            self._pixmaps.move_to_end(key)
            return self._pixmaps[key]
        if self._loop is None:
            try:
                self._loop = asyncio.get_running_loop()
            except RuntimeError:   # no event loop yet: asked again on the next paint
                return None
        if key not in self.loading and key not in self._queued:
            self._queued[key] = paths
            self._start_loads()
        return None

    def is_loaded(self, paths: list[Path]) -> bool:
        return bool(paths) and str(paths[0]) in self._pixmaps

    def cancel(self) -> None:
        """Forget the queued loads and cancel those not yet started (the timeline is closing)."""
        self._queued.clear()
        for future in self.loading.values():
            future.cancel()

    def _start_loads(self) -> None:
        # Executor futures with done-callbacks rather than tasks: Qt may deliver a callback while
        # asyncio does not count the loop as running (a nested event-processing call), and a
        # callback, unlike a task's step, does not need a running loop.
        while self._queued and len(self.loading) < THUMBNAILS_AT_ONCE:
            key, paths = self._queued.popitem(last=False)
            future = self._loop.run_in_executor(None, read_scaled_image, paths, self.box)
            self.loading[key] = future
            future.add_done_callback(lambda done, key=key: self._loaded(key, done))

    def _loaded(self, key: str, future: asyncio.Future) -> None:
        self.loading.pop(key, None)
        if not isValid(self) or future.cancelled():   # the timeline was closed meanwhile
            return
        error = future.exception()
        image = None if error is not None else future.result()
        self._pixmaps[key] = QPixmap.fromImage(image) if image is not None else None
        while len(self._pixmaps) > THUMBNAILS_KEPT:
            self._pixmaps.popitem(last=False)
        self._start_loads()
        self.ready.emit(key)


class StepTableModel(QAbstractTableModel):
    """The steps of one run (typed `StepRecord`s) as table rows."""

    COLUMNS = ("", "#", "Action", "Decision", "Result", "Time", "Tokens")
    THUMBNAIL, NUMBER, ACTION, DECISION, RESULT, TIME, TOKENS = range(7)

    def __init__(self, thumbnails: ThumbnailCache, parent: QObject | None = None):
        super().__init__(parent)
        self.thumbnails = thumbnails
        self.run_dir: Path | None = None
        self.steps: list[StepRecord] = []
        self.pricing: Pricing | None = None     # how the shown run's costs are worded (None: in dollars)
        thumbnails.ready.connect(self._thumbnail_ready)

    def set_steps(self, run_dir: Path | None, steps: list[StepRecord]) -> None:
        self.beginResetModel()
        self.run_dir = run_dir
        self.steps[:] = steps   # the same list object: an open step detail follows it
        self.endResetModel()

    def append(self, step: StepRecord) -> None:
        self.beginInsertRows(QModelIndex(), len(self.steps), len(self.steps))
        self.steps.append(step)
        self.endInsertRows()

    def thumbnail_paths(self, step: StepRecord) -> list[Path]:
        """The annotated screenshot, then the clean one."""
        if self.run_dir is None:
            return []
        paths = (step_file(self.run_dir, name) for name in (step.annotated_screenshot, step.screenshot))
        return [path for path in paths if path is not None]

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.steps)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section]
        return None

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        step, column = self.steps[index.row()], index.column()
        if role == Qt.ItemDataRole.DecorationRole and column == self.THUMBNAIL:
            return self.thumbnails.get(self.thumbnail_paths(step)) or self.thumbnails.placeholder
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(step, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(step, column)
        if role == Qt.ItemDataRole.ForegroundRole and column == self.RESULT and result_text(step)[1]:
            return error_colour(QGuiApplication.palette())
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (self.NUMBER, self.TIME, self.TOKENS):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == CHIP_COLOUR_ROLE and column == self.DECISION:
            return QColor(decision_chip(step)[1])
        if role == CHIP_NOTE_ROLE and column == self.DECISION:
            return decision_chip(step)[2]
        return None

    def _text(self, step: StepRecord, column: int) -> str | None:
        if column == self.NUMBER:
            return str(step.step)
        if column == self.ACTION:
            return step_action_text(step)
        if column == self.DECISION:
            return decision_chip(step)[0]
        if column == self.RESULT:
            return result_text(step)[0]
        if column == self.TIME:
            return format_ms(step_duration_ms(step))
        if column == self.TOKENS:
            total = sum(token_counts(step))
            return f"{total:,}" if total else "–"
        return None

    def _tooltip(self, step: StepRecord, column: int) -> str | None:
        if column in (self.THUMBNAIL, self.ACTION) and step.thought:
            return f"Thought: {step.thought}"
        if column == self.DECISION:
            chip, _, note = decision_chip(step)
            return f"{chip}: {note}" if note else None
        if column == self.RESULT:
            return "\n".join(filter(None, [result_text(step)[0], step.error]))
        if column == self.TOKENS:
            prompt, completion = token_counts(step)
            return f"{prompt:,} prompt + {completion:,} completion · {cost_words(step.cost_usd, self.pricing)}"
        return None

    def _thumbnail_ready(self, key: str) -> None:
        for row, step in enumerate(self.steps):
            paths = self.thumbnail_paths(step)
            if paths and str(paths[0]) == key:
                index = self.index(row, self.THUMBNAIL)
                self.dataChanged.emit(index, index, [Qt.ItemDataRole.DecorationRole])
