"""The phones panel as phones come and go (issue 17, section 2): a phone plugged in after the window fell
back to the virtual phone appears and is offered, its state is said in words, a second ADB server's
new phone appears, switching never leaves a phone a run is using, and Wi-Fi connect says what happened."""

from __future__ import annotations

import asyncio

import keyring
import pytest
import pytest_asyncio

from app.virtual_phone.adb_server import VirtualAdbServer
from tests.gui.conftest import shown_window
from tests.support.memory_keyring import MemoryKeyring
from tests.support.waiting import until

ALLOW = "Allow USB debugging on the phone: unlock it and tap Allow in the dialog"


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("AGENTDESK_ADB_SERVERS", raising=False)
    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    yield tmp_path
    keyring.set_keyring(previous)


@pytest.fixture
def empty_adb(monkeypatch):
    """This machine's ADB server, with no phone plugged in: the window falls back to the virtual phone."""
    server = VirtualAdbServer().start()
    monkeypatch.setenv("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(server.port))
    yield server
    server.stop()


@pytest_asyncio.fixture
async def window(qapp, home, empty_adb):
    async with shown_window() as window:
        yield window


def _texts(window) -> list[str]:
    return [window.devices.list.item(row).text() for row in range(window.devices.list.count())]


@pytest.mark.asyncio
async def test_a_phone_plugged_in_after_the_fallback_appears_is_explained_and_offered(window, empty_adb):
    await window.start()
    await until(lambda: window.phone.entry is not None and window.phone.entry.virtual)
    await until(lambda: any("install the phone maker's USB driver" in t for t in _texts(window)))

    empty_adb.add_phone(serial="R58M123", model="Pixel 7")
    empty_adb.set_state("R58M123", "unauthorized")
    await until(lambda: any("R58M123" in t and ALLOW in t for t in _texts(window)))
    panel = window.devices
    assert panel.offer_box.isVisible() and ALLOW in panel.offer_text.text()
    assert not panel.use_button.isEnabled()                 # nothing to switch to until it is allowed
    assert not any("USB driver" in t for t in _texts(window))             # the hint goes once a phone is listed

    empty_adb.set_state("R58M123", "device")
    await until(lambda: panel.use_button.isEnabled())
    assert "was attached" in panel.offer_text.text() and window.phone.entry.virtual    # offered, not taken
    panel.use_button.click()
    await until(lambda: window.phone.entry.serial == "R58M123")
    assert not window.phone.entry.virtual and not panel.offer_box.isVisible()


@pytest.mark.asyncio
async def test_offline_is_said_in_words(window, empty_adb):
    await window.start()
    empty_adb.add_phone(serial="R58M999")
    empty_adb.set_state("R58M999", "offline")
    await until(lambda: any("R58M999" in t and "offline — unlock the phone" in t for t in _texts(window)))


@pytest.mark.asyncio
async def test_a_phone_attached_to_a_second_adb_server_after_start_appears(home, virtual_adb, monkeypatch):
    second = VirtualAdbServer().start()
    monkeypatch.setenv("AGENTDESK_ADB_SERVERS", f"127.0.0.1:{second.port}")
    try:
        async with shown_window() as window:
            await window.start()
            await until(lambda: f"127.0.0.1:{second.port}" in window.phone.list._heard_from)
            second.add_phone(serial="emulator-5556")
            await until(lambda: any(e.serial == "emulator-5556" and e.ready for e in window.devices.entries))
            assert window.devices.offered.server == f"127.0.0.1:{second.port}"
            assert window.phone.entry.serial == "emulator-5554"             # still the phone in use
    finally:
        second.stop()


@pytest.mark.asyncio
async def test_the_window_does_not_switch_away_from_a_phone_a_run_is_using(window, empty_adb):
    await window.start()
    await until(lambda: window.phone.entry is not None)
    session = window.phone.session
    await window.core.run(session._driving.acquire())          # a run drives the phone
    try:
        empty_adb.add_phone(serial="R58M123")
        await until(lambda: window.devices.use_button.isEnabled() and window.devices.offer_box.isVisible())
        window.devices.use_button.click()
        await asyncio.sleep(0.3)
        assert window.phone.entry.virtual and window.phone.session is session
        assert window.devices.note.isVisible() and "A run is using emulator-5554" in window.devices.note.text()
    finally:
        await window.core.run(_release(session._driving))


async def _release(lock: asyncio.Lock) -> None:
    lock.release()


@pytest.mark.asyncio
async def test_wifi_connect_says_what_really_happened(window, empty_adb):
    empty_adb.add_network_phone("10.0.0.7:5555")
    await window.start()
    panel = window.devices
    panel.address.setText("10.0.0.8:5555")
    panel.connect_button.click()
    assert not panel.connect_button.isEnabled() and "Connecting to 10.0.0.8:5555" in panel.wifi_result.text()
    await until(lambda: panel.connect_button.isEnabled())
    assert panel.wifi_result.text().startswith("✗ Could not connect to 10.0.0.8:5555: Connection refused")

    panel.address.setText("10.0.0.7")
    panel.connect_button.click()
    await until(lambda: panel.connect_button.isEnabled())
    assert panel.wifi_result.text() == "✓ Connected to 10.0.0.7:5555."
    await until(lambda: any(e.serial == "10.0.0.7:5555" for e in panel.entries))


# ---------------------------------------------------------------------- quitting (issue 17, section 8)

def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.asyncio
@pytest.mark.parametrize("running_before", [False, True])
async def test_quitting_stops_the_adb_server_only_when_the_app_started_it(home, monkeypatch, running_before):
    from tests.support.fake_adb_host import FakeAdbHost

    port = _free_port()
    monkeypatch.setenv("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(port))
    servers = [FakeAdbHost(port).start()] if running_before else []

    def start_server(address: str) -> str:            # what `adb start-server` does
        servers.append(FakeAdbHost(port).start())
        return ""
    try:
        async with shown_window() as window:
            window.phone.list.local._start = start_server
            await window.start()
            await until(lambda: window.phone.entry is not None and window.phone.entry.virtual)
            assert len(servers) == 1                              # started only when none ran
        assert servers[0].killed.is_set() is (not running_before)
    finally:
        for server in servers:
            server.stop()


@pytest.mark.asyncio
async def test_with_no_adb_server_at_start_a_phone_plugged_in_later_still_appears(home, monkeypatch):
    """The cause of "a phone plugged in after the fallback never appears": no ADB server ran, and the
    window only ever reconnected to it; now it starts one, calmly, as `adb devices` would."""
    port = _free_port()
    monkeypatch.setenv("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(port))
    servers: list[VirtualAdbServer] = []
    tries: list[str] = []

    def start_server(address: str) -> str:            # adb cannot start at first (busy USB, say), then can
        tries.append(address)
        if len(tries) == 1:
            return "`adb start-server` failed (exit status 1)"
        servers.append(VirtualAdbServer(port=port).start())
        return ""
    try:
        async with shown_window() as window:
            local = window.phone.list.local
            local._start, local._delay = start_server, 0.2
            await window.start()
            assert window.phone.entry.virtual and len(tries) == 1
            await until(lambda: servers, seconds=5)
            servers[0].add_phone(serial="R58M123")
            await until(lambda: any(e.serial == "R58M123" and e.ready for e in window.devices.entries))
            assert window.devices.offered.serial == "R58M123"
        assert len(tries) == 2                        # calm: one more try, not a loop
    finally:
        for server in servers:
            server.stop()
