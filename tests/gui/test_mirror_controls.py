"""What scrcpy users expect of the mirror: typing into the phone, the wheel, right-click Back and
middle-click Home, the More menu's buttons, the clipboard, and files dropped on the mirror."""

from __future__ import annotations

import asyncio
from pathlib import Path

import keyring
import pytest
import pytest_asyncio
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QGuiApplication, QImage, QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from app.core.device.errors import CommandFailed
from app.gui.mirror.manual_controls import ManualControlBar
from app.gui.mirror.mirror_view import MirrorView
from tests.gui.conftest import started_window
from tests.support.memory_keyring import MemoryKeyring
from tests.support.waiting import until
from tests.virtual_phone.fake_apk import build_apk

DEVICE = (1080, 2400)


# ---------------------------------------------------------------- the mirror alone


@pytest.fixture
def mirror(qtbot):
    view = MirrorView()
    qtbot.addWidget(view)
    view.resize(540, 1200)
    view.set_device_size(DEVICE)
    frame = QImage(540, 1200, QImage.Format.Format_RGB888)
    frame.fill(Qt.GlobalColor.white)
    view.set_frame(frame)
    view.set_interaction_mode("touch")
    view.show()
    qtbot.waitExposed(view)
    asked: dict[str, list] = {"keys": [], "texts": [], "wheel": [], "files": []}
    view.phone_input.key_requested.connect(asked["keys"].append)
    view.phone_input.text_requested.connect(asked["texts"].append)
    view.phone_input.wheel_requested.connect(lambda *args: asked["wheel"].append(args))
    view.phone_input.files_dropped.connect(asked["files"].append)
    view.asked = asked
    return view


def test_quick_typing_goes_as_one_text_and_special_keys_as_android_keys(mirror, qtbot):
    QTest.keyClicks(mirror, "hello")
    assert mirror.asked["texts"] == [], "the text waits a moment for more"
    qtbot.waitUntil(lambda: mirror.asked["texts"] == ["hello"], timeout=2000)
    QTest.keyClicks(mirror, "wor")
    QTest.keyClick(mirror, Qt.Key.Key_Backspace)      # a special key sends what was typed first
    assert mirror.asked["texts"] == ["hello", "wor"] and mirror.asked["keys"] == ["DEL"]
    for key in (Qt.Key.Key_Delete, Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Tab, Qt.Key.Key_Up,
                Qt.Key.Key_Down, Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Home, Qt.Key.Key_End,
                Qt.Key.Key_PageUp, Qt.Key.Key_PageDown, Qt.Key.Key_Escape):
        QTest.keyClick(mirror, key)
    assert mirror.asked["keys"] == ["DEL", "FORWARD_DEL", "ENTER", "ENTER", "TAB", "DPAD_UP", "DPAD_DOWN",
                                    "DPAD_LEFT", "DPAD_RIGHT", "MOVE_HOME", "MOVE_END", "PAGE_UP", "PAGE_DOWN",
                                    "BACK"]


def test_shortcuts_and_unknown_keys_are_not_sent(mirror):
    QTest.keyClick(mirror, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClick(mirror, Qt.Key.Key_B, Qt.KeyboardModifier.AltModifier)
    QTest.keyClick(mirror, Qt.Key.Key_F5)
    mirror.phone_input.flush_text()
    assert mirror.asked["texts"] == [] and mirror.asked["keys"] == []


def test_typed_text_is_sent_before_leaving_touch_mode_and_inspect_mode_types_nothing(mirror):
    QTest.keyClicks(mirror, "ok")
    mirror.set_interaction_mode("inspect")
    assert mirror.asked["texts"] == ["ok"]
    QTest.keyClicks(mirror, "no")
    QTest.keyClick(mirror, Qt.Key.Key_Escape)
    mirror.phone_input.flush_text()
    assert mirror.asked["texts"] == ["ok"] and mirror.asked["keys"] == []


def wheel(view: MirrorView, point: QPoint, angle: QPoint, pixels: QPoint | None = None) -> None:
    pixels = pixels if pixels is not None else QPoint()
    event = QWheelEvent(QPointF(point), QPointF(view.mapToGlobal(point)), pixels, angle, Qt.MouseButton.NoButton,
                        Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(view, event)


def test_the_wheel_scrolls_at_the_device_point_under_the_cursor(mirror):
    point = mirror.device_to_widget(540, 1200).toPoint()
    wheel(mirror, point, QPoint(0, 240))                # two notches up
    wheel(mirror, point, QPoint(0, -120))
    [(x, y, dx, dy), second] = mirror.asked["wheel"]
    assert abs(x - 540) <= 3 and abs(y - 1200) <= 3 and (dx, dy) == (0, 2)
    assert second[2:] == (0, -1)
    for _ in range(3):                                  # a trackpad's small steps add up
        wheel(mirror, point, QPoint(0, -8), QPoint(0, -12))
    assert len(mirror.asked["wheel"]) == 3 and mirror.asked["wheel"][2][3] == pytest.approx(-36 / 60)
    mirror.set_interaction_mode("inspect")
    wheel(mirror, point, QPoint(0, 120))
    assert len(mirror.asked["wheel"]) == 3, "only touch mode scrolls the phone"


def test_right_click_is_back_and_middle_click_is_home_in_touch_mode_only(mirror):
    point = mirror.device_to_widget(540, 1200).toPoint()
    QTest.mouseClick(mirror, Qt.MouseButton.RightButton, pos=point)
    QTest.mouseClick(mirror, Qt.MouseButton.MiddleButton, pos=point)
    assert mirror.asked["keys"] == ["BACK", "HOME"]
    mirror.set_interaction_mode("inspect")
    QTest.mouseClick(mirror, Qt.MouseButton.RightButton, pos=point)
    assert mirror.asked["keys"] == ["BACK", "HOME"]


def file_drag(paths: list[Path]) -> QMimeData:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path)) for path in paths])
    return mime


def drag_over(view: MirrorView, mime: QMimeData) -> bool:
    event = QDragEnterEvent(QPoint(100, 100), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    event.setAccepted(False)
    QApplication.sendEvent(view, event)
    return event.isAccepted()


def drop(view: MirrorView, mime: QMimeData) -> None:
    event = QDropEvent(QPointF(100, 100), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(view, event)


def test_files_may_be_dropped_only_while_a_phone_is_ready(mirror, tmp_path):
    files = [tmp_path / "app.apk", tmp_path / "notes.txt"]
    assert not drag_over(mirror, file_drag(files)), "no phone: no drop cursor"
    drop(mirror, file_drag(files))
    assert mirror.asked["files"] == []
    mirror.phone_input.drops_enabled = True
    assert drag_over(mirror, file_drag(files))
    web = QMimeData()
    web.setUrls([QUrl("https://example.com/app.apk")])
    assert not drag_over(mirror, web), "only local files"
    drop(mirror, file_drag(files))
    assert mirror.asked["files"] == [files]


# ---------------------------------------------------------------- the bar


def test_the_more_menu_asks_for_volume_rotation_screen_touches_and_clipboard(qtbot):
    bar = ManualControlBar()
    qtbot.addWidget(bar)
    asked: list = []
    bar.key_requested.connect(asked.append)
    for name in ("rotate_requested", "copy_clipboard_requested", "paste_clipboard_requested"):
        getattr(bar, name).connect(lambda name=name: asked.append(name))
    bar.screen_off_changed.connect(lambda off: asked.append(("screen_off", off)))
    bar.show_touches_changed.connect(lambda on: asked.append(("show_touches", on)))
    for name in ("power", "volume_up", "volume_down", "rotate", "screen_off", "show_touches", "screen_off",
                 "copy_clipboard", "paste_clipboard"):
        bar.more_actions[name].trigger()
    assert asked == ["POWER", "VOLUME_UP", "VOLUME_DOWN", "rotate_requested", ("screen_off", True),
                     ("show_touches", True), ("screen_off", False), "copy_clipboard_requested",
                     "paste_clipboard_requested"]
    assert bar.more_actions["screen_off"].toolTip() == "Turn the phone's screen off; the mirror goes on"
    bar.set_toggle("show_touches", False)                # shown, not asked for
    assert not bar.more_actions["show_touches"].isChecked() and len(asked) == 9
    bar.more_actions["screen_off"].trigger()
    bar.set_enabled_for_device(False)
    assert not bar.more_actions["screen_off"].isChecked(), "a phone that comes back has its screen on"


# ---------------------------------------------------------------- through the window to the phone


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    yield tmp_path
    keyring.set_keyring(previous)


@pytest_asyncio.fixture
async def window(qapp, home, virtual_adb):
    async with started_window() as window:
        yield window


class DeviceSpy:
    """Records the device calls the window makes (replacing the device's methods), in order."""

    def __init__(self, device, monkeypatch, names: tuple[str, ...], fail: tuple[str, ...] = (), clipboard: str = ""):
        self.calls: list[tuple] = []
        for name in names:
            async def record(*args, name=name, **kwargs):
                await asyncio.sleep(0.01 if name == "type_text" else 0)   # a slower call must not be overtaken
                self.calls.append((name, *args, *kwargs.values()))
                if name in fail:
                    raise CommandFailed(f"{name} needs the stream")
                return clipboard if name == "get_clipboard" else None
            monkeypatch.setattr(device, name, record)


@pytest.mark.asyncio
async def test_keys_wheel_and_buttons_reach_the_device_in_order(window, monkeypatch):
    spy = DeviceSpy(window.phone.session.device, monkeypatch,
                    ("type_text", "press_key", "wheel", "rotate", "set_screen_power", "set_show_touches"))
    window.manual.touch_button.click()
    mirror = window.mirror
    QTest.keyClicks(mirror, "hello")
    QTest.keyClick(mirror, Qt.Key.Key_Backspace)
    wheel(mirror, mirror.device_to_widget(540, 1200).toPoint(), QPoint(0, -120))
    QTest.mouseClick(mirror, Qt.MouseButton.RightButton, pos=mirror.device_to_widget(540, 1200).toPoint())
    window.manual.more_actions["volume_up"].trigger()
    window.manual.more_actions["rotate"].trigger()
    window.manual.more_actions["show_touches"].trigger()
    window.manual.more_actions["screen_off"].trigger()
    await until(lambda: len(spy.calls) == 8)
    wheel_call = spy.calls[2]
    assert wheel_call[0] == "wheel" and abs(wheel_call[1] - 540) <= 3 and abs(wheel_call[2] - 1200) <= 3
    assert spy.calls == [("type_text", "hello"), ("press_key", "DEL"), wheel_call, ("press_key", "BACK"),
                         ("press_key", "VOLUME_UP"), ("rotate",), ("set_show_touches", True),
                         ("set_screen_power", False)]
    assert wheel_call[3:] == (0, -1)


@pytest.mark.asyncio
async def test_a_refused_screen_off_says_why_and_the_toggle_goes_back(window, monkeypatch):
    spy = DeviceSpy(window.phone.session.device, monkeypatch, ("set_screen_power",), fail=("set_screen_power",))
    window.manual.more_actions["screen_off"].trigger()
    await until(lambda: "Could not turn the phone's screen off" in window.status.text())
    assert spy.calls == [("set_screen_power", False)]
    await until(lambda: not window.manual.more_actions["screen_off"].isChecked())


@pytest.mark.asyncio
async def test_the_clipboard_is_copied_from_and_pasted_to_the_phone(window, monkeypatch):
    spy = DeviceSpy(window.phone.session.device, monkeypatch, ("get_clipboard", "set_clipboard"),
                    clipboard="from the phone ✓")
    window.manual.more_actions["copy_clipboard"].trigger()
    await until(lambda: QGuiApplication.clipboard().text() == "from the phone ✓")
    assert "Copied the phone's clipboard" in window.status.text()
    QGuiApplication.clipboard().setText("to the phone é")
    window.manual.more_actions["paste_clipboard"].trigger()
    await until(lambda: ("set_clipboard", "to the phone é", True) in spy.calls)
    QGuiApplication.clipboard().clear()
    window.manual.more_actions["paste_clipboard"].trigger()
    await until(lambda: "Nothing to paste" in window.status.text())


@pytest.mark.asyncio
async def test_dropped_files_install_the_apk_and_push_the_rest(window, virtual_adb, tmp_path):
    attached = virtual_adb.devices[0]
    apk = tmp_path / "demo.apk"
    apk.write_bytes(build_apk("com.example.dropped"))
    notes = tmp_path / "notes.txt"
    notes.write_text("hello phone")
    broken = tmp_path / "broken.apk"
    broken.write_bytes(b"not a zip")
    mime = file_drag([apk, notes, broken])
    assert drag_over(window.mirror, mime)
    drop(window.mirror, mime)
    await until(lambda: "files done" in window.status.text())
    status = window.status.text()
    assert status.startswith("2 of 3 files done.")
    assert "Installed com.example.dropped (demo.apk)." in status
    assert "Sent notes.txt to /sdcard/Download/notes.txt." in status
    assert "broken.apk is not an Android app" in status
    assert "com.example.dropped" in attached.phone.installed_packages(third_party_only=True)
    assert attached.storage.read("/sdcard/Download/notes.txt") == b"hello phone"
    virtual_adb.unplug(attached.serial)
    await until(lambda: not window.manual.isEnabled())
    assert not drag_over(window.mirror, mime), "no drop while the phone is away"
