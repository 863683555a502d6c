"""The async device layer against the virtual phone, through real adbutils on loopback."""

from __future__ import annotations

import asyncio

import pytest

from app.core.device.adb_transport import AdbTransport
from app.core.device.android_device import AndroidDevice
from app.core.device.device_watch import DeviceWatcher
from app.core.device.errors import (
    AdbUnavailable,
    CommandFailed,
    DeviceDisconnected,
    DeviceNotFound,
    DeviceOffline,
    DeviceTimeout,
    DeviceUnauthorized,
    HierarchyDumpFailed,
    ScreenshotFailed,
    TextInputUnsupported,
)
from app.desk.phone_opening import open_phone

pytestmark = pytest.mark.asyncio


def services(virtual_adb, needle: str) -> int:
    return sum(needle in s for s in virtual_adb.devices[0].services)


async def focus_new_note_title(device: AndroidDevice) -> None:
    await device.launch_app("com.agentdesk.notes")
    snapshot = await device.controls()
    new_note = next(c for c in snapshot.controls if "new note" in c.name.lower())
    await device.tap(*new_note.center)
    snapshot = await device.controls()
    title = next(c for c in snapshot.controls if c.type == "EditText")
    await device.tap(*title.center)


async def test_screen_info_and_foreground(phone_device):
    info = await phone_device.screen_info()
    assert (info.width, info.height, info.density, info.rotation) == (1080, 2400, 420, 0)
    await phone_device.launch_app("Settings")
    assert (await phone_device.foreground_app()).package == "com.android.settings"


@pytest.mark.parametrize("method", ["raw", "png"])
async def test_screenshot_paths_give_the_same_picture(phone_device, method):
    shot = await phone_device.screenshot(method)
    assert shot.size == (1080, 2400) and shot.image.mode == "RGB"
    assert shot.method == method and shot.fetch_ms > 0


async def test_capture_method_is_measured_once(phone_device, virtual_adb):
    await phone_device.screenshot()
    await phone_device.screenshot()
    assert phone_device.capture_method in ("raw", "png")
    assert set(phone_device.capture_timings) == {"raw", "png"}
    # two measurements of each path, once; then the two shots on the chosen path
    assert services(virtual_adb, "screencap") == 6


async def test_controls_are_cached_and_input_invalidates_them(phone_device, virtual_adb):
    first = await phone_device.controls()
    assert [c.id for c in first.controls] == list(range(1, len(first.controls) + 1))
    again = await phone_device.controls()
    assert again is first
    assert services(virtual_adb, "uiautomator dump") == 1
    await phone_device.press_key("HOME")
    await phone_device.controls()
    assert services(virtual_adb, "uiautomator dump") == 2


async def test_dump_retries_when_not_idle(phone_device, virtual_adb):
    virtual_adb.devices[0].faults.failing_dumps = 2
    xml = await phone_device.dump_hierarchy(retries=3)
    assert "<hierarchy" in xml


async def test_dump_gives_up_with_a_clear_reason(phone_device, virtual_adb):
    virtual_adb.devices[0].faults.failing_dumps = 10
    with pytest.raises(HierarchyDumpFailed, match="could not get idle state"):
        await phone_device.dump_hierarchy(retries=2)


async def test_installed_apps_are_cached(phone_device, virtual_adb):
    apps = await phone_device.installed_apps()
    assert "com.agentdesk.notes" in apps and "com.android.settings" not in apps
    await phone_device.installed_apps()
    assert services(virtual_adb, "pm list packages -3") == 1


@pytest.mark.parametrize("name, package", [("Notes", "com.agentdesk.notes"), ("clock", "com.android.deskclock"),
                                           ("com.android.contacts", "com.android.contacts")])
async def test_launch_by_package_or_label(phone_device, name, package):
    assert await phone_device.launch_app(name) == package
    assert (await phone_device.foreground_app()).package == package


async def test_launch_unknown_app(phone_device):
    with pytest.raises(CommandFailed, match="No installed app matches"):
        await phone_device.launch_app("Totally Unknown App")


async def test_type_text_reaches_the_focused_field(phone_device, virtual_adb):
    await focus_new_note_title(phone_device)
    await phone_device.type_text("Shopping 100%sure; $(reboot)")
    assert virtual_adb.devices[0].phone.state()["focused_text"] == "Shopping 100%sure; $(reboot)"
    ran = [argv[0] for argv in virtual_adb.devices[0].command_lines()]
    assert "reboot" not in ran


async def test_non_ascii_without_adb_keyboard_names_the_fix(phone_device):
    await focus_new_note_title(phone_device)
    with pytest.raises(TextInputUnsupported, match="ADB Keyboard"):
        await phone_device.type_text("Grüße")


async def test_non_ascii_with_adb_keyboard(monkeypatch):
    from app.virtual_phone.adb_server import VirtualAdbServer

    with VirtualAdbServer() as server:
        attached = server.add_phone(adb_keyboard_installed=True)
        device = AndroidDevice(AdbTransport("127.0.0.1", server.port), attached.serial)
        await focus_new_note_title(device)
        ime_before = attached.phone.current_ime
        await device.type_text("Grüße 日本 😀")
        assert attached.phone.state()["focused_text"] == "Grüße 日本 😀"
        assert attached.phone.current_ime == ime_before


async def test_unknown_key(phone_device):
    with pytest.raises(CommandFailed, match="Unknown key"):
        await phone_device.press_key("TELEPORT")


async def test_unplugged_phone(phone_device, virtual_adb):
    virtual_adb.unplug(phone_device.serial)
    with pytest.raises(DeviceNotFound, match="not connected"):
        await phone_device.screenshot("raw")


@pytest.mark.parametrize("state, error", [("unauthorized", DeviceUnauthorized), ("offline", DeviceOffline)])
async def test_unusable_state(phone_device, virtual_adb, state, error):
    virtual_adb.set_state(phone_device.serial, state)
    with pytest.raises(error):
        await phone_device.shell("echo hi")


async def test_slow_phone_times_out(virtual_adb):
    device = AndroidDevice(AdbTransport("127.0.0.1", virtual_adb.port), virtual_adb.devices[0].serial, timeout=0.5)
    virtual_adb.devices[0].faults.delay_seconds = 2.0
    with pytest.raises(DeviceTimeout, match="did not answer"):
        await device.shell("echo hi")


async def test_truncated_screenshot(phone_device, virtual_adb):
    virtual_adb.devices[0].faults.truncated_screenshots = 1
    with pytest.raises(ScreenshotFailed, match="cut short"):
        await phone_device.screenshot("raw")


async def test_dropped_connection(phone_device, virtual_adb):
    virtual_adb.devices[0].faults.drop_connections = 1
    with pytest.raises(DeviceDisconnected):
        await phone_device.screenshot("raw")


async def test_watcher_reports_unplug(virtual_adb):
    seen: list[list[str]] = []
    changed = asyncio.Event()

    def on_change(devices):
        seen.append([d.serial for d in devices])
        changed.set()

    watcher = DeviceWatcher(AdbTransport("127.0.0.1", virtual_adb.port), on_change)
    watcher.start()
    try:
        await asyncio.wait_for(changed.wait(), 5)
        changed.clear()
        virtual_adb.unplug(virtual_adb.devices[0].serial)
        await asyncio.wait_for(changed.wait(), 5)
    finally:
        watcher.stop()
    assert seen[0] == ["emulator-5554"] and seen[-1] == []


async def test_open_phone_falls_back_to_the_virtual_phone(monkeypatch):
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", "1")   # nothing listens there
    connection = await open_phone(transport=AdbTransport("127.0.0.1", 1))
    try:
        assert connection.is_virtual and "virtual phone" in connection.note
        assert (await connection.device.screen_info()).width == 1080
    finally:
        connection.close()


async def test_open_phone_prefers_a_real_attached_phone(virtual_adb):
    connection = await open_phone(transport=AdbTransport("127.0.0.1", virtual_adb.port))
    assert not connection.is_virtual and connection.device.serial == "emulator-5554"


async def test_rotation_is_seen_by_screen_info_screenshot_and_controls(phone_device):
    await phone_device.shell("settings put system accelerometer_rotation 0; settings put system user_rotation 1")
    info = await phone_device.screen_info(refresh=True)
    assert info.rotation == 1 and info.display_size == (2400, 1080)
    assert (await phone_device.screenshot()).size == (2400, 1080)
    snapshot = await phone_device.controls(refresh=True)
    assert snapshot.hierarchy.rotation == 1
    assert all(c.rect[2] <= 2400 and c.rect[3] <= 1080 for c in snapshot.controls)
    assert any(c.rect[0] > 1080 for c in snapshot.controls)   # something lies beyond the portrait width


async def test_connect_over_wifi(virtual_adb):
    virtual_adb.add_network_phone("192.168.1.77:5555")
    transport = AdbTransport("127.0.0.1", virtual_adb.port)
    assert await asyncio.to_thread(transport.connect, "192.168.1.77:5555") == "connected to 192.168.1.77:5555"
    listing = await asyncio.to_thread(transport.list_devices)
    assert "192.168.1.77:5555" in [d.serial for d in listing]
    with pytest.raises(DeviceNotFound, match="wireless debugging"):
        await asyncio.to_thread(transport.connect, "192.168.1.78:5555")


async def test_no_adb_program_names_how_to_install_one(monkeypatch):
    """Without a running server and without an adb program to start one (a Linux bundle on a
    machine without platform-tools), the error says what to install."""
    from adbutils.errors import AdbError

    transport = AdbTransport("127.0.0.1", 1)

    def no_adb(timeout=None):
        raise AdbError("No adb exe could be found. Install adb on your system")

    monkeypatch.setattr(transport.client, "make_connection", no_adb)
    with pytest.raises(AdbUnavailable) as caught:
        transport.list_devices()
    message = str(caught.value)
    assert "no adb program was found" in message and "sudo apt install adb" in message
    # the same words where the error comes from another call (agentdesk doctor asks for the version)
    monkeypatch.setattr(transport.client, "server_version", lambda: no_adb())
    with pytest.raises(AdbUnavailable, match="no adb program was found"):
        transport.server_version()
