"""Remember the main window's geometry, dock/toolbar layout and splitter sizes between runs.

Stored with QSettings("AgentDesk", "AgentDesk"); tests pass their own QSettings (an INI file
in a temporary folder). Missing, stale or corrupt values are ignored: the window keeps the
layout it was built with.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QMainWindow, QSplitter

log = logging.getLogger(__name__)

ORGANIZATION = APPLICATION = "AgentDesk"
STATE_VERSION = 1
"""Raise when docks or toolbars change so that an old layout is not applied to a new window."""
GEOMETRY_KEY = "window/geometry"
STATE_KEY = "window/state"
SPLITTER_GROUP = "splitters"


def app_settings() -> QSettings:
    """The app's own QSettings store (the platform's usual place)."""
    return QSettings(ORGANIZATION, APPLICATION)


def save_window_state(window: QMainWindow, splitters: dict[str, QSplitter],
                      settings: QSettings | None = None) -> None:
    """Store geometry, dock/toolbar state and each splitter's sizes under its name."""
    settings = settings if settings is not None else app_settings()
    settings.setValue(GEOMETRY_KEY, window.saveGeometry())
    settings.setValue(STATE_KEY, window.saveState(STATE_VERSION))
    for name, splitter in splitters.items():
        settings.setValue(f"{SPLITTER_GROUP}/{name}", splitter.saveState())
    settings.sync()
    if settings.status() != QSettings.Status.NoError:
        log.warning("The window layout could not be saved to %s (%s).", settings.fileName(), settings.status())


def restore_window_state(window: QMainWindow, splitters: dict[str, QSplitter],
                         settings: QSettings | None = None) -> bool:
    """Apply what `save_window_state` stored; True when every stored part applied cleanly."""
    settings = settings if settings is not None else app_settings()
    clean = True
    geometry = _stored_bytes(settings, GEOMETRY_KEY)
    if geometry is not None and not window.restoreGeometry(geometry):
        clean = False
    state = _stored_bytes(settings, STATE_KEY)
    if state is not None and not window.restoreState(state, STATE_VERSION):
        clean = False
    for name, splitter in splitters.items():
        sizes = _stored_bytes(settings, f"{SPLITTER_GROUP}/{name}")
        if sizes is not None and not splitter.restoreState(sizes):
            clean = False
    if not clean:
        log.info("Part of the saved window layout in %s was unusable and was ignored.", settings.fileName())
    return clean


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
