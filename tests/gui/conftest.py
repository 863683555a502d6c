"""GUI tests: the app never quits when its last window closes (it awaits shutdown instead)."""

from __future__ import annotations

import asyncio
import contextlib

import keyring
import pytest
from PySide6.QtCore import QSettings, QStandardPaths

from tests.support.memory_keyring import MemoryKeyring


@pytest.fixture(autouse=True)
def keep_app_alive_after_windows_close(qapp):
    qapp.setQuitOnLastWindowClosed(False)
    yield


@pytest.fixture
def private_home(tmp_path, monkeypatch):
    """Own data folder, own QSettings (no window layout saved by another test or a person applies), a keyring
    in memory, no API key and this machine's default ADB server."""
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path))
    for name in ("OPENAI_API_KEY", "ANDROID_ADB_SERVER_PORT", "ANDROID_ADB_SERVER_HOST"):
        monkeypatch.delenv(name, raising=False)
    default = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericConfigLocation)
    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(tmp_path / "config"))
    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    yield tmp_path
    keyring.set_keyring(previous)
    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, default)


@contextlib.asynccontextmanager
async def shown_window():
    """The main window, shown but not started (a test may connect to it first); closed and shut down after."""
    from app.core.secrets import SecretStore
    from app.gui.main_window import MainWindow
    from PySide6.QtWidgets import QDialog

    window = MainWindow(asyncio.Event(), SecretStore())
    window.show()
    try:
        yield window
    finally:
        window.close()
        await window.shutdown()
        for dialog in window.findChildren(QDialog):
            dialog.deleteLater()
