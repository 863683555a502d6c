"""Phones on several ADB servers listed together (issue 14, item 6): two "machines" are two virtual
ADB servers on loopback, each with its own `emulator-5554`."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time

import pytest

from app.cli import main
from app.core.config import AdbSettings
from app.core.device.adb_servers import PhoneDirectory, adb_servers, list_phones
from app.core.device.errors import DeviceNotFound
from app.core.device.phone_id import AmbiguousPhone, PhoneId
from app.core.device.phone_session import PhoneRegistry
from app.virtual_phone.adb_server import VirtualAdbServer
from tests.support.waiting import until


def _machine(port: int = 0) -> VirtualAdbServer:
    server = VirtualAdbServer(port=port).start()
    server.add_phone(serial="emulator-5554")
    return server


def _address(server: VirtualAdbServer) -> str:
    return f"127.0.0.1:{server.port}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def machines():
    """Two ADB servers, each with an emulator-5554; stopped at the end (a test may stop one early)."""
    servers = [_machine(), _machine()]
    yield servers
    for server in servers:
        server.stop()


@pytest.fixture
def local_adb(monkeypatch):
    """Point "this machine's ADB server" at a free port nobody listens on (no real adb is asked)."""
    monkeypatch.setenv("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(_free_port()))
    monkeypatch.delenv("AGENTDESK_ADB_SERVERS", raising=False)


# ---------------------------------------------------------------------- which servers

def test_servers_come_from_this_machine_the_settings_and_the_environment(monkeypatch):
    monkeypatch.setenv("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", "5999")
    settings = AdbSettings(servers=["10.0.0.2:5037"])
    env = {"AGENTDESK_ADB_SERVERS": "10.0.0.3:5037, 10.0.0.2:5037 lab-pc:6000,127.0.0.1:5999"}
    assert adb_servers(settings, env) == ["127.0.0.1:5999", "10.0.0.2:5037", "10.0.0.3:5037", "lab-pc:6000"]
    assert adb_servers(None, {}) == ["127.0.0.1:5999"]


@pytest.mark.parametrize("value", ["lab-pc", "10.0.0.3:5037,:99", "10.0.0.3:70000"])
def test_a_bad_environment_value_is_named(local_adb, value):
    with pytest.raises(ValueError, match="AGENTDESK_ADB_SERVERS"):
        adb_servers(AdbSettings(), {"AGENTDESK_ADB_SERVERS": value})


# ---------------------------------------------------------------------- listing once

def test_two_machines_with_the_same_serial_give_two_phones(machines, monkeypatch):
    first, second = machines
    # The first counts as this machine's server (asked through adbutils), the second as another's.
    monkeypatch.setenv("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(first.port))
    phones, unreachable = list_phones([_address(first), _address(second)])
    assert unreachable == {}
    assert [p.id for p in phones] == [PhoneId(_address(first), "emulator-5554"),
                                      PhoneId(_address(second), "emulator-5554")]
    assert all(p.ready and p.state == "device" and p.model for p in phones)
    assert phones[1].to_dict() == {"device_id": f"emulator-5554@{_address(second)}", "serial": "emulator-5554",
                                   "server": _address(second), "state": "device", "model": phones[1].model,
                                   "ready": True, "virtual": False}


def test_a_dead_server_is_reported_without_hiding_the_others(machines, local_adb):
    dead = f"127.0.0.1:{_free_port()}"
    started = time.monotonic()
    phones, unreachable = list_phones([_address(machines[0]), dead, _address(machines[1])])
    assert time.monotonic() - started < 3
    assert [p.server for p in phones] == [_address(machines[0]), _address(machines[1])]
    assert list(unreachable) == [dead] and "Cannot reach the ADB server" in unreachable[dead]


def test_a_server_that_never_answers_holds_the_others_only_for_the_timeout(machines, local_adb):
    with socket.socket() as silent:           # accepts connections (the kernel does) but never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)
        address = f"127.0.0.1:{silent.getsockname()[1]}"
        started = time.monotonic()
        phones, unreachable = list_phones([address, _address(machines[0])], timeout=0.5)
        elapsed = time.monotonic() - started
    assert elapsed < 2.0
    assert [p.server for p in phones] == [_address(machines[0])]
    assert "no answer within 0.5 s" in unreachable[address]


def test_a_phone_that_is_not_ready_says_why(machines, local_adb):
    machines[1].set_state("emulator-5554", "unauthorized")
    phones, _ = list_phones([_address(m) for m in machines])
    assert phones[0].ready and phones[0].problem == ""
    assert not phones[1].ready and phones[1].state == "unauthorized"
    assert "Allow USB debugging on the phone" in phones[1].problem


# ---------------------------------------------------------------------- the directory

@pytest.mark.asyncio
async def test_a_server_that_goes_away_marks_only_its_phones_offline(machines, local_adb):
    first, second = machines
    second_port = second.port
    directory = PhoneDirectory(PhoneRegistry(), [_address(first), _address(second)])
    seen: list[list] = []
    directory.on_change(seen.append)
    directory.start()
    try:
        await until(lambda: len(directory.entries()) == 2 and all(e.ready for e in directory.entries()))
        before = directory.entries()[0]

        second.stop()
        await until(lambda: directory.entries()[1].state == "offline")
        gone = directory.entries()[1]
        assert gone.id == PhoneId(f"127.0.0.1:{second_port}", "emulator-5554") and not gone.ready
        assert "unreachable" in gone.problem
        assert directory.entries()[0] == before                       # the other machine is untouched
        assert list(directory.unreachable()) == [f"127.0.0.1:{second_port}"]
        with pytest.raises(DeviceNotFound, match="unreachable"):
            directory.session(gone.id)
        assert directory.session(None).id == before.id                # the first ready phone

        machines[1] = _machine(second_port)                          # the machine comes back
        await until(lambda: directory.entries()[1].ready, seconds=15)
        assert directory.unreachable() == {}
        assert seen and seen[-1] == directory.entries()
    finally:
        await directory.stop()
        await directory.registry.close()


@pytest.mark.asyncio
async def test_a_plain_serial_two_machines_share_is_ambiguous_and_a_full_id_works(machines, local_adb):
    first, second = machines
    registry = PhoneRegistry()
    directory = PhoneDirectory(registry, [_address(first)])
    directory.add_server(_address(second), virtual=True)
    try:
        entries = await directory.refresh()                           # no watcher: one pass
        assert [e.virtual for e in entries] == [False, True]
        with pytest.raises(AmbiguousPhone, match="SERIAL@HOST:PORT"):
            directory.session("emulator-5554")
        with pytest.raises(DeviceNotFound, match="not connected"):
            directory.session("emulator-5556")

        second.device("emulator-5554").phone.settings.put("global", "device_name", "second machine", notify=False)
        session = directory.session(f"emulator-5554@{_address(second)}")
        assert session.id == entries[1].id and session.virtual
        assert session is registry.get(str(entries[1].id))            # registered: one owner per phone
        assert "second machine" in await session.device.shell("settings get global device_name")
        assert directory.session(entries[0].id).id == entries[0].id
    finally:
        await directory.stop()
        await registry.close()


# ---------------------------------------------------------------------- agentdesk devices

def test_devices_json_lists_every_server(machines, monkeypatch, capsys):
    first, second = machines
    dead = f"127.0.0.1:{_free_port()}"
    monkeypatch.setenv("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(first.port))
    monkeypatch.setenv("AGENTDESK_ADB_SERVERS", f"{_address(second)},{dead}")
    assert main(["devices", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [d["device_id"] for d in listed["devices"]] == [f"emulator-5554@{_address(first)}",
                                                           f"emulator-5554@{_address(second)}"]
    assert {d["state"] for d in listed["devices"]} == {"device"}
    assert list(listed["unreachable"]) == [dead]

    assert main(["devices"]) == 0
    table = capsys.readouterr().out
    assert _address(first) in table and _address(second) in table
    assert f"ADB server {dead} is unreachable" in table


def test_devices_refuses_a_bad_environment_value(local_adb, monkeypatch, capsys):
    monkeypatch.setenv("AGENTDESK_ADB_SERVERS", "lab-pc")
    assert main(["devices", "--json"]) == 2
    assert "AGENTDESK_ADB_SERVERS" in capsys.readouterr().err


# ---------------------------------------------------------------------- the window's phone list

@contextlib.asynccontextmanager
async def window_phones_on_a_desk():
    """The window's phones over a Desk of their own (its loop on a core thread, as in the window)."""
    from PySide6.QtCore import QSize

    from app.core.config import Settings
    from app.core.loop_thread import LoopThread
    from app.desk import Desk
    from app.gui.phones.window_phone import WindowPhone as WindowPhones

    core = LoopThread()
    desk = Desk(Settings(), bad_servers_noted=True)
    window_phones = WindowPhones(lambda: QSize(480, 960), core, desk)
    try:
        yield window_phones
    finally:
        await window_phones.shutdown()
        await core.run(desk.close())
        await asyncio.to_thread(core.close)


@pytest.mark.asyncio
async def test_the_window_lists_other_machines_and_marks_an_unreachable_one(machines, local_adb, monkeypatch):
    first, second = machines
    monkeypatch.setenv("AGENTDESK_ADB_SERVERS", f"{_address(first)},{_address(second)}")
    async with window_phones_on_a_desk() as window_phones:
        listed: list[list] = []
        window_phones.devices_changed.connect(listed.append)
        await window_phones.list.watch()      # what start() does once a phone is open
        await until(lambda: listed and len(listed[-1]) == 2 and all(e.ready for e in listed[-1]))
        second.stop()

        def on(server) -> object:
            return next(entry for entry in listed[-1] if entry.server == _address(server))
        await until(lambda: not on(second).ready)
        assert on(second).state == f"offline — its ADB server {_address(second)} is unreachable"
        assert on(first).ready


@pytest.mark.asyncio
async def test_the_window_says_when_the_server_list_is_bad(local_adb, monkeypatch):
    monkeypatch.setenv("AGENTDESK_ADB_SERVERS", "lab-pc")
    async with window_phones_on_a_desk() as window_phones:
        said: list[str] = []
        window_phones.status.connect(said.append)
        await window_phones.start()          # no phone here: it falls back to the virtual phone
        assert len([s for s in said if "AGENTDESK_ADB_SERVERS" in s]) == 1, said
        # this machine's server is still watched: a bad list of other machines hides no phone plugged in here
        servers = window_phones.desk.directory.servers
        assert servers[0] == window_phones.list.local.address and len(servers) == 2     # and the virtual phone's
