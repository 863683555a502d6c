"""The timeline's table model: a row per recorded step, a row before it for each proposal of that step the
person rejected, and the step thumbnails, decoded off the GUI thread.

A thumbnail that cannot be read yet is asked for again a few times (never kept as "none" on the first
miss), and a step that has no picture shows a crossed-out card, not the grey "loading" one.
"""

from __future__ import annotations

import asyncio
import functools
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPointF,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QColor, QGuiApplication, QPainter, QPalette, QPen, QPixmap
from shiboken6 import isValid

from app.core.agent.history_words import question_words, questions_of, rejected_reviews, review_words
from app.core.agent.records import StepRecord
from app.core.agent.run_words import NOT_EXECUTED, action_words
from app.core.agent.step_reviews import ProposalReview
from app.core.agent.trajectory import step_file
from app.core.providers import Pricing, cost_words
from app.gui.runs.step_detail import (
    CHIP_COLOUR_ROLE,
    CHIP_NOTE_ROLE,
    decision_chip,
    error_colour,
    format_ms,
    read_scaled_image,
    result_text,
    review_chip,
    step_action_text,
    step_duration_ms,
    token_counts,
)

ROOT = QModelIndex()                # the table's invisible root: the default `parent` argument
THUMBNAILS_KEPT = 500
THUMBNAILS_AT_ONCE = 2             # decoding threads used at a time, so phone and model calls keep theirs
MISS_RETRY_SECONDS = (0.25, 0.5, 1.0, 2.0)
"""A picture that could not be read is asked for again after each of these waits, then shown as missing."""
EARLY_ASKS = 20
"""Repaints asked for, per thumbnail, while no event loop runs yet (each 50 ms apart)."""


def _card(box: QSize) -> tuple[QPixmap, QPainter]:
    pixmap = QPixmap(box.width() - 4, box.height())
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    return pixmap, painter


def placeholder_pixmap(box: QSize) -> QPixmap:
    """A grey phone-shaped card, shown while a thumbnail loads."""
    pixmap, painter = _card(box)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QGuiApplication.palette().color(QPalette.ColorRole.Mid))
    painter.drawRoundedRect(pixmap.rect(), 4, 4)
    painter.end()
    return pixmap


def missing_pixmap(box: QSize) -> QPixmap:
    """An outlined, crossed-out card: this step has no picture (none was saved, or it cannot be read)."""
    pixmap, painter = _card(box)
    colour = QGuiApplication.palette().color(QPalette.ColorRole.PlaceholderText)
    painter.setPen(QPen(colour, 1.5, Qt.PenStyle.DashLine))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRoundedRect(pixmap.rect().adjusted(1, 1, -1, -1), 4, 4)
    painter.setPen(QPen(colour, 1.5))
    middle, half = QPointF(pixmap.width() / 2, pixmap.height() / 2), min(pixmap.width(), pixmap.height()) / 4
    painter.drawLine(middle + QPointF(-half, -half), middle + QPointF(half, half))
    painter.drawLine(middle + QPointF(-half, half), middle + QPointF(half, -half))
    painter.end()
    return pixmap


class ThumbnailCache(QObject):
    """Step thumbnails, decoded in worker threads when first asked for and kept (least recently used go first)."""

    ready = Signal(str)   # the key of a thumbnail that finished loading

    def __init__(self, box: QSize, parent: QObject | None = None):
        super().__init__(parent)
        self.box = box
        self.placeholder = placeholder_pixmap(box)
        self.missing = missing_pixmap(box)
        self._pixmaps: OrderedDict[str, QPixmap | None] = OrderedDict()   # None: there is no readable image
        self.loading: dict[str, asyncio.Future] = {}           # decoding in a worker thread now
        self._queued: OrderedDict[str, list[Path]] = OrderedDict()   # waiting for a free decoding slot
        self._misses: dict[str, int] = {}                      # reads that found no picture yet, per key
        self._retries: dict[str, asyncio.TimerHandle] = {}     # the next read of a picture not there yet
        self._early_asks: dict[str, int] = {}                  # repaints asked for before the loop ran
        self._loop: asyncio.AbstractEventLoop | None = None

    def get(self, paths: list[Path]) -> QPixmap | None:
        """The thumbnail for the first readable of `paths`, or None until it has loaded (it starts loading)
        or when there is none (`is_missing`)."""
        if not paths:
            return None
        key = str(paths[0])
        if key in self._pixmaps:
            self._pixmaps.move_to_end(key)
            return self._pixmaps[key]
        if self._loop is None:
            try:
                self._loop = asyncio.get_running_loop()
            except RuntimeError:   # painted while asyncio does not count the loop as running: ask again soon
                self._ask_again_soon(key)
                return None
        if key not in self.loading and key not in self._queued and key not in self._retries:
            self._queued[key] = paths
            self._start_loads()
        return None

    def _ask_again_soon(self, key: str) -> None:
        """Have the rows showing `key` painted again shortly (then the loop runs), so a thumbnail first asked
        for outside the running loop is not left grey until something else repaints its row."""
        tries = self._early_asks.get(key, 0)
        if tries < EARLY_ASKS:
            self._early_asks[key] = tries + 1
            QTimer.singleShot(50, self, lambda: self.ready.emit(key))

    def is_loaded(self, paths: list[Path]) -> bool:
        return bool(paths) and str(paths[0]) in self._pixmaps

    def is_missing(self, paths: list[Path]) -> bool:
        """No picture to show: none named, or none readable after every retry."""
        return not paths or (str(paths[0]) in self._pixmaps and self._pixmaps[str(paths[0])] is None)

    def forget_missing(self, paths: list[Path]) -> None:
        """Ask again for a picture found missing before (its step has just been recorded)."""
        if paths and str(paths[0]) in self._pixmaps and self._pixmaps[str(paths[0])] is None:
            del self._pixmaps[str(paths[0])]
            self._misses.pop(str(paths[0]), None)

    def cancel(self) -> None:
        """Forget the queued loads and cancel those not yet started (the timeline is closing)."""
        self._queued.clear()
        for handle in self._retries.values():
            handle.cancel()
        self._retries.clear()
        for future in self.loading.values():
            future.cancel()

    def _start_loads(self) -> None:
        # Executor futures with done-callbacks rather than tasks: Qt may deliver a callback while
        # asyncio does not count the loop as running (a nested event-processing call), and a
        # callback, unlike a task's step, does not need a running loop.
        while self._queued and len(self.loading) < THUMBNAILS_AT_ONCE:
            key, paths = self._queued.popitem(last=False)
            future = self._running_loop().run_in_executor(None, read_scaled_image, paths, self.box)
            self.loading[key] = future
            future.add_done_callback(functools.partial(self._loaded, key, paths))

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        """The loop `get` found: nothing is queued or retried before it has."""
        if self._loop is None:
            raise RuntimeError("a thumbnail load started before get() found the event loop")
        return self._loop

    def _loaded(self, key: str, paths: list[Path], future: asyncio.Future) -> None:
        self.loading.pop(key, None)
        if not isValid(self) or future.cancelled():   # the timeline was closed meanwhile
            return
        error = future.exception()
        image = None if error is not None else future.result()
        misses = self._misses.get(key, 0)
        if image is None and misses < len(MISS_RETRY_SECONDS):
            # Not there (yet): a picture is never given up on at the first read, so a step shown a moment
            # before its picture is readable still gets it.
            self._misses[key] = misses + 1
            self._retries[key] = self._running_loop().call_later(MISS_RETRY_SECONDS[misses], self._retry, key, paths)
            self._start_loads()
            return
        self._misses.pop(key, None)
        self._pixmaps[key] = QPixmap.fromImage(image) if image is not None else None
        while len(self._pixmaps) > THUMBNAILS_KEPT:
            self._pixmaps.popitem(last=False)
        self._start_loads()
        self.ready.emit(key)

    def _retry(self, key: str, paths: list[Path]) -> None:
        self._retries.pop(key, None)
        if isValid(self) and key not in self._pixmaps and key not in self.loading:
            self._queued[key] = paths
            self._start_loads()


@dataclass(frozen=True)
class Row:
    """One row of the timeline: a step, or (`review` set) a proposal of that step the person rejected."""

    step: StepRecord
    review: ProposalReview | None = None


def rows_of(step: StepRecord) -> list[Row]:
    """A step's rows: each rejected proposal, in order, then the step itself."""
    return [Row(step, review) for review in rejected_reviews(step)] + [Row(step)]


class StepTableModel(QAbstractTableModel):
    """The steps of one run (typed `StepRecord`s) as table rows, rejected proposals included."""

    COLUMNS = ("", "#", "Action", "Decision", "Result", "Time", "Tokens")
    THUMBNAIL, NUMBER, ACTION, DECISION, RESULT, TIME, TOKENS = range(7)

    def __init__(self, thumbnails: ThumbnailCache, parent: QObject | None = None):
        super().__init__(parent)
        self.thumbnails = thumbnails
        self.run_dir: Path | None = None
        self.steps: list[StepRecord] = []
        self.rows: list[Row] = []
        self.pricing: Pricing | None = None     # how the shown run's costs are worded (None: in dollars)
        thumbnails.ready.connect(self._thumbnail_ready)

    def set_steps(self, run_dir: Path | None, steps: list[StepRecord]) -> None:
        self.beginResetModel()
        self.run_dir = run_dir
        self.steps[:] = steps   # the same list object: an open step detail follows it
        self.rows = [row for step in steps for row in rows_of(step)]
        self.endResetModel()

    def append(self, step: StepRecord) -> None:
        added = rows_of(step)
        self.thumbnails.forget_missing(self.thumbnail_paths(step))
        self.beginInsertRows(QModelIndex(), len(self.rows), len(self.rows) + len(added) - 1)
        self.steps.append(step)
        self.rows += added
        self.endInsertRows()

    def row_of(self, index: QModelIndex) -> Row:
        return self.rows[index.row()]

    def thumbnail_paths(self, step: StepRecord) -> list[Path]:
        """The annotated screenshot, then the clean one."""
        if self.run_dir is None:
            return []
        paths = (step_file(self.run_dir, name) for name in (step.annotated_screenshot, step.screenshot))
        return [path for path in paths if path is not None]

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = ROOT) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = ROOT) -> int:
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row, column = self.rows[index.row()], index.column()
        step = row.step
        if role == Qt.ItemDataRole.DecorationRole and column == self.THUMBNAIL:
            return self._thumbnail(step)
        if row.review is not None:
            return self._rejected_data(step, row.review, column, role)
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

    def _thumbnail(self, step: StepRecord):
        paths = self.thumbnail_paths(step)
        pixmap = self.thumbnails.get(paths)
        if pixmap is not None:
            return pixmap
        return self.thumbnails.missing if self.thumbnails.is_missing(paths) else self.thumbnails.placeholder

    def _rejected_data(self, step: StepRecord, review: ProposalReview, column: int, role: int):
        """A rejected proposal's row: what was proposed, who turned it down and why; it was not done."""
        if role == Qt.ItemDataRole.DisplayRole:
            if column == self.NUMBER:
                return str(step.step)
            if column == self.ACTION:
                return review.action_text or action_words(review.action) or "a proposal"
            if column == self.DECISION:
                return review_chip(review)[0]
            if column == self.RESULT:
                return NOT_EXECUTED
            return "" if column in (self.TIME, self.TOKENS) else None
        if role == Qt.ItemDataRole.ToolTipRole and column in (self.THUMBNAIL, self.ACTION, self.DECISION):
            return f"Proposed by {review.proposed_by} at step {step.step}; {review_words(review)}"
        if role == Qt.ItemDataRole.ForegroundRole and column in (self.NUMBER, self.ACTION, self.RESULT):
            return QGuiApplication.palette().color(QPalette.ColorRole.PlaceholderText)
        if role == Qt.ItemDataRole.TextAlignmentRole and column == self.NUMBER:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == CHIP_COLOUR_ROLE and column == self.DECISION:
            return QColor(review_chip(review)[1])
        if role == CHIP_NOTE_ROLE and column == self.DECISION:
            return review_chip(review)[2]
        return None

    def _text(self, step: StepRecord, column: int) -> str | None:
        if column == self.NUMBER:
            return str(step.step)
        if column == self.ACTION:
            return step_action_text(step)
        if column == self.DECISION:
            return decision_chip(step)[0]
        if column == self.RESULT:
            answered = [question for question in questions_of(step) if question.answered]
            if answered and not result_text(step)[1]:
                return f"you answered: {answered[-1].answer}"
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
            lines = [result_text(step)[0], step.error] + [question_words(q) for q in questions_of(step)]
            return "\n".join(filter(None, lines))
        if column == self.TOKENS:
            prompt, completion = token_counts(step)
            return f"{prompt:,} prompt + {completion:,} completion · {cost_words(step.cost_usd, self.pricing)}"
        return None

    def _thumbnail_ready(self, key: str) -> None:
        for row, entry in enumerate(self.rows):
            paths = self.thumbnail_paths(entry.step)
            if paths and str(paths[0]) == key:
                index = self.index(row, self.THUMBNAIL)
                self.dataChanged.emit(index, index, [Qt.ItemDataRole.DecorationRole])
