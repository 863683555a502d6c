"""The built-in phone's own process: one virtual phone on a fixed port, shared by every Agent Desk process of
this computer (the window, `agentdesk run`, `replay`, `serve`…), so a change one makes the others see.

Its users hold it: each keeps one connection open to it (`HOLD_REQUEST`) for as long as it uses the phone. The
operating system closes that connection when a user's process ends, however it ends, so a crashed user never
keeps the phone alive. When the last user has gone the phone waits `linger` seconds (a next command reuses it)
and then stops — unless the last user to leave asked it to stay (the setting adb.keep_virtual_phone), or it was
started to stay (`agentdesk virtual-phone --shared --keep`); `STOP_REQUEST` (`agentdesk virtual-phone --stop`)
stops it at once. The other side, which starts it or finds it, is `shared_phone.py`.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
from typing import Any

from app.virtual_phone.adb_connection import protocol_string
from app.virtual_phone.adb_server import VirtualAdbServer

log = logging.getLogger(__name__)

HOLD_REQUEST = "host:agentdesk-hold:"      # + JSON {"pid", "what", "keep"}: OKAY + the status, then held open
STATUS_REQUEST = "host:agentdesk-phone"    # OKAY + the status (JSON), or FAIL from any other ADB server
STOP_REQUEST = "host:agentdesk-stop"       # OKAY, then the phone stops
STOPPING = "agentdesk: the built-in phone is stopping"
KEEP, LET_GO = b"1", b"0"                  # what a holder may send later: its keep wish changed
START_GRACE_SECONDS = 30.0                 # before its first user holds it (the one that started it is slow?)
SERIAL = "emulator-5554"
# The main thread waits in slices so a SIGTERM the kernel hands to a server thread still runs its handler
# (a Python handler runs only when the main thread comes back to Python code).
SIGNAL_CHECK_SECONDS = 0.5


class PhoneUsers:
    """Who holds the phone now, and when it may stop. Thread-safe (each holder is served on its own thread)."""

    def __init__(self, linger: float, *, keep: bool = False, start_grace: float = START_GRACE_SECONDS) -> None:
        self.linger = max(0.0, linger)
        self.keep = keep                      # started to stay, whoever leaves
        self._start_grace = max(self.linger, start_grace)
        self._changed = threading.Condition()
        self._holders: dict[int, dict[str, Any]] = {}
        self._sockets: set[socket.socket] = set()
        self._last_wanted_kept = False        # the wish of the last holder to leave
        self._idle_since = time.monotonic()
        self._ever_held = False
        self._stopping = False
        self._next = 0

    def status(self) -> dict[str, Any]:
        with self._changed:
            return {"app": "agentdesk", "pid": os.getpid(), "users": len(self._holders),
                    "holders": [{"pid": h.get("pid"), "what": h.get("what", "")} for h in self._holders.values()],
                    "keep": self.keep or self._last_wanted_kept or any(h["keep"] for h in self._holders.values()),
                    "linger": self.linger}

    def serve_status(self, sock: socket.socket, request: str) -> None:
        sock.sendall(b"OKAY" + protocol_string(json.dumps(self.status())))

    def serve_stop(self, sock: socket.socket, request: str) -> None:
        sock.sendall(b"OKAY")
        self.stop()

    def serve_hold(self, sock: socket.socket, request: str) -> None:
        """Count the caller as a user until its connection closes (it ends, or its process does)."""
        try:
            wish = json.loads(request[len(HOLD_REQUEST):] or "{}")
            holder = {"pid": int(wish.get("pid", 0)), "what": str(wish.get("what", ""))[:200],
                      "keep": bool(wish.get("keep", False))}
        except (ValueError, TypeError, AttributeError):
            sock.sendall(b"FAIL" + protocol_string("agentdesk: a bad hold request"))
            return
        with self._changed:
            if self._stopping:     # decided already: the caller waits for the port to be free and starts anew
                sock.sendall(b"FAIL" + protocol_string(STOPPING))
                return
            key, self._next = self._next, self._next + 1
            self._holders[key] = holder
            self._sockets.add(sock)
            self._ever_held = True
            self._changed.notify_all()
        log.info("the built-in phone is held by process %s (%s)", holder["pid"], holder["what"])
        try:
            sock.sendall(b"OKAY" + protocol_string(json.dumps(self.status())))
            while True:
                said = sock.recv(64)
                if not said:
                    break
                if said.rstrip(KEEP + LET_GO) == b"":
                    with self._changed:
                        holder["keep"] = said[-1:] == KEEP
        except OSError:
            pass
        finally:
            with self._changed:
                self._holders.pop(key, None)
                self._sockets.discard(sock)
                self._last_wanted_kept = bool(holder["keep"])
                self._idle_since = time.monotonic()
                self._changed.notify_all()
            log.info("process %s let go of the built-in phone", holder["pid"])

    def stop(self) -> None:
        with self._changed:
            self._stopping = True
            self._changed.notify_all()

    def wait_until_unused(self) -> str:
        """Block until the phone should stop; then refuse new holders and say why ("stopped" or "unused")."""
        with self._changed:
            while True:
                if self._stopping:
                    return "stopped"
                if self._holders or self.keep or self._last_wanted_kept:
                    self._changed.wait(SIGNAL_CHECK_SECONDS)     # in slices: see SIGNAL_CHECK_SECONDS
                    continue
                wait = self.linger if self._ever_held else self._start_grace
                remaining = self._idle_since + wait - time.monotonic()
                if remaining <= 0:
                    self._stopping = True
                    return "unused"
                self._changed.wait(min(remaining, SIGNAL_CHECK_SECONDS))

    def let_everyone_go(self) -> None:
        """Close every holder's connection (the phone is stopping): each sees its phone go."""
        with self._changed:
            sockets = list(self._sockets)
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def shared_phone_server(port: int, users: PhoneUsers, **phone_options: Any) -> VirtualAdbServer:
    """The built-in phone's ADB server on loopback `port`, answering the hold, status and stop requests.
    Raises OSError when the port is taken (another process's phone won the race, or another program)."""
    server = VirtualAdbServer(port=port)
    server.host_services.update({HOLD_REQUEST: users.serve_hold, STATUS_REQUEST: users.serve_status,
                                 STOP_REQUEST: users.serve_stop})
    server.add_phone(serial=SERIAL, **phone_options)      # before it serves: a holder finds the phone there
    return server.start()


def serve_until_unused(server: VirtualAdbServer, users: PhoneUsers) -> str:
    """Serve until the phone is no longer used (or is stopped); then stop it. Returns why it stopped."""
    try:
        why = users.wait_until_unused()
    finally:
        users.stop()
        users.let_everyone_go()
        server.stop()
    return why
