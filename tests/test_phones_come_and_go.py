"""Phones come and go (issue 17, section 2; section 8's adb server on quit): this machine's ADB server is
watched and started calmly when none runs, states are said in words, Wi-Fi connect and pairing
report what really happened, and quitting stops the adb server only when the app started it."""

from __future__ import annotations

import asyncio
import logging
import socket
import time

import pytest

from app.core.device import wifi_adb
from app.core.device.adb_servers import ServerWatcher, transport_for
from app.core.device.adb_transport import DeviceListing, parse_devices_l
from app.core.device.local_adb import LocalAdbServer
from app.virtual_phone.adb_server import VirtualAdbServer
from tests.support.fake_adb_host import FakeAdbHost
from tests.support.waiting import until

ALLOW = "Allow USB debugging on the phone: unlock it and tap Allow in the dialog"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def fake_adb():
    fake = FakeAdbHost().start()
    yield fake
    fake.stop()


# ---------------------------------------------------------------------- states in words

@pytest.mark.parametrize("line, words", [
    ("R58M123 unauthorized usb:1-1 transport_id:3", ALLOW),
    ("R58M123 offline usb:1-1 transport_id:3", "offline — unlock the phone"),
    ("R58M123 no permissions (user in plugdev group; are your udev rules wrong?); "
     "see [http://developer.android.com/tools/device.html] usb:1-1 transport_id:3", "add a udev rule"),
    ("R58M123 recovery usb:1-1", "in recovery mode — restart the phone normally"),
    ("R58M123 sideload usb:1-1", "in sideload mode"),
    ("R58M123 bootloader usb:1-1", "in the bootloader"),
    ("R58M123 device usb:1-1 model:Pixel_7", "connected"),
])
def test_every_state_adb_reports_is_said_in_words(line, words):
    (listing,) = parse_devices_l(line + "\n")
    assert words in listing.describe_state()
    assert listing.ready == (listing.state == "device")


# ---------------------------------------------------------------------- this machine's server

@pytest.mark.asyncio
async def test_a_phone_plugged_in_when_no_adb_server_ran_appears_once_the_watcher_starts_one():
    """The cause of "a phone plugged in after the fallback never appears": nobody started the server."""
    port = _free_port()
    started: list[VirtualAdbServer] = []

    def start_server(address: str) -> str:             # what `adb start-server` does
        started.append(VirtualAdbServer(port=port).start())
        return ""

    local = LocalAdbServer(f"127.0.0.1:{port}", start=start_server, retry_seconds=0.1)
    seen: list[list[DeviceListing]] = []
    watcher = ServerWatcher(transport_for(local.address), seen.append, retry_seconds=0.1, starter=local)
    watcher.start()
    try:
        await until(lambda: started)
        started[0].add_phone(serial="R58M123")          # plugged in after the start
        await until(lambda: any(d.serial == "R58M123" for d in watcher.devices))
        assert watcher.problem == "" and local.started_by_us and local.was_running is False
    finally:
        watcher.stop()
        await asyncio.to_thread(watcher.join, 5)
        for server in started:
            server.stop()


@pytest.mark.asyncio
async def test_with_no_adb_at_all_the_watcher_retries_calmly_and_says_so_once(caplog, monkeypatch):
    monkeypatch.setenv("ADBUTILS_ADB_PATH", "/bin/false")          # `adb start-server` fails at once
    local = LocalAdbServer(f"127.0.0.1:{_free_port()}", retry_seconds=0.2)
    tries: list[float] = []
    start = local._start
    local._start = lambda address: (tries.append(time.monotonic()), start(address))[1]
    watcher = ServerWatcher(transport_for(local.address), lambda devices: None, retry_seconds=0.05, starter=local)
    caplog.set_level(logging.INFO)
    watcher.start()
    try:
        await asyncio.sleep(1.6)
    finally:
        watcher.stop()
        await asyncio.to_thread(watcher.join, 5)
    assert "`adb start-server` failed" in watcher.problem
    assert 2 <= len(tries) <= 4, tries                       # 0.2 s, 0.4 s, 0.8 s apart: not 30 starts
    gaps = [b - a for a, b in zip(tries, tries[1:], strict=False)]
    assert all(later > earlier for earlier, later in zip(gaps, gaps[1:], strict=False))
    said = [r for r in caplog.records if r.levelno >= logging.INFO and "adb" in r.getMessage().lower()]
    assert len(said) <= 2, [r.getMessage() for r in said]   # once per change, not once per retry


def test_no_adb_program_is_a_reason_not_a_crash(monkeypatch):
    monkeypatch.setenv("ADBUTILS_ADB_PATH", "/nonexistent/adb")
    local = LocalAdbServer(f"127.0.0.1:{_free_port()}")
    assert "could not run" in local.ensure_running(now=True)
    assert not local.started_by_us


def test_another_machines_server_is_never_started():
    calls: list[str] = []
    local = LocalAdbServer("10.255.255.1:5037", start=lambda a: calls.append(a) or "")
    local.look = lambda: False
    assert "another machine" in local.ensure_running(now=True) and calls == []


# ---------------------------------------------------------------------- quitting

def test_the_adb_server_the_app_started_is_stopped_on_quit():
    port = _free_port()
    fakes: list[FakeAdbHost] = []
    local = LocalAdbServer(f"127.0.0.1:{port}", start=lambda a: fakes.append(FakeAdbHost(port).start()) or "")
    try:
        assert local.ensure_running(now=True) == "" and local.started_by_us
        assert local.stop_if_ours()
        assert fakes[0].killed.wait(2) and fakes[0].requests[-1] == "host:kill"
    finally:
        for fake in fakes:
            fake.stop()


def test_an_adb_server_that_ran_before_the_app_is_left_alone(fake_adb):
    calls: list[str] = []
    local = LocalAdbServer(fake_adb.address, start=lambda a: calls.append(a) or "")
    assert local.ensure_running(now=True) == ""
    assert not local.stop_if_ours()
    assert calls == [] and "host:kill" not in fake_adb.requests and not fake_adb.killed.is_set()


# ---------------------------------------------------------------------- Wi-Fi connect and pairing

@pytest.mark.parametrize("reply, ok, words", [
    ("connected to 192.168.1.20:5555", True, "Connected to 192.168.1.20:5555."),
    ("already connected to 192.168.1.20:5555", True, "Already connected to 192.168.1.20:5555."),
    ("failed to connect to '192.168.1.20:5555': Connection refused", False, "Connection refused"),
    ("cannot connect to 192.168.1.20:5555: No route to host (113)", False, "No route to host"),
    ("unable to connect to 192.168.1.20:5555", False, "Could not connect to 192.168.1.20:5555"),
    ("failed to authenticate to 192.168.1.20:5555", False, "pair first"),
])
def test_connect_reports_what_adb_said_happened(fake_adb, reply, ok, words):
    fake_adb.connect_reply = reply
    fake_adb.listing = "192.168.1.20:5555\tdevice product:p model:Pixel_7 transport_id:4\n" if ok else ""
    outcome = wifi_adb.connect(fake_adb.address, "192.168.1.20:5555", settle=0.5)
    assert outcome.ok is ok and words in outcome.text, outcome
    assert fake_adb.requests[0] == "host:connect:192.168.1.20:5555"


def test_connected_but_unauthorized_is_not_a_success(fake_adb):
    fake_adb.connect_reply = "connected to 192.168.1.20:5555"
    fake_adb.listing = "192.168.1.20:5555\tunauthorized transport_id:4\n"
    outcome = wifi_adb.connect(fake_adb.address, "192.168.1.20", settle=0.3)
    assert not outcome.ok and ALLOW in outcome.text


def test_connect_to_a_virtual_phone_over_the_real_protocol():
    with VirtualAdbServer() as server:
        server.add_network_phone("10.0.0.7:5555")
        address = f"127.0.0.1:{server.port}"
        assert wifi_adb.connect(address, "10.0.0.7:5555").text == "Connected to 10.0.0.7:5555."
        assert wifi_adb.connect(address, "10.0.0.7").text == "Already connected to 10.0.0.7:5555."
        refused = wifi_adb.connect(address, "10.0.0.8:5555")
        assert not refused.ok and "Connection refused" in refused.text


@pytest.mark.parametrize("reply, ok, words", [
    ("Successfully paired to 192.168.1.20:37099 [guid=adb-R58M123-abcd]", True, "Paired with 192.168.1.20:37099"),
    ("Failed: Wrong password or connection was dropped.", False, "the code is wrong"),
    ("Failed: Unable to start pairing client.", False, "Unable to start pairing client"),
    (None, False, "cannot pair"),
])
def test_pairing_reports_what_adb_said_happened(fake_adb, reply, ok, words):
    fake_adb.pair_reply = reply
    outcome = wifi_adb.pair(fake_adb.address, "192.168.1.20:37099", "482913")
    assert outcome.ok is ok and words in outcome.text, outcome
    assert fake_adb.requests == ["host:pair:482913:192.168.1.20:37099"]


@pytest.mark.parametrize("address, code, words", [
    ("192.168.1.20", "482913", "needs the port"),
    ("192.168.1.20:37099", "", "Type the pairing code"),
    ("192.168.1.20:99999", "482913", "not a port number"),
])
def test_pairing_input_is_checked_before_asking_adb(fake_adb, address, code, words):
    outcome = wifi_adb.pair(fake_adb.address, address, code)
    assert not outcome.ok and words in outcome.text and fake_adb.requests == []


def test_no_adb_server_is_a_failure_in_words():
    outcome = wifi_adb.connect(f"127.0.0.1:{_free_port()}", "192.168.1.20:5555")
    assert not outcome.ok and "Cannot reach the ADB server" in outcome.text
