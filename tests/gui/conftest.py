"""GUI tests: the app never quits when its last window closes (it awaits shutdown instead)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def keep_app_alive_after_windows_close(qapp):
    qapp.setQuitOnLastWindowClosed(False)
    yield
