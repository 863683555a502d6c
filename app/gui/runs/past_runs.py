"""The list of recorded runs, newest first; choosing one asks for it to be reopened."""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QAbstractItemView, QDialog, QDialogButtonBox, QHeaderView, QLabel, QStackedWidget,
                               QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)
from shiboken6 import isValid

from app.core.agent.run_words import RUN_STATUSES, run_status_word
from app.core.agent.trajectory import RunSummary, list_runs

from app.gui.runs.step_detail import CHIP_COLOUR_ROLE, ChipDelegate

PATH_ROLE = Qt.ItemDataRole.UserRole


def started_words(iso_time: str) -> str:
    """"2024-05-01 14:03" for an ISO timestamp; the text itself if it is not one."""
    try:
        return datetime.fromisoformat(iso_time).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return iso_time or "–"


class PastRunsDialog(QDialog):
    """Past runs (read in a worker thread when first shown). Double-click or "Open" emits `run_chosen`."""

    run_chosen = Signal(Path)
    STARTED, REQUEST, STATUS, STEPS = range(4)

    def __init__(self, root: Path | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setModal(False)
        self.setWindowTitle("Past runs — Agent Desk")
        self.root = root
        self.loading: asyncio.Task | None = None   # the current read of the runs folder
        self.resize(760, 460)

        self.runs = QTreeWidget()
        self.runs.setHeaderLabels(["Started", "Request", "Status", "Steps"])
        self.runs.setRootIsDecorated(False)
        self.runs.setUniformRowHeights(True)
        self.runs.setAlternatingRowColors(True)
        self.runs.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.runs.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.runs.setItemDelegateForColumn(self.STATUS, ChipDelegate(self.runs))
        header = self.runs.header()
        header.setStretchLastSection(False)
        for column, mode in ((self.STARTED, QHeaderView.ResizeMode.ResizeToContents),
                             (self.REQUEST, QHeaderView.ResizeMode.Stretch),
                             (self.STATUS, QHeaderView.ResizeMode.Fixed),
                             (self.STEPS, QHeaderView.ResizeMode.ResizeToContents)):
            header.setSectionResizeMode(column, mode)
        widest = max(self.runs.fontMetrics().horizontalAdvance(word.text) for word in RUN_STATUSES.values())
        header.resizeSection(self.STATUS, max(110, widest + 32))
        self.runs.itemActivated.connect(self._choose)
        self.runs.itemSelectionChanged.connect(self._update_open_button)

        self.message = QLabel("Loading past runs…")
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.runs)
        self.pages.addWidget(self.message)
        self.pages.setCurrentWidget(self.message)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.open_button = buttons.addButton("Open", QDialogButtonBox.ButtonRole.AcceptRole)
        self.open_button.setDefault(True)
        self.open_button.setEnabled(False)
        buttons.accepted.connect(self._open_selected)
        buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(self.pages, 1)
        layout.addWidget(buttons)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self.loading is None or self.loading.done():
            self.loading = asyncio.get_running_loop().create_task(self.reload())

    def done(self, result: int) -> None:
        if self.loading is not None:
            self.loading.cancel()
        super().done(result)

    async def reload(self) -> list[RunSummary]:
        """Read the runs folder again and fill the list."""
        self.message.setText("Loading past runs…")
        try:
            summaries = await asyncio.to_thread(list_runs, self.root)
        except OSError as exc:
            summaries, problem = [], f"The runs folder could not be read: {exc}"
        else:
            problem = "No runs yet"
        if not isValid(self):   # the dialog was deleted meanwhile
            return summaries
        self.runs.clear()
        for summary in summaries:
            self.runs.addTopLevelItem(self._item(summary))
        if summaries:
            self.runs.setCurrentItem(self.runs.topLevelItem(0))
            self.pages.setCurrentWidget(self.runs)
        else:
            self.message.setText(problem)
            self.pages.setCurrentWidget(self.message)
        self._update_open_button()
        return summaries

    def _item(self, summary: RunSummary) -> QTreeWidgetItem:
        request = " ".join(summary.request.split()) or "(no request recorded)"
        status = run_status_word(summary.status)
        item = QTreeWidgetItem([started_words(summary.started_at), request, status.text, str(summary.steps)])
        item.setData(self.STARTED, PATH_ROLE, summary.dir)
        item.setData(self.STATUS, CHIP_COLOUR_ROLE, QColor(status.colour))
        item.setToolTip(self.REQUEST, summary.request)
        item.setToolTip(self.STARTED, str(summary.dir))
        item.setTextAlignment(self.STEPS, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return item

    def _update_open_button(self) -> None:
        self.open_button.setEnabled(bool(self.runs.selectedItems()) and self.pages.currentWidget() is self.runs)

    def _open_selected(self) -> None:
        selected = self.runs.selectedItems()
        if selected:
            self._choose(selected[0])

    def _choose(self, item: QTreeWidgetItem) -> None:
        self.run_chosen.emit(Path(item.data(self.STARTED, PATH_ROLE)))
        self.accept()
