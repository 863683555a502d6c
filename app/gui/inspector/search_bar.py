"""The inspector's search bar: the search box (Enter / Shift+Enter step through the matches, Escape
clears), previous and next buttons, the match count, and a line under them for what the search has
to say (an XPath that is not valid, or too costly to run, or found more than is shown)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent, QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QToolButton, QVBoxLayout, QWidget

from app.gui.inspector.search_query import HINT
from app.gui.theme import set_tone


class SearchEdit(QLineEdit):
    """The search box: Enter goes to the next match, Shift+Enter to the previous, Escape clears."""

    next_requested = Signal()
    previous_requested = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_F3):
            shifted = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
            (self.previous_requested if shifted else self.next_requested).emit()
            return
        if key == Qt.Key.Key_Escape and self.text():
            self.clear()
            return
        super().keyPressEvent(event)


class SearchBar(QWidget):
    """The search box with its buttons and count on one row, and the search's message under them."""

    step_requested = Signal(int)       # 1: next match, -1: previous

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.edit = SearchEdit()
        self.edit.setPlaceholderText("Search text, id, desc, class, //XPath…")
        self.edit.setToolTip(HINT + "\nCtrl+F: search · Enter: next match · Shift+Enter: previous · Esc: clear")
        self.edit.setAccessibleName("Search the controls and the hierarchy")
        self.edit.setClearButtonEnabled(True)
        self.edit.next_requested.connect(lambda: self.step_requested.emit(1))
        self.edit.previous_requested.connect(lambda: self.step_requested.emit(-1))
        self.previous_button, self.next_button = QToolButton(), QToolButton()
        for button, arrow, tip, step in (
                (self.previous_button, Qt.ArrowType.UpArrow, "Previous match (Shift+Enter)", -1),
                (self.next_button, Qt.ArrowType.DownArrow, "Next match (Enter)", 1)):
            button.setArrowType(arrow)
            button.setToolTip(tip)
            button.setAccessibleName(tip)
            button.setAutoRaise(True)
            button.clicked.connect(lambda _=False, s=step: self.step_requested.emit(s))
        self.count_label = QLabel()
        self.count_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.setAccessibleName("What the search says")
        self.message.hide()
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(2)
        row.addWidget(self.edit, 1)
        row.addWidget(self.previous_button)
        row.addWidget(self.next_button)
        row.addSpacing(4)
        row.addWidget(self.count_label)
        column = QVBoxLayout(self)
        column.setContentsMargins(6, 6, 6, 0)
        column.setSpacing(2)
        column.addLayout(row)
        column.addWidget(self.message)

    def say(self, text: str, *, error: bool = False) -> None:
        """Show `text` under the search box ("" hides the line); an error in the error colour."""
        self.message.setText(text)
        set_tone(self.message, "error" if error and text else "muted" if text else "")
        self.message.setVisible(bool(text))
