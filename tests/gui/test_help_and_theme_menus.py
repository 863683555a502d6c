"""Help › User guide and Help › Keyboard shortcuts, and the theme chosen in View › Theme or in Settings:
applied at once, saved, and in force when the desk starts again."""

from __future__ import annotations

import asyncio
import json

import pytest
from PySide6.QtGui import QAction, QKeySequence, QPalette
from PySide6.QtWidgets import QApplication, QDialog

from app.core import paths
from app.gui.help_dialogs import ShortcutsDialog, UserGuideDialog, key_text, plain, user_guide
from app.gui.mirror.mirror_keys import SPECIAL_KEYS
from app.gui.settings.settings_dialog import SettingsDialog
from app.gui.theme import DARK, LIGHT, current_scheme, set_scheme_override
from tests.gui.conftest import shown_window
from tests.support.waiting import until

GUIDE_TOPICS = ("What Agent Desk does", "Connecting a phone", "USB", "Wi-Fi", "virtual phone", "The window",
                "Step: approve every action", "Auto: ask only for sensitive actions", "Approve", "Edit", "Reject",
                "Override", "The inspector", "Copy as", "Ctrl+F", "Past runs", "report", "Skills", "Replay",
                "Map of screens", "Task API", "MCP", "API key", "keyring", "Troubleshooting",
                "window does not appear", "No phone is listed", "unauthorized", "ADB Keyboard")


def menu_actions(window) -> list[tuple[str, QAction]]:
    """Every action in the window's menus, with its menu path, walked here independently of the app."""
    found = []
    stack = [(top.menu(), plain(top.text())) for top in window.menuBar().actions()]
    while stack:
        menu, path = stack.pop()
        for item in menu.actions():
            if item.menu() is not None:
                stack.append((item.menu(), f"{path} › {plain(item.text())}"))
            elif not item.isSeparator():
                found.append((f"{path} › {plain(item.text())}", item))
    return found


def menu_item(window, path: str) -> QAction:
    return dict(menu_actions(window))[path]


def test_the_user_guide_travels_with_the_app_and_covers_what_a_newcomer_needs(qtbot):
    text = user_guide()
    missing = [topic for topic in GUIDE_TOPICS if topic not in text]
    assert not missing, missing
    dialog = UserGuideDialog()
    qtbot.addWidget(dialog)
    shown = dialog.browser.toPlainText()
    assert "Connecting a phone" in shown and "#" not in shown.splitlines()[0], "the Markdown is rendered"


@pytest.mark.asyncio
async def test_f1_opens_the_guide_and_ctrl_slash_lists_every_shortcut_of_every_menu(qapp, private_home):
    async with shown_window() as window:
        guide = menu_item(window, "Help › User guide")
        assert guide.shortcut() == QKeySequence("F1")
        guide.trigger()
        dialog = next(d for d in window.findChildren(UserGuideDialog))
        assert dialog.isVisible() and not dialog.isModal(), "the guide stays open beside the window"
        guide.trigger()
        assert len(window.findChildren(UserGuideDialog)) == 1, "opening it again brings the same one forward"

        later = QAction("Later addition", window)            # a menu item added after the list was written
        later.setShortcut(QKeySequence("Ctrl+Shift+K"))
        window.menuBar().actions()[0].menu().addAction(later)
        shortcuts = menu_item(window, "Help › Keyboard shortcuts")
        assert shortcuts.shortcut() == QKeySequence("Ctrl+/")
        shortcuts.trigger()
        listed = next(d for d in window.findChildren(ShortcutsDialog) if d.isVisible()).browser.toPlainText()
        with_keys = [(path, item) for path, item in menu_actions(window) if item.shortcuts()]
        assert len(with_keys) >= 12
        for path, item in with_keys:
            assert f"{key_text(*item.shortcuts())}\n{path}" in listed, f"{path} ({item.shortcut().toString()})"
        assert "Ctrl+Enter" in listed and "Ctrl+Backspace" in listed
        for android in set(SPECIAL_KEYS.values()):               # the mirror's keys, from the mirror's table
            assert f"The phone's {android} key" in listed, android
        assert key_text(window.inspector.find_shortcut.key()) in listed and "Previous match" in listed
        for letter in ("Alt+A", "Alt+E", "Alt+J", "Alt+O", "Alt+S"):
            assert letter in listed


def written_theme() -> str:
    return json.loads(paths.settings_path().read_text(encoding="utf-8"))["appearance"]["theme"]


@pytest.mark.asyncio
async def test_view_theme_applies_saves_and_returns_at_the_next_start(themed_app, private_home):
    async with shown_window() as window:
        assert window.theme_actions["system"].isChecked()
        menu_item(window, "View › Theme › Dark").trigger()
        assert current_scheme() == "dark"
        assert QApplication.palette().color(QPalette.ColorRole.Window).name() == DARK.window
        await until(lambda: paths.settings_path().exists() and written_theme() == "dark")
    set_scheme_override(None)                     # as a fresh start: the system's look until the window loads
    async with shown_window() as window:
        assert window.settings.appearance.theme == "dark" and window.theme_actions["dark"].isChecked()
        assert current_scheme() == "dark"
        menu_item(window, "View › Theme › Light").trigger()
        assert QApplication.palette().color(QPalette.ColorRole.Window).name() == LIGHT.window
        await until(lambda: written_theme() == "light")
        menu_item(window, "View › Theme › System").trigger()
        await until(lambda: written_theme() == "system")
        assert window.theme_actions["system"].isChecked()


@pytest.mark.asyncio
async def test_the_theme_chosen_in_settings_applies_when_saved(themed_app, private_home):
    async with shown_window() as window:
        window.open_settings()
        dialog = await until(lambda: next((d for d in window.findChildren(SettingsDialog) if d.isVisible()), None))
        tab = next(i for i in range(dialog.tabs.count()) if dialog.tabs.tabText(i) == "Appearance")
        dialog.tabs.setCurrentIndex(tab)
        theme_box = dialog._fields["appearance.theme"]
        assert theme_box.accessibleName() == "Theme" and theme_box.currentData() == "system"
        theme_box.setCurrentIndex(theme_box.findData("dark"))
        dialog.accept()
        await until(lambda: current_scheme() == "dark")
        await until(lambda: paths.settings_path().exists() and written_theme() == "dark")
        assert window.theme_actions["dark"].isChecked(), "the View menu shows the choice made in Settings"
        assert dialog.result() == QDialog.DialogCode.Accepted
        await asyncio.sleep(0)
