"""The main window's menus and its one Ctrl+Enter.

Ctrl+Enter (either Enter key) does the next thing a person would confirm: answer the agent's
question or approve the waiting action when there is one, otherwise run the request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from PySide6.QtCore import QUrl
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence
from PySide6.QtWidgets import QScrollArea

from app.core import paths
from app.gui.map.map_window import show_map
from app.gui.runs.approval_panel import PAGE_QUESTION
from app.gui.skills.skills_dialog import show_skills

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
    view_menu = window.menuBar().addMenu("&View")
    window.overlay_action = action(view_menu, "Control boxes", window.overlay_button.toggle, "Ctrl+B", checkable=True)
    window.overlay_action.setChecked(True)
    window.overlay_button.toggled.connect(window.overlay_action.setChecked)
    view_menu.addSeparator()
    main = window.splitters["main"]
    for index, text in ((0, "Phones and request pane"), (2, "Inspector and timeline pane")):
        item = action(view_menu, text, lambda on, i=index: show_pane(window, i, on), checkable=True)
        item.setChecked(True)
        main.splitterMoved.connect(lambda *_args, i=index, it=item: it.setChecked(main.sizes()[i] > 0))
    help_menu = window.menuBar().addMenu("&Help")
    action(help_menu, "About Agent Desk", window.open_about)


def show_pane(window: MainWindow, index: int, shown: bool) -> None:
    """Open or collapse a side pane (the mirror gives or takes the width). A pane opens as wide as it
    was, or as wide as its content needs."""
    main = window.splitters["main"]
    sizes = main.sizes()
    widths: dict[int, int] = window.__dict__.setdefault("_collapsed_pane_widths", {})
    if shown and sizes[index] == 0:
        pane = main.widget(index)
        content = pane.widget() if isinstance(pane, QScrollArea) else pane
        width = widths.pop(index, 0) or max(pane.minimumWidth(), content.minimumSizeHint().width() + 24)
        sizes[index], sizes[1] = width, max(0, sizes[1] - width)
    elif not shown and sizes[index] > 0:
        widths[index] = sizes[index]
        sizes[1] += sizes[index]
        sizes[index] = 0
    main.setSizes(sizes)
