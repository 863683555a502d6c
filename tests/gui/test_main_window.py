"""The window on the virtual phone: it mirrors, numbers the controls, inspects, and says what is missing."""

from __future__ import annotations

import asyncio

import keyring
import pytest
import pytest_asyncio
from PIL import Image

from app.core.device import phone_frames
from app.core.device.adb_servers import ServerList
from app.gui.main_window import MainWindow
from tests.gui.conftest import shown_window
from tests.support.memory_keyring import MemoryKeyring
from tests.support.waiting import until


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    yield tmp_path
    keyring.set_keyring(previous)


@pytest_asyncio.fixture
async def window(qapp, home, virtual_adb):
    """The main window, shown but not started (a test may connect to it first), closed afterwards."""
    async with shown_window() as window:
        yield window


@pytest.mark.asyncio
async def test_window_mirrors_numbers_and_inspects_the_attached_phone(window, virtual_adb):
    await window.start()
    await until(lambda: window.mirror.device_size != (0, 0) and window.mirror.controls)
    assert "emulator-5554" in window.windowTitle()
    assert window.mirror.device_size == (1080, 2400)
    names = [c.name for c in window.mirror.controls]
    assert "Settings" in names                                   # the launcher's icons
    settings = next(c for c in window.mirror.controls if c.name == "Settings")
    window.mirror.select_control(settings)
    window.inspector.show_control(settings)
    assert window.inspector.current_control == settings
    # no API key: the request area says how to add one, and inspecting still works
    assert window.request.key_notice.isVisible() and "Settings" in window.request.key_notice.text()


@pytest.mark.asyncio
async def test_touch_mode_taps_the_phone(window, virtual_adb):
    await window.start()
    await until(lambda: window.mirror.controls)
    window.manual.touch_button.click()
    assert window.mirror.interaction_mode == "touch"
    notes = next(c for c in window.mirror.controls if c.name == "Notes")
    window.mirror.tap_requested.emit(*notes.center)
    phone = virtual_adb.devices[0].phone
    await until(lambda: phone.foreground()[0] == "com.agentdesk.notes")
    window.manual.key_requested.emit("HOME")
    await until(lambda: phone.foreground()[0] == "com.android.launcher3")


@pytest.mark.asyncio
async def test_an_unplugged_phone_comes_back_on_its_own(window, virtual_adb):
    """Unplug: the window says so and keeps the phone selected; plug back in: the mirror runs again."""
    messages: list[str] = []
    window.phone.status.connect(messages.append)
    frames: list[int] = []
    window.phone.frame_ready.connect(lambda *_: frames.append(1))
    await window.start()
    await until(lambda: frames)
    await asyncio.sleep(0.5)
    assert not any("is back" in m for m in messages), messages    # it was never gone
    device = virtual_adb.unplug("emulator-5554")
    await until(lambda: any("was disconnected" in m for m in messages))
    assert window.phone.entry.serial == "emulator-5554" and not window.phone.entry.ready
    assert not window.manual.isEnabled()                 # manual input waits for the phone too
    await asyncio.sleep(0.3)
    frames.clear()
    await asyncio.sleep(0.5)
    assert not frames                                   # no picture while it is away
    virtual_adb.plug(device)
    await until(lambda: any("emulator-5554 is back" in m for m in messages))
    await until(lambda: len(frames) >= 1)              # the same frame source picked it up again (a still
                                                        # screen streams one picture, then nothing)
    assert window.phone.entry.ready and window.manual.isEnabled()


@pytest.mark.asyncio
async def test_settings_store_then_remove_the_key_and_the_notice_follows(qapp, home, virtual_adb):
    """Through the window: a key typed in Settings goes to the keyring and the notice goes away;
    Remove key deletes it from the keyring and the notice comes back."""
    from app.gui.settings.settings_dialog import SettingsDialog

    backend = keyring.get_keyring()
    window = MainWindow(asyncio.Event())                # the window makes its own store, off the GUI thread
    window.show()

    async def settings_dialog() -> SettingsDialog:
        window.open_settings()
        await until(lambda: any(d.isVisible() for d in window.findChildren(SettingsDialog)))
        return next(d for d in window.findChildren(SettingsDialog) if d.isVisible())

    try:
        await window.start()
        await until(lambda: window.request.key_notice.isVisible())
        dialog = await settings_dialog()
        dialog.key_edit.setText("sk-window-test-0123456789")
        dialog.accept()
        await until(lambda: not window.request.key_notice.isVisible())
        assert backend.passwords[("AgentDesk", "default")] == "sk-window-test-0123456789"

        dialog = await settings_dialog()
        dialog.remove_key_button.click()
        dialog.accept()
        await until(lambda: window.request.key_notice.isVisible())
        assert ("AgentDesk", "default") not in backend.passwords
    finally:
        window.close()
        await window.shutdown()
        for dialog in window.findChildren(SettingsDialog):
            dialog.deleteLater()


@pytest.mark.asyncio
async def test_the_models_streaming_words_show_under_the_request(window):
    """A slow model is visibly working: its reply so far shows under the request, its newest end."""
    window.controller.model_words.emit(3, '{"thought": "Settings\nis open", "action": ' + "y" * 400)
    status = window.request.status.text()
    assert status.startswith("Step 3 · the model writes: …")
    assert status.endswith("y" * 100) and len(status) < 220, "only the newest end of a long reply"


@pytest.mark.asyncio
async def test_a_long_status_message_never_widens_the_window(window):
    width = window.minimumSizeHint().width() + 50
    window.resize(width, 800)
    await asyncio.sleep(0.1)
    text = "The model cannot read images (the server said: image input is not supported). " * 20
    window.show_status(text)
    await asyncio.sleep(0.2)     # the layout settles
    assert window.width() == width
    assert window.status.toolTip() == text, "the whole message is one hover away"


@pytest.mark.asyncio
async def test_streaming_words_without_spaces_never_widen_the_window(window):
    """A model may write long runs without a space (JSON, a URL): they are cut, not laid out wider."""
    width = window.minimumSizeHint().width() + 50
    window.resize(width, 800)
    await asyncio.sleep(0.1)
    window.controller.model_words.emit(1, '{"thought":"' + "x" * 400)
    await asyncio.sleep(0.2)
    assert window.width() == width


def screencaps(virtual_adb) -> int:
    return sum(1 for argv in virtual_adb.devices[0].command_lines() if argv and argv[0] == "screencap")


@pytest.mark.asyncio
async def test_a_minimized_window_stops_capturing_the_phone_and_resumes_when_restored(window, virtual_adb):
    """Idle costs nothing: nobody looks at a minimized mirror, so the phone is not captured for it."""
    window.settings.mirror.stream = "screenshots"
    await window.start()
    await until(lambda: window.mirror.device_size != (0, 0))
    frames = window.phone.session.frames
    assert frames.subscriber_count == 1
    await until(lambda: window.state_label.text().startswith("Screenshots · "))   # where frames come from
    assert "Settings" in window.state_label.toolTip() and "Mirror: screenshots" in window.status.text()
    window.showMinimized()
    await until(lambda: frames.subscriber_count == 0)
    await asyncio.sleep(0.3)                       # a capture in flight may finish
    taken = screencaps(virtual_adb)
    await asyncio.sleep(1.0)
    assert screencaps(virtual_adb) == taken, "no screenshot is taken while minimized"
    delivered = []
    window.phone.frame_ready.connect(lambda image, size: delivered.append(size))
    window.showNormal()
    await until(lambda: frames.subscriber_count == 1 and delivered)
    assert screencaps(virtual_adb) > taken and window.phone.mirror_visible


@pytest.mark.asyncio
async def test_a_minimized_window_lets_the_stream_stop_and_restored_starts_it_again(window, virtual_adb, monkeypatch):
    """The same with scrcpy's stream: minimized, nobody reads, so after a short linger the server on
    the phone is stopped; shown again, the stream starts at once and the mirror gets a picture."""
    monkeypatch.setattr(phone_frames, "LINGER_SECONDS", 0.3)
    await window.start()
    await until(lambda: window.mirror.device_size != (0, 0))
    frames = window.phone.session.frames
    await until(lambda: frames.streaming and window.state_label.text().startswith("Live · "))
    assert "H264" in window.state_label.toolTip()
    window.showMinimized()
    await until(lambda: not frames.streaming)
    assert frames.session is None and frames.subscriber_count == 0
    delivered = []
    window.phone.frame_ready.connect(lambda image, size: delivered.append(size))
    window.showNormal()
    await until(lambda: frames.streaming and delivered)
    assert delivered[-1] == (1080, 2400)          # the display's size, though the stream is scaled down


@pytest.mark.asyncio
async def test_a_saved_screenshot_has_the_phones_own_resolution_though_the_stream_is_scaled(window, virtual_adb):
    from app.core import paths

    await window.start()
    await until(lambda: window.phone.session is not None and window.phone.session.frames.streaming)
    messages: list[str] = []
    window.phone.status.connect(messages.append)
    window.manual.screenshot_requested.emit()
    await until(lambda: any("Screenshot saved to" in m for m in messages))
    [saved] = list((paths.data_dir() / "screenshots").glob("*.png"))
    with Image.open(saved) as image:
        assert image.size == (1080, 2400)



@pytest.mark.asyncio
async def test_a_phone_is_not_said_gone_before_its_server_has_listed_it(window):
    """Several ADB servers answer at start in any order (this machine's, the built-in phone's): another
    server's list without the shown phone says nothing of it until its own server has spoken."""
    messages: list[str] = []
    window.phone.status.connect(messages.append)
    await window.start()
    phones = window.phone.list
    await until(lambda: window.phone.entry is not None and phones.has_listed(window.phone.entry.server))
    own = phones._lists[window.phone.entry.server]
    other = ServerList("127.0.0.1:1", (), "", False, True, True)
    phones._on_lists([other])          # as at start: another server answers first, empty; the phone's has not
    assert not any("disconnected" in m for m in messages), messages
    assert window.phone.entry.ready
    phones._on_lists([other, own])     # then its own, with it: nothing to say
    assert not any("is back" in m or "disconnected" in m for m in messages), messages
