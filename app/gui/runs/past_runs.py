"""The list of recorded runs, newest first, searchable by request and filtered by result: reopen one, replay it,
run its request again with the model, save it as a skill, export it as a script, or delete it."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Coroutine
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHeaderView,
    QLabel,
    QMessageBox,
    QStackedWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from app.core.agent.run_words import RUN_STATUSES, run_status_word
from app.core.agent.trajectory import RunSummary, list_runs
from app.core.learning.skill_store import SkillStore
from app.core.learning.skills import SkillError, SkillExists
from app.gui.dialogs import LoadingDialog, run_dialog
from app.gui.runs.past_run_actions import (
    EXPORT_FILTERS,
    NotDeletable,
    NotReplayable,
    delete_run,
    export_run,
    export_target,
    move_to_trash,
    read_script,
    save_as_skill,
)
from app.gui.runs.past_runs_filter import (
    RerunDialog,
    RunFilterBar,
    phone_words,
    run_matches,
    serials_of_several_phones,
)
from app.gui.runs.step_detail import CHIP_COLOUR_ROLE, ChipDelegate
from app.gui.skills.skill_actions import ask_text
from app.gui.theme import set_tone

PATH_ROLE = Qt.ItemDataRole.UserRole
REQUEST_ROLE = Qt.ItemDataRole.UserRole + 1
STATUS_ROLE = Qt.ItemDataRole.UserRole + 2
SKILLS_MENU = "File\u00a0→\u00a0Skills…"     # never broken across two lines
RUN_GOING_TIP = "A run is going: a past run can be replayed or run again when it has ended."
RERUN_TIP = "Start a new run of this request: the model decides each step afresh (Replay repeats the recorded steps)."
LIVE_RUN_TIP = "This run is going now: it can be deleted when it has ended."
REPLAY_TIP = "Do this run's steps again on the current phone, in the request panel's mode (no model needed)."


def started_words(iso_time: str) -> str:
    """"2024-05-01 14:03" for an ISO timestamp; the text itself if it is not one."""
    try:
        return datetime.fromisoformat(iso_time).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return iso_time or "–"


def file_stem(text: str) -> str:
    """A file name for a request: lower-case words joined by '-' ("run" when nothing is left)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:50].rstrip("-") or "run"


class PastRunsDialog(LoadingDialog):
    """Past runs (read in a worker thread when first shown), narrowed by the search box and the result
    choice. Double-click or "Open" emits `run_chosen`; "Replay" checks that the run has steps to do again,
    then emits `replay_requested`; "Run again…" asks whether stored skills may be used and emits
    `rerun_requested`; "Save as skill…" and "Export…" ask for a name or a file and write it in a worker
    thread; "Delete…" asks first, then moves the folder to the trash (or deletes it where there is none)
    and emits `run_deleted`. What went wrong is said in the dialog's notice line."""

    run_chosen = Signal(Path)
    replay_requested = Signal(Path)
    rerun_requested = Signal(str, bool)     # the request, whether stored skills may be used
    run_deleted = Signal(Path)
    STARTED, REQUEST, PHONE, STATUS, STEPS = range(5)

    def __init__(self, root: Path | None = None, parent: QWidget | None = None, *,
                 skills: SkillStore | None = None):
        super().__init__(parent)
        self.setModal(False)
        self.setWindowTitle("Past runs — Agent Desk")
        self.root = root
        self.skills = skills             # None: the data folder's skills (read when saving)
        self.loading: asyncio.Task | None = None   # the current read of the runs folder
        self.actions_under_way: set[asyncio.Task] = set()    # replay checks, saves and exports
        self.run_going = False
        self.live_run_dir: Path | None = None   # the run going now: it is not deleted under its recorder
        self.use_skills_default = True           # the Run again dialog's choice at first (the settings')
        self.trash = move_to_trash               # where a deleted run goes (tests put a fake here)
        self.resize(900, 520)

        self.filter = RunFilterBar()
        self.filter.changed.connect(self._apply_filter)

        self.runs = QTreeWidget()
        self.runs.setHeaderLabels(["Started", "Request", "Phone", "Status", "Steps"])
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
                             (self.PHONE, QHeaderView.ResizeMode.ResizeToContents),
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

        self.notice = QLabel()
        self.notice.setWordWrap(True)
        self.notice.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notice.hide()

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.open_button = buttons.addButton("Open", QDialogButtonBox.ButtonRole.AcceptRole)
        self.open_button.setDefault(True)
        self.open_button.setToolTip("Show this run's steps in the timeline.")
        self.replay_button = buttons.addButton("Replay", QDialogButtonBox.ButtonRole.ActionRole)
        self.skill_button = buttons.addButton("Save as skill…", QDialogButtonBox.ButtonRole.ActionRole)
        self.skill_button.setToolTip("Keep this run's steps under a name; a later request that fits it "
                                     "replays them instead of asking the model.")
        self.export_button = buttons.addButton("Export…", QDialogButtonBox.ButtonRole.ActionRole)
        self.export_button.setToolTip("Write this run's steps as a uiautomator2 Python script or a YAML flow.")
        self.rerun_button = buttons.addButton("Run again…", QDialogButtonBox.ButtonRole.ActionRole)
        self.delete_button = buttons.addButton("Delete…", QDialogButtonBox.ButtonRole.DestructiveRole)
        self.delete_button.setToolTip("Move this run's folder to the trash (asks first).")
        self.rerun_button.clicked.connect(lambda: self._act(self._rerun))
        self.delete_button.clicked.connect(lambda: self._act(self._delete))
        self.replay_button.clicked.connect(lambda: self._act(self._replay))
        self.skill_button.clicked.connect(lambda: self._act(self._save_as_skill))
        self.export_button.clicked.connect(lambda: self._act(self._export))
        buttons.accepted.connect(self._open_selected)
        buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(self.filter)
        layout.addWidget(self.pages, 1)
        layout.addWidget(self.notice)
        layout.addWidget(buttons)
        self._update_open_button()

    async def reload(self) -> list[RunSummary]:
        """Read the runs folder again and fill the list."""
        self.show_notice("")
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
        shared = serials_of_several_phones([summary.phone for summary in summaries])
        for summary in summaries:
            self.runs.addTopLevelItem(self._item(summary, shared))
        self.empty_text = problem
        self._apply_filter()
        return summaries

    def _apply_filter(self) -> None:
        """Show the runs the search and the result choice let through; keep a shown one chosen."""
        search, wanted = self.filter.text(), self.filter.wanted_status()
        shown = []
        for index in range(self.runs.topLevelItemCount()):
            item = self.runs.topLevelItem(index)
            if item is None:
                continue
            visible = run_matches(item.data(self.STARTED, REQUEST_ROLE) or "", item.data(self.STARTED, STATUS_ROLE),
                                  search, wanted)
            item.setHidden(not visible)
            if visible:
                shown.append(item)
        if shown:
            current = self.runs.currentItem()
            if current is None or current.isHidden():
                self.runs.setCurrentItem(shown[0])
            self.pages.setCurrentWidget(self.runs)
        else:
            self.runs.clearSelection()
            self.message.setText("No run matches the search." if self.runs.topLevelItemCount()
                                 else getattr(self, "empty_text", "No runs yet"))
            self.pages.setCurrentWidget(self.message)
        self._update_open_button()

    def shown_runs(self) -> list[Path]:
        """The run folders the list shows now, top to bottom."""
        items = (self.runs.topLevelItem(i) for i in range(self.runs.topLevelItemCount()))
        return [Path(item.data(self.STARTED, PATH_ROLE)) for item in items if item is not None and not item.isHidden()]

    def _item(self, summary: RunSummary, shared: set[str]) -> QTreeWidgetItem:
        request = " ".join(summary.request.split()) or "(no request recorded)"
        status = run_status_word(summary.status)
        phone = phone_words(summary.phone, str(summary.phone.get("serial") or "") in shared)
        item = QTreeWidgetItem([started_words(summary.started_at), request, phone, status.text, str(summary.steps)])
        item.setData(self.STARTED, PATH_ROLE, summary.dir)
        item.setData(self.STARTED, REQUEST_ROLE, " ".join(summary.request.split()))
        item.setData(self.STARTED, STATUS_ROLE, summary.status)
        item.setData(self.STATUS, CHIP_COLOUR_ROLE, QColor(status.colour))
        item.setToolTip(self.REQUEST, summary.request)
        item.setToolTip(self.STARTED, str(summary.dir))
        item.setToolTip(self.PHONE, phone_words(summary.phone, True))
        item.setTextAlignment(self.STEPS, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return item

    def set_run_going(self, going: bool, run_dir: Path | None = None) -> None:
        """While a run is going, Replay and Run again are disabled (their tooltips say why), and the run
        going (`run_dir`) cannot be deleted."""
        self.run_going = going
        self.live_run_dir = Path(run_dir) if going and run_dir is not None else None
        self._update_open_button()

    def _update_open_button(self) -> None:
        """Open, Save as skill, Export and Delete need a chosen run; Replay and Run again also need no run
        to be going; the run going cannot be deleted."""
        chosen = bool(self.runs.selectedItems()) and self.pages.currentWidget() is self.runs
        for button in (self.open_button, self.skill_button, self.export_button):
            button.setEnabled(chosen)
        for button, tip in ((self.replay_button, REPLAY_TIP), (self.rerun_button, RERUN_TIP)):
            button.setEnabled(chosen and not self.run_going)
            button.setToolTip(RUN_GOING_TIP if self.run_going else tip)
        selected = self._selected_run()
        live = selected is not None and self.live_run_dir is not None and selected[0] == self.live_run_dir
        self.delete_button.setEnabled(chosen and not live)
        self.delete_button.setToolTip(LIVE_RUN_TIP if live else "Move this run's folder to the trash (asks first).")

    def _selected_run(self) -> tuple[Path, str] | None:
        selected = [item for item in self.runs.selectedItems() if not item.isHidden()]
        if not selected:
            return None
        return Path(selected[0].data(self.STARTED, PATH_ROLE)), selected[0].data(self.STARTED, REQUEST_ROLE) or ""

    def show_notice(self, text: str, tone: str = "") -> None:
        """Say what an action did, or why it could not ("error"), under the list."""
        self.notice.setText(text)
        set_tone(self.notice, tone)
        self.notice.setVisible(bool(text))

    def _act(self, action: Callable[[Path, str], Coroutine[Any, Any, None]]) -> None:
        """Run an action on the selected run as a task of the dialog (see `actions_under_way`)."""
        chosen = self._selected_run()
        if chosen is None:
            return
        task = asyncio.get_running_loop().create_task(action(*chosen))
        self.actions_under_way.add(task)
        task.add_done_callback(self.actions_under_way.discard)

    async def ask_rerun(self, request: str) -> bool | None:
        """Whether the new run may use stored skills (None: cancelled)."""
        ask = RerunDialog(request, self.use_skills_default, self)
        accepted = await run_dialog(ask) == QDialog.DialogCode.Accepted
        use_skills = ask.use_skills.isChecked()
        ask.deleteLater()
        return use_skills if accepted else None

    async def _rerun(self, run_dir: Path, request: str) -> None:
        """A new model run of the run's request (asking first about stored skills)."""
        if not request.strip():
            self.show_notice("This run has no request recorded: there is nothing to run again.", "error")
            return
        use_skills = await self.ask_rerun(request)
        if use_skills is None or not isValid(self):
            return
        if self.run_going:
            self.show_notice(RUN_GOING_TIP, "error")
            return
        self.show_notice("")
        self.rerun_requested.emit(request, use_skills)
        self.accept()

    async def ask_delete(self, run_dir: Path, request: str) -> bool:
        """Whether the person confirms deleting the run (Cancel is the default)."""
        shown = " ".join(request.split()) or "(no request recorded)"
        box = QMessageBox(QMessageBox.Icon.Warning, "Delete the run",
                          f"Delete the run “{shown}”?\n\nIts folder {run_dir.name} — steps, screenshots and report — "
                          "is moved to the trash, or deleted for good where the desktop has no trash.",
                          QMessageBox.StandardButton.Cancel, self)
        delete = box.addButton("Delete", QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        await run_dialog(box)
        confirmed = box.clickedButton() is delete
        box.deleteLater()
        return confirmed

    async def _delete(self, run_dir: Path, request: str) -> None:
        if self.live_run_dir is not None and run_dir == self.live_run_dir:
            self.show_notice(LIVE_RUN_TIP, "error")
            return
        if not await self.ask_delete(run_dir, request) or not isValid(self):
            return
        self.show_notice("Deleting…", "muted")
        try:
            done = await asyncio.to_thread(delete_run, run_dir, self.root, self.trash)
        except NotDeletable as exc:
            said, tone = f"Nothing was deleted. {exc}", "error"
        except OSError as exc:
            said, tone = f"The run could not be deleted: {exc}", "error"
        else:
            said, tone = f"The run “{' '.join(request.split())[:80]}” was {done}.", "success"
            if isValid(self):
                self._remove_item(run_dir)
            self.run_deleted.emit(run_dir)
        if isValid(self):
            self.show_notice(said, tone)

    def _remove_item(self, run_dir: Path) -> None:
        for index in range(self.runs.topLevelItemCount()):
            item = self.runs.topLevelItem(index)
            if item is not None and Path(item.data(self.STARTED, PATH_ROLE)) == run_dir:
                self.runs.takeTopLevelItem(index)
                break
        self._apply_filter()

    async def _replay(self, run_dir: Path, request: str) -> None:
        """Check that the run has steps to do again (in a worker thread), then ask for the replay."""
        self.show_notice("Reading the run…", "muted")
        try:
            await asyncio.to_thread(read_script, run_dir)
        except NotReplayable as exc:
            if isValid(self):
                self.show_notice(f"This run cannot be replayed. {exc}", "error")
            return
        if not isValid(self):
            return
        if self.run_going:
            self.show_notice(RUN_GOING_TIP, "error")
            return
        self.show_notice("")
        self.replay_requested.emit(run_dir)
        self.accept()

    async def ask_skill_name(self, default: str) -> str | None:
        """The name the person gives the new skill (None: cancelled)."""
        return await ask_text(self, "Save as skill", "Name of the skill. It is replayed when a request fits it; "
                              "you can rename it later in " + SKILLS_MENU, default)

    async def _save_as_skill(self, run_dir: Path, request: str) -> None:
        name = await self.ask_skill_name(request)
        if name is None or not isValid(self):
            return
        if not name:
            self.show_notice("A skill needs a name: nothing was saved.", "error")
            return
        self.show_notice("Saving the skill…", "muted")
        try:
            skill, path = await asyncio.to_thread(save_as_skill, run_dir, name, self.skills)
        except SkillExists:
            said, tone = (f"A skill named “{name}” already exists: nothing was saved. Choose another name, or "
                          "rename or delete the old one in " + SKILLS_MENU), "error"
        except NotReplayable as exc:
            said, tone = f"This run cannot become a skill. {exc}", "error"
        except (SkillError, OSError) as exc:
            said, tone = f"The skill could not be saved: {exc}", "error"
        else:
            said, tone = (f"Saved as the skill “{skill.name}” ({path.name}, {len(skill.steps)} steps). "
                          "See or edit it in " + SKILLS_MENU), "success"
        if isValid(self):
            self.show_notice(said, tone)

    async def ask_export_path(self, stem: str) -> tuple[Path, str] | None:
        """The file to export to and its format ("uiautomator2" or "yaml"), from a save-file dialog
        (None: cancelled)."""
        ask = QFileDialog(self, "Export the run as a script")
        ask.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        ask.setNameFilters(list(EXPORT_FILTERS))
        ask.setDirectory(str(Path.home()))
        ask.selectFile(stem + next(iter(EXPORT_FILTERS.values()))[1])

        def follow_filter(name_filter: str) -> None:     # the typed name takes the chosen format's suffix
            typed = Path(ask.selectedFiles()[0]).name if ask.selectedFiles() else stem
            ask.selectFile(Path(typed).stem + EXPORT_FILTERS[name_filter][1])

        ask.filterSelected.connect(follow_filter)
        accepted = await run_dialog(ask) == QDialog.DialogCode.Accepted
        chosen = ask.selectedFiles()[0] if accepted and ask.selectedFiles() else ""
        name_filter = ask.selectedNameFilter()
        ask.deleteLater()
        return export_target(chosen, name_filter) if chosen else None

    async def _export(self, run_dir: Path, request: str) -> None:
        target = await self.ask_export_path(file_stem(request))
        if target is None or not isValid(self):
            return
        path, fmt = target
        self.show_notice("Exporting…", "muted")
        try:
            await asyncio.to_thread(export_run, run_dir, path, fmt)
        except NotReplayable as exc:
            said, tone = f"This run cannot be exported. {exc}", "error"
        except (ValueError, OSError) as exc:
            said, tone = f"The script could not be written to {path}: {exc}", "error"
        else:
            kind = "a uiautomator2 Python script" if fmt == "uiautomator2" else "a YAML flow"
            said, tone = f"Exported as {kind}: {path}", "success"
        if isValid(self):
            self.show_notice(said, tone)

    def _open_selected(self) -> None:
        selected = self.runs.selectedItems()
        if selected:
            self._choose(selected[0])

    def _choose(self, item: QTreeWidgetItem) -> None:
        self.run_chosen.emit(Path(item.data(self.STARTED, PATH_ROLE)))
        self.accept()
