"""The virtual phone over the real ADB protocol, through real adbutils and Debian's adb client."""

from __future__ import annotations

import io
import shutil
import struct
import subprocess
import threading

import adbutils
import pytest
from PIL import Image

from app.virtual_phone.adb_server import VirtualAdbServer

adb_client_missing = shutil.which("adb") is None


@pytest.fixture
def client(virtual_adb) -> adbutils.AdbClient:
    return adbutils.AdbClient(host="127.0.0.1", port=virtual_adb.port)


def adb(server: VirtualAdbServer, *args: str, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run(["adb", "-P", str(server.port), *args], capture_output=True, timeout=timeout)


def test_version_and_device_list(client, virtual_adb):
    assert client.server_version() == 41
    assert [d.serial for d in client.device_list()] == [virtual_adb.devices[0].serial]


def test_shell_runs_on_the_phone_and_is_recorded(client, virtual_adb):
    device = client.device(virtual_adb.devices[0].serial)
    assert device.shell("getprop ro.build.version.sdk") == "34"
    assert device.shell("wm size") == "Physical size: 1080x2400"
    assert ["wm", "size"] in virtual_adb.devices[0].command_lines()


def test_shell_v2_carries_exit_code_and_stderr(client, virtual_adb):
    result = client.device(virtual_adb.devices[0].serial).shell2("ls /nope", v2=True)
    assert result.returncode == 1
    assert "No such file" in result.stderr and result.stdout == ""


def test_raw_screencap_has_16_byte_header(client, virtual_adb):
    data = client.device(virtual_adb.devices[0].serial).shell("screencap", encoding=None)
    width, height, pixel_format, _ = struct.unpack_from("<IIII", data)
    assert (width, height, pixel_format) == (1080, 2400, 1)
    assert len(data) == 16 + width * height * 4


def test_png_screencap_is_a_png_of_the_screen(client, virtual_adb):
    image = client.device(virtual_adb.devices[0].serial).screenshot()
    assert image.size == (1080, 2400)


def test_uiautomator_dump_to_file_then_pull(client, virtual_adb):
    device = client.device(virtual_adb.devices[0].serial)
    message = device.shell("uiautomator dump")
    assert message == "UI hierchary dumped to: /sdcard/window_dump.xml"
    xml = device.sync.read_text("/sdcard/window_dump.xml")
    assert xml.startswith("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">")
    assert xml.rstrip().endswith("</hierarchy>")
    assert device.dump_hierarchy() == device.sync.read_text("/data/local/tmp/uidump.xml")


def test_sync_push_pull_list_stat(client, virtual_adb):
    device = client.device(virtual_adb.devices[0].serial)
    device.sync.push(io.BytesIO(b"x" * 200_000), "/sdcard/Download/blob.bin")
    assert device.sync.read_bytes("/sdcard/Download/blob.bin") == b"x" * 200_000
    assert "blob.bin" in [f.path for f in device.sync.list("/sdcard/Download")]
    assert device.sync.stat("/sdcard/Download/blob.bin").size == 200_000
    assert not device.sync.exists("/sdcard/none.txt")


def test_several_phones_with_own_serials():
    with VirtualAdbServer() as server:
        server.add_phone(serial="emulator-5554")
        server.add_phone(serial="emulator-5556", width=720, height=1600, density=320)
        client = adbutils.AdbClient(host="127.0.0.1", port=server.port)
        assert sorted(d.serial for d in client.device_list()) == ["emulator-5554", "emulator-5556"]
        assert client.device("emulator-5556").shell("wm size") == "Physical size: 720x1600"
        assert client.device("emulator-5556").shell("wm density") == "Physical density: 320"


def test_track_devices_reports_plug_and_unplug(client, virtual_adb):
    serial = virtual_adb.devices[0].serial
    events = []
    done = threading.Event()

    def watch():
        for event in client.track_devices():
            events.append((event.present, event.serial, event.status))
            if len(events) == 3:
                done.set()
                return

    threading.Thread(target=watch, daemon=True).start()
    import time
    time.sleep(0.3)
    device = virtual_adb.unplug(serial)
    time.sleep(0.3)
    virtual_adb.plug(device)
    assert done.wait(5), events
    assert events == [(True, serial, "device"), (False, serial, "absent"), (True, serial, "device")]


def test_connect_over_tcp(client, virtual_adb):
    virtual_adb.add_network_phone("192.168.1.50:5555")
    assert "192.168.1.50:5555" not in [d.serial for d in client.device_list()]
    assert client.connect("192.168.1.50:5555") == "connected to 192.168.1.50:5555"
    assert client.connect("192.168.1.50:5555") == "already connected to 192.168.1.50:5555"
    assert "192.168.1.50:5555" in [d.serial for d in client.device_list()]
    assert "Connection refused" in client.connect("10.9.9.9:5555")
    assert client.device("192.168.1.50:5555").shell("getprop ro.serialno") == "192.168.1.50:5555"
    assert client.disconnect("192.168.1.50:5555") == "disconnected 192.168.1.50:5555"


@pytest.mark.parametrize("state, message", [("unauthorized", "unauthorized"), ("offline", "offline")])
def test_unusable_states(client, virtual_adb, state, message):
    serial = virtual_adb.devices[0].serial
    virtual_adb.set_state(serial, state)
    assert client.list()[0].state == state
    with pytest.raises(adbutils.AdbError, match=message):
        client.device(serial).shell("echo hi")


def test_faults_dump_fails_then_recovers(client, virtual_adb):
    attached = virtual_adb.devices[0]
    attached.faults.failing_dumps = 2
    device = client.device(attached.serial)
    assert "could not get idle state" in device.shell("uiautomator dump")
    assert "could not get idle state" in device.shell("uiautomator dump")
    assert "dumped to" in device.shell("uiautomator dump")


def test_faults_truncated_screenshot(client, virtual_adb):
    attached = virtual_adb.devices[0]
    attached.faults.truncated_screenshots = 1
    device = client.device(attached.serial)
    assert len(device.shell("screencap", encoding=None)) < 1080 * 2400 * 4
    assert len(device.shell("screencap", encoding=None)) == 16 + 1080 * 2400 * 4


def test_faults_dropped_connection(client, virtual_adb):
    attached = virtual_adb.devices[0]
    attached.faults.drop_connections = 1
    device = client.device(attached.serial)
    with pytest.raises((adbutils.AdbError, ConnectionError, OSError)):
        device.shell("getprop", timeout=5)
    assert device.shell("getprop ro.build.version.sdk") == "34"


@pytest.mark.skipif(adb_client_missing, reason="Debian's adb client is not installed (apt-get install adb)")
class TestDebianAdbClient:
    def test_devices(self, virtual_adb):
        result = adb(virtual_adb, "devices", "-l")
        assert result.returncode == 0
        assert f"{virtual_adb.devices[0].serial}" in result.stdout.decode()
        assert "model:AgentDesk_Virtual_Phone" in result.stdout.decode()

    def test_shell_with_operators_and_exit_code(self, virtual_adb):
        result = adb(virtual_adb, "shell", "echo one; false || echo two && wm size")
        assert result.stdout.decode() == "one\ntwo\nPhysical size: 1080x2400\n"
        assert adb(virtual_adb, "shell", "ls /nope").returncode == 1

    def test_input_through_adb_client_reaches_the_phone(self, virtual_adb):
        result = adb(virtual_adb, "shell", "input", "keyevent", "KEYCODE_HOME")
        assert result.returncode == 0
        assert ["input", "keyevent", "KEYCODE_HOME"] in virtual_adb.devices[0].command_lines()

    def test_exec_out_screencap_png(self, virtual_adb):
        result = adb(virtual_adb, "exec-out", "screencap", "-p")
        assert Image.open(io.BytesIO(result.stdout)).size == (1080, 2400)

    def test_push_and_pull(self, virtual_adb, tmp_path):
        source = tmp_path / "note.txt"
        source.write_text("hello phone")
        assert adb(virtual_adb, "push", str(source), "/sdcard/note.txt").returncode == 0
        target = tmp_path / "back.txt"
        assert adb(virtual_adb, "pull", "/sdcard/note.txt", str(target)).returncode == 0
        assert target.read_text() == "hello phone"

    def test_uiautomator_dump_and_cat(self, virtual_adb):
        result = adb(virtual_adb, "shell", "uiautomator dump && cat /sdcard/window_dump.xml")
        text = result.stdout.decode()
        assert text.startswith("UI hierchary dumped to: /sdcard/window_dump.xml\n<?xml")

    def test_unauthorized_message(self, virtual_adb):
        virtual_adb.set_state(virtual_adb.devices[0].serial, "unauthorized")
        result = adb(virtual_adb, "shell", "echo hi")
        assert result.returncode != 0
        assert b"unauthorized" in result.stderr
