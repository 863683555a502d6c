"""GUI tests: the app never quits when its last window closes (it awaits shutdown instead). Shared set-ups: a
private home, a shown window, and a window running on the virtual phone with a loopback model."""

from __future__ import annotations

import asyncio
import contextlib

import keyring
import pytest
import pytest_asyncio
from PySide6.QtCore import QSettings, QStandardPaths

from tests.support.memory_keyring import MemoryKeyring
from tests.support.waiting import until


@pytest.fixture(autouse=True)
def keep_app_alive_after_windows_close(qapp):
    qapp.setQuitOnLastWindowClosed(False)
    yield


@pytest.fixture(autouse=True)
def delete_closed_windows(qapp):
    """Windows a test closed are deleted after it: a closed main window kept alive costs every later
    test that restyles the app (a theme switch polishes every widget there is) — thousands of widgets."""
    yield
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QApplication, QMainWindow

    closed = [widget for widget in QApplication.topLevelWidgets()
              if isinstance(widget, QMainWindow) and not widget.isVisible()]
    for widget in closed:
        widget.deleteLater()
    if closed:
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


@pytest.fixture(autouse=True)
def own_window_sizes(tmp_path, monkeypatch):
    """The window sizes window_fit remembers go to this test's own store: a size one test gave a dialog never
    opens it at that size in the next."""
    from app.gui import window_fit

    store = QSettings(str(tmp_path / "window-sizes.ini"), QSettings.Format.IniFormat)
    monkeypatch.setattr(window_fit, "settings_store", lambda: store)


@pytest.fixture
def themed_app(qapp):
    """The app themed for one test; its previous look is restored afterwards for the other tests."""
    from PySide6.QtGui import QGuiApplication

    from app.gui.theme import apply_theme, set_scheme_override

    style, palette, style_sheet = qapp.style().name(), qapp.palette(), qapp.styleSheet()
    apply_theme(qapp)
    yield qapp
    QGuiApplication.styleHints().colorSchemeChanged.emit(QGuiApplication.styleHints().colorScheme())
    set_scheme_override(None)
    qapp.setStyleSheet(style_sheet)
    qapp.setPalette(palette)
    if style:
        qapp.setStyle(style)


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
    from PySide6.QtWidgets import QDialog

    from app.core.secrets import SecretStore
    from app.gui.main_window import MainWindow

    window = MainWindow(asyncio.Event(), SecretStore())
    window.show()
    try:
        yield window
    finally:
        window.close()
        await window.shutdown()
        for dialog in window.findChildren(QDialog):
            dialog.deleteLater()


@pytest.fixture
def phone_home(private_home, virtual_adb, monkeypatch):
    """`private_home` with an API key and the virtual phone's ADB server (returned) for `running_window`; ask for
    this rather than `virtual_adb` too, so that the server's address is set after private_home clears it."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-window-run-0123456789")
    return virtual_adb


@pytest_asyncio.fixture
async def window_in_private_home(qapp, private_home):
    """The main window, shown (not started) with its own data folder, settings and keyring."""
    async with shown_window() as window:
        yield window


@contextlib.asynccontextmanager
async def running_window(script: list):
    """The main window started on the virtual phone (`phone_home`) with a loopback model that answers `script`,
    once its mirror shows the phone; closed and shut down after."""
    from app.core.config import AgentSettings, ProviderSettings, Settings
    from tests.support.openai_server import FakeOpenAIServer

    async with shown_window() as window:
        with FakeOpenAIServer(script) as model:
            window.settings = Settings(provider=ProviderSettings(base_url=model.base_url, model="gpt-4o"),
                                       agent=AgentSettings())
            await window.start()
            await until(lambda: window.mirror.device_size != (0, 0), 20)
            yield window


@contextlib.asynccontextmanager
async def started_window():
    """`shown_window()` started on the phone the environment names (the virtual one, in tests), once its
    manual controls and mirror are ready."""
    async with shown_window() as window:
        await window.start()
        await until(lambda: window.manual.isEnabled() and window.mirror.device_size != (0, 0), 20)
        yield window


async def proposal_of(window, step: int, seconds: float = 20.0):
    """The approval panel's proposal for `step`, once it shows it."""
    approval = window.approval
    return await until(lambda: approval.proposal if approval.proposal and approval.proposal.step == step else None,
                       seconds)


async def run_result(window, seconds: float = 30.0):
    """The run's result, once it has ended."""
    return await until(lambda: window.controller.task.done() and window.controller.task.result(), seconds)


def phone_screen(package: str | None):
    """A virtual phone's screen (`package` opened, or the launcher): its controls, hierarchy and picture."""
    from app.core.perception.hierarchy import parse_hierarchy, select_controls
    from app.virtual_phone.phone import VirtualPhone

    phone = VirtualPhone()
    if package:
        phone.launch(package)
    hierarchy = parse_hierarchy(phone.dump_hierarchy())
    return select_controls(hierarchy, (1080, 2400)), hierarchy, phone.screenshot().convert("RGB")


def shown_inspector(qtbot, screen):
    """An inspector showing `screen` (from `phone_screen`), 420×700, on screen."""
    from app.gui.inspector.inspector import InspectorPanel

    controls, hierarchy, _ = screen
    inspector = InspectorPanel()
    qtbot.addWidget(inspector)
    inspector.resize(420, 700)
    inspector.set_snapshot(controls, hierarchy)
    inspector.show()
    qtbot.waitExposed(inspector)
    return inspector
