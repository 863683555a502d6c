"""The Skills panel: every saved skill, its steps in words, and its file as YAML to edit.

Skills are finished runs kept under a name (app/core/learning/skills.py); a request that fits one
replays its steps before the model is asked. Here a person sees them, edits one as YAML (checked with
`skill_from_text` before anything is written, so a bad edit names the file and the field and writes
nothing), renames, deletes, turns one off, imports and exports skill files. Skill files that could
not be read are named at the top, with why. Every read and write runs in a worker thread; an edit not
yet saved is kept as a draft while another skill is shown, so switching loses nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from app.core.learning.skill_store import SkillStore, name_key
from app.core.learning.skills import SkillError, SkillExists, SkillFileError, skill_to_text
from app.gui.dialogs import LoadingDialog, empty_state_page
from app.gui.skills.skill_actions import (
    SkillEntry,
    ask_file,
    ask_text,
    confirm,
    editor_problems,
    export_skill,
    facts_words,
    outcome_words,
    read_entries,
    recorded_on_words,
    save_edit,
    set_enabled,
)
from app.gui.skills.skill_detail import SkillDetail
from app.gui.skills.skill_values import ask_values, generalise
from app.gui.theme import set_tone

EMPTY_TEXT = ("No skills yet.\n\nWhen a run ends done — checked on the screen or by the model — its steps are "
              "saved here as a skill, for that request exactly, without detours (Settings → Agent → “Save each "
              "successful run as a skill”, learning.save_skills). Later, the same request replays those steps "
              "before the model is asked, and the model takes over where they no longer fit. Values… lets a "
              "skill take other values (another name, another setting).\n\nYou can also save a past run as a "
              "skill from "
              "File → Past runs…, or import a skill file.")
EXPORT_FILTERS = {"Skill file, YAML (*.yaml)": ".yaml", "Skill file, JSON (*.json)": ".json",
                  "uiautomator2 Python script (*.py)": ".py"}
IMPORT_FILTERS = ["Skill files (*.yaml *.yml *.json)", "All files (*)"]


def bullets(lines: list[str]) -> str:
    return "\n".join(f"• {line}" for line in lines)


# ---------------------------------------------------------------- the dialog

class SkillsDialog(LoadingDialog):
    """The saved skills (read in a worker thread each time the panel is shown); non-modal."""

    NAME, TRIGGER, STEPS, OUTCOMES, RECORDED = range(5)

    def __init__(self, store: SkillStore | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setModal(False)
        self.setWindowTitle("Skills — Agent Desk")
        self.store = store or SkillStore()
        self.entries: dict[str, SkillEntry] = {}     # name_key → entry
        self.current: SkillEntry | None = None
        self.loaded_text = ""                        # the current skill's text as read
        self.drafts: dict[str, str] = {}             # name_key → edited text not saved yet
        self.loading: asyncio.Task | None = None
        self.actions_under_way: set[asyncio.Task] = set()
        self.resize(1180, 720)

        self.problems = QLabel()
        self.problems.setWordWrap(True)
        self.problems.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        set_tone(self.problems, "error")
        self.problems.hide()
        self.list = QTreeWidget()
        self.list.setHeaderLabels(["Name", "Trigger", "Steps", "Used", "Recorded on"])
        self.list.setRootIsDecorated(False)
        self.list.setAlternatingRowColors(True)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.list.header()
        header.setStretchLastSection(False)
        fit, stretch = QHeaderView.ResizeMode.ResizeToContents, QHeaderView.ResizeMode.Stretch
        for column, mode in ((self.NAME, stretch), (self.TRIGGER, stretch), (self.STEPS, fit),
                             (self.OUTCOMES, fit), (self.RECORDED, fit)):
            header.setSectionResizeMode(column, mode)
        self.list.itemSelectionChanged.connect(self._selection_changed)
        self.empty, empty_page = empty_state_page("Loading skills…", 720)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.list)
        self.pages.addWidget(empty_page)
        self.pages.setCurrentWidget(empty_page)

        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.pages)
        self.detail = SkillDetail()
        self.title, self.facts, self.steps = self.detail.title, self.detail.facts, self.detail.steps
        self.editor, self.edit_problem = self.detail.editor, self.detail.edit_problem
        self.save_button, self.revert_button = self.detail.save_button, self.detail.revert_button
        self.editor.textChanged.connect(self._text_changed)
        self.save_button.clicked.connect(lambda: self._act(self._save))
        self.revert_button.clicked.connect(self._revert)
        splitter.addWidget(self.detail)
        splitter.setSizes([180, 480])
        self.notice = QLabel()
        self.notice.setWordWrap(True)
        self.notice.hide()

        self.enable_button = QPushButton("Disable")
        self.rename_button = QPushButton("Rename…")
        self.delete_button = QPushButton("Delete…")
        self.import_button = import_button = QPushButton("Import…")
        import_button.setToolTip("Copy a skill file (.yaml, .yml or .json) into your skills, after checking it.")
        self.export_button = QPushButton("Export…")
        self.export_button.setToolTip("Write this skill as a skill file (YAML or JSON) or a uiautomator2 script.")
        self.values_button = QPushButton("Values…")
        self.values_button.setToolTip("Let the skill do its steps for other values than it was recorded with.")
        close_button = QPushButton("Close")
        for button, action in ((self.enable_button, self._toggle_enabled), (self.rename_button, self._rename),
                               (self.delete_button, self._delete), (import_button, self._import),
                               (self.export_button, self._export), (self.values_button, self._values)):
            button.clicked.connect(lambda _=False, action=action: self._act(action))
            button.setAutoDefault(False)
        close_button.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        for button in (self.enable_button, self.rename_button, self.values_button, self.delete_button, import_button,
                       self.export_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(close_button)

        layout = QVBoxLayout(self)
        layout.addWidget(self.problems)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.notice)
        layout.addLayout(buttons)
        self._show(None)

    # ------------------------------------------------------------ loading

    async def reload(self, select: str | None = None) -> list[SkillEntry]:
        """Read the skills again and fill the list; `select` (a name) or the shown skill stays chosen."""
        keep = select if select is not None else (self.current.skill.name if self.current else None)
        try:
            entries, problems = await asyncio.to_thread(read_entries, self.store)
        except OSError as exc:
            entries, problems = [], [f"the skills folder {self.store.root} could not be read: {exc}"]
        if not isValid(self):
            return entries
        self._show_problems(problems)
        self.entries = {name_key(entry.skill.name): entry for entry in entries}
        self.list.blockSignals(True)
        self.list.clear()
        for entry in entries:
            self.list.addTopLevelItem(self._item(entry))
        self.list.blockSignals(False)
        self.detail.setVisible(bool(entries))     # no skill: the explanation has the whole panel
        if entries:
            self.pages.setCurrentWidget(self.list)
            rows = [row for i in range(self.list.topLevelItemCount()) if (row := self.list.topLevelItem(i)) is not None]
            chosen = next((row for row in rows if keep and row.data(self.NAME, Qt.ItemDataRole.UserRole)
                           == name_key(keep)), rows[0])
            self.list.setCurrentItem(chosen)
            self._selection_changed()
        else:
            self.empty.setText(EMPTY_TEXT)
            self.pages.setCurrentIndex(1)
            self._show(None)
        return entries

    def _show_problems(self, problems: list[str]) -> None:
        if problems:
            self.problems.setText(f"⚠ Some skill files could not be read and were skipped (fix or delete them in "
                                  f"{self.store.root}):\n{bullets(problems)}")
        self.problems.setVisible(bool(problems))

    def _item(self, entry: SkillEntry) -> QTreeWidgetItem:
        skill = entry.skill
        item = QTreeWidgetItem([skill.name + ("" if skill.enabled else " (disabled)"), skill.trigger or skill.request,
                                str(len(skill.steps)), outcome_words(skill), recorded_on_words(skill.recorded_on)])
        item.setData(self.NAME, Qt.ItemDataRole.UserRole, name_key(skill.name))
        item.setTextAlignment(self.STEPS, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        item.setToolTip(self.NAME, f"{skill.name}\n{entry.path or ''}")
        item.setToolTip(self.TRIGGER, "A request that fits this replays the skill; {name} parts take any value.")
        if not skill.enabled:
            muted = self.palette().color(QPalette.ColorRole.PlaceholderText)
            for column in range(self.list.columnCount()):
                item.setForeground(column, muted)
        return item

    # ------------------------------------------------------------ the chosen skill

    def _selection_changed(self) -> None:
        selected = self.list.selectedItems()
        key = selected[0].data(self.NAME, Qt.ItemDataRole.UserRole) if selected else None
        self._show(self.entries.get(key) if key else None)

    def _show(self, entry: SkillEntry | None) -> None:
        """Show a skill's facts, steps and text (a draft of it, when one was left unsaved)."""
        if self.current is not None and self._dirty():
            self.drafts[name_key(self.current.skill.name)] = self.editor.toPlainText()
        self.current = entry
        self.steps.clear()
        self.edit_problem.hide()
        for button in (self.enable_button, self.rename_button, self.delete_button, self.export_button,
                       self.values_button):
            button.setEnabled(entry is not None)
        if entry is None:
            self.title.setText("No skill chosen")
            self.facts.setText("")
            self.loaded_text = ""
            self.editor.setPlainText("")
            self.editor.setReadOnly(True)
            self._text_changed()
            return
        skill = entry.skill
        self.title.setText(skill.name + ("" if skill.enabled else "  (disabled: never replayed)"))
        self.facts.setText(facts_words(entry))
        self.detail.show_steps(skill)
        self.enable_button.setText("Enable" if not skill.enabled else "Disable")
        self.enable_button.setToolTip("Let requests that fit replay this skill." if not skill.enabled
                                      else "Keep the skill, but never replay it until enabled again.")
        self.loaded_text = skill_to_text(skill, "yaml")
        self.editor.setReadOnly(False)
        self.editor.setPlainText(self.drafts.pop(name_key(skill.name), self.loaded_text))
        self._text_changed()

    def _dirty(self) -> bool:
        return self.current is not None and self.editor.toPlainText() != self.loaded_text

    def _text_changed(self) -> None:
        dirty = self._dirty()
        self.save_button.setEnabled(dirty)
        self.revert_button.setEnabled(dirty)

    def _revert(self) -> None:
        self.editor.setPlainText(self.loaded_text)
        self.edit_problem.hide()

    def show_notice(self, text: str, tone: str = "") -> None:
        """Say what an action did, or why it could not ("error"), above the buttons."""
        self.notice.setText(text)
        set_tone(self.notice, tone)
        self.notice.setVisible(bool(text))

    # ------------------------------------------------------------ actions

    def _act(self, action: Callable[[], Coroutine[Any, Any, None]]) -> None:
        task = asyncio.get_running_loop().create_task(action())
        self.actions_under_way.add(task)
        task.add_done_callback(self.actions_under_way.discard)

    async def _save(self) -> None:
        entry, text = self.current, self.editor.toPlainText()
        if entry is None:
            return
        where = entry.path.name if entry.path else f"skill {entry.skill.name!r}"
        try:
            skill, path = await asyncio.to_thread(save_edit, self.store, entry.skill.name, text, entry.fmt, where)
        except SkillFileError as exc:
            problem = "Not saved; the file is unchanged. Fix this first:\n" + bullets(exc.problems)
        except SkillExists:
            problem = "Not saved: another skill already has that name. Choose another 'name'."
        except (SkillError, OSError) as exc:
            problem = f"Not saved: {exc}"
        else:
            if isValid(self):
                self.loaded_text = text            # what is saved now: no draft to keep
                self.show_notice(f"Saved “{skill.name}” ({path.name}).", "success")
                await self.reload(select=skill.name)
            return
        if isValid(self):
            self.edit_problem.setText(problem)
            self.edit_problem.show()

    def _edit_pending(self) -> bool:
        """True (and said) when the shown skill has an unsaved edit, which a rename or a switch would fight."""
        if self._dirty():
            self.show_notice("Save or revert your edit of the skill's file first.", "error")
        return self._dirty()

    async def _toggle_enabled(self) -> None:
        if self.current is None or self._edit_pending():
            return
        name, enabled = self.current.skill.name, not self.current.skill.enabled
        await self._write(lambda: set_enabled(self.store, name, enabled), name,
                          f"“{name}” is {'enabled: a request that fits it replays it' if enabled else 'disabled'}.")

    async def _rename(self) -> None:
        if self.current is None or self._edit_pending():
            return
        old = self.current.skill.name
        new = await ask_text(self, "Rename skill", f"New name for “{old}”:", old)
        if new is None or not isValid(self) or new == old:
            return
        await self._write(lambda: self.store.rename(old, new), new, f"Renamed “{old}” to “{new}”.")

    async def _values(self) -> None:
        if self.current is None or self._edit_pending():
            return
        skill = self.current.skill
        if not skill.candidates()[1]:
            self.show_notice(f"“{skill.name}” has no value that its request names and its steps use.", "error")
            return
        names = await ask_values(self, skill)
        if names is not None and isValid(self):
            await self._write(lambda: generalise(self.store, skill.name, names), skill.name,
                              f"“{skill.name}” now answers “{skill.generalised(names).trigger}”.")

    async def _delete(self) -> None:
        if self.current is None:
            return
        name = self.current.skill.name
        if not await confirm(self, "Delete skill", f"Delete the skill “{name}”? Its file is removed; the past "
                             "runs stay.") or not isValid(self):
            return
        self.drafts.pop(name_key(name), None)
        self.current = None                        # its draft, if any, goes with it
        await self._write(lambda: self.store.delete(name), None, f"Deleted “{name}”.")

    async def _import(self) -> None:
        chosen = await ask_file(self, "Import a skill file", IMPORT_FILTERS)
        if chosen is None or not isValid(self):
            return
        try:
            skill = await asyncio.to_thread(self.store.import_file, chosen[0])
        except SkillFileError as exc:
            said = f"{chosen[0].name} was not imported:\n" + bullets(editor_problems(exc.problems))
        except SkillExists as exc:
            said = f"{chosen[0].name} was not imported: {exc}"
        except (SkillError, OSError) as exc:
            said = f"{chosen[0].name} could not be imported: {exc}"
        else:
            if isValid(self):
                self.show_notice(f"Imported “{skill.name}” from {chosen[0].name}. It asks you before its first "
                                 "step, even in auto mode, until you have approved a run of it.", "success")
                await self.reload(select=skill.name)
            return
        if isValid(self):
            self.show_notice(said, "error")

    async def _export(self) -> None:
        if self.current is None:
            return
        name = self.current.skill.name
        stem = (self.current.path.stem if self.current.path else "skill")
        chosen = await ask_file(self, "Export the skill", list(EXPORT_FILTERS), save_as=stem + ".yaml")
        if chosen is None or not isValid(self):
            return
        path, name_filter = chosen
        if path.suffix.lower() not in (".yaml", ".yml", ".json", ".py"):
            path = path.with_name(path.name + EXPORT_FILTERS.get(name_filter, ".yaml"))
        await self._write(lambda: export_skill(self.store, name, path), name, f"Exported “{name}” to {path}.",
                          reload=False)

    async def _write(self, work: Callable[[], object], select: str | None, done_words: str, *,
                     reload: bool = True) -> None:
        """Do `work` in a worker thread; say what happened, or why not, and read the skills again."""
        try:
            await asyncio.to_thread(work)
        except SkillExists:
            said, tone, select = "Nothing was changed: another skill already has that name.", "error", None
        except (SkillError, OSError) as exc:
            said, tone, select = f"That did not work: {exc}", "error", None
        else:
            said, tone = done_words, "success"
        if not isValid(self):
            return
        self.show_notice(said, tone)
        if reload:
            await self.reload(select=select)


def show_skills(parent: QWidget, store: SkillStore | None = None) -> SkillsDialog:
    """Open the parent's (single) Skills panel, or bring it to the front."""
    dialog = parent.findChild(SkillsDialog)
    if dialog is None:
        dialog = SkillsDialog(store, parent)
    dialog.show()
    dialog.raise_()
    dialog.activateWindow()
    return dialog
