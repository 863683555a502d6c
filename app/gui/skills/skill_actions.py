"""The Skills panel's helpers: skills in words, the disk work it does in worker threads, and its questions.

The blocking functions (`read_entries`, `save_edit`, `set_enabled`, `export_skill`) are called through
`asyncio.to_thread`; each raises the store's `SkillError`s, whose messages name the file and the field.
The questions (`ask_text`, `confirm`, `ask_file`) show a small dialog with open(), never exec(), and
return the answer once the person has given it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtWidgets import QDialog, QFileDialog, QInputDialog, QMessageBox, QWidget

from app.core.agent.trajectory import write_text_atomically
from app.core.learning.export import export_script
from app.core.learning.recorded_steps import RecordedStep
from app.core.learning.skill_store import SkillStore, name_key
from app.core.learning.skills import SUFFIXES, Skill, SkillError, SkillFileError, skill_from_text
from app.gui.dialogs import run_dialog


@dataclass
class SkillEntry:
    """A skill as listed, with its file."""

    skill: Skill
    path: Path | None

    @property
    def fmt(self) -> str:
        return SUFFIXES.get(self.path.suffix.lower(), "yaml") if self.path else "yaml"


# ---------------------------------------------------------------- words

def recorded_on_words(recorded_on: dict) -> str:
    """"Pixel 7 · Android 14" from where a skill was recorded ("–" when nothing is known)."""
    model = str(recorded_on.get("model") or ("Virtual phone" if recorded_on.get("virtual") else "")).strip()
    android = next((str(recorded_on[key]) for key in ("android_version", "android", "release")
                    if recorded_on.get(key) not in (None, "")), "")
    return " · ".join(part for part in (model, f"Android {android}" if android else "") if part) or "–"


def outcome_words(skill: Skill) -> str:
    """How the skill has done since it was saved: "2 worked · 1 failed", or "not used yet"."""
    history = skill.history
    if not history.successes and not history.failures:
        return "not used yet"
    return f"{history.successes} worked · {history.failures} failed"


def facts_words(entry: SkillEntry) -> str:
    """The line of facts over a skill's steps: trigger, values, where recorded, runs learned from, last use, file."""
    skill = entry.skill
    facts = [f"Trigger: {skill.trigger or skill.request}"]
    if skill.parameters:
        facts.append("values as recorded: " + ", ".join(f"{k} = {v}" for k, v in skill.parameters.items()))
    facts.append(f"recorded on {recorded_on_words(skill.recorded_on)}, learned from {len(skill.runs)} run(s)")
    if skill.history.last_used:
        facts.append(f"last used {skill.history.last_used[:16].replace('T', ' ')} ({skill.history.last_outcome})")
    if entry.path is not None:
        facts.append(f"file {entry.path.name}")
    return " · ".join(facts)


def target_words(step: RecordedStep, *, short: bool = False) -> str:
    """What the step acts on: the target's resource-id and text (or description), in words; `short` leaves
    the app's package out of the id ("title" for "android:id/title"), for a narrow column."""
    target = step.target
    if target is None:
        return ""
    resource_id = target.resource_id.partition(":id/")[2] or target.resource_id if short else target.resource_id
    parts = [f"id {resource_id}" if resource_id else ""]
    label = " ".join((target.text or target.content_desc or target.name).split())
    parts.append(f"“{label}”" if label else "")
    if not any(parts) and target.class_name:
        parts.append(target.class_name.rsplit(".", 1)[-1])
    return " · ".join(part for part in parts if part)


def editor_problems(problems: list[str]) -> list[str]:
    """The reader's problems as a person editing the text needs them (without "it was skipped" / "read as")."""
    kept = []
    for problem in problems:
        if problem.endswith("the skill was skipped until this is fixed"):
            continue
        kept.append(problem.split("; it was ")[0])
    return kept or problems


# ---------------------------------------------------------------- disk work (worker threads)

def read_entries(store: SkillStore) -> tuple[list[SkillEntry], list[str]]:
    """Every readable skill with its file, and the problems of the skipped files (blocking)."""
    skills, problems = store.load()
    return [SkillEntry(skill, store.path_of(skill.name)) for skill in skills], problems


def save_edit(store: SkillStore, original: str, text: str, fmt: str, where: str) -> tuple[Skill, Path]:
    """Write an edited skill's YAML text over the skill named `original`, in `fmt` (its file's format).

    Nothing is written when the text does not read back as a skill (SkillFileError, each problem naming
    `where` and the field) or when a new name is another skill's (SkillExists)."""
    skill, problems = skill_from_text(text, "yaml", where)
    if skill is None:
        raise SkillFileError(editor_problems(problems))
    if name_key(skill.name) != name_key(original):
        store.rename(original, skill.name)          # raises SkillExists before anything is written
    return skill, store.save(skill, fmt, replace=True)


def set_enabled(store: SkillStore, name: str, enabled: bool) -> Skill:
    """Turn a skill on or off, on its file as it is now (blocking)."""
    skill = store.find(name)
    if skill is None:
        raise SkillError(f"there is no skill named {name!r} any more")
    skill.enabled = enabled
    path = store.path_of(name)
    store.save(skill, SUFFIXES.get(path.suffix.lower(), "yaml") if path else "yaml", replace=True)
    return skill


def export_skill(store: SkillStore, name: str, path: Path) -> Path:
    """Write a skill as a skill file (.yaml/.yml/.json) or as a uiautomator2 script (.py) (blocking)."""
    if path.suffix.lower() != ".py":
        return store.export(name, path)
    skill = store.find(name)
    if skill is None:
        raise SkillError(f"there is no skill named {name!r} any more")
    write_text_atomically(path, export_script(skill.script(), "uiautomator2"))
    return path


# ---------------------------------------------------------------- questions

async def ask_text(parent: QWidget, title: str, label: str, value: str) -> str | None:
    """A line of text from the person (None: cancelled)."""
    ask = QInputDialog(parent)
    ask.setWindowTitle(title)
    ask.setLabelText(label)
    ask.setTextValue(value)
    ask.resize(480, ask.sizeHint().height())
    accepted = await run_dialog(ask) == QDialog.DialogCode.Accepted
    text = ask.textValue().strip()
    ask.deleteLater()
    return text if accepted else None


async def confirm(parent: QWidget, title: str, text: str) -> bool:
    """Whether the person answers Yes to `text` (Cancel is the default)."""
    box = QMessageBox(QMessageBox.Icon.Question, title, text,
                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel, parent)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    await run_dialog(box)
    confirmed = box.clickedButton() is box.button(QMessageBox.StandardButton.Yes)
    box.deleteLater()
    return confirmed


async def ask_file(parent: QWidget, title: str, filters: list[str], save_as: str = "") -> tuple[Path, str] | None:
    """A file chosen by the person and the chosen filter (None: cancelled): to open, or `save_as`."""
    ask = QFileDialog(parent, title)
    ask.setNameFilters(filters)
    ask.setDirectory(str(Path.home()))
    if save_as:
        ask.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        ask.selectFile(save_as)
    else:
        ask.setFileMode(QFileDialog.FileMode.ExistingFile)
    accepted = await run_dialog(ask) == QDialog.DialogCode.Accepted
    chosen = (Path(ask.selectedFiles()[0]), ask.selectedNameFilter()) if accepted and ask.selectedFiles() else None
    ask.deleteLater()
    return chosen
