"""Remember the main window's geometry, dock/toolbar layout and splitter sizes between runs, per
screen: each screen (its name, size and scale) keeps its own layout, and the window opens with
the layout of the screen it was last on while that screen is attached.

Stored with QSettings("AgentDesk", "AgentDesk"); tests pass their own QSettings (an INI file
in a temporary folder). Missing, stale or corrupt values are ignored: the window keeps the
layout it was built with.
"""

from __future__ import annotations

import logging
import re

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtGui import QGuiApplication, QScreen
from PySide6.QtWidgets import QMainWindow, QSplitter

log = logging.getLogger(__name__)

ORGANIZATION = APPLICATION = "AgentDesk"
STATE_VERSION = 1
"""Raise when docks or toolbars change so that an old layout is not applied to a new window."""
GEOMETRY_KEY = "window/geometry"
STATE_KEY = "window/state"
SPLITTER_GROUP = "splitters"
SCREEN_GROUP = "screens"
LAST_SCREEN_KEY = "window/last_screen"


def app_settings() -> QSettings:
    """The app's own QSettings store (the platform's usual place)."""
    return QSettings(ORGANIZATION, APPLICATION)


def screen_key(screen: QScreen | None) -> str:
    """A name for a screen and its size: the layout of a 1280×720 laptop panel is kept apart from that
    of a 1920×1080 monitor, and a screen whose resolution or scale changed counts as another one."""
    if screen is None:
        return "unknown"
    size = screen.size()
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", screen.name() or screen.model() or "screen").strip("_") or "screen"
    return f"{name}-{size.width()}x{size.height()}@{screen.devicePixelRatio():g}"


def _group(key: str) -> str:
    return f"{SCREEN_GROUP}/{key}"


def save_window_state(window: QMainWindow, splitters: dict[str, QSplitter],
                      settings: QSettings | None = None, screen: QScreen | None = None, *,
                      key: str | None = None) -> None:
    """Store geometry, dock/toolbar state and each splitter's sizes under its name, for the screen the
    window is on (or `screen`, or the screen `key`), and remember it as the one the window was last on."""
    settings = settings if settings is not None else app_settings()
    key = key or screen_key(screen if screen is not None else window.screen())
    settings.beginGroup(_group(key))
    settings.setValue(GEOMETRY_KEY, window.saveGeometry())
    settings.setValue(STATE_KEY, window.saveState(STATE_VERSION))
    for name, splitter in splitters.items():
        settings.setValue(f"{SPLITTER_GROUP}/{name}", splitter.saveState())
    settings.endGroup()
    settings.setValue(LAST_SCREEN_KEY, key)
    settings.sync()
    if settings.status() != QSettings.Status.NoError:
        log.warning("The window layout could not be saved to %s (%s).", settings.fileName(), settings.status())


def restore_window_state(window: QMainWindow, splitters: dict[str, QSplitter],
                         settings: QSettings | None = None) -> bool:
    """Apply what `save_window_state` stored; True when every stored part applied cleanly.

    The layout of the screen the window was last on is used while that screen is attached; else
    that of the screen the window opens on; else the layout stored before layouts were kept per
    screen. The window is then kept inside its screen's free area."""
    settings = settings if settings is not None else app_settings()
    attached = {screen_key(screen): screen for screen in QGuiApplication.screens()}
    last = str(settings.value(LAST_SCREEN_KEY, "") or "")
    key = last if last in attached and _has_layout(settings, last) else screen_key(window.screen())
    prefix = f"{_group(key)}/" if _has_layout(settings, key) else ""
    clean = True
    geometry = _stored_bytes(settings, prefix + GEOMETRY_KEY)
    if geometry is not None and not window.restoreGeometry(geometry):
        clean = False
    state = _stored_bytes(settings, prefix + STATE_KEY)
    if state is not None and not window.restoreState(state, STATE_VERSION):
        clean = False
    if not restore_splitters(splitters, settings, prefix):
        clean = False
    if not clean:
        log.info("Part of the saved window layout in %s was unusable and was ignored.", settings.fileName())
    keep_on_screen(window)
    return clean


def restore_splitters(splitters: dict[str, QSplitter], settings: QSettings, prefix: str) -> bool:
    clean = True
    for name, splitter in splitters.items():
        sizes = _stored_bytes(settings, f"{prefix}{SPLITTER_GROUP}/{name}")
        if sizes is not None and not splitter.restoreState(sizes):
            clean = False
    return clean


def keep_on_screen(window: QMainWindow) -> None:
    """Shrink and move the window into its screen's free area (a layout saved on a bigger screen)."""
    screen = window.screen()
    if screen is None:
        return
    area = screen.availableGeometry()
    frame = window.frameGeometry().size() - window.geometry().size()     # title bar and borders, once shown
    width = max(window.minimumWidth(), min(window.width(), area.width() - frame.width()))
    height = max(window.minimumHeight(), min(window.height(), area.height() - frame.height()))
    if (width, height) != (window.width(), window.height()):
        window.resize(width, height)
    x = min(max(window.x(), area.left()), max(area.left(), area.right() + 1 - width - frame.width()))
    y = min(max(window.y(), area.top()), max(area.top(), area.bottom() + 1 - height - frame.height()))
    if (x, y) != (window.x(), window.y()):
        window.move(x, y)


class ScreenLayouts:
    """Follows the window from screen to screen: when it moves to another one, the layout used there
    last (its splitter sizes) comes back, and the one it leaves is kept for that screen."""

    def __init__(self, window: QMainWindow, splitters: dict[str, QSplitter], settings: QSettings | None = None):
        self.window, self.splitters, self.settings = window, splitters, settings
        self.screen: QScreen | None = None
        self._following = False

    def restore(self) -> bool:
        clean = restore_window_state(self.window, self.splitters, self.settings)
        self.screen = self.window.screen()
        return clean

    def follow(self) -> None:
        """Call once the window is shown (it then has a native window that reports screen changes)."""
        handle = self.window.windowHandle()
        if handle is not None and not self._following:
            self._following = True
            self.screen = handle.screen()
            handle.screenChanged.connect(self._screen_changed)

    def save(self) -> None:
        save_window_state(self.window, self.splitters, self.settings, self.window.screen())

    def _screen_changed(self, screen: QScreen | None) -> None:
        settings = self.settings if self.settings is not None else app_settings()
        # The pane sizes it had there (its geometry is already on the new screen: not kept for the old one).
        for name, splitter in self.splitters.items():
            settings.setValue(f"{_group(screen_key(self.screen))}/{SPLITTER_GROUP}/{name}", splitter.saveState())
        self.screen = screen
        key = screen_key(screen)
        settings.setValue(LAST_SCREEN_KEY, key)
        if _has_layout(settings, key):
            restore_splitters(self.splitters, settings, f"{_group(key)}/")


def _has_layout(settings: QSettings, key: str) -> bool:
    settings.beginGroup(_group(key))
    try:
        return bool(settings.allKeys())
    finally:
        settings.endGroup()


def _stored_bytes(settings: QSettings, key: str) -> QByteArray | None:
    """The stored value as bytes; None when absent. A value of another type yields empty bytes,
    which Qt's restore functions refuse, so it counts as corrupt."""
    if not settings.contains(key):
        return None
    value = settings.value(key)
    if isinstance(value, QByteArray):
        return value
    if isinstance(value, (bytes, bytearray)):
        return QByteArray(bytes(value))
    return QByteArray()
