"""GUI tests: the app never quits when its last window closes (it awaits shutdown instead)."""

from __future__ import annotations

import asyncio
import contextlib

import pytest


@pytest.fixture(autouse=True)
def keep_app_alive_after_windows_close(qapp):
    qapp.setQuitOnLastWindowClosed(False)
    yield


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
