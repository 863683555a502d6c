"""The window's task API token, where a person can find it: a link in the status bar while the API is served,
opening a small window with the address and the token to copy (hidden until asked), and where the token is kept.

The token is the desk's (`Desk.api.token`), read when the window opens, so a rotation in Settings shows at once.
It appears nowhere else in the window, and never in the status line's messages.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.gui.window_fit import fit_window

if TYPE_CHECKING:
    from app.api.token import ApiToken

LINK_TEXT = "API token…"


def _selectable(text: str) -> QLabel:
    label = QLabel(text, wordWrap=True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class ApiTokenDialog(QDialog):
    """The task API's address and token, each with a Copy button; not modal."""

    def __init__(self, url: str, token: ApiToken, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Agent Desk – Task API token")
        fit_window(self)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.url = QLineEdit(url, readOnly=True)
        self.url.setAccessibleName("The task API's address")
        self.token = QLineEdit(token.value, readOnly=True)
        self.token.setEchoMode(QLineEdit.EchoMode.Password)
        self.token.setAccessibleName("The task API's token")
        self.show_token = QCheckBox("Show")
        self.show_token.setAccessibleName("Show the token")
        self.show_token.toggled.connect(lambda shown: self.token.setEchoMode(
            QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password))
        self.copy_token = QPushButton("Copy token", autoDefault=False)
        self.copy_token.setAccessibleName("Copy the token")
        self.copy_token.clicked.connect(lambda: self._copy(token.value, "The token is on the clipboard."))
        self.copy_url = QPushButton("Copy address", autoDefault=False)
        self.copy_url.clicked.connect(lambda: self._copy(url, "The address is on the clipboard."))
        self.said = QLabel("")
        grid = QGridLayout()
        grid.addWidget(QLabel("Address"), 0, 0)
        grid.addWidget(self.url, 0, 1, 1, 2)
        grid.addWidget(self.copy_url, 0, 3)
        grid.addWidget(QLabel("Token"), 1, 0)
        grid.addWidget(self.token, 1, 1)
        grid.addWidget(self.show_token, 1, 2)
        grid.addWidget(self.copy_token, 1, 3)
        grid.setColumnStretch(1, 1)
        self.where = _selectable(f"Kept in {token.source}.")
        self.how = _selectable(how_to_use(token))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(_selectable("Programs give this desk tasks over its task API. Every request carries the "
                                     "token: <code>Authorization: Bearer &lt;token&gt;</code>."))
        layout.addLayout(grid)
        layout.addWidget(self.said)
        layout.addWidget(self.where)
        layout.addWidget(self.how)
        layout.addStretch(1)
        layout.addWidget(buttons)
        self.resize(600, 260)

    def _copy(self, text: str, said: str) -> None:
        QGuiApplication.clipboard().setText(text)
        self.said.setText(said)


def how_to_use(token: ApiToken) -> str:
    """Who finds the token on their own, in words."""
    if token.kind == "environment":
        return ("It comes from the environment variable AGENTDESK_API_TOKEN the window was started with: "
                "`agentdesk mcp` and scripts need the same variable.")
    if token.kept:
        return ("`agentdesk mcp` and `agentdesk api token` (run as you, on this computer) find it on their own; "
                "Settings › Connections › Rotate token replaces it.")
    return "It lasts only while the window is open: copy it for each program that calls the desk."


class ApiTokenLink(QLabel):
    """"API token…" in the status bar while the window serves the task API."""

    def __init__(self, current: Callable[[], tuple[str, ApiToken] | None], parent: QWidget | None = None):
        super().__init__(f"<a href='token'>{LINK_TEXT}</a>", parent)
        self.current = current          # the API's address and token now (None: not served)
        self.dialog: ApiTokenDialog | None = None
        self.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse
                                     | Qt.TextInteractionFlag.LinksAccessibleByKeyboard)
        self.setToolTip("The task API's address and token, to copy for scripts and MCP clients")
        self.setAccessibleName("Show the task API's token")
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.linkActivated.connect(lambda _link: self.open_dialog())
        self.hide()

    def open_dialog(self) -> ApiTokenDialog | None:
        serving = self.current()
        if serving is None:
            return None
        if self.dialog is not None:
            self.dialog.close()
        self.dialog = ApiTokenDialog(*serving, self.window())
        self.dialog.destroyed.connect(self._closed)
        self.dialog.show()              # not exec(): that would start a nested loop
        return self.dialog

    def _closed(self) -> None:
        self.dialog = None
