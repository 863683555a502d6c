"""One built-in phone per computer (issue 27, point 2): the first process that needs it starts it as its own process
on a fixed port, every other one holds the running one, `agentdesk devices` lists it, a run from the command line
moves the mirror of another process's desk, and it stops when its last user goes (a crashed one too) unless the
setting keeps it. Each test has a private port (AGENTDESK_VIRTUAL_PORT) so xdist's workers never share a phone."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time

import pytest

from app.core.config import AdbSettings, Settings
from app.desk import Desk
from app.desk import shared_phone as shared_phone_module
from app.desk.port_holder import agentdesk_phone_status
from app.desk.shared_phone import SharedPhone, stop_shared_phone
from tests.conftest import REPO_ROOT
from tests.support.openai_server import FakeOpenAIServer, act, json_reply

WAIT = 60.0      # the most a step may take on a busy machine (never how long it should take)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def _until(condition, what: str):
    deadline = time.monotonic() + WAIT
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {WAIT:g} s")
        time.sleep(0.02)
    return value


@pytest.fixture
def shared_port(monkeypatch, tmp_path):
    """A private port for this test's shared phone, no real ADB server, a temporary home; the phone stopped after."""
    port = _free_port()
    monkeypatch.setenv("AGENTDESK_VIRTUAL_PORT", str(port))
    monkeypatch.setenv("AGENTDESK_VIRTUAL_LINGER", "0.2")
    monkeypatch.setenv("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(_free_port()))      # nothing there: no phone attached
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("AGENTDESK_ADB_SERVERS", raising=False)
    monkeypatch.setenv("PYTHONPATH", str(REPO_ROOT))
    yield port
    stop_shared_phone(port)
    for process in shared_phone_module.SPAWNED:
        process.wait(WAIT)
    shared_phone_module.SPAWNED.clear()
    _until(lambda: not _answers(port), "the phone's stop")      # (one another process started)


HOLDER = """
import asyncio, json, sys
from app.core.config import Settings
from app.desk import Desk

async def main():
    desk = Desk(Settings(), virtual=True)
    phone = await desk.start_virtual_phone()
    print(json.dumps({"pid": phone.pid, "started_here": phone.started_here}), flush=True)
    await asyncio.to_thread(sys.stdin.read)      # hold it until told (or killed)
    await desk.close()
asyncio.run(main())
"""


def _holder() -> tuple[subprocess.Popen, dict]:
    """Another process whose Desk holds the built-in phone until its stdin closes; and what it said."""
    process = subprocess.Popen([sys.executable, "-c", HOLDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True, cwd=REPO_ROOT)
    line = process.stdout.readline() if process.stdout else ""
    assert line, "the holder process said nothing"
    return process, json.loads(line)


def _agentdesk(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "app.cli", *args], capture_output=True, text=True, cwd=REPO_ROOT,
                          timeout=WAIT * 3)


@pytest.mark.asyncio
async def test_a_second_process_holds_the_running_phone_and_devices_lists_it(shared_port):
    desk = Desk(Settings(), virtual=True)
    holder = None
    try:
        phone = await desk.start_virtual_phone()
        assert isinstance(phone, SharedPhone) and phone.started_here and phone.port == shared_port
        assert phone.pid == phone.process.pid            # its own process, not this one
        holder, said = await asyncio.to_thread(_holder)
        assert said == {"pid": phone.pid, "started_here": False}    # the running one, not another
        status = agentdesk_phone_status(shared_port)
        assert status is not None and status["users"] == 2
        listed = await asyncio.to_thread(_agentdesk, "devices", "--json")
        devices = json.loads(listed.stdout)
        assert [(d["server"], d["serial"], d["ready"], d["virtual"]) for d in devices["devices"]] == [
            (f"127.0.0.1:{shared_port}", "emulator-5554", True, True)]
        assert set(devices["unreachable"]) == {f"127.0.0.1:{os.environ['ANDROID_ADB_SERVER_PORT']}"}  # (no adb)
    finally:
        if holder is not None:
            holder.communicate("", timeout=WAIT)
        await desk.close()


def test_devices_says_nothing_of_the_built_in_phone_while_none_runs(shared_port):
    listed = _agentdesk("devices", "--json")
    devices = json.loads(listed.stdout)
    assert devices["devices"] == []
    assert f"127.0.0.1:{shared_port}" not in devices["unreachable"]       # not an error: it is simply not running
    assert not _answers(shared_port)                                      # and listing it started nothing


@pytest.mark.asyncio
async def test_a_cli_run_on_the_built_in_phone_moves_another_process_mirror(shared_port, tmp_path):
    """The window's side (a desk with the phone's mirror frames, in this process) and `agentdesk run` in another
    process: the run opens Settings, and this process's mirror and controls show it."""
    desk = Desk(Settings(), virtual=None)
    try:
        connection = await desk.open_phone()
        assert connection.is_virtual and connection.session.id.server == f"127.0.0.1:{shared_port}"
        mirror = connection.session.frames.subscribe()          # what the window's mirror reads
        before = (await asyncio.wait_for(mirror.next(), WAIT)).image.tobytes()
        controls = await connection.device.controls(refresh=True)
        assert not any(c.name.startswith("Network & internet") for c in controls.controls)
        script = [json_reply(act("launch_app", package_name="com.android.settings")),
                  json_reply(act("", status="FINISH"))]
        with FakeOpenAIServer(script) as model:
            env_key = "AGENTDESK_TEST_SHARED_KEY"
            os.environ[env_key] = "sk-test-shared-phone-0123456789"
            try:
                done = await asyncio.to_thread(_agentdesk, "run", "Open Settings", "--auto", "--json", "--base-url",
                                               model.base_url, "--model", "m", "--api-key-env", env_key)
            finally:
                del os.environ[env_key]
        assert done.returncode == 0, done.stderr
        assert "virtual phone" in done.stderr                                  # it used the built-in phone

        async def moved() -> None:
            while (await mirror.next()).image.tobytes() == before:
                pass
        await asyncio.wait_for(moved(), WAIT)                                   # the mirror moved
        mirror.close()
        controls = await connection.device.controls(refresh=True)
        assert any(c.name.startswith("Network & internet") for c in controls.controls)   # opened by the other
        assert len(shared_phone_module.SPAWNED) == 1                           # one phone, started here
    finally:
        await desk.close()


@pytest.mark.asyncio
async def test_the_phone_stops_when_its_last_user_goes_even_a_crashed_one(shared_port):
    desk = Desk(Settings(), virtual=True)
    holder = None
    try:
        phone = await desk.start_virtual_phone()
        holder, said = await asyncio.to_thread(_holder)
        assert said["pid"] == phone.pid
        process = phone.process
        assert process is not None
        await desk.close()                    # this user leaves; the other still holds it
        status = await asyncio.to_thread(_until, lambda: (s := agentdesk_phone_status(shared_port)) and
                                         s["users"] == 1 and s, "this desk's leaving")
        assert status["holders"][0]["pid"] == holder.pid and process.poll() is None
        holder.kill()                         # the last user crashes (SIGKILL): its hold ends with it
        holder.wait(WAIT)
        assert await asyncio.to_thread(process.wait, WAIT) == 0
        assert not _answers(shared_port)
    finally:
        if holder is not None and holder.poll() is None:
            holder.kill()
            holder.wait(WAIT)
        await desk.close()


@pytest.mark.asyncio
async def test_the_setting_keeps_the_phone_after_its_last_user(shared_port, monkeypatch):
    monkeypatch.setenv("AGENTDESK_VIRTUAL_LINGER", "0")          # unkept, it would stop at once
    desk = Desk(Settings(adb=AdbSettings(keep_virtual_phone=True)), virtual=True)
    try:
        phone = await desk.start_virtual_phone()
        pid = phone.pid
    finally:
        await desk.close()
    status = await asyncio.to_thread(_until, lambda: (s := agentdesk_phone_status(shared_port)) and
                                     s["users"] == 0 and s, "the desk's leaving")
    assert status["keep"] is True and status["pid"] == pid
    again = Desk(Settings(), virtual=True)
    try:
        assert (await again.start_virtual_phone()).pid == pid     # the same phone, still there
    finally:
        await again.close()


@pytest.mark.asyncio
async def test_turning_the_setting_off_lets_the_phone_stop(shared_port, monkeypatch):
    monkeypatch.setenv("AGENTDESK_VIRTUAL_LINGER", "0")
    desk = Desk(Settings(adb=AdbSettings(keep_virtual_phone=True)), virtual=True)
    try:
        phone = await desk.start_virtual_phone()
        await asyncio.to_thread(_until, lambda: agentdesk_phone_status(shared_port)["keep"], "the keep wish")
        desk.settings = Settings()               # Settings saved with the box unticked
        desk.watch_settings_servers()
        await asyncio.to_thread(_until, lambda: not agentdesk_phone_status(shared_port)["keep"], "the change")
        process = phone.process
    finally:
        await desk.close()
    assert process is not None and await asyncio.to_thread(process.wait, WAIT) == 0


def test_two_processes_starting_at_once_share_one_phone(shared_port):
    """Neither finds a phone running; both start one; the port decides, and both hold the same phone."""
    starters = [subprocess.Popen([sys.executable, "-c", HOLDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 text=True, cwd=REPO_ROOT) for _ in range(2)]
    try:
        said = [json.loads(starter.stdout.readline() or "null") for starter in starters if starter.stdout]
        assert said[0] is not None and said[1] is not None
        assert said[0]["pid"] == said[1]["pid"]
        assert agentdesk_phone_status(shared_port)["users"] == 2
    finally:
        for starter in starters:
            starter.communicate("", timeout=WAIT)


@pytest.mark.asyncio
async def test_naming_the_built_in_phone_by_its_id_holds_it_too(shared_port):
    first, second = Desk(Settings(), virtual=True), Desk(Settings(), virtual=False)
    try:
        phone = await first.start_virtual_phone()
        connection = await second.open_phone(f"emulator-5554@localhost:{shared_port}")
        assert connection.listing.serial == "emulator-5554"
        status = agentdesk_phone_status(shared_port)
        assert status is not None and status["users"] == 2 and status["pid"] == phone.pid
        await first.close()
        await asyncio.to_thread(_until, lambda: agentdesk_phone_status(shared_port)["users"] == 1, "first's leaving")
        assert phone.process is not None and phone.process.poll() is None       # the second still uses it
    finally:
        await first.close()
        await second.close()


@pytest.mark.asyncio
async def test_a_command_on_default_settings_does_not_undo_the_saved_keep_setting(shared_port):
    """`agentdesk controls` builds its desk on default settings: the person's saved choice still holds."""
    from app.core import paths
    from app.core.config import save_settings

    save_settings(Settings(adb=AdbSettings(keep_virtual_phone=True)), paths.settings_path())
    desk = Desk(Settings(), virtual=None)
    try:
        await desk.open_phone()
        status = agentdesk_phone_status(shared_port)
        assert status is not None and status["keep"] is True
    finally:
        await desk.close()


def test_the_command_says_when_the_built_in_phone_runs_already_and_stops_it(shared_port):
    holder, said = _holder()
    try:
        started = _agentdesk("virtual-phone", "--shared", "--port", str(shared_port))
        assert started.returncode == 0 and started.stderr == ""
        assert started.stdout == (f"Agent Desk's built-in phone already runs on 127.0.0.1:{shared_port} "
                                  f"(process {said['pid']}).\n")
        stopped = _agentdesk("virtual-phone", "--stop")
        assert stopped.returncode == 0 and stopped.stdout == f"Stopped the built-in phone on 127.0.0.1:{shared_port}.\n"
        _until(lambda: not _answers(shared_port), "the stop")
        assert _agentdesk("virtual-phone", "--stop").returncode == 1      # none runs now
    finally:
        holder.communicate("", timeout=WAIT)
