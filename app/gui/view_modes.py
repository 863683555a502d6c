"""How the window shows the phone, as scrcpy users expect: 1:1 (one phone pixel per screen pixel,
scrolling, scrcpy's "pixel perfect") and full screen (F11; Esc or F11 again leaves). Full screen shows
the mirror and its bar only: the side panes, the menu bar and the status bar come back as they were.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QRect, Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut

if TYPE_CHECKING:
    from app.gui.main_window import MainWindow

ACTUAL_SIZE_KEY = "Ctrl+1"
FULL_SCREEN_KEY = "F11"


def enlarged_note(max_size: int, device_size: tuple[int, int]) -> str:
    """What 1:1 cannot show when the stream is capped below the phone's size (its pictures are enlarged)."""
    if not max_size or max(device_size) <= max_size:
        return ""
    return (f"1:1: the stream sends pictures of at most {max_size} px, so the phone's {max(device_size)} px are "
            "shown enlarged. For its own pixels, set Settings › Mirror › Size limit to Full resolution.")


@dataclass
class _Before:
    """What full screen changed, to put back."""

    maximized: bool
    geometry: QRect
    sizes: list[int]
    menu_bar: bool
    status_bar: bool


class ViewModes(QObject):
    """View › Actual size (1:1) and View › Full screen, with the mirror bar's buttons kept in step."""

    def __init__(self, window: MainWindow):
        super().__init__(window)
        self.window = window
        panel = window.mirror_panel
        self.actual_size_action = QAction("Actual size (1:1)", window)
        self.actual_size_action.setCheckable(True)
        self.actual_size_action.setShortcut(QKeySequence(ACTUAL_SIZE_KEY))
        self.actual_size_action.setToolTip(panel.actual_size_button.toolTip())
        self.actual_size_action.triggered.connect(self.set_actual_size)
        self.full_screen_action = QAction("Full screen (Esc leaves)", window)
        self.full_screen_action.setCheckable(True)
        self.full_screen_action.setShortcut(QKeySequence(FULL_SCREEN_KEY))
        self.full_screen_action.triggered.connect(self.set_full_screen)
        for action in (self.actual_size_action, self.full_screen_action):
            window.addAction(action)      # their keys work with the menu bar hidden (full screen) too
        panel.actual_size_toggled.connect(self.set_actual_size)
        panel.full_screen_toggled.connect(self.set_full_screen)
        self.leave_shortcut = QShortcut(QKeySequence(Qt.Key.Key_Escape), window)
        self.leave_shortcut.setEnabled(False)
        self.leave_shortcut.activated.connect(self.escape)
        self.leave_shortcut.activatedAmbiguously.connect(self.escape)   # the mirror's own Esc (while picking)
        self._before: _Before | None = None

    @property
    def full_screen(self) -> bool:
        return self._before is not None

    def set_actual_size(self, on: bool) -> None:
        window = self.window
        window.mirror_panel.set_actual_size(on)
        self.actual_size_action.setChecked(bool(on))
        if on and (note := enlarged_note(window.settings.mirror.max_size, window.mirror.device_size)):
            window.show_status(note)

    def toggle_full_screen(self) -> None:
        self.set_full_screen(not self.full_screen)

    def set_full_screen(self, on: bool) -> None:
        window = self.window
        on = bool(on)
        if on != self.full_screen:
            main = window.splitters["main"]
            if on:
                self._before = _Before(window.isMaximized(), window.geometry(), main.sizes(),
                                       window.menuBar().isVisible(), window.statusBar().isVisible())
                main.setSizes([0, sum(self._before.sizes), 0])
                for index in (1, 2):
                    main.handle(index).hide()        # no divider to drag at the screen's edges
                window.menuBar().hide()
                window.statusBar().hide()
                window.showFullScreen()
            else:
                before, self._before = self._before, None
                assert before is not None
                if before.maximized:
                    window.showMaximized()
                else:
                    window.showNormal()
                    window.setGeometry(before.geometry)
                window.menuBar().setVisible(before.menu_bar)
                window.statusBar().setVisible(before.status_bar)
                main.setSizes(before.sizes)
                for index in (1, 2):
                    main.handle(index).show()
            self.leave_shortcut.setEnabled(on)
            side_panes = getattr(window, "side_panes", None)
            if side_panes is not None:
                side_panes.sync()
        self.full_screen_action.setChecked(on)
        button = window.mirror_panel.full_screen_button
        blocked = button.blockSignals(True)
        button.setChecked(on)
        button.blockSignals(blocked)

    def escape(self) -> None:
        """Esc: cancel a pick on the mirror first (as it does out of full screen), else leave full screen."""
        if self.window.mirror.interaction_mode == "pick":
            self.window.mirror.cancel_pick()
        else:
            self.set_full_screen(False)
