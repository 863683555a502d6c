"""Phones on several ADB servers — this machine's and other machines' — listed together.

A lab shares phones the way it already does: each machine serves its own with
`adb -a nodaemon server`, or a device farm hands out remote ADB. We only talk to those
servers. Each phone's id is `SERIAL@HOST:PORT` (`PhoneId`), so two machines that each
have an `emulator-5554` give two phones. A server that goes away leaves its phones
listed as "offline" and disturbs no other server.

Other machines' servers are spoken to over a plain socket, not through adbutils: on a
refused connection adbutils runs `adb start-server` on *this* machine, which is wrong
for a remote address and costs seconds. Only this machine's server is asked through
`AdbTransport`, so `agentdesk devices` still starts a local adb as `adb devices` does.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from app.core.config import AdbSettings, parse_adb_servers

from .adb_transport import AdbTransport, DeviceListing, parse_devices_l
from .device_watch import DeviceWatcher
from .errors import AdbUnavailable, DeviceError, DeviceNotFound
from .local_adb import LocalAdbServer
from .phone_id import PhoneId, resolve_phone
from .phone_session import PhoneRegistry, PhoneSession
from .sync_send import recv_exact

log = logging.getLogger(__name__)

ENV_VARIABLE = "AGENTDESK_ADB_SERVERS"
ASK_TIMEOUT = 3.0          # seconds one server may take to answer; a dead one holds nobody longer
LOCAL_ASK_TIMEOUT = 10.0   # this machine's server may first have to be started (`adb start-server`)


def adb_servers(settings: AdbSettings | None = None, env: Mapping[str, str] = os.environ) -> list[str]:
    """Every ADB server to ask: this machine's first (ANDROID_ADB_SERVER_PORT or 5037), then the
    settings' `adb.servers`, then AGENTDESK_ADB_SERVERS; duplicates dropped. A bad
    AGENTDESK_ADB_SERVERS raises ValueError naming the variable."""
    servers = [AdbTransport().address]
    servers += settings.servers if settings is not None else []
    try:
        servers += parse_adb_servers(env.get(ENV_VARIABLE, ""))
    except ValueError as exc:
        raise ValueError(f"{ENV_VARIABLE}: {exc}") from None
    return list(dict.fromkeys(servers))


def split_address(address: str) -> tuple[str, int]:
    """"host:port" (or "[v6]:port") → (host, port)."""
    host, _, port = address.rpartition(":")
    return host.strip("[]"), int(port)


def transport_for(address: str) -> AdbTransport:
    host, port = split_address(address)
    return AdbTransport(host, port)


@dataclass(frozen=True)
class PhoneEntry:
    """One phone of one ADB server, as a list shows it."""

    id: PhoneId
    state: str             # adb's state ("device", "unauthorized", …), or "offline" when its server is unreachable
    model: str
    ready: bool
    virtual: bool = False
    problem: str = ""      # why it is not ready, in words a person can act on

    @property
    def serial(self) -> str:
        return self.id.serial

    @property
    def server(self) -> str:
        return self.id.server

    def to_dict(self) -> dict:
        return {"device_id": str(self.id), "serial": self.serial, "server": self.server, "state": self.state,
                "model": self.model, "ready": self.ready, "virtual": self.virtual}


def _entry(server: str, listing: DeviceListing, *, virtual: bool = False, unreachable: str = "") -> PhoneEntry:
    phone_id = PhoneId(server, listing.serial)
    if unreachable:
        return PhoneEntry(phone_id, "offline", listing.model, False, virtual,
                          f"offline — its ADB server {server} is unreachable ({unreachable})")
    return PhoneEntry(phone_id, listing.state, listing.model, listing.ready, virtual,
                      "" if listing.ready else listing.describe_state())


# ---------------------------------------------------------------------- the host protocol over a plain socket

def _connect(address: str, timeout: float) -> socket.socket:
    try:
        host, port = split_address(address)
        return socket.create_connection((host, port), timeout=timeout)
    except (OSError, ValueError) as exc:
        raise AdbUnavailable(f"Cannot reach the ADB server at {address}: {_reason(exc, timeout)}") from exc


def _reason(exc: Exception, timeout: float) -> str:
    if isinstance(exc, (socket.timeout, TimeoutError)):
        return f"no answer within {timeout:g} s"
    return (getattr(exc, "strerror", None) or str(exc) or type(exc).__name__).lower()


def _read_exactly(sock: socket.socket, size: int) -> bytes:
    return recv_exact(sock, size, "the server closed the connection")


def _read_block(sock: socket.socket) -> str:
    return _read_exactly(sock, int(_read_exactly(sock, 4), 16)).decode("utf-8", "replace")


def _request(sock: socket.socket, request: str) -> None:
    sock.sendall(f"{len(request):04x}{request}".encode())
    status = _read_exactly(sock, 4)
    if status != b"OKAY":
        why = _read_block(sock) if status == b"FAIL" else f"it answered {status!r}"
        raise AdbUnavailable(f"The ADB server refused {request}: {why}")


def _keep_alive(sock: socket.socket) -> None:
    """A machine switched off sends no goodbye: TCP keep-alive notices within ~25 s."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for option, value in (("TCP_KEEPIDLE", 10), ("TCP_KEEPINTVL", 5), ("TCP_KEEPCNT", 3)):
        if hasattr(socket, option):
            sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, option), value)


def _ask(address: str, timeout: float) -> list[DeviceListing]:
    """`adb devices -l` of one server (blocking). Raises DeviceError when it cannot be asked."""
    if address == AdbTransport().address:
        return transport_for(address).list_devices()
    with _connect(address, timeout) as sock:
        try:
            _request(sock, "host:devices-l")
            return parse_devices_l(_read_block(sock))
        except (OSError, EOFError, ValueError) as exc:
            raise AdbUnavailable(f"The ADB server at {address} did not answer: {_reason(exc, timeout)}") from exc


def ask_servers(servers: list[str], timeout: float = ASK_TIMEOUT) -> dict[str, list[DeviceListing] | str]:
    """Each server's devices, or why it could not be asked; all at once, in threads (blocking)."""
    answers: dict[str, list[DeviceListing] | str] = {}

    def ask(address: str) -> None:
        try:
            answers[address] = _ask(address, timeout)
        except DeviceError as exc:
            answers[address] = str(exc)

    local = AdbTransport().address
    threads = {address: threading.Thread(target=ask, args=(address,), name=f"adb-devices:{address}", daemon=True)
               for address in servers}
    started = time.monotonic()
    for thread in threads.values():
        thread.start()
    for address, thread in threads.items():
        limit = (LOCAL_ASK_TIMEOUT if address == local else timeout) + 0.5
        thread.join(max(0.0, started + limit - time.monotonic()))
    return {address: answers.get(address, f"The ADB server at {address} gave no answer within {timeout:g} s")
            for address in servers}


def list_phones(servers: list[str], timeout: float = ASK_TIMEOUT) -> tuple[list[PhoneEntry], dict[str, str]]:
    """The phones of every server, and for each server that could not be asked, why (blocking)."""
    phones: list[PhoneEntry] = []
    unreachable: dict[str, str] = {}
    for address, answer in ask_servers(servers, timeout).items():
        if isinstance(answer, str):
            unreachable[address] = answer
        else:
            phones += [_entry(address, listing) for listing in answer]
    return phones, unreachable


# ---------------------------------------------------------------------- watching

class ServerWatcher(DeviceWatcher):
    """A DeviceWatcher that also says whether its server answers (`problem`: "" when it does), and
    whose stop() ends its thread at once (it closes the track-devices socket). It never starts an
    adb server, so it can watch another machine's."""

    def __init__(self, transport: AdbTransport, on_change, retry_seconds: float = 3.0, starter=None):
        super().__init__(transport, on_change, retry_seconds)
        self.problem = ""
        self.starter = starter      # a LocalAdbServer: this machine's server, started (calmly) when none runs
        self._track = "host:track-devices-l"
        self._retry_now = False
        self._heard = False
        self._socket: socket.socket | None = None
        self._socket_lock = threading.Lock()

    def stop(self) -> None:
        super().stop()
        with self._socket_lock:
            sock = self._socket
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def _report(self, devices: list[DeviceListing], problem: str) -> None:
        loop = self._loop
        if self._stop.is_set() or loop is None or loop.is_closed():
            return

        def deliver() -> None:
            if not self._stop.is_set() and (devices, problem, True) != (self.devices, self.problem, self._heard):
                self.devices, self.problem, self._heard = devices, problem, True   # the first list always
                self.on_change(devices)
        try:
            loop.call_soon_threadsafe(deliver)
        except RuntimeError:      # the loop closed meanwhile
            pass

    def _watch(self) -> None:
        said = ""
        while not self._stop.is_set():
            problem = self._follow()
            if self._stop.is_set():
                return
            if self._retry_now:              # it only wanted the short list: ask again at once
                self._retry_now = False
                continue
            if problem.startswith("Cannot reach") and self.starter is not None:
                why = self.starter.ensure_running()      # calm: at most one try per few seconds
                if not why:
                    continue                 # started (or came back) just now: follow it at once
                problem = f"{problem}; and it could not be started: {why}"
            if problem != said:              # once per change, not once per retry
                log.info("ADB server %s: %s", self.transport.address, problem)
                said = problem
            self._report([], problem)
            self._stop.wait(self.retry_seconds)

    def _follow(self) -> str:
        """Report the device list each time it changes; return why it stopped."""
        address = self.transport.address
        try:
            sock = _connect(address, ASK_TIMEOUT)
        except DeviceError as exc:
            return str(exc)
        with self._socket_lock:
            if self._stop.is_set():
                sock.close()
                return "stopped"
            self._socket = sock
        try:
            sock.settimeout(None)
            _keep_alive(sock)
            try:
                _request(sock, self._track)
            except AdbUnavailable as exc:    # an adb older than track-devices-l: the short list will do
                if self._track.endswith("-l") and "unknown" in str(exc).lower():
                    self._track, self._retry_now = "host:track-devices", True
                raise
            while not self._stop.is_set():
                self._report(parse_devices_l(_read_block(sock)), "")
            return "stopped"
        except (OSError, EOFError, ValueError) as exc:
            return f"The ADB server at {address} went away: {_reason(exc, ASK_TIMEOUT)}"
        except DeviceError as exc:
            return str(exc)
        finally:
            with self._socket_lock:
                self._socket = None
            sock.close()


@dataclass
class _Server:
    address: str
    virtual: bool = False
    listings: list[DeviceListing] = field(default_factory=list)   # the last list it gave
    problem: str = ""                                              # why it is unreachable ("" = it answers)
    watcher: ServerWatcher | None = None
    listed: bool = False                                           # it has sent a list at least once
    quiet: bool = False     # a server that is often not there (the built-in phone's): away, it simply has no phones

    def entries(self) -> list[PhoneEntry]:
        return [_entry(self.address, listing, virtual=self.virtual, unreachable=self.problem)
                for listing in self.listings]


def _note_answer(server: _Server, answer: list[DeviceListing] | str) -> None:
    """A server's device list, or why it did not answer (then its phones stay listed, as offline; a quiet
    server's are gone)."""
    if isinstance(answer, str) and server.quiet:
        server.problem, server.listings = "", []
    elif isinstance(answer, str):
        server.problem = answer
    else:
        server.problem, server.listings, server.listed = "", answer, True


@dataclass(frozen=True)
class ServerList:
    """What one server said last, as a face shows it: its phones, why it is away ("" = it answers)."""

    address: str
    listings: tuple[DeviceListing, ...]
    problem: str
    virtual: bool
    listed: bool       # it has sent a list of phones at least once (a phone missing before then is not gone)
    heard: bool        # it has answered, or failed to, at least once


class PhoneDirectory:
    """Every phone of every ADB server, kept current by one watcher (one `track-devices`) per server. Lives on
    the loop. Built by the Desk only: the window, the API and the CLI share it. `local`: this machine's server,
    started (calmly) when none runs while it is watched."""

    def __init__(self, registry: PhoneRegistry, servers: list[str], local: LocalAdbServer | None = None) -> None:
        self.registry = registry
        self.local = local
        self._servers: dict[str, _Server] = {address: _Server(address) for address in servers}
        self._callbacks: list[Callable[[list[PhoneEntry]], None]] = []
        self._started = False

    @property
    def servers(self) -> list[str]:
        return list(self._servers)

    def start(self) -> None:
        """Watch every server (call on the loop)."""
        self._started = True
        for server in self._servers.values():
            self._watch(server)

    def close(self) -> list[ServerWatcher]:
        """Stop watching (the watchers' threads end at once; returned, not waited for)."""
        self._started = False
        stopped = [s.watcher for s in self._servers.values() if s.watcher is not None]
        for server in self._servers.values():
            server.watcher = None
        for watcher in stopped:
            watcher.stop()
        return stopped

    async def stop(self) -> None:
        """Stop watching and wait for the watchers' threads to end."""
        stopped = self.close()

        def join_all() -> None:
            for watcher in stopped:
                watcher.join(ASK_TIMEOUT + 1)
        await asyncio.to_thread(join_all)

    def add_server(self, address: str, *, virtual: bool = False, quiet: bool = False) -> None:
        """One more server to list (the built-in virtual phone's). `quiet`: one that is often not there (the
        built-in phone's, while no process runs it): when it does not answer, it has no phones and no problem."""
        address = parse_adb_servers([address])[0]
        server = self._servers.setdefault(address, _Server(address, quiet=quiet))
        server.virtual = server.virtual or virtual
        if self._started:
            self._watch(server)

    def _watch(self, server: _Server) -> None:
        if server.watcher is None:
            transport = transport_for(server.address)
            starter = self.local if self.local is not None and transport.address == self.local.address else None
            server.watcher = ServerWatcher(transport, lambda devices, s=server: self._on_devices(s, devices),
                                           starter=starter)
            server.watcher.start()

    @property
    def watching(self) -> bool:
        return self._started

    def _on_devices(self, server: _Server, devices: list[DeviceListing]) -> None:
        problem = server.watcher.problem if server.watcher is not None else ""
        _note_answer(server, problem or devices)
        self._changed()

    def _changed(self) -> None:
        entries = self.entries()
        for callback in list(self._callbacks):
            callback(entries)

    def on_change(self, callback: Callable[[list[PhoneEntry]], None]) -> None:
        """Call `callback(entries)` on the loop each time a phone or a server changes."""
        self._callbacks.append(callback)

    def entries(self) -> list[PhoneEntry]:
        return [entry for server in self._servers.values() for entry in server.entries()]

    def server_lists(self) -> list[ServerList]:
        """What each server said last (call on the loop; the result may be handed to another thread)."""
        return [ServerList(s.address, tuple(s.listings), s.problem, s.virtual, s.listed, s.listed or bool(s.problem))
                for s in self._servers.values()]

    def unreachable(self) -> dict[str, str]:
        """Each server that does not answer now, and why."""
        return {s.address: s.problem for s in self._servers.values() if s.problem}

    async def refresh(self) -> list[PhoneEntry]:
        """Ask every server now (for a caller that cannot wait for the watchers)."""
        answers = await asyncio.to_thread(ask_servers, self.servers)
        for address, answer in answers.items():
            if address in self._servers:
                _note_answer(self._servers[address], answer)
        self._changed()
        return self.entries()

    def session(self, name: str | PhoneId | None = None) -> PhoneSession:
        """The session of the phone `name` names (a full id, or a serial only one phone has);
        None: the first ready phone. An offline phone is refused, saying why."""
        entries = self.entries()
        if name is None or name == "":
            entry = next((e for e in entries if e.ready), None)
            if entry is None:
                listed = "; ".join(f"{e.id}: {e.problem or e.state}" for e in entries) or "none attached"
                raise DeviceNotFound(f"No phone is ready ({listed}).")
        else:
            phone_id = resolve_phone(name, [e.id for e in entries])
            entry = next(e for e in entries if e.id == phone_id)
        server = self._servers[entry.server]
        if server.problem:
            raise DeviceNotFound(f"Phone {entry.id} is offline: its ADB server {entry.server} is unreachable "
                                 f"({server.problem}).")
        listing = next(item for item in server.listings if item.serial == entry.serial)
        return self.registry.open(transport_for(entry.server), listing, virtual=entry.virtual)
