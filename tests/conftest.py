"""Shared test set-up (GUIDE §4): offscreen Qt, qasync loop for async tests, corpus paths."""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# adbutils must never start a real adb server: tests talk to the virtual phone only.
os.environ["ADBUTILS_ADB_PATH"] = "/bin/false"

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DIR = Path(os.environ.get("AGENTDESK_SHARED", REPO_ROOT.parent / "shared"))
CORPUS_DIR = SHARED_DIR / "corpus" / "ui-dumps"


def pytest_asyncio_loop_factories(config, item):
    """Async tests run on a qasync loop, as the app does."""
    import qasync
    from PySide6.QtWidgets import QApplication

    return {"qasync": lambda: qasync.QEventLoop(QApplication.instance() or QApplication([]))}


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    if not CORPUS_DIR.is_dir():
        pytest.fail(f"the UI-dump corpus is missing: expected it at {CORPUS_DIR}")
    return CORPUS_DIR
