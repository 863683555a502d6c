"""The bar over the mirror while the person has taken a run over: what is recorded, a note for the
agent, and Hand back (Ctrl+Enter in the note hands back too)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from app.gui.theme import set_tone

EXPLANATION = ("<b>You have the phone.</b> Your taps, swipes, typing and keys on the mirror are done as steps of "
               "this run, “by you” (what you type into a password field is masked). The agent waits.")


class TakeOverBar(QFrame):
    hand_back_requested = Signal(str)      # the note for the agent ("" when none)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("takeOverBar")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.explanation = QLabel(EXPLANATION)
        self.explanation.setWordWrap(True)
        self.explanation.setTextFormat(Qt.TextFormat.RichText)
        self.steps = QLabel("")
        set_tone(self.steps, "muted")
        self.note = QLineEdit()
        self.note.setPlaceholderText("What should the agent know? e.g. “I logged in; go on from the inbox”")
        self.note.setAccessibleName("Note for the agent when you hand back")
        self.note.returnPressed.connect(self._hand_back)
        self.hand_back_button = QPushButton("Hand back")
        self.hand_back_button.setProperty("primary", True)
        self.hand_back_button.setToolTip("Give the phone back to the agent, with your note (Ctrl+T)")
        self.hand_back_button.clicked.connect(self._hand_back)
        self.steps.setWordWrap(True)
        row = QHBoxLayout()                 # the note takes the width; Hand back under its right end
        row.addStretch(1)
        row.addWidget(self.hand_back_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.addWidget(self.explanation)
        layout.addWidget(self.steps)
        layout.addWidget(self.note)
        layout.addLayout(row)
        self.hide()

    def begin(self) -> None:
        self.note.clear()
        self.steps.setText("Nothing done yet.")
        self.show()
        self.note.setFocus()

    def count_step(self, action_text: str, done: int) -> None:
        """Say what the person's last step was, and how many they have taken."""
        self.steps.setText(f"{done} step{'s' if done != 1 else ''} by you so far; last: {action_text}")

    def end(self) -> None:
        self.hide()

    def _hand_back(self) -> None:
        self.hand_back_requested.emit(self.note.text().strip())
