"""The window builds on the Desk (issue 26, item 1): its phone list and its task API share the Desk's one
phone directory, so an ADB server gets one `track-devices` connection, not one per face."""

from __future__ import annotations

import socket
import threading

import httpx2
import pytest

from app.core.config import ApiSettings
from app.desk import Desk
from tests.gui.conftest import shown_window
from tests.support.waiting import until

TOKEN = "desk-window-token-0123456789abcdef"


def count_track_devices(server, monkeypatch) -> dict[str, int]:
    """How many `host:track-devices` connections the ADB server got in all, and how many are open now."""
    counts = {"opened": 0, "open": 0}
    lock = threading.Lock()
    original = server._track_devices

    def counting(sock, long: bool) -> None:
        with lock:
            counts["opened"] += 1
            counts["open"] += 1
        try:
            original(sock, long)
        finally:
            with lock:
                counts["open"] -= 1
    monkeypatch.setattr(server, "_track_devices", counting)
    return counts


@pytest.mark.asyncio
async def test_the_window_and_its_api_share_one_track_devices_connection(qapp, phone_home, monkeypatch):
    server = phone_home                  # this machine's ADB server, in the test: the virtual phone's
    monkeypatch.setenv("AGENTDESK_API_TOKEN", TOKEN)
    counts = count_track_devices(server, monkeypatch)
    async with shown_window() as window:
        assert isinstance(window.desk, Desk) and window.service is window.desk.service
        window.settings = window.settings.model_copy(update={"api": ApiSettings(serve=True, port=0)})
        await window.start()
        assert window.api_host.url.startswith("http://127.0.0.1:")
        await until(lambda: window.phone.list.entries and counts["open"] >= 1)
        server.add_phone(serial="emulator-5556")      # a phone plugged in: both faces hear of it
        # the API's phones are the desk's directory (read here from the test's thread: a snapshot)
        await until(lambda: any(e.serial == "emulator-5556" for e in window.desk.directory.entries()))
        async with httpx2.AsyncClient(base_url=window.api_host.url,
                                     headers={"Authorization": f"Bearer {TOKEN}"}) as http:
            devices = (await http.get("/v1/devices")).json()["devices"]
        assert {d["serial"] for d in devices} == {server.devices[0].serial, "emulator-5556"}
        await until(lambda: any(e.serial == "emulator-5556" for e in window.phone.list.entries))
        assert counts == {"opened": 1, "open": 1}, counts


@pytest.mark.asyncio
async def test_the_window_shows_what_a_run_is_missing(qapp, phone_home):
    """The Desk's preflight list under the request: nothing on the virtual phone with a loopback model; the
    model's server, once it does not answer."""
    from app.core.config import ProviderSettings
    from tests.gui.conftest import running_window

    async with running_window([]) as window:
        await window.refresh_key_notice()
        assert window.request.missing_notice.isHidden()
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        window.settings = window.settings.model_copy(update={"provider": ProviderSettings(
            base_url=f"http://127.0.0.1:{port}/v1", model="m")})
        await window.refresh_key_notice()
        assert not window.request.missing_notice.isHidden()
        assert f"The model's server at http://127.0.0.1:{port} cannot be reached" in \
            window.request.missing_notice.text()
