"""Every top-level window fits the screen it opens on (issue 27 §6): each window class the app has is
opened against a 1280×720 and a 1920×1080 screen and its frame lies inside the screen's free area;
its size is remembered per screen.

The offscreen platform has one 800×800 screen; the screen's size is faked by patching QScreen's
geometry calls, which the window fitting (app/gui/window_fit.py) and the main window's first layout
read. A window class added to app/gui without an entry in WINDOWS below fails the first test.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtCore import QRect, QSize
from PySide6.QtGui import QScreen
from PySide6.QtWidgets import QDialog, QMainWindow, QWidget

import app.gui
from app.gui.window_fit import GUESSED_FRAME, fitter_of
from tests.gui.conftest import shown_window

PANEL = 28      # a desktop's top bar: not part of the free area


def fake_screen(monkeypatch, width: int, height: int) -> QRect:
    """Make every screen `width`×`height` with a top panel; the free area is returned."""
    area = QRect(0, PANEL, width, height - PANEL)
    monkeypatch.setattr(QScreen, "geometry", lambda self: QRect(0, 0, width, height))
    monkeypatch.setattr(QScreen, "size", lambda self: QSize(width, height))
    monkeypatch.setattr(QScreen, "availableGeometry", lambda self: QRect(area))
    monkeypatch.setattr(QScreen, "availableSize", lambda self: area.size())
    return area


def window_classes() -> set[type]:
    """Every class in app/gui that is a top-level window: a dialog, a main window, or a widget made a window."""
    found: set[type] = set()
    for module_info in pkgutil.walk_packages(app.gui.__path__, "app.gui."):
        module = importlib.import_module(module_info.name)
        for cls in vars(module).values():
            if not inspect.isclass(cls) or cls.__module__ != module.__name__ or not issubclass(cls, QWidget):
                continue
            if issubclass(cls, (QDialog, QMainWindow)) or "WindowType.Window)" in inspect.getsource(cls):
                found.add(cls)
    return found


def step_record():
    from app.core.agent.records import StepRecord

    return StepRecord(step=1, request="Turn on Wi-Fi", thought="The Settings app has a Wi-Fi row. " * 6,
                      action={"function": "press_key", "arguments": {"key_code": "HOME"}, "status": "CONTINUE"},
                      action_text="Press Home")


def make_windows(main, tmp: Path) -> dict[str, object]:
    """How to open each window (by class name), beside the main window `main`."""
    from app.api.token import ApiToken
    from app.core.config import Settings
    from app.core.learning.skill_store import SkillStore
    from app.core.learning.skills import Skill
    from app.core.secrets import SecretStore
    from app.gui.about_dialog import AboutDialog
    from app.gui.api_token_view import ApiTokenDialog
    from app.gui.error_dialog import ErrorDialog
    from app.gui.help_dialogs import ShortcutsDialog, UserGuideDialog
    from app.gui.map.map_window import MapWindow
    from app.gui.phones.phone_grid import PhoneGridWindow
    from app.gui.runs.open_in_desktop import NotOpenedDialog
    from app.gui.runs.past_runs import PastRunsDialog
    from app.gui.runs.past_runs_filter import RerunDialog
    from app.gui.runs.step_detail import StepDetailDialog
    from app.gui.settings.settings_dialog import SettingsDialog
    from app.gui.skills.skill_values import ValuesDialog
    from app.gui.skills.skills_dialog import SkillsDialog
    from app.gui.status_line import DetailsDialog
    from app.gui.status_messages import StatusMessage

    return {
        "MainWindow": lambda: main,
        "AboutDialog": lambda: AboutDialog(main),
        "ErrorDialog": lambda: ErrorDialog(main),
        "UserGuideDialog": lambda: UserGuideDialog(main),
        "ShortcutsDialog": lambda: ShortcutsDialog(main),
        "MapWindow": lambda: MapWindow(None, tmp / "graph", main),
        "PhoneGridWindow": lambda: PhoneGridWindow(main, parent=main),
        "PastRunsDialog": lambda: PastRunsDialog(tmp / "runs", main),
        "RerunDialog": lambda: RerunDialog("Turn on Wi-Fi " * 20, True, main),
        "StepDetailDialog": lambda: StepDetailDialog(tmp / "run", step_record(), main),
        "SettingsDialog": lambda: SettingsDialog(Settings(), SecretStore(), main, stored_key=None),
        "SkillsDialog": lambda: SkillsDialog(SkillStore(tmp / "skills"), main),
        "ApiTokenDialog": lambda: ApiTokenDialog("http://127.0.0.1:8765", ApiToken("t" * 43, "the keyring", True),
                                                 main),
        "NotOpenedDialog": lambda: NotOpenedDialog(tmp / ("deep" * 40) / "report.html", "the report", main),
        "ValuesDialog": lambda: ValuesDialog(Skill(name="Turn on Wi-Fi", request="Turn on Wi-Fi in Settings"), main),
        "DetailsDialog": lambda: DetailsDialog(StatusMessage("The phone went away.", "adb: device offline\n" * 40),
                                               main),
    }


ABSTRACT = {"LoadingDialog", "_HelpDialog"}      # bases: only their subclasses are opened


async def settle() -> None:
    """Let Qt lay out and show (the running qasync loop handles Qt's events; processEvents() here would
    re-enter the loop from inside a task)."""
    for _ in range(3):
        await asyncio.sleep(0.02)


async def close_window(window) -> None:
    if hasattr(window, "shutdown") and not isinstance(window, QMainWindow):
        await window.shutdown()
    window.close()
    await settle()
    if shiboken6.isValid(window):        # a window that deletes itself on close is gone already
        window.deleteLater()


def test_every_window_class_is_opened_by_this_test(qapp, tmp_path):
    names = {cls.__name__ for cls in window_classes()} - ABSTRACT
    listed = set(make_windows(None, tmp_path))
    assert names - listed == set(), "a window class without an entry in make_windows: open it there (and fit it)"
    assert listed - names == set(), "make_windows names a window class that is gone"


@pytest.mark.asyncio
@pytest.mark.parametrize("screen_size", [(1280, 720), (1920, 1080)], ids=["1280x720", "1920x1080"])
async def test_every_window_opens_inside_the_screen(qapp, private_home, monkeypatch, screen_size):
    area = fake_screen(monkeypatch, *screen_size)
    too_big: list[str] = []
    from app.gui.dialogs import LoadingDialog
    from app.gui.map.map_window import MapWindow
    from app.gui.phones.phone_grid import PhoneGridWindow

    # their sizes are looked at, not what they show: the map reads no graph, the Phones window follows no phone
    monkeypatch.setattr(MapWindow, "reload", lambda self: None)
    monkeypatch.setattr(PhoneGridWindow, "start", lambda self: None)
    monkeypatch.setattr(LoadingDialog, "showEvent", QDialog.showEvent)       # past runs and skills read nothing
    async with shown_window() as main:
        await settle()
        for name, make in make_windows(main, private_home).items():
            window = make()
            assert fitter_of(window) is not None, f"{name} does not call fit_window()"
            window.show()
            await settle()
            frame = window.frameGeometry()
            # offscreen windows have no title bar: the room one would take is left free as well
            outer = frame.adjusted(-GUESSED_FRAME.left(), -GUESSED_FRAME.top(), GUESSED_FRAME.right(),
                                   GUESSED_FRAME.bottom()) if frame == window.geometry() else frame
            # a maximized window is the window system's to fit (the offscreen one maximizes to its own 800×800)
            if not window.isMaximized() and not area.contains(outer):
                too_big.append(f"{name}: {frame.width()}×{frame.height()} at ({frame.x()}, {frame.y()}), "
                               f"minimum {window.minimumSizeHint().width()}×{window.minimumSizeHint().height()}")
            if window is not main:
                await close_window(window)
        assert not too_big, f"windows outside the {screen_size[0]}×{screen_size[1]} screen's free area " \
                            f"{area.getRect()}:\n" + "\n".join(too_big)


@pytest.mark.asyncio
async def test_a_big_screen_leaves_a_window_its_own_size(qapp, private_home, monkeypatch):
    from app.gui.map.map_window import MapWindow

    monkeypatch.setattr(MapWindow, "reload", lambda self: None)
    fake_screen(monkeypatch, 1920, 1080)
    async with shown_window() as main:
        for name, size in (("MapWindow", QSize(1320, 820)), ("StepDetailDialog", QSize(1180, 820))):
            window = make_windows(main, private_home)[name]()
            window.show()
            await settle()
            assert window.size() == size, f"{name} keeps the size it asks for where there is room"
            await close_window(window)


@pytest.mark.asyncio
async def test_each_screen_keeps_the_size_the_person_gave_a_window(qapp, private_home, monkeypatch):
    from app.gui.about_dialog import AboutDialog

    async def opened(screen: tuple[int, int], resize_to: QSize | None = None) -> QSize:
        fake_screen(monkeypatch, *screen)
        dialog = AboutDialog()
        dialog.show()
        await settle()
        size = dialog.size()
        if resize_to is not None:
            dialog.resize(resize_to)
            await settle()
        await close_window(dialog)
        return size

    assert await opened((1920, 1080), QSize(1100, 900)) == QSize(760, 560), "at first: the size it asks for"
    small = await opened((1280, 720))
    assert small == QSize(760, 560), "the big screen's size is not used on the small one"
    await opened((1280, 720), QSize(700, 600))
    assert await opened((1920, 1080)) == QSize(1100, 900), "back on the big screen: its size there"
    assert await opened((1280, 720)) == QSize(700, 600), "and on the small one: its size there"


@pytest.mark.asyncio
async def test_a_size_remembered_bigger_than_the_screen_is_clamped(qapp, private_home, monkeypatch):
    from app.gui import window_fit
    from app.gui.about_dialog import AboutDialog
    from app.gui.window_state import screen_key

    area = fake_screen(monkeypatch, 1280, 720)
    dialog = AboutDialog()
    store = window_fit.settings_store()
    store.setValue(f"{window_fit.GROUP}/AboutDialog/{screen_key(dialog.screen())}", QSize(3000, 2000))
    dialog.show()
    await settle()
    assert dialog.width() <= area.width() and dialog.height() <= area.height()
    assert area.contains(dialog.frameGeometry())
    await close_window(dialog)
