"""The screen's UI tree from uiautomator2's server, which stays on the phone between dumps.

`uiautomator dump` starts a Java process and a fresh UiAutomation for every dump (0.8–2.5 s on a phone,
and "could not get idle state" on a screen that never stops moving). uiautomator2's `u2.jar` (shipped in
the `uiautomator2` package, MIT, pinned here by SHA-256) keeps one running: started with `app_process`
(no APK install) and reached through ADB's `tcp:9008` device service, it answers JSON-RPC
`dumpWindowHierarchy` in the time the dump itself takes.

That server listens on every network interface of the phone with no token and offers shell, clipboard,
screenshots and input to any app on the phone and any machine on its Wi-Fi. So `TreeServer`:
- runs it only while dumps are wanted: started by the first dump, stopped `idle_seconds` (30) after the
  last one, and at close (the session's, at quit);
- is on by default only for the virtual phone and emulators (`adb.tree_server = "auto"`); a real phone
  needs the person's "on" (Settings › Connections, with the warning above);
- never stops a server this desk did not start (one already answering: it is used as it is);
- stops its own before `uiautomator dump` is used instead (only one UI-automation client at a time).

The client is our own (~100 lines) rather than uiautomator2's, for reasons measured on the virtual phone
running the real client: its HTTP timeout never reaches the socket (`AdbHTTPConnection.connect` opens it
through adbutils with none), so a dump on a never-idle screen hung a test for 120 s; its `jsonrpc_call`
answers an error by stopping the server (polling up to 10 s) and starting it again (waiting up to 30 s);
and it registers `atexit` hooks and blocks a thread per call. Here every call has a hard cap (the
socket is closed at the deadline), reads at most the dump-size limit, and runs on the caller's loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import importlib.util
import json
import logging
import os
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from app.core.config import Settings

from .adb_transport import AdbTransport, read_to_end
from .errors import DeviceError

log = logging.getLogger(__name__)

U2_JAR_SHA256 = "87c8ac9505970d42aa5922baa90114808fda6f47f9e5fbd4caa0f621c2c8d30d"
"""uiautomator2 3.7.1's assets/u2.jar (server 0.4.1): the only jar this desk starts on a phone."""
PHONE_JAR = "/data/local/tmp/u2.jar"
SERVER_PORT = 9008
LAUNCH_COMMAND = f"CLASSPATH={PHONE_JAR} app_process / com.wetest.uia2.Main -p {SERVER_PORT}"
WAIT_FOR_IDLE_MS = 500
"""The server's wait for a quiet screen before a dump; a screen that never settles is dumped after it."""
SETTLED_WAIT_FOR_IDLE_MS = 0
"""The wait when the desk has just seen the screen stand still in its frames (the wait after an action): the
phone's own idle test (500 ms without accessibility events) would only add its quiet time again."""
START_SECONDS = 8.0
EXPOSURE_WARNING = ("While it runs, uiautomator2's server listens on every network interface of the phone "
                    "with no password: any app on the phone and any machine on its Wi-Fi can use it to read "
                    "the screen, type, tap, and run shell commands.")
HELD_ELSEWHERE = ("another tool (Appium, uiautomator2, a test runner) holds the phone's UI automation; "
                  "close it to let Agent Desk read the screen's controls")
TreeServerMode = Literal["auto", "on", "off"]
MODE_VARIABLE = "AGENTDESK_TREE_SERVER"


class TreeServerUnavailable(DeviceError):
    """The server could not be started or did not answer: the dump goes the `uiautomator dump` way."""


@dataclass(frozen=True)
class TreeServerPolicy:
    """`adb.tree_server` and the caps of one dump (settings `limits.dump_seconds`)."""

    mode: TreeServerMode = "auto"
    dump_seconds: float = 2.0
    idle_seconds: float = 30.0
    environment_decides: bool = True       # AGENTDESK_TREE_SERVER overrides `mode` (not for a bench's own rows)


def tree_server_policy(settings: Settings) -> TreeServerPolicy:
    """The policy the settings give (`adb.tree_server`, `limits.dump_seconds`)."""
    return TreeServerPolicy(settings.adb.tree_server, settings.limits.dump_seconds)


def packaged_jar() -> bytes:
    """The u2.jar the installed uiautomator2 package ships (found without importing the package: its client
    pulls in requests and more), or the bundle's copy; checked against the pin."""
    candidates = []
    with contextlib.suppress(ImportError, ValueError):
        spec = importlib.util.find_spec("uiautomator2")
        if spec is not None and spec.submodule_search_locations:
            candidates += [Path(folder) / "assets" / "u2.jar" for folder in spec.submodule_search_locations]
    if getattr(sys, "frozen", False):
        candidates.append(Path(getattr(sys, "_MEIPASS", "")) / "uiautomator2" / "assets" / "u2.jar")
    jar = next((path for path in candidates if path.is_file()), None)
    if jar is None:
        raise TreeServerUnavailable("uiautomator2's server (u2.jar) is not installed with the app")
    data = jar.read_bytes()
    if hashlib.sha256(data).hexdigest() != U2_JAR_SHA256:
        raise TreeServerUnavailable("the installed uiautomator2 package carries another u2.jar than the one this "
                                    "version of Agent Desk was checked with (its SHA-256 differs); not started")
    return data


class TreeServer:
    """uiautomator2's server on one phone, started and stopped by this desk (see the module's text)."""

    def __init__(self, transport: AdbTransport, serial: str) -> None:
        self.transport = transport
        self.serial = serial
        self.policy = TreeServerPolicy()
        self._shell: socket.socket | None = None     # the connection app_process runs under: ours to close
        self._foreign = False                        # a server we found running: used, never stopped
        self._lock = asyncio.Lock()
        self._idle_stop: asyncio.TimerHandle | None = None
        self._emulated: bool | None = None
        self._start_output = ""                      # what app_process printed so far
        self._idle_wait_ms: int | None = None        # the server's waitForIdleTimeout as this desk last set it

    @property
    def running_ours(self) -> bool:
        return self._shell is not None

    async def wanted(self, ask_phone) -> bool:
        """Whether this phone's dumps go through the server: `on`, or `auto` on an emulator / the virtual phone.
        `AGENTDESK_TREE_SERVER` (auto, on, off) overrides the setting for this process."""
        forced = os.environ.get(MODE_VARIABLE, "").strip().lower() if self.policy.environment_decides else ""
        mode = forced or self.policy.mode
        if mode != "auto":
            return mode == "on"
        if self._emulated is None:
            output = await ask_phone("getprop ro.hardware; getprop ro.kernel.qemu; getprop ro.boot.qemu")
            hardware, qemu, boot_qemu = ([line.strip() for line in output.splitlines()] + ["", "", ""])[:3]
            from .phone_lock import EMULATED_HARDWARE

            self._emulated = hardware in EMULATED_HARDWARE or "1" in (qemu, boot_qemu)
        return self._emulated

    async def dump(self, max_bytes: int, idle_wait_ms: int = WAIT_FOR_IDLE_MS) -> str:
        """The screen's XML, within `policy.dump_seconds` (TreeServerUnavailable otherwise); the server waits
        at most `idle_wait_ms` for the screen to be idle first (Configurator's waitForIdleTimeout, set only
        when it changes)."""
        async with self._lock:
            self._cancel_idle_stop()
            try:
                await self._ensure_started()
                if self._shell is not None and idle_wait_ms != self._idle_wait_ms:    # a foreign one keeps its own
                    await self._call("setConfigurator", [{"waitForIdleTimeout": idle_wait_ms}], 2.0, 65536)
                    self._idle_wait_ms = idle_wait_ms
                xml = await self._call("dumpWindowHierarchy", [False, 50], self.policy.dump_seconds, max_bytes)
            finally:
                self._arm_idle_stop()
        if not isinstance(xml, str) or "<hierarchy" not in xml:
            raise TreeServerUnavailable("uiautomator2's server answered the dump with something that is no UI tree")
        return xml

    async def stop(self) -> None:
        """Stop the server if this desk started it (closing the shell it runs under ends app_process)."""
        self._cancel_idle_stop()
        shell, self._shell = self._shell, None
        self._foreign = False
        self._idle_wait_ms = None
        if shell is not None:
            log.info("Stopping uiautomator2's server on %s", self.serial)
            await asyncio.to_thread(_close, shell)

    # ------------------------------------------------------------------ start

    async def _ensure_started(self) -> None:
        if self._shell is not None or self._foreign:
            if await self._ping():
                return
            await self.stop()
        if await self._ping():                 # someone else's server: use it, never stop it
            self._foreign = True
            log.info("uiautomator2's server already runs on %s (not started by Agent Desk): using it", self.serial)
            return
        jar = packaged_jar()
        await self._push_if_changed(jar)
        try:
            self._shell = await asyncio.to_thread(self.transport.open_service, self.serial, "shell:" + LAUNCH_COMMAND,
                                                  None)
        except (DeviceError, OSError) as exc:
            raise TreeServerUnavailable(f"app_process did not start uiautomator2's server ({exc})") from exc
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if await self._ping():
                self._idle_wait_ms = None          # a new server: its configurator is the default (10 s)
                log.info("uiautomator2's server runs on %s", self.serial)
                return
            more, ended = await asyncio.to_thread(_read_available, self._shell)
            output = self._start_output = (self._start_output + more)[-4096:]
            if ended:                          # app_process ended: it says why
                await self.stop()
                raise TreeServerUnavailable(HELD_ELSEWHERE if "already registered" in output else
                                            "uiautomator2's server ended at start: "
                                            + (output.strip().splitlines() or ["it printed nothing"])[-1][:200])
            await asyncio.sleep(0.1)
        await self.stop()
        raise TreeServerUnavailable(f"uiautomator2's server did not answer within {START_SECONDS:g} s of its start")

    async def _push_if_changed(self, jar: bytes) -> None:
        digest = hashlib.md5(jar).hexdigest()  # noqa: S324 - the phone's md5sum compares copies, as uiautomator2 does
        output = await asyncio.to_thread(self.transport.run, self.serial, f"shell:md5sum {PHONE_JAR} 2>/dev/null",
                                         10.0, max_bytes=4096)
        if digest not in output.decode("utf-8", "replace"):
            await asyncio.to_thread(self.transport.push, self.serial, jar, PHONE_JAR)

    # ------------------------------------------------------------------ requests

    async def _ping(self) -> bool:
        try:
            status, body = await self._request("GET", "/ping", b"", 1.0, 1024)
        except TreeServerUnavailable:
            return False
        return status == 200 and body.strip() == b"pong"

    async def _call(self, method: str, params: list[Any], seconds: float, max_bytes: int) -> Any:
        payload = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
        status, body = await self._request("POST", "/jsonrpc/0", payload, seconds, max_bytes)
        try:
            answer = json.loads(body)
        except ValueError:
            answer = None
        if status != 200 or not isinstance(answer, dict):
            raise TreeServerUnavailable(f"uiautomator2's server answered {method} with HTTP {status} and no JSON-RPC")
        if "error" in answer:
            error = answer["error"] if isinstance(answer["error"], dict) else {}
            message = str(error.get("message", ""))[:200]
            if "UiAutomation not connected" in json.dumps(answer):
                raise TreeServerUnavailable(HELD_ELSEWHERE)
            raise TreeServerUnavailable(f"uiautomator2's server could not {method}: {message or 'an error'}")
        return answer.get("result")

    async def _request(self, method: str, path: str, body: bytes, seconds: float, max_bytes: int
                       ) -> tuple[int, bytes]:
        """One HTTP request through `tcp:9008`, its connection closed at the deadline whatever the phone does."""
        head = (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{SERVER_PORT}\r\nUser-Agent: agentdesk\r\n"
                f"Accept-Encoding: identity\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                "Connection: close\r\n\r\n").encode()
        holder: list[socket.socket] = []

        def exchange() -> bytes:
            sock = self.transport.open_service(self.serial, f"tcp:{SERVER_PORT}", seconds)
            holder.append(sock)
            try:
                sock.sendall(head + body)
                return read_to_end(sock, max_bytes + 65536, time.monotonic() + seconds)
            finally:
                _close(sock)

        try:
            raw = await asyncio.wait_for(asyncio.to_thread(exchange), seconds)
        except TimeoutError as exc:
            for sock in holder:
                _close(sock)
            raise TreeServerUnavailable(f"uiautomator2's server did not answer within {seconds:g} s") from exc
        except (DeviceError, OSError, EOFError) as exc:
            raise TreeServerUnavailable(f"uiautomator2's server could not be reached ({exc})") from exc
        if len(raw) > max_bytes + 65535:
            raise TreeServerUnavailable(f"uiautomator2's server answered with more than {max_bytes:,} bytes")
        return parse_http_response(raw)

    # ------------------------------------------------------------------ idle stop

    def _arm_idle_stop(self) -> None:
        self._cancel_idle_stop()
        if self._shell is not None:
            loop = asyncio.get_running_loop()
            self._idle_stop = loop.call_later(self.policy.idle_seconds,
                                              lambda: asyncio.ensure_future(self._stop_if_idle()))

    def _cancel_idle_stop(self) -> None:
        if self._idle_stop is not None:
            self._idle_stop.cancel()
            self._idle_stop = None

    async def _stop_if_idle(self) -> None:
        if not self._lock.locked():
            await self.stop()


def parse_http_response(raw: bytes) -> tuple[int, bytes]:
    """Status and body of one HTTP/1.1 answer read to its end (fixed length or chunked)."""
    head, separator, body = raw.partition(b"\r\n\r\n")
    if not separator:
        raise TreeServerUnavailable("uiautomator2's server answered with no complete HTTP response")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        raise TreeServerUnavailable("uiautomator2's server answered with something that is not HTTP")
    headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = _unchunk(body)
    elif (length := headers.get("content-length", "")).isdigit():
        body = body[:int(length)]
    if "gzip" in headers.get("content-encoding", "").lower():
        raise TreeServerUnavailable("uiautomator2's server compressed its answer unasked")
    return int(parts[1]), body


def _unchunk(body: bytes) -> bytes:
    out = bytearray()
    while body:
        size_line, _, rest = body.partition(b"\r\n")
        try:
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
        except ValueError as exc:
            raise TreeServerUnavailable("uiautomator2's server sent a broken chunked answer") from exc
        if size == 0:
            break
        out += rest[:size]
        body = rest[size + 2:]
    return bytes(out)


def _read_available(sock: socket.socket) -> tuple[str, bool]:
    """What app_process printed since the last look (at most 64 KiB), and whether it has ended."""
    sock.setblocking(False)
    chunks: list[bytes] = []
    ended = False
    try:
        while sum(len(chunk) for chunk in chunks) < 65536:
            chunk = sock.recv(65536)
            if not chunk:
                ended = True
                break
            chunks.append(chunk)
    except (BlockingIOError, InterruptedError):
        pass
    except OSError:
        ended = True
    finally:
        with contextlib.suppress(OSError):
            sock.setblocking(True)
    return b"".join(chunks).decode("utf-8", "replace"), ended


def _close(sock: socket.socket) -> None:
    try:
        sock.close()
    except OSError:
        pass
