"""The main window's menus and its one Ctrl+Enter.

Ctrl+Enter (either Enter key) does the next thing a person would confirm: answer the agent's
question or approve the waiting action when there is one, otherwise run the request.
View › Actual size (1:1) and Full screen (F11) show the phone as scrcpy does; the side panes open and
shut there and from the status bar's ends (side_panes.py). View › Theme picks the look (saved with the
settings); Help has the user guide (F1), the keyboard shortcuts (Ctrl+/) and About. Building the menus
is the window's last step: it also applies the saved look and names, for screen readers, any control
still without a name.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QUrl
from PySide6.QtGui import QAction, QActionGroup, QDesktopServices, QKeySequence

from app.core import paths
from app.core.config import AppearanceSettings, save_settings
from app.gui.accessibility import name_main_window
from app.gui.help_dialogs import show_help
from app.gui.map.map_window import show_map
from app.gui.phones.phone_grid import show_phone_grid
from app.gui.runs.approval_panel import PAGE_QUESTION
from app.gui.side_panes import SidePanes
from app.gui.skills.skills_dialog import show_skills
from app.gui.theme import THEME_CHOICES, ThemeChoice, apply_theme_choice
from app.gui.view_modes import ViewModes

if TYPE_CHECKING:
    from app.gui.main_window import MainWindow

CTRL_ENTER = (QKeySequence("Ctrl+Return"), QKeySequence("Ctrl+Enter"))


def ctrl_enter(window: MainWindow) -> str:
    """Confirm what waits for the person, else run the request; returns what it did (for tests and logs)."""
    approval = window.approval
    if not approval.pages.isHidden() and approval.pages.currentIndex() == PAGE_QUESTION:
        approval.confirm()
        return "answer"
    if approval.proposal is not None:
        approval.confirm()         # the page showing: approve, or finish the edit / override / rejection
        return "approve"
    if not window.controller.running and window.request.run_button.isEnabled():
        window.request.run_button.click()
        return "run"
    return ""


def build_menus(window: MainWindow) -> None:
    def action(menu, text: str, slot: Callable, shortcut=None, checkable: bool = False) -> QAction:
        item = QAction(text, window)
        if isinstance(shortcut, tuple):
            item.setShortcuts(list(shortcut))
        elif shortcut:
            item.setShortcut(QKeySequence(shortcut))
        item.setCheckable(checkable)
        item.triggered.connect(slot)
        menu.addAction(item)
        return item

    file_menu = window.menuBar().addMenu("&File")
    action(file_menu, "Settings…", window.open_settings, "Ctrl+,")
    action(file_menu, "Past runs…", window.open_past_runs, "Ctrl+O")
    action(file_menu, "Skills…", lambda: show_skills(window))
    action(file_menu, "Map of screens…", lambda: show_map(window))
    action(file_menu, "All phones…", lambda: show_phone_grid(window), "Ctrl+Shift+P")
    action(file_menu, "Open runs folder", lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(paths.runs_dir()))))
    file_menu.addSeparator()
    action(file_menu, "Quit", window.close, "Ctrl+Q")
    run_menu = window.menuBar().addMenu("&Run")
    action(run_menu, "Run", lambda: window.request.run_button.click(), "F5")
    action(run_menu, "Step", lambda: window.request.step_button.click(), "F10")
    action(run_menu, "Pause / resume", lambda: window.request.pause_button.click(), "F6")
    action(run_menu, "Stop", window.controller.stop, "Shift+F5")
    run_menu.addSeparator()
    window.ctrl_enter_action = action(run_menu, "Approve, or run the request", lambda: ctrl_enter(window), CTRL_ENTER)
    action(run_menu, "Reject…", lambda: window.approval.reject_button.click(), "Ctrl+Backspace")
    action(run_menu, "Take over / hand back", lambda: window.take_over_or_hand_back(), "Ctrl+T")
    view_menu = window.menuBar().addMenu("&View")
    window.overlay_action = action(view_menu, "Control boxes", window.overlay_button.toggle, "Ctrl+B", checkable=True)
    window.overlay_action.setChecked(True)
    window.overlay_button.toggled.connect(window.overlay_action.setChecked)
    window.view_modes = ViewModes(window)
    view_menu.addAction(window.view_modes.actual_size_action)
    view_menu.addAction(window.view_modes.full_screen_action)
    view_menu.addSeparator()
    window.side_panes = SidePanes(window)
    window.side_panes.place_buttons()
    for item in window.side_panes.actions.values():
        view_menu.addAction(item)
    view_menu.addSeparator()
    theme_menu = view_menu.addMenu("&Theme")
    themes = QActionGroup(window)
    window.theme_actions = {}
    for choice, text in THEME_CHOICES:
        window.theme_actions[choice] = themes.addAction(
            action(theme_menu, text, lambda _on=False, c=choice: choose_theme(window, c), checkable=True))
    help_menu = window.menuBar().addMenu("&Help")
    action(help_menu, "User guide", lambda: show_help(window, "guide"), "F1")
    action(help_menu, "Keyboard shortcuts", lambda: show_help(window, "shortcuts"), "Ctrl+/")
    help_menu.addSeparator()
    action(help_menu, "About Agent Desk", window.open_about)
    # Escape while picking on the mirror (an override) goes back to the proposal, as it does in the panel.
    window.mirror.pick_cancelled.connect(window.approval.back_to_proposal)
    apply_appearance(window)
    window.derived_accessible_names = name_main_window(window)


def apply_appearance(window: MainWindow) -> None:
    """Show the look the window's settings choose (at start, after Settings or View › Theme)."""
    choice = window.settings.appearance.theme
    apply_theme_choice(choice)
    window.theme_actions[choice].setChecked(True)


def choose_theme(window: MainWindow, choice: ThemeChoice) -> None:
    """View › Theme: apply the look now and save it with the settings (in a worker thread)."""
    if window.settings.appearance.theme == choice:
        return
    window.settings = window.settings.model_copy(update={"appearance": AppearanceSettings(theme=choice)})
    apply_appearance(window)

    async def save() -> None:
        try:
            await asyncio.to_thread(save_settings, window.settings, paths.settings_path())
        except OSError as exc:
            window.show_status(f"The theme applies now but could not be saved for next time: {exc}")
    window.spawn(save())
