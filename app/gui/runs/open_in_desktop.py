"""Opening a run's report or folder with the desktop's own program, and saying where it is when no
program starts (`QDesktopServices.openUrl` returns False: no browser or file manager set up, a
headless session): a small window with the path, selectable, and a button that copies it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPushButton, QVBoxLayout, QWidget

from app.gui.window_fit import fit_window

COPIED_MS = 1500


class NotOpenedDialog(QDialog):
    """Says that `path` could not be opened, shows it, and copies it on request."""

    def __init__(self, path: Path, what: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.path = path
        fit_window(self)
        self.setWindowTitle(f"Could not open {what}")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.message = QLabel(f"No program on this computer opened {what}. It is here — open it in a browser "
                              "or a file manager, or copy its path:")
        self.message.setWordWrap(True)
        self.path_label = QLabel(str(path))
        self.path_label.setWordWrap(True)
        self.path_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.path_label.setAccessibleName(f"Where {what} is")
        font = self.path_label.font()
        font.setFamily("monospace")
        font.setStyleHint(font.StyleHint.Monospace)
        self.path_label.setFont(font)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.copy_button = QPushButton("Copy path")
        self.copy_button.setAccessibleName(f"Copy the path of {what}")
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_button.clicked.connect(self.copy_path)       # ActionRole: the window stays open
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.message)
        layout.addWidget(self.path_label)
        layout.addWidget(buttons)
        self.setMinimumWidth(min(560, max(360, self.path_label.fontMetrics().horizontalAdvance(str(path)) + 48)))
        self._restore = QTimer(self, singleShot=True, interval=COPIED_MS)
        self._restore.timeout.connect(lambda: self.copy_button.setText("Copy path"))

    def copy_path(self) -> None:
        QGuiApplication.clipboard().setText(str(self.path))
        self.copy_button.setText("Copied ✓")
        self._restore.start()


def open_in_desktop(path: Path, what: str, parent: QWidget | None = None) -> NotOpenedDialog | None:
    """Open `path` with the desktop's default program; when none starts, show where it is (the window,
    shown without blocking anything — the person may go on working beside it — is returned)."""
    if QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))):
        return None
    dialog = NotOpenedDialog(path, what, parent)
    dialog.setModal(False)
    dialog.show()
    dialog.raise_()
    return dialog
