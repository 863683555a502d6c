"""One built-in phone per computer: find the running one, or start it as its own process, and hold it.

The built-in virtual phone lives in a process of its own (`shared_phone_server.py`) on a fixed loopback port,
`SHARED_PORT` (5038, beside ADB's 5037; `AGENTDESK_VIRTUAL_PORT` moves it, and 0 there gives each process a
private phone of its own, as the tests do). Every face — the window, `agentdesk run`, `replay`, `serve` —
holds it through a `SharedPhone` while it uses it and lists it through the same ADB server list as any phone,
so a run from the command line shows in the window's mirror. Starting is raced safely: the port is the lock
(a second phone process cannot bind it and ends; its starter then holds the winner's phone).
"""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from app.core.device.errors import DeviceError
from app.core.device.sync_send import recv_exact

from .port_holder import describe_holder
from .shared_phone_server import HOLD_REQUEST, KEEP, LET_GO, STOP_REQUEST, STOPPING

log = logging.getLogger(__name__)

SHARED_PORT = 5038
PORT_VARIABLE = "AGENTDESK_VIRTUAL_PORT"
LINGER_VARIABLE = "AGENTDESK_VIRTUAL_LINGER"
LINGER_SECONDS = 10.0        # how long the phone stays after its last user (so the next command finds it)
START_TIMEOUT = 60.0         # a cold start imports Python, Pillow and the phone: seconds on a slow machine
POLL_SECONDS = 0.05
ANSWER_TIMEOUT = 15.0        # the phone answers a hold at once; a loaded machine may take seconds
HOST = "127.0.0.1"
SPAWNED: list[subprocess.Popen] = []     # the phone processes this process started (each reaped once it ends)


class PortTaken(DeviceError):
    """Something other than Agent Desk's phone answers on the built-in phone's port."""


def shared_port(env: Mapping[str, str] = os.environ) -> int:
    """The built-in phone's port: AGENTDESK_VIRTUAL_PORT, else SHARED_PORT; 0 = a private phone per process.
    Raises ValueError naming the variable when it is not a port."""
    value = env.get(PORT_VARIABLE, "").strip()
    if not value:
        return SHARED_PORT
    try:
        port = int(value)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise ValueError(f"{PORT_VARIABLE}={value!r} is not a TCP port (0 to 65535; 0: a private phone)")
    return port


def linger_seconds(env: Mapping[str, str] = os.environ) -> float:
    try:
        return max(0.0, float(env.get(LINGER_VARIABLE, "") or LINGER_SECONDS))
    except ValueError:
        return LINGER_SECONDS


class SharedPhone:
    """This process's hold on the built-in phone: while it is open, the phone stays. `stop()` lets go (the
    phone itself stops some seconds after its last user, unless it is kept)."""

    def __init__(self, port: int, sock: socket.socket, status: dict[str, Any],
                 process: subprocess.Popen | None = None) -> None:
        self.host = HOST
        self.port = port
        self.pid = int(status.get("pid", 0))
        self.process = process          # the phone's process when this one started it (else another did)
        self._sock: socket.socket | None = sock

    @property
    def started_here(self) -> bool:
        return self.process is not None

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def held(self) -> bool:
        return self._sock is not None

    def keep(self, keep: bool) -> None:
        """Tell the phone whether to stay after its last user goes (the setting changed)."""
        sock = self._sock
        if sock is not None:
            try:
                sock.sendall(KEEP if keep else LET_GO)
            except OSError as exc:
                log.info("the built-in phone did not hear the keep setting: %s", exc)

    def stop(self) -> None:
        """Let go of the phone (blocking only briefly)."""
        sock, self._sock = self._sock, None
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()


class _Stopping(Exception):
    """The phone there is stopping: wait until its port is free."""


def _try_hold(port: int, *, keep: bool, what: str) -> SharedPhone | None:
    """Hold the phone on `port`; None when nothing listens there. Raises PortTaken, _Stopping."""
    try:
        sock = socket.create_connection((HOST, port), timeout=2.0)
    except OSError:
        return None
    sock.settimeout(ANSWER_TIMEOUT)
    try:
        request = HOLD_REQUEST + json.dumps({"pid": os.getpid(), "what": what, "keep": keep})
        sock.sendall(f"{len(request):04x}{request}".encode())
        status = recv_exact(sock, 4)
        text = ""
        if status in (b"OKAY", b"FAIL"):
            text = recv_exact(sock, int(recv_exact(sock, 4), 16)).decode("utf-8", "replace")
        if status == b"FAIL" and text == STOPPING:
            raise _Stopping
        answer = json.loads(text) if status == b"OKAY" else None
        if not isinstance(answer, dict) or answer.get("app") != "agentdesk":
            raise ValueError("not Agent Desk's phone")
    except (OSError, EOFError, ValueError) as exc:
        sock.close()
        if isinstance(exc, ConnectionRefusedError):
            return None
        raise PortTaken(f"Port {port}, the built-in phone's, is held by {describe_holder(port)}. Set "
                        f"{PORT_VARIABLE} to a free port for it.") from None
    except _Stopping:
        sock.close()
        raise
    sock.settimeout(None)
    return SharedPhone(port, sock, answer)


def phone_command(port: int, linger: float) -> list[str]:
    """How to start the built-in phone's process: `agentdesk virtual-phone --shared` (the bundle's own
    executable, or this Python with app.cli)."""
    base = [sys.executable] if getattr(sys, "frozen", False) else [sys.executable, "-m", "app.cli"]
    return base + ["virtual-phone", "--shared", "--port", str(port), "--linger", f"{linger:g}"]


def _spawn(port: int, linger: float, errors: IO[bytes]) -> subprocess.Popen:
    env = dict(os.environ)
    if not getattr(sys, "frozen", False):        # app.cli from wherever this app is (a checkout too)
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join([root] + [p for p in [env.get("PYTHONPATH", "")] if p])
    options: dict[str, Any] = {}
    if sys.platform == "win32":
        options["creationflags"] = (subprocess.CREATE_NEW_PROCESS_GROUP | subprocess.CREATE_NO_WINDOW
                                    | subprocess.DETACHED_PROCESS)
    else:
        options["start_new_session"] = True      # a Ctrl+C in this terminal is not the phone's
    log.info("starting the built-in phone on port %s", port)
    SPAWNED[:] = [process for process in SPAWNED if process.poll() is None]     # (reaps those that ended)
    process = subprocess.Popen(phone_command(port, linger), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=errors, env=env, cwd=tempfile.gettempdir(), close_fds=True, **options)
    SPAWNED.append(process)
    return process


def _last_words(errors: IO[bytes]) -> str:
    errors.seek(0)
    lines = [line for line in errors.read()[-4000:].decode("utf-8", "replace").splitlines() if line.strip()]
    return lines[-1].strip() if lines else "it said nothing"


def hold_shared_phone(port: int, *, keep: bool = False, what: str = "", linger: float | None = None,
                      timeout: float = START_TIMEOUT) -> SharedPhone:
    """Hold the built-in phone on `port`: the running one, else one started here as its own process
    (blocking: up to seconds on a cold start). Raises PortTaken, or DeviceError when it cannot start."""
    linger = linger_seconds() if linger is None else linger
    deadline = time.monotonic() + timeout
    process: subprocess.Popen | None = None
    with tempfile.TemporaryFile() as errors:
        while True:
            try:
                phone = _try_hold(port, keep=keep, what=what)
            except _Stopping:            # the phone there is going: once its port is free, start one
                phone = None
            else:
                if phone is None and (process is None or process.poll() is not None):
                    if process is not None and process.returncode != 0:
                        raise DeviceError(f"The built-in phone did not start on port {port}: "
                                          f"{_last_words(errors)}")
                    process = _spawn(port, linger, errors)
            if phone is not None:
                phone.process = process if process is not None and process.poll() is None else None
                if process is not None and phone.process is None:
                    _reap(process)       # another process's phone won the race: this one ended
                return phone
            if time.monotonic() > deadline:
                if process is not None and process.poll() is None:
                    process.kill()
                    process.wait()
                raise DeviceError(f"The built-in phone on port {port} did not answer within {timeout:g} s.")
            time.sleep(POLL_SECONDS)


def _reap(process: subprocess.Popen) -> None:
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


def stop_shared_phone(port: int) -> bool:
    """Stop the built-in phone on `port` at once (its users see it go); False when none runs there."""
    try:
        with socket.create_connection((HOST, port), timeout=2.0) as sock:
            sock.sendall(f"{len(STOP_REQUEST):04x}{STOP_REQUEST}".encode())
            return recv_exact(sock, 4) == b"OKAY"
    except (OSError, EOFError):
        return False
