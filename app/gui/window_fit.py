"""Every top-level window fits the screen it opens on.

`fit_window(window)` (called once, in the window's constructor) makes each show of the window:

- take the size the person last gave it on this screen (remembered per screen: a 1280×720 laptop
  panel and a 1920×1080 monitor each keep their own), else the size the window asked for itself
  (its `resize()` before the first show, or `preferred`);
- shrink that to the free area of the screen (less a title bar and borders), never below the
  window's minimum size;
- move the window so that its frame lies inside that area (a dialog whose size changed is centred
  again on the window it belongs to).

Moved to another screen, the window takes the size it had there. Sizes are kept with
QSettings("AgentDesk", "AgentDesk") under `windows/<name>/<screen>`; the main window keeps its
layout itself (window_state.py) and is only clamped (`remember=False`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from PySide6.QtCore import QEvent, QMargins, QObject, QPoint, QRect, QSettings, QSize
from PySide6.QtGui import QScreen
from PySide6.QtWidgets import QWidget

from app.gui.window_state import app_settings, screen_key

GROUP = "windows"
GUESSED_FRAME = QMargins(8, 32, 8, 8)
"""A title bar and borders, reserved until the window system says how big they are."""

settings_store: Callable[[], QSettings] = app_settings
"""Where the sizes are kept (tests put a private store here)."""


def frame_margins(window: QWidget) -> QMargins:
    """The title bar and borders around `window`: what the window system says once it is shown, else a guess."""
    handle = window.windowHandle()
    if handle is not None and window.isVisible():
        margins = handle.frameMargins()
        if not margins.isNull():
            return margins
    return GUESSED_FRAME


def fitted_size(wanted: QSize, minimum: QSize, area: QRect, frame: QMargins) -> QSize:
    """`wanted`, no bigger than `area` once the frame is around it, and no smaller than `minimum`."""
    room = QSize(area.width() - frame.left() - frame.right(), area.height() - frame.top() - frame.bottom())
    return QSize(max(minimum.width(), min(wanted.width(), room.width())),
                 max(minimum.height(), min(wanted.height(), room.height())))


def fitted_position(top_left: QPoint, size: QSize, area: QRect, frame: QMargins) -> QPoint:
    """Where a frame whose corner was at `top_left` goes so that it lies inside `area` (its top-left kept
    in view when it cannot fit at all)."""
    outer = QSize(size.width() + frame.left() + frame.right(), size.height() + frame.top() + frame.bottom())
    x = min(max(top_left.x(), area.left()), max(area.left(), area.right() + 1 - outer.width()))
    y = min(max(top_left.y(), area.top()), max(area.top(), area.bottom() + 1 - outer.height()))
    return QPoint(x, y)


def window_name(window: QWidget) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", window.objectName() or type(window).__name__)


class WindowFit(QObject):
    """Fits its window on every show and remembers its size per screen (see the module's words)."""

    def __init__(self, window: QWidget, name: str, preferred: QSize | None, remember: bool):
        super().__init__(window)
        self.window, self.name, self.preferred, self.remember = window, name, preferred, remember
        self.screen: QScreen | None = None       # the screen it was fitted to last
        self._following = False
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.window:
            if event.type() == QEvent.Type.Show:
                self.fit()
                self._follow_screens()
            elif event.type() == QEvent.Type.Hide:
                self.save()
        return False

    # ------------------------------------------------------------------ sizes per screen

    def _key(self, screen: QScreen | None) -> str:
        return f"{GROUP}/{self.name}/{screen_key(screen)}"

    def remembered(self, screen: QScreen | None) -> QSize | None:
        if not self.remember:
            return None
        value = settings_store().value(self._key(screen))
        return value if isinstance(value, QSize) and value.isValid() and not value.isEmpty() else None

    def save(self, screen: QScreen | None = None) -> None:
        """Keep the window's size for `screen` (the one it is on)."""
        window = self.window
        if not self.remember or window.isMaximized() or window.isFullScreen() or window.isMinimized():
            return
        settings = settings_store()
        settings.setValue(self._key(screen if screen is not None else window.screen()), window.size())
        settings.sync()

    # ------------------------------------------------------------------ fitting

    def fit(self, screen: QScreen | None = None) -> None:
        """Size and place the window for `screen` (the one it opens on)."""
        window = self.window
        if window.isMaximized() or window.isFullScreen():
            return
        screen = screen if screen is not None else window.screen()
        if screen is None:
            return
        if self.preferred is None:          # its own size, as its code set it before the first show
            self.preferred = window.size()
        self.screen = screen
        area, frame = screen.availableGeometry(), frame_margins(window)
        wanted = self.remembered(screen) or self.preferred
        size = fitted_size(wanted, window.minimumSize(), area, frame)
        resized = size != window.size()
        if resized:
            window.resize(size)
        corner = window.pos()
        parent = window.parentWidget()
        owner = parent.window() if parent is not None else None
        if resized and owner is not None and owner.isVisible():       # centred again on its owner
            centre = owner.frameGeometry().center()
            corner = QPoint(centre.x() - size.width() // 2, centre.y() - size.height() // 2)
        place = fitted_position(corner, size, area, frame)
        if place != window.pos():
            window.move(place)

    def _follow_screens(self) -> None:
        handle = self.window.windowHandle()
        if handle is not None and not self._following:
            self._following = True
            handle.screenChanged.connect(self._screen_changed)

    def _screen_changed(self, screen: QScreen | None) -> None:
        """Dragged to another screen: keep its size for the one it left, and take the size it had on this one."""
        if self.screen is not None and self.window.isVisible():
            self.save(self.screen)
        if screen is not None and self.window.isVisible():
            self.fit(screen)


def fit_window(window: QWidget, preferred: QSize | None = None, *, name: str | None = None,
               remember: bool = True) -> WindowFit:
    """Fit `window` to the screen it opens on, each time it is shown (see the module's words). `preferred`:
    its size on a screen with room (default: its size when first shown); `name`: the key its sizes are kept
    under (default: its object name, else its class); `remember=False`: clamp only."""
    existing = fitter_of(window)
    if existing is not None:
        if preferred is not None:
            existing.preferred = preferred
        return existing
    if preferred is not None:
        window.resize(preferred)
    return WindowFit(window, name or window_name(window), preferred, remember)


def fitter_of(window: QWidget) -> WindowFit | None:
    """The window's fitter, or None when `fit_window` was never called on it."""
    return next((child for child in window.children() if isinstance(child, WindowFit)), None)
