"""The run timeline: one row per step, with a thumbnail of the screen, the action, the decision and the outcome."""

from __future__ import annotations

import asyncio
import dataclasses
import html
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QFileSystemWatcher, QModelIndex, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSizePolicy,
    QStyle,
    QTableView,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from app.core.agent.records import RunResult, StepRecord
from app.core.agent.run_words import DECISIONS, capitalised, counted, ending_words, run_status_word
from app.core.agent.step_reviews import ReviewedStep, load_reviewed_run
from app.core.agent.trajectory import REPORT_FILE, LoadedRun
from app.core.providers import Pricing, cost_words, pricing_from_record
from app.gui.runs.open_in_desktop import NotOpenedDialog, open_in_desktop
from app.gui.runs.past_runs import PastRunsDialog
from app.gui.runs.step_detail import ChipDelegate, StepDetailDialog, format_ms
from app.gui.runs.timeline_columns import ColumnFitter
from app.gui.runs.timeline_model import StepTableModel, ThumbnailCache

THUMBNAIL_BOX = QSize(40, 80)      # a phone screen shrunk to fit this box


class ElidedLabel(QLabel):
    """A one-line label that shortens its text with "…" instead of growing the window."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.full_text = ""
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def set_full_text(self, text: str) -> None:
        self.full_text = text
        self.setToolTip(text)
        self._elide()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        one_line = " ".join(self.full_text.split())
        self.setText(self.fontMetrics().elidedText(one_line, Qt.TextElideMode.ElideRight, max(0, self.width())))


class TimelinePanel(QWidget):
    """The steps of the current (or a reopened) run, newest at the bottom; activating a row opens its detail."""

    step_activated = Signal(object)   # the StepRecord
    replay_requested = Signal(Path)   # the past runs list's Replay: the run folder to do again
    rerun_requested = Signal(str, bool)   # the past runs list's Run again: the request, whether skills may be used

    def __init__(self, parent: QWidget | None = None, *, runs_root: Path | None = None):
        super().__init__(parent)
        self.runs_root = runs_root
        self.run_dir: Path | None = None
        self.detail_dialog: StepDetailDialog | None = None
        self.not_opened: NotOpenedDialog | None = None     # where a report is, when no program opened it
        self.past_runs_dialog: PastRunsDialog | None = None
        self.run_going = False        # a run is going: the past runs list cannot replay one now
        self.use_skills_default: Callable[[], bool] = lambda: True   # Run again's first choice (the settings')
        self._generation = 0          # bumped whenever the shown run changes; stale loads are dropped
        self.run_going_shown = False  # the rows came in live (the newest is kept in view)
        self._tasks: set[asyncio.Task] = set()

        self.thumbnails = ThumbnailCache(THUMBNAIL_BOX, self)
        self.model = StepTableModel(self.thumbnails, self)
        self.view = QTableView()
        self.view.setAccessibleName("Steps of the run")
        self.view.setModel(self.model)
        self._set_up_view()
        self.view.activated.connect(self._activate)

        self.title = ElidedLabel()
        font = self.title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.1)
        self.title.setFont(font)
        style = self.style()
        self.folder_button = QPushButton(style.standardIcon(QStyle.StandardPixmap.SP_DirOpenIcon), "Open run folder")
        self.report_button = QPushButton(style.standardIcon(QStyle.StandardPixmap.SP_FileIcon), "Open report")
        self.past_runs_button = QPushButton(style.standardIcon(QStyle.StandardPixmap.SP_FileDialogContentsView),
                                            "Past runs…")
        self.folder_button.clicked.connect(lambda: self._open_in_desktop())
        self.report_button.clicked.connect(lambda: self._open_in_desktop(REPORT_FILE))
        self.past_runs_button.clicked.connect(self.show_past_runs)
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.RichText)
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._watcher = QFileSystemWatcher(self)
        self._watcher.directoryChanged.connect(self._update_buttons)

        # the request on a line of its own: beside the three buttons a narrow pane left it one letter ("R…")
        buttons = QHBoxLayout()
        for button in (self.folder_button, self.report_button, self.past_runs_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        layout.addWidget(self.view, 1)
        self.clear()

    # ------------------------------------------------------------------ public API
    def clear(self) -> None:
        """No run shown."""
        self._show_run(None, "")
        self._set_status("No run yet. Type a request to start one, or open a past run.", muted=True)

    def start_run(self, run_dir: Path, request: str, pricing: Pricing | None = None) -> None:
        """A new run begins: empty timeline, its request as the title; costs in `pricing`'s words."""
        self.model.pricing = pricing
        self._show_run(Path(run_dir), request)
        self._set_status("Running…", muted=True)
        if self.past_runs_dialog is not None and self.run_going:   # the run going is not deleted from the list
            self.past_runs_dialog.set_run_going(True, self.run_dir)

    def add_step(self, item: StepRecord | dict[str, Any]) -> None:
        """A step finished: append its row and scroll to it (a dict is read as the run folder's lines are)."""
        if isinstance(item, StepRecord):
            step = dataclasses.replace(item)
        else:
            reviewed = isinstance(item, dict) and ("reviews" in item or "questions" in item)
            step = (ReviewedStep if reviewed else StepRecord).from_dict(item)
        self.model.append(step)
        self.run_going_shown = True
        self._scroll_to_newest()
        if self.detail_dialog is not None:
            self.detail_dialog.refresh_navigation()

    def finish_run(self, result: RunResult | dict[str, Any]) -> None:
        """The run ended: show how, and why."""
        if not isinstance(result, RunResult):
            result = RunResult.from_dict(result)
        reasons = [text for text in (result.completion_reason, result.error, ending_words(result)) if text]
        reason = " — ".join(dict.fromkeys(reasons))   # both when they differ
        facts = [counted(result.steps_taken, "step"), format_ms(result.time_seconds * 1000)]
        tokens = sum(result.tokens.values())
        if tokens:
            facts.append(f"{tokens:,} tokens" + (" (estimated)" if result.tokens_estimated else ""))
        if result.cost_usd or self.model.pricing is not None:
            facts.append(cost_words(result.cost_usd, self.model.pricing))
        status = run_status_word(result.status)
        chip = (f'<span style="background:{status.colour}; color:white">'
                f'&nbsp;{html.escape(capitalised(status.text))}&nbsp;</span>')
        text = chip + (f"&nbsp; {html.escape(reason)}" if reason else "")
        muted = self.palette().color(QPalette.ColorRole.PlaceholderText).name()
        self.status.setText(f'{text}&nbsp; <span style="color:{muted}">{html.escape(" · ".join(facts))}</span>')
        self._update_buttons()
        if self.run_going_shown:
            # the longer status line takes height from the rows: keep the last step in view (and painted)
            QTimer.singleShot(0, self, self._scroll_to_newest)

    async def load_run(self, run_dir: Path) -> LoadedRun:
        """Reopen a recorded run: read it in a worker thread, then fill the rows."""
        self._generation += 1
        generation = self._generation
        record = await asyncio.to_thread(load_reviewed_run, run_dir)
        if not isValid(self) or generation != self._generation:   # closed, or another run shown meanwhile
            return record
        self.model.pricing = pricing_from_record(record.run.settings)
        self._show_run(record.run_dir, record.run.request, record.steps)
        if record.run.result is not None:
            self.finish_run(record.run.result)
        else:
            self._set_status("This run did not finish: it stopped before recording a result.", muted=True)
        if record.problems:
            self.status.setText(self.status.text() + "<br>" + "<br>".join(html.escape(p) for p in record.problems))
        return record

    def show_past_runs(self) -> None:
        """Open the list of past runs; choosing one reopens it here."""
        if self.past_runs_dialog is None:
            self.past_runs_dialog = PastRunsDialog(self.runs_root, self)
            self.past_runs_dialog.run_chosen.connect(self._reopen)
            self.past_runs_dialog.replay_requested.connect(self.replay_requested)
            self.past_runs_dialog.rerun_requested.connect(self.rerun_requested)
            self.past_runs_dialog.run_deleted.connect(self._run_deleted)
            self.past_runs_dialog.set_run_going(self.run_going, self.run_dir)
        self.past_runs_dialog.use_skills_default = self.use_skills_default()
        self.past_runs_dialog.show()
        self.past_runs_dialog.raise_()

    def set_run_going(self, going: bool) -> None:
        """Whether a run is going (the past runs list's Replay waits until it has ended)."""
        self.run_going = going
        if self.past_runs_dialog is not None:
            self.past_runs_dialog.set_run_going(going, self.run_dir)

    def open_step_detail(self, step: StepRecord) -> StepDetailDialog:
        """Show the step in the (single) step detail window."""
        if self.run_dir is None:
            raise RuntimeError("a step's details need its run's folder, and no run is shown")
        if self.detail_dialog is None:
            self.detail_dialog = StepDetailDialog(self.run_dir, step, self, steps=self.model.steps,
                                                  pricing=lambda: self.model.pricing)
        else:
            self.detail_dialog.show_step(step)
        self.detail_dialog.show()
        self.detail_dialog.raise_()
        return self.detail_dialog

    # ------------------------------------------------------------------ internals
    def _show_run(self, run_dir: Path | None, request: str, steps: Sequence[StepRecord] = ()) -> None:
        self._generation += 1
        self.run_going_shown = False
        if self.detail_dialog is not None:
            self.detail_dialog.close()
            self.detail_dialog.deleteLater()
            self.detail_dialog = None
        if self._watcher.directories():
            self._watcher.removePaths(self._watcher.directories())
        self.run_dir = run_dir
        if run_dir is not None:
            self._watcher.addPath(str(run_dir))
        self.title.set_full_text(request or ("Run timeline" if run_dir is None else "(no request recorded)"))
        self.model.set_steps(run_dir, list(steps))
        self._update_buttons()

    def _update_buttons(self) -> None:
        """Run folder and report buttons follow what exists (the report appears when the run ends)."""
        self.folder_button.setEnabled(self.run_dir is not None)
        self.report_button.setEnabled(self.run_dir is not None and (self.run_dir / REPORT_FILE).is_file())

    def _open_in_desktop(self, name: str = "") -> None:
        """Open the run folder, or the file `name` in it, with the desktop's default application; when
        none starts, a window says where it is and copies the path."""
        if self.run_dir is not None:
            what = "the report" if name == REPORT_FILE else "the run folder" if not name else name
            self.not_opened = open_in_desktop(self.run_dir / name if name else self.run_dir, what, self)

    def _set_status(self, text: str, *, muted: bool = False) -> None:
        colour = self.palette().color(QPalette.ColorRole.PlaceholderText).name()
        self.status.setText(f'<span style="color:{colour}">{html.escape(text)}</span>' if muted else html.escape(text))

    def _activate(self, index: QModelIndex) -> None:
        if index.isValid():
            step = self.model.row_of(index).step   # the record itself (a rejected proposal's row: its step)
            self.step_activated.emit(step)
            self.open_step_detail(step)

    def _scroll_to_newest(self) -> None:
        if isValid(self) and self.model.rowCount():
            self.view.scrollTo(self.model.index(self.model.rowCount() - 1, 0))

    def _run_deleted(self, run_dir: Path) -> None:
        """A past run was deleted: if it is the one shown, the timeline no longer shows it."""
        if self.run_dir is not None and Path(run_dir) == self.run_dir and not self.run_going:
            self.clear()

    def _reopen(self, run_dir: Path) -> None:
        task = asyncio.get_running_loop().create_task(self.load_run(run_dir))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _set_up_view(self) -> None:
        view = self.view
        view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        view.setAlternatingRowColors(True)
        view.setShowGrid(False)
        view.setWordWrap(True)
        view.setIconSize(THUMBNAIL_BOX)
        view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        view.verticalHeader().hide()
        view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        view.verticalHeader().setDefaultSectionSize(THUMBNAIL_BOX.height() + 10)
        view.setItemDelegateForColumn(StepTableModel.DECISION, ChipDelegate(view))
        header = view.horizontalHeader()
        header.setHighlightSections(False)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        mode = QHeaderView.ResizeMode   # per column: thumbnail, step, action, decision, result, time, tokens
        # The action takes the room there is; decision (a chip, then a note) and result start narrow,
        # elide, and can be widened by hand.
        for column, column_mode in enumerate((mode.Fixed, mode.ResizeToContents, mode.Stretch, mode.Interactive,
                                              mode.Interactive, mode.ResizeToContents, mode.ResizeToContents)):
            header.setSectionResizeMode(column, column_mode)
        header.resizeSection(StepTableModel.THUMBNAIL, THUMBNAIL_BOX.width() + 16)
        chip_width = max(view.fontMetrics().horizontalAdvance(word.text) for word in DECISIONS.values()) + 32
        # room for the chip and the start of who decided ("by you: <reason>"); the whole note is in the tooltip
        note_width = max(view.fontMetrics().horizontalAdvance(note)
                         for note in ("by you: a reason", "you took over")) + 8
        header.resizeSection(StepTableModel.DECISION, chip_width + note_width)
        self.column_fitter = ColumnFitter(view, chip_width, note_width)     # narrower in a narrow pane
        header.resizeSection(StepTableModel.RESULT, view.fontMetrics().horizontalAdvance("not executed") + 16)
