"""The Skills panel's right side: the chosen skill's name, a line of facts, its steps in words, and its
file as YAML with Save / Revert. The panel (skills_dialog.py) fills it and wires its buttons."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.learning.skills import Skill
from app.gui.skills.skill_actions import target_words
from app.gui.theme import set_tone


class SkillDetail(QWidget):
    """Steps on the left, the YAML editor on the right, under the skill's name and facts."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel()
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.facts = QLabel()
        self.facts.setWordWrap(True)
        self.facts.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        set_tone(self.facts, "muted")
        self.steps = QTreeWidget()
        self.steps.setHeaderLabels(["#", "What it does", "On"])
        self.steps.setRootIsDecorated(False)
        self.steps.setWordWrap(True)
        self.steps.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.steps.header().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.steps.header().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.editor = QPlainTextEdit()
        self.editor.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.edit_problem = QLabel()
        self.edit_problem.setWordWrap(True)
        self.edit_problem.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        set_tone(self.edit_problem, "error")
        self.edit_problem.hide()
        self.save_button = QPushButton("Save")
        self.save_button.setProperty("primary", True)
        self.save_button.setToolTip("Check the text and write it to the skill's file (nothing is written "
                                    "when it has a problem).")
        self.revert_button = QPushButton("Revert")
        self.revert_button.setToolTip("Forget the edits: show the skill as saved.")

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(QLabel("<b>Steps</b>"))
        left_layout.addWidget(self.steps, 1)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(QLabel("<b>The skill's file</b> (YAML; edit, then Save)"))
        right_layout.addWidget(self.editor, 1)
        right_layout.addWidget(self.edit_problem)
        edit_buttons = QHBoxLayout()
        edit_buttons.addStretch(1)
        edit_buttons.addWidget(self.revert_button)
        edit_buttons.addWidget(self.save_button)
        right_layout.addLayout(edit_buttons)
        panes = QSplitter(Qt.Orientation.Horizontal)
        panes.addWidget(left)
        panes.addWidget(right)
        panes.setSizes([520, 620])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.facts)
        layout.addWidget(panes, 1)

    def show_steps(self, skill: Skill) -> None:
        """One row per step: its number, what it does in words, and the control it acts on."""
        for step in skill.steps:
            row = QTreeWidgetItem([str(step.step), step.words, target_words(step, short=True)])
            row.setToolTip(1, f"{step.action_text}\n{step.function} {step.arguments}")
            row.setToolTip(2, f"{target_words(step)}\non the screen of {step.screen.package or 'an unknown app'}")
            self.steps.addTopLevelItem(row)
