"""Shared test set-up (GUIDE §4): offscreen Qt, qasync loop for async tests, corpus paths."""

from __future__ import annotations

import asyncio
import atexit
import os
import shutil
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Qt's QSettings (window layout) and platformdirs must never touch the real user's config, data or logs;
# one folder per test process, so xdist's workers never share a settings file or a rotating log.
_XDG = tempfile.mkdtemp(prefix="agentdesk-test-xdg-")
atexit.register(shutil.rmtree, _XDG, True)
for _name in ("CONFIG", "DATA", "STATE"):
    os.environ[f"XDG_{_name}_HOME"] = os.path.join(_XDG, _name.lower())
# adbutils must never start a real adb server: tests talk to the virtual phone only.
os.environ["ADBUTILS_ADB_PATH"] = "/bin/false"
# Each desk a test builds gets a private built-in phone in its own process (port 0), never the computer's shared
# one: xdist's workers must not share a phone. tests/test_shared_phone.py gives its tests a private shared port.
os.environ["AGENTDESK_VIRTUAL_PORT"] = "0"
# Most tests count and break `uiautomator dump` on purpose, so the screen's tree comes that way unless a test turns
# uiautomator2's server on (tests/core/test_tree_server.py, and the e2e tests marked `tree_server`); the app's
# own default is the server on the virtual phone and emulators (adb.tree_server = "auto").
os.environ["AGENTDESK_TREE_SERVER"] = "off"

import pytest  # noqa: E402  (after the environment above is set)

from tests.support import tiers  # noqa: E402  (after the environment above is set)
from tests.support.leaks import LeakCheck, LoopErrorLog  # noqa: E402  (after the environment above is set)

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DIR = Path(os.environ.get("AGENTDESK_SHARED", REPO_ROOT.parent / "shared"))
CORPUS_DIR = SHARED_DIR / "corpus" / "ui-dumps"


def pytest_asyncio_loop_factories(config, item):
    """GUI tests run on a qasync loop, as the window does; every other test on a plain asyncio loop,
    the kind the core (runs, phones) lives on in the app (its LoopThread) and in the CLI.

    The factories are module-level functions: pytest-asyncio keys its session-scoped runner on
    the factory object, so a new closure per test would make a new loop per test.
    """
    test_path = Path(str(item.fspath))
    if "gui" not in test_path.parts:
        return {"asyncio": _new_asyncio_loop}
    return {"qasync": _new_qasync_loop}


SESSION_LOOPS: list[asyncio.AbstractEventLoop] = []
"""Every loop the factories below made (one per loop kind while the session-scoped runner lives)."""
QASYNC_LOOPS: list[asyncio.AbstractEventLoop] = []


def _new_asyncio_loop() -> asyncio.AbstractEventLoop:
    loop = asyncio.new_event_loop()
    SESSION_LOOPS.append(loop)
    return loop


def _new_qasync_loop() -> asyncio.AbstractEventLoop:
    from app.gui.event_loop import new_qasync_loop

    loop = new_qasync_loop()
    asyncio.set_event_loop(loop)     # a Runner with a loop factory does not make its loop current
    QASYNC_LOOPS.append(loop)
    SESSION_LOOPS.append(loop)
    return loop


LOOP_ERRORS = LoopErrorLog()
LOOP_ERRORS.install()


@pytest.fixture(autouse=True)
def leaves_nothing_behind():
    """Fail (as a teardown error) a test that leaves threads or tasks running, or whose
    event loop reported an error nobody handled ("Task exception was never retrieved")."""
    check = LeakCheck(SESSION_LOOPS, LOOP_ERRORS)
    yield
    problems = check.problems()
    if problems:
        pytest.fail("the test left things behind:\n  " + "\n  ".join(problems), pytrace=False)


@pytest.fixture
def loop_errors() -> LoopErrorLog:
    """For a test that makes an event loop report an error on purpose: `loop_errors.take()`
    returns what the loops logged so far (and the leak check no longer sees it)."""
    return LOOP_ERRORS


@pytest.hookimpl(tryfirst=True)    # before xdist reads the groups (--dist loadgroup)
def pytest_collection_modifyitems(config, items):
    """The tiers of `.ci/run` (markers `bench`, `real_model`) and the xdist groups: tests/support/tiers.py."""
    tiers.mark_tiers(items)


def pytest_make_parametrize_id(config, val, argname):
    """A long bytes parameter (an APK built at collection time, its zip entries stamped with the time) is named
    by its size and first bytes: xdist's workers must collect the same test ids, and such a value differs
    between two collections a second apart."""
    if isinstance(val, bytes) and len(val) > 64:
        return f"{len(val)}-bytes-{val[:4].hex()}"
    return None


def pytest_terminal_summary(terminalreporter):
    """Say how many tests did not run and why (a corpus-wide test skipped without ../shared counts as the
    tests it stands for), just above pytest's own summary line."""
    lines = tiers.summary_lines(terminalreporter.stats.get("skipped", []))
    if lines:
        terminalreporter.write_sep("-", "tests that did not run")
        for line in lines:
            terminalreporter.write_line(line, yellow=True)


def pytest_sessionfinish(session):
    """Loop errors reported after the last test's check (when the session's loops close)."""
    late = LOOP_ERRORS.take()
    if late:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        message = "an event loop reported unhandled errors after the last test:\n  " + "\n  ".join(late)
        if reporter is not None:
            reporter.ensure_newline()
            reporter.write_line(message, red=True)
        else:
            print(message)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


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


CORPUS_MISSING = (f"the shared UI-dump corpus is not here: expected it at {CORPUS_DIR} "
                  "(a checkout with ../shared beside it has it; or set AGENTDESK_SHARED)")


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The shared UI-dump corpus; a test that asks for it is skipped where it is missing (a fresh clone)."""
    if not CORPUS_DIR.is_dir():
        pytest.skip(CORPUS_MISSING)
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

    device = AndroidDevice(AdbTransport("127.0.0.1", virtual_adb.port), virtual_adb.devices[0].serial)
    yield device
    shell = device.tree_server._shell         # the server it started ends with the shell it runs under
    if shell is not None:
        shell.close()
