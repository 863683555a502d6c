"""Shared test set-up (GUIDE §4): offscreen Qt, qasync loop for async tests, corpus paths."""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Qt's QSettings (window layout) and platformdirs must never touch the real user's config.
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="agentdesk-test-config-")
# adbutils must never start a real adb server: tests talk to the virtual phone only.
os.environ["ADBUTILS_ADB_PATH"] = "/bin/false"

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DIR = Path(os.environ.get("AGENTDESK_SHARED", REPO_ROOT.parent / "shared"))
CORPUS_DIR = SHARED_DIR / "corpus" / "ui-dumps"


def pytest_asyncio_loop_factories(config, item):
    """GUI and end-to-end tests run on a qasync loop, as the app does; core tests on plain asyncio."""
    test_path = Path(str(item.fspath))
    if not {"gui", "e2e"} & set(test_path.parts):
        return {"asyncio": asyncio.new_event_loop}
    from app.gui.event_loop import new_qasync_loop

    def make_loop():
        loop = new_qasync_loop()
        asyncio.set_event_loop(loop)     # a Runner with a loop factory does not make its loop current
        QASYNC_LOOPS.append(loop)
        return loop

    return {"qasync": make_loop}


QASYNC_LOOPS: list[asyncio.AbstractEventLoop] = []


@pytest.fixture(autouse=True)
def qasync_loop_is_current():
    """Keep the session's qasync loop the thread's current loop.

    asyncio.run() (the CLI tests run the CLI in-process) leaves no current loop behind.
    qasync delivers pending Qt events once more after each loop iteration, with no
    running loop; a slot that schedules a task then would put it on a fresh loop that
    never runs, and the test would wait forever.
    """
    if QASYNC_LOOPS and not QASYNC_LOOPS[-1].is_closed():
        asyncio.set_event_loop(QASYNC_LOOPS[-1])
    yield


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    if not CORPUS_DIR.is_dir():
        pytest.fail(f"the UI-dump corpus is missing: expected it at {CORPUS_DIR}")
    return CORPUS_DIR


@pytest.fixture
def virtual_adb(monkeypatch):
    """A virtual-phone ADB server on a free loopback port with one phone; adbutils points at it."""
    from app.virtual_phone.adb_server import VirtualAdbServer

    server = VirtualAdbServer().start()
    server.add_phone()
    monkeypatch.setenv("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(server.port))
    yield server
    server.stop()


@pytest.fixture
def phone_device(virtual_adb):
    """The async device API bound to the virtual phone."""
    from app.core.device.adb_transport import AdbTransport
    from app.core.device.android_device import AndroidDevice

    return AndroidDevice(AdbTransport("127.0.0.1", virtual_adb.port), virtual_adb.devices[0].serial)
