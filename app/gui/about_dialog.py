"""Help › About Agent Desk: the version, what the app is, and every bundled library's licence
(app/resources/third_party_licences.md, which travels with the app and the bundle)."""

from __future__ import annotations

import platform
from importlib.resources import files

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QTextBrowser, QVBoxLayout, QWidget

from app import __version__
from app.gui.window_fit import fit_window

LICENCES_RESOURCE = "third_party_licences.md"


def third_party_licences() -> str:
    """The list of bundled libraries and their licences, as Markdown."""
    return (files("app.resources") / LICENCES_RESOURCE).read_text(encoding="utf-8")


class AboutDialog(QDialog):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("About Agent Desk")
        header = QLabel(f"<b>Agent Desk {__version__}</b><br>Supervised automation of Android phones by an LLM."
                        f"<br>Python {platform.python_version()} · MIT licence")
        header.setWordWrap(True)
        self.licences = QTextBrowser()
        self.licences.setOpenExternalLinks(True)
        self.licences.setMarkdown(third_party_licences())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(header)
        layout.addWidget(self.licences, 1)
        layout.addWidget(buttons)
        fit_window(self, QSize(760, 560))
