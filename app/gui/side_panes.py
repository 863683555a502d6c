"""The window's two side panes open and shut: phones and request on the left, inspector and timeline on
the right. Each has a checkable item under View and a button at its end of the status bar, always in
step with the splitter (dragged shut counts as shut). On a small screen (1280×720) the window first opens
with the right pane shut, so the mirror and the request have the room; a saved layout replaces that.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QScrollArea, QSplitter, QToolButton

if TYPE_CHECKING:
    from app.gui.main_window import MainWindow

LEFT, RIGHT = 0, 2                       # the side panes' places in the main splitter (the mirror is 1)
SMALL_SCREEN_WIDTH = 1600
"""A screen narrower than this (1280, 1366, 1440, 1536 px) opens with the right pane shut."""
MIRROR_KEEP = 500
"""px: opening a side pane, the mirror's column keeps this much (its bar in two rows) if the other side pane,
above its usual share, can give it."""
OTHER_FLOOR_PERCENT = 24
"""The other side pane gives no more than down to this share of the width (the first layout's)."""
PANE_WORDS = {LEFT: ("Phones and request pane", "◧ Request", "Show or hide the phones and the request (left)"),
              RIGHT: ("Inspector and timeline pane", "Inspector ◨",
                      "Show or hide the inspector and the run's timeline (right)")}


def show_pane(window: MainWindow, index: int, shown: bool) -> None:
    """Open or collapse a side pane (the mirror gives or takes the width). A pane opens as wide as it
    was, and at least as wide as its content needs."""
    main = window.splitters["main"]
    sizes = main.sizes()
    widths: dict[int, int] = window.__dict__.setdefault("_collapsed_pane_widths", {})
    if shown and sizes[index] == 0:
        pane = main.widget(index)
        content = pane.widget() if isinstance(pane, QScrollArea) else pane
        if pane is None or content is None:     # no pane there: nothing to open
            return
        width = max(widths.pop(index, 0), pane.minimumWidth(), content.minimumSizeHint().width() + 24)
        sizes[index], sizes[1] = width, sizes[1] - width
        other = RIGHT - index                  # the other side pane gives back what it got while this was shut
        other_pane = main.widget(other)
        floor = max(other_pane.minimumWidth() if other_pane else 0, sum(sizes) * OTHER_FLOOR_PERCENT // 100)
        give = min(MIRROR_KEEP - sizes[1], sizes[other] - floor) if sizes[other] > 0 else 0
        if give > 0:
            sizes[other] -= give
            sizes[1] += give
        sizes[1] = max(0, sizes[1])
    elif not shown and sizes[index] > 0:
        widths[index] = sizes[index]
        sizes[1] += sizes[index]
        sizes[index] = 0
    main.setSizes(sizes)
    side_panes = getattr(window, "side_panes", None)
    if side_panes is not None:
        side_panes.sync()


class SidePanes(QObject):
    """The View items and status-bar buttons that open and shut the side panes."""

    def __init__(self, window: MainWindow):
        super().__init__(window)
        self.window = window
        self.main: QSplitter = window.splitters["main"]
        self.actions: dict[int, QAction] = {}
        self.buttons: dict[int, QToolButton] = {}
        for index, (menu_text, button_text, tip) in PANE_WORDS.items():
            action = QAction(menu_text, window)
            action.setCheckable(True)
            action.setChecked(True)
            action.setToolTip(tip)
            action.triggered.connect(lambda on, i=index: show_pane(window, i, on))
            self.actions[index] = action
            button = QToolButton()
            button.setText(button_text)          # shorter than the menu's words
            button.setToolTip(tip)
            button.setCheckable(True)
            button.setChecked(True)
            button.setAutoRaise(True)
            button.setAccessibleName(menu_text)
            button.clicked.connect(lambda on, i=index: show_pane(window, i, on))
            self.buttons[index] = button
        self.main.splitterMoved.connect(lambda *_args: self.sync())
        for index in PANE_WORDS:           # a restored layout (another screen's) resizes the panes without a signal
            pane = self.main.widget(index)
            if pane is not None:
                pane.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.sync()
        return False

    def place_buttons(self) -> None:
        """The left pane's button at the status bar's left end, the right pane's at its right end."""
        bar = self.window.statusBar()
        bar.insertWidget(0, self.buttons[LEFT])
        bar.addPermanentWidget(self.buttons[RIGHT])

    def sync(self) -> None:
        """Check each item and button as its pane is open or shut (after a drag, a restored layout…)."""
        sizes = self.main.sizes()
        for index in self.actions:
            open_now = sizes[index] > 0
            for toggle in (self.actions[index], self.buttons[index]):
                blocked = toggle.blockSignals(True)
                toggle.setChecked(open_now)
                toggle.blockSignals(blocked)


def small_screen(window: MainWindow) -> bool:
    screen = window.screen()
    return screen is not None and screen.availableGeometry().width() < SMALL_SCREEN_WIDTH
