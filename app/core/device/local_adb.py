"""This machine's ADB server: was it running before the app, start it calmly when it is not, and on
quit stop it only when the app itself started it.

`adb devices` starts a server when none runs; so does adbutils. A watcher that only reconnects
to a server nobody starts waits forever, and a phone plugged in never shows. Here starting is
tried at most once per `retry_seconds` (growing up to `MAX_RETRY_SECONDS`), so a machine with
no adb program gets a quiet retry, not a busy loop. Another machine's server is never started.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import threading
import time
from collections.abc import Callable

import adbutils

from .adb_transport import AdbTransport

log = logging.getLogger(__name__)

START_TIMEOUT = 20.0        # `adb start-server` may take seconds on a cold machine
FIRST_RETRY_SECONDS = 3.0
MAX_RETRY_SECONDS = 30.0
LOOPBACK = {"127.0.0.1", "localhost", "::1", "0.0.0.0"}


def answers(address: str, timeout: float = 0.3) -> bool:
    """Whether something listens at host:port (a quick connect, no request)."""
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            return True
    except (OSError, ValueError):
        return False


def _run_start_server(address: str) -> str:
    """`adb -P PORT start-server` with the adb program adbutils would use; "" or why it failed."""
    try:
        program = adbutils.adb_path()
    except Exception as exc:          # adbutils raises AdbError("No adb exe could be found…")
        return f"no adb program was found ({exc})"
    port = address.rpartition(":")[2]
    flags = getattr(subprocess, "CREATE_NO_WINDOW", 0) if os.name == "nt" else 0
    try:
        done = subprocess.run([program, "-P", port, "start-server"], capture_output=True, text=True,
                              timeout=START_TIMEOUT, creationflags=flags, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"`adb start-server` could not run: {exc}"
    if done.returncode != 0:
        said = (done.stderr or done.stdout or "").strip().splitlines()
        return f"`adb start-server` failed ({said[-1] if said else f'exit status {done.returncode}'})"
    return ""


class LocalAdbServer:
    """This machine's ADB server (ANDROID_ADB_SERVER_HOST/PORT, else 127.0.0.1:5037). Thread-safe."""

    def __init__(self, address: str | None = None, start: Callable[[str], str] = _run_start_server,
                 retry_seconds: float = FIRST_RETRY_SECONDS, kill: Callable[[str], None] | None = None):
        self.address = address or AdbTransport().address
        self._start = start
        self._kill = kill or _send_kill
        self.first_retry = retry_seconds
        self._delay = retry_seconds
        self._next_try = 0.0
        self._lock = threading.Lock()
        self.was_running: bool | None = None   # at the first look
        self.started_by_us = False
        self.last_problem = ""

    @property
    def startable(self) -> bool:
        """Only a server on this machine is ours to start."""
        return self.address.rpartition(":")[0].strip("[]") in LOOPBACK

    def look(self) -> bool:
        """Whether it answers now; the first look is remembered as "was it running before the app"."""
        running = answers(self.address)
        with self._lock:
            if self.was_running is None:
                self.was_running = running
        return running

    def ensure_running(self, *, now: bool = False) -> str:
        """Start it when it does not answer (blocking). "" when it answers, else why not. Between two
        failed starts it waits a few seconds (more each time, up to MAX_RETRY_SECONDS) unless `now`."""
        if self.look():
            self._delay = self.first_retry
            return ""
        if not self.startable:
            return f"the ADB server {self.address} is another machine's; it is not started from here"
        with self._lock:
            if not now and time.monotonic() < self._next_try:
                return self.last_problem or "waiting before trying to start the ADB server again"
            problem = self._start(self.address)
            if not problem and not answers(self.address, timeout=1.0):
                problem = "`adb start-server` ran but no server answers"
            if problem:
                self._next_try = time.monotonic() + self._delay
                self._delay = min(self._delay * 2, MAX_RETRY_SECONDS)
                if problem != self.last_problem:
                    log.info("cannot start the ADB server at %s: %s (trying again now and then)",
                             self.address, problem)
            else:
                self._delay = self.first_retry
                self.started_by_us = self.started_by_us or self.was_running is False
                log.info("started the ADB server at %s", self.address)
            self.last_problem = problem
            return problem

    def stop_if_ours(self) -> bool:
        """On quit: stop the server when this app started it (none ran before); True when it did."""
        with self._lock:
            ours = self.started_by_us and self.was_running is False
            self.started_by_us = False
        if not ours or not answers(self.address):
            return False
        try:
            self._kill(self.address)
        except OSError as exc:
            log.info("could not stop the ADB server at %s: %s", self.address, exc)
            return False
        log.info("stopped the ADB server the app had started at %s", self.address)
        return True


def _send_kill(address: str) -> None:
    """adb kill-server: the host request `host:kill` (the server answers OKAY and exits)."""
    host, _, port = address.rpartition(":")
    with socket.create_connection((host.strip("[]"), int(port)), timeout=3.0) as sock:
        sock.sendall(b"0009host:kill")
        try:
            sock.recv(4)
        except OSError:
            pass
