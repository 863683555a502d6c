"""Help › User guide (app/resources/user_guide.md, which travels with the app and the bundle) and
Help › Keyboard shortcuts, a list made from the window's own actions and keys each time it opens, so
it never goes stale.

Both open beside the window (not modal: a person reads the guide while using the app); opening
one again brings the open one to the front.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from importlib.resources import files
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QMenu, QMenuBar, QTextBrowser, QVBoxLayout, QWidget

from app.gui.mirror.mirror_keys import MOUSE_KEYS, SPECIAL_KEYS
from app.gui.window_fit import fit_window

if TYPE_CHECKING:
    from app.gui.main_window import MainWindow

GUIDE_RESOURCE = "user_guide.md"
Row = tuple[str, str]                 # (keys, what they do)
_MNEMONIC = re.compile(r"&(\w)")
_MOUSE_WORDS = {Qt.MouseButton.RightButton: "Right-click", Qt.MouseButton.MiddleButton: "Middle-click"}


def user_guide() -> str:
    """The user guide, as Markdown."""
    return (files("app.resources") / GUIDE_RESOURCE).read_text(encoding="utf-8")


def key_text(*sequences: QKeySequence | Qt.Key | int | str) -> str:
    """Keys as this system writes them; Return and the keypad's Enter both read "Enter"."""
    words: list[str] = []
    for sequence in sequences:
        text = QKeySequence(sequence).toString(QKeySequence.SequenceFormat.NativeText).replace("Return", "Enter")
        if text and text not in words:
            words.append(text)
    return " or ".join(words)


def plain(text: str) -> str:
    """A menu or button text without its mnemonic '&' and without the trailing ⏎."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").replace("⏎", "").strip()


def menu_shortcuts(menu_bar: QMenuBar) -> list[Row]:
    """Every menu item with a shortcut: ("Ctrl+Q", "File › Quit"), submenus included."""
    rows: list[Row] = []

    def walk(actions: Iterable[QAction], path: str) -> None:
        for action in actions:
            if isinstance(menu := action.menu(), QMenu):
                walk(menu.actions(), f"{path}{plain(action.text())} › ")
            elif action.shortcuts():
                rows.append((key_text(*action.shortcuts()), path + plain(action.text())))

    walk(menu_bar.actions(), "")
    return rows


def approval_keys(window: MainWindow) -> list[Row]:
    """The approval panel: Enter, Escape, and each button's Alt+letter (read from the buttons)."""
    approval = window.approval
    rows = [(key_text(approval.approve_shortcut.key(), approval.keypad_enter.key()),
             "Approve, or send the edit, the override, the rejection or the answer shown")]
    for button in (approval.approve_button, approval.edit_button, approval.reject_button, approval.override_button,
                   approval.stop_button):
        letter = _MNEMONIC.search(button.text())
        if letter:
            rows.append((f"Alt+{letter.group(1).upper()}", plain(button.text())))
    rows.append((key_text(Qt.Key.Key_Escape), "Back from Edit, Override or Reject to the proposal"))
    rows.append(("Tab, Shift+Tab", "Move between the buttons"))
    return rows


def mirror_keys() -> list[Row]:
    """What the mirror does with keys and the mouse (app/gui/mirror/mirror_keys.py, mirror_view.py)."""
    by_android: dict[str, list[int]] = {}      # Qt.Key values, as SPECIAL_KEYS holds them
    for key, android in SPECIAL_KEYS.items():
        by_android.setdefault(android, []).append(key)
    rows = [("Letters, digits, any text", "Typed on the phone (touch mode)")]
    rows += [(key_text(*keys), f"The phone's {android} key (touch mode)") for android, keys in by_android.items()]
    rows += [(_MOUSE_WORDS.get(button, str(button)), f"The phone's {android} key (touch mode)")
             for button, android in MOUSE_KEYS.items()]
    rows += [("Mouse wheel", "Scroll the phone's screen (touch mode)"),
             ("Tab, Shift+Tab", "Next or previous control (inspect mode)"),
             (key_text(Qt.Key.Key_Escape), "Clear the selection (inspect mode); stop picking a control (override)")]
    return rows


def inspector_keys(window: MainWindow) -> list[Row]:
    return [(key_text(window.inspector.find_shortcut.key()), "Search the controls and the hierarchy"),
            (f"{key_text(Qt.Key.Key_Return)} or {key_text(Qt.Key.Key_F3)}", "Next match (in the search box)"),
            (key_text("Shift+Return"), "Previous match (in the search box)"),
            (key_text(Qt.Key.Key_Escape), "Clear the search")]


def shortcut_sections(window: MainWindow) -> list[tuple[str, list[Row]]]:
    return [("Menus", menu_shortcuts(window.menuBar())),
            ("Needs your OK (the approval panel)", approval_keys(window)),
            ("Mirror", mirror_keys()),
            ("Inspector", inspector_keys(window)),
            ("A past run's step", [(key_text("Alt+Left"), "Previous step"), (key_text("Alt+Right"), "Next step")])]


def shortcuts_html(sections: list[tuple[str, list[Row]]]) -> str:
    parts = []
    for title, rows in sections:
        parts.append(f"<h3>{html.escape(title)}</h3><table cellspacing='0' cellpadding='3'>")
        parts += [f"<tr><td width='200'><b>{html.escape(keys)}</b></td><td>{html.escape(does)}</td></tr>"
                  for keys, does in rows]
        parts.append("</table>")
    return "".join(parts)


class _HelpDialog(QDialog):
    def __init__(self, title: str, parent: QWidget | None):
        super().__init__(parent)
        self.setWindowTitle(title)
        self.browser = QTextBrowser()
        self.browser.setOpenExternalLinks(True)
        self.browser.setAccessibleName(title)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser, 1)
        layout.addWidget(buttons)
        fit_window(self)      # at the size each kind asks for below, within the screen


class UserGuideDialog(_HelpDialog):
    def __init__(self, parent: QWidget | None = None):
        super().__init__("Agent Desk user guide", parent)
        self.browser.setMarkdown(user_guide())
        self.resize(780, 720)


class ShortcutsDialog(_HelpDialog):
    def __init__(self, window: MainWindow):
        super().__init__("Keyboard shortcuts", window)
        self.sections = shortcut_sections(window)
        self.browser.setHtml(shortcuts_html(self.sections))
        self.resize(640, 720)


def show_help(window: MainWindow, which: str) -> QDialog:
    """Show the "guide" or the "shortcuts" beside the window; one of each, brought to the front when open.
    The shortcuts list is made again on each opening."""
    dialogs: dict[str, QDialog] = window.__dict__.setdefault("_help_dialogs", {})
    dialog = dialogs.get(which)
    if dialog is None or (which == "shortcuts" and not dialog.isVisible()):
        if dialog is not None:
            dialog.deleteLater()
        dialog = UserGuideDialog(window) if which == "guide" else ShortcutsDialog(window)
        dialogs[which] = dialog
    dialog.show()
    dialog.raise_()
    dialog.activateWindow()
    return dialog
