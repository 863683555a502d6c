"""`agentdesk virtual-phone` when its port is taken (issue 27, point 4): on the default port it serves on a free one
and prints it; on a port the person named it says in one line who holds it; it tells how Agent Desk finds it.
And the built-in phone's port held by another program: the desk says so and uses a private phone."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys

import pytest

from app.core.config import Settings
from app.desk import Desk
from app.virtual_phone.adb_server import VirtualAdbServer
from tests.conftest import REPO_ROOT

WAIT = 60.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _command(*args: str, adb_port: int) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "ANDROID_ADB_SERVER_PORT": str(adb_port)}
    return subprocess.Popen([sys.executable, "-m", "app.cli", "virtual-phone", *args], cwd=REPO_ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.fixture
def adb_server():
    """An ADB server holding a port (the virtual phone's, as good as adb's own for this)."""
    server = VirtualAdbServer().start()
    yield server
    server.stop()


def test_on_the_taken_default_port_it_serves_on_a_free_one_and_says_so(adb_server):
    phone = _command(adb_port=adb_server.port)       # the default: ADB's port (ANDROID_ADB_SERVER_PORT, else 5037)
    try:
        assert phone.stdout is not None
        lines = [phone.stdout.readline() for _ in range(2)]
        said = "".join(lines)
        assert f"Port {adb_server.port} is taken by an ADB server" in lines[0], said
        free = int(lines[0].rsplit("free port ", 1)[1].split()[0])
        assert free != adb_server.port and f"Virtual phone ADB server on 127.0.0.1:{free}" in lines[1]
        rest = ""
        while "Press Ctrl+C" not in rest:
            line = phone.stdout.readline()
            assert line, f"it ended early, having said: {said}{rest}"
            rest += line
        assert "Settings › Connections › Other ADB servers" in rest
        assert f"AGENTDESK_ADB_SERVERS=127.0.0.1:{free}" in rest
        with socket.create_connection(("127.0.0.1", free), timeout=5):     # it does serve there
            pass
    finally:
        phone.terminate()
        phone.communicate(timeout=WAIT)
    assert phone.returncode == 0


def test_on_a_named_port_that_is_taken_it_says_who_holds_it_in_one_line(adb_server):
    phone = _command("--port", str(adb_server.port), adb_port=_free_port())
    out, err = phone.communicate(timeout=WAIT)
    assert phone.returncode == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"error: port {adb_server.port} is taken by an ADB server")
    if sys.platform.startswith("linux"):
        assert f"(process {os.getpid()}, " in err            # this test's process holds it


def test_a_port_held_by_something_else_is_named_too():
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        phone = _command("--port", str(port), adb_port=_free_port())
        out, err = phone.communicate(timeout=WAIT)
    assert phone.returncode == 2
    assert err.startswith(f"error: port {port} is taken by another program") and err.count("\n") == 1


@pytest.mark.asyncio
async def test_the_built_in_phones_port_held_by_another_program_gives_a_private_phone(adb_server, monkeypatch):
    monkeypatch.setenv("AGENTDESK_VIRTUAL_PORT", str(adb_server.port))
    desk = Desk(Settings(), virtual=True)
    try:
        phone = await desk.start_virtual_phone()
        assert phone.port != adb_server.port
        said = " ".join(desk.notes)
        assert f"Port {adb_server.port}, the built-in phone's, is held by an ADB server" in said
        assert "AGENTDESK_VIRTUAL_PORT" in said
    finally:
        await desk.close()


# A process-directed SIGTERM goes to any thread that does not block it. Here the main thread blocks it, so the
# kernel must hand it to another thread — what happened 1 time in 6 when the servers' threads were the ones awake.
_SIGNAL_ELSEWHERE = """
import signal, sys, threading
awake = threading.Event()
threading.Thread(target=awake.wait, daemon=True).start()        # a thread that takes the signal
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})        # ...because the main thread will not
sys.argv = ["agentdesk", "virtual-phone", *sys.argv[1:]]
from app.cli import main
sys.exit(main())
"""


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signal masks")
@pytest.mark.parametrize("shared", [False, True], ids=["alone", "shared"])
def test_sigterm_taken_by_another_thread_still_stops_it(shared):
    port = _free_port()
    args = ["--shared", "--keep", "--port", str(port)] if shared else ["--port", str(port)]
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    phone = subprocess.Popen([sys.executable, "-c", _SIGNAL_ELSEWHERE, *args], cwd=REPO_ROOT, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert phone.stdout is not None
        said = ""
        while "127.0.0.1:" not in said or not said.endswith("\n") or ("Press Ctrl+C" not in said and not shared) \
                or (shared and "--stop" not in said):
            line = phone.stdout.readline()
            assert line, f"it ended early, having said: {said}{phone.stderr.read() if phone.stderr else ''}"
            said += line
        phone.terminate()
        phone.communicate(timeout=15)
    finally:
        if phone.poll() is None:
            phone.kill()
            phone.communicate()
            pytest.fail("SIGTERM did not stop it within 15 s")
    assert phone.returncode == 0
