"""The status bar's line: one sentence at a time, a "Details…" button when there is technical text
behind it, and messages that go away when they are stale.

A plain message fades after a few seconds, an error after longer, and an ongoing condition
("waiting for it to come back…") stays until the next message replaces it. A new message
replaces the shown one, except that an error is not wiped at once by a passing remark: the
remark waits until the error has been readable for ERROR_HOLD_MS.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from app.core.redaction import redact
from app.gui.status_messages import StatusMessage, explain
from app.gui.theme import set_tone
from app.gui.window_fit import fit_window

ERROR_HOLD_MS = 4000


class DetailsDialog(QDialog):
    """The sentence and the technical text behind it, to read or copy; not modal."""

    def __init__(self, message: StatusMessage, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Agent Desk – Details")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        sentence = QLabel(message.text, wordWrap=True)
        sentence.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.raw = QPlainTextEdit(redact(message.details), readOnly=True)
        self.raw.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.raw.setMinimumHeight(120)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        copy = buttons.addButton("Copy details", QDialogButtonBox.ButtonRole.ActionRole)
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.raw.toPlainText()))
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(sentence)
        layout.addWidget(QLabel("What the system reported:"))
        layout.addWidget(self.raw, 1)
        layout.addWidget(buttons)
        fit_window(self, QSize(560, 260))


class StatusLine(QWidget):
    """The message label and its Details button, for the window's status bar."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.label = QLabel("")
        # A long message is cut at the window's edge (its whole text is the tooltip); it never widens the window.
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.details_link = QLabel("<a href='details'>Details…</a>")
        self.details_link.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse
                                                  | Qt.TextInteractionFlag.LinksAccessibleByKeyboard)
        self.details_link.setToolTip("What the system reported, word for word")
        self.details_link.setAccessibleName("Details of the message")
        self.details_link.linkActivated.connect(lambda _link: self.show_details())
        self.details_link.hide()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.details_link)
        self.message = StatusMessage("")
        self.details_dialog: DetailsDialog | None = None
        self._shown_at = 0.0
        self._pending: StatusMessage | None = None
        self._expiry = QTimer(self, singleShot=True)
        self._expiry.timeout.connect(self._expire)
        self._hold = QTimer(self, singleShot=True)
        self._hold.timeout.connect(self._show_pending)

    def show_text(self, text: str) -> StatusMessage:
        """Show whatever text reached the status bar, explained; returns what is shown (or waits)."""
        message = explain(text)
        self.show_message(message)
        return message

    def show_message(self, message: StatusMessage) -> None:
        held_for = (time.monotonic() - self._shown_at) * 1000
        if self.message.error and not message.error and message.text and held_for < ERROR_HOLD_MS:
            self._pending = message                 # the error stays readable a moment longer
            self._hold.start(int(ERROR_HOLD_MS - held_for))
            return
        self._hold.stop()
        self._pending = None
        self._display(message)

    def clear(self) -> None:
        self._hold.stop()
        self._pending = None
        self._display(StatusMessage(""))

    def _display(self, message: StatusMessage) -> None:
        self.message = message
        self._shown_at = time.monotonic()
        self.label.setText(message.text)
        self.label.setToolTip(message.text)
        set_tone(self.label, "error" if message.error else "")
        self.details_link.setVisible(bool(message.details))
        seconds = message.seconds
        if message.text and seconds is not None:
            self._expiry.start(int(seconds * 1000))
        else:
            self._expiry.stop()

    def _show_pending(self) -> None:
        if self._pending is not None:
            pending, self._pending = self._pending, None
            self._display(pending)

    def _expire(self) -> None:
        if self.details_dialog is None:      # kept while its details are open
            self._display(StatusMessage(""))

    def show_details(self) -> None:
        if not self.message.details:
            return
        if self.details_dialog is not None:
            self.details_dialog.close()
        self.details_dialog = DetailsDialog(self.message, self.window())
        self.details_dialog.destroyed.connect(self._details_closed)
        self.details_dialog.show()             # not exec(): that would start a nested loop

    def _details_closed(self) -> None:
        self.details_dialog = None
        if not self._expiry.isActive() and self.message.seconds is not None:
            self._expiry.start(INFO_AFTER_DETAILS_MS)


INFO_AFTER_DETAILS_MS = 5000
