"""The Skills panel's *Values…*: the person says which recorded values a skill may take others for.

One run makes a skill for its request exactly (issue 27); a value becomes a parameter when two verified runs
differ in it, or when a person ticks it here. The boxes are the skill's candidates (`Skill.candidates`: the
values its steps used that its request names); the trigger they make is shown as they are ticked. A skill used
with new values still asks before its first step until a person has approved a run of it.
"""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from app.core.learning.skill_store import SkillStore
from app.core.learning.skills import SUFFIXES, Skill, SkillError
from app.gui.dialogs import run_dialog
from app.gui.window_fit import fit_window


class ValuesDialog(QDialog):
    """One box per value the skill could take others for; the trigger they make, shown as they change."""

    def __init__(self, skill: Skill, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Values the skill may change")
        fit_window(self)
        self.skill = skill
        _, values = skill.candidates()
        layout = QVBoxLayout(self)
        intro = QLabel(f"“{skill.name}” was learned for its request exactly. Tick a value to let the skill do "
                       "the same steps for another one (it asks you before its first step with a new value, "
                       "until you have approved a run of it).")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.boxes: dict[str, QCheckBox] = {}
        for name, value in values.items():
            box = QCheckBox(f"“{value}” (as {{{name}}})")
            box.setChecked(name in skill.parameters)
            box.toggled.connect(self._preview)
            layout.addWidget(box)
            self.boxes[name] = box
        self.trigger = QLabel()
        self.trigger.setWordWrap(True)
        layout.addWidget(self.trigger)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self._preview()

    def chosen(self) -> set[str]:
        return {name for name, box in self.boxes.items() if box.isChecked()}

    def _preview(self) -> None:
        self.trigger.setText(f"Trigger: {self.skill.generalised(self.chosen()).trigger}")


async def ask_values(parent: QWidget, skill: Skill) -> set[str] | None:
    """The values the person lets the skill change (None: cancelled)."""
    dialog = ValuesDialog(skill, parent)
    accepted = await run_dialog(dialog) == QDialog.DialogCode.Accepted
    chosen = dialog.chosen()
    dialog.deleteLater()
    return chosen if accepted else None


def generalise(store: SkillStore, name: str, names: set[str]) -> Skill:
    """Give the stored skill a placeholder for each value in `names`, the others written out (blocking)."""
    skill = store.find(name)
    if skill is None:
        raise SkillError(f"there is no skill named {name!r} any more")
    general = skill.generalised(names)
    path = store.path_of(name)
    store.save(general, SUFFIXES.get(path.suffix.lower(), "yaml") if path else "yaml", replace=True)
    return general
