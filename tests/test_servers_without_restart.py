"""New ADB servers take effect without a restart (issue 27, point 4): one added to the settings file while `serve`
runs is listed by its task API, and one the window's Settings (or the environment) name is listed at once."""

from __future__ import annotations

import asyncio
import socket

import httpx2
import keyring
import pytest

from app.api.token import ApiToken
from app.core import paths
from app.core.config import AdbSettings, Settings, save_settings
from app.desk import Desk, open_served_desk
from app.virtual_phone.adb_server import VirtualAdbServer
from tests.support.memory_keyring import MemoryKeyring

WAIT = 60.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def setting(monkeypatch, tmp_path):
    """A temporary home, no ADB server of this machine, nothing in AGENTDESK_ADB_SERVERS, an in-memory keyring."""
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(_free_port()))
    monkeypatch.delenv("AGENTDESK_ADB_SERVERS", raising=False)
    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    yield
    keyring.set_keyring(previous)


@pytest.fixture
def other_machine():
    """Another machine's ADB server with one phone."""
    server = VirtualAdbServer().start()
    server.add_phone(serial="lab-phone-1")
    yield f"127.0.0.1:{server.port}"
    server.stop()


def _listed(desk: Desk, address: str) -> asyncio.Event:
    seen = asyncio.Event()
    desk.directory.on_change(lambda entries: seen.set() if any(
        e.server == address and e.ready for e in entries) else None)
    return seen


@pytest.mark.asyncio
async def test_serve_lists_a_server_added_to_the_settings_file_while_it_runs(setting, other_machine):
    token = ApiToken("servers-test-token-0123456789abcdef", "the test", False)
    desk = await open_served_desk(Settings(), virtual=False, host="127.0.0.1", port=0, token=token, announce=False)
    try:
        listed = _listed(desk, other_machine)
        await asyncio.to_thread(save_settings, Settings(adb=AdbSettings(servers=[other_machine])),
                                paths.settings_path())                 # as the window's Settings saves it
        await asyncio.wait_for(listed.wait(), WAIT)
        async with httpx2.AsyncClient(base_url=desk.url,
                                      headers={"Authorization": f"Bearer {token.value}"}) as http:
            devices = (await http.get("/v1/devices")).json()["devices"]
        assert f"lab-phone-1@{other_machine}" in [d["device_id"] for d in devices]
    finally:
        await desk.close()


@pytest.mark.asyncio
async def test_the_window_lists_servers_its_settings_or_the_environment_name_now(setting, other_machine,
                                                                                monkeypatch):
    desk = Desk(Settings(), virtual=None)
    try:
        desk.watch()
        listed = _listed(desk, other_machine)
        desk.settings = Settings(adb=AdbSettings(servers=[other_machine]))      # Settings › Connections, saved
        assert desk.watch_settings_servers() == [other_machine]
        await asyncio.wait_for(listed.wait(), WAIT)
        third = VirtualAdbServer().start()
        third.add_phone(serial="lab-phone-2")
        try:
            address = f"127.0.0.1:{third.port}"
            listed = _listed(desk, address)
            monkeypatch.setenv("AGENTDESK_ADB_SERVERS", address)
            assert desk.watch_settings_servers() == [address]
            await asyncio.wait_for(listed.wait(), WAIT)
        finally:
            await desk.close()
            third.stop()
    finally:
        await desk.close()
