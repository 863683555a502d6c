"""The phone's own sockets: servers listening on it, and `adb reverse` rules leading back to the host.

On a real phone `adb forward tcp:9222 localabstract:chrome_devtools_remote` reaches a socket some
program on the phone listens on, and `adb reverse tcp:8081 tcp:8081` makes adbd listen on the
phone's port 8081 and carry each connection back to the host. The virtual phone cannot run other
people's device-side programs; the servers it provides itself register here (its browser's
DevTools endpoint, later the screen-mirroring server), and every device-side connection — the
`tcp:`/`localabstract:` ADB services, a forward, `nc` in the shell — goes through `connect()`.

Addresses are written as ADB writes them: `tcp:PORT`, `localabstract:NAME`, `localreserved:NAME`,
`localfilesystem:PATH`.
"""

from __future__ import annotations

import logging
import selectors
import socket
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

SocketServer = Callable[[socket.socket], None]
"""Serves one accepted connection (its end of a socket pair); runs on its own thread."""

SOCKET_KINDS = ("tcp", "localabstract", "localreserved", "localfilesystem")


def normalise_address(address: str) -> str:
    """`tcp:08080` → `tcp:8080`; raises ValueError with adb's wording for anything else."""
    kind, _, name = address.partition(":")
    if kind not in SOCKET_KINDS or not name:
        raise ValueError(f"unknown socket specification '{address}'")
    if kind == "tcp":
        if not name.isdigit() or not 0 <= int(name) <= 65535:
            raise ValueError(f"invalid port '{name}'" if name else f"unknown socket specification '{address}'")
        name = str(int(name))
    return f"{kind}:{name}"


class DeviceSockets:
    """The phone's socket namespace (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._servers: dict[str, SocketServer] = {}
        self._reverse: dict[str, str] = {}   # phone address -> host address, in creation order
        self._threads: set[threading.Thread] = set()

    # ------------------------------------------------------------------ servers on the phone

    def listen(self, address: str, server: SocketServer) -> None:
        with self._lock:
            self._servers[normalise_address(address)] = server

    def stop_listening(self, address: str) -> None:
        with self._lock:
            self._servers.pop(normalise_address(address), None)

    def listening(self) -> list[str]:
        with self._lock:
            return sorted(set(self._servers) | set(self._reverse))

    # ------------------------------------------------------------------ adb reverse

    def add_reverse(self, phone_address: str, host_address: str, rebind: bool = True) -> str | None:
        """Make connections to `phone_address` on the phone reach `host_address`; None or an error."""
        try:
            phone_address, host_address = normalise_address(phone_address), normalise_address(host_address)
        except ValueError as exc:
            return str(exc)
        if phone_address == "tcp:0":
            return "reverse with tcp:0 is not supported by the virtual phone; name a port"
        with self._lock:
            if phone_address in self._servers:
                return f"cannot bind listener: {phone_address} is in use on the device"
            if phone_address in self._reverse and not rebind:
                return "cannot rebind existing socket"
            self._reverse[phone_address] = host_address
        return None

    def remove_reverse(self, phone_address: str) -> bool:
        with self._lock:
            try:
                return self._reverse.pop(normalise_address(phone_address), None) is not None
            except ValueError:
                return False

    def remove_all_reverse(self) -> None:
        with self._lock:
            self._reverse.clear()

    def reverse_rules(self) -> list[tuple[str, str]]:
        with self._lock:
            return list(self._reverse.items())

    # ------------------------------------------------------------------ connecting

    def connect(self, address: str) -> socket.socket | None:
        """A connected socket to `address` on the phone, or None when nothing listens there."""
        address = normalise_address(address)
        with self._lock:
            server = self._servers.get(address)
            host_target = self._reverse.get(address)
        if server is not None:
            ours, theirs = socket.socketpair()
            thread = threading.Thread(target=self._serve, args=(server, theirs), daemon=True,
                                      name=f"virtual-phone-socket:{address}")
            with self._lock:
                self._threads.add(thread)
            thread.start()
            return ours
        if host_target is not None:
            return connect_on_host(host_target)
        return None

    def _serve(self, server: SocketServer, sock: socket.socket) -> None:
        try:
            server(sock)
        except OSError:
            pass  # the client went away
        except Exception:  # a bug in one of the phone's servers must not take the phone down
            log.exception("a server on the virtual phone failed")
        finally:
            sock.close()
            with self._lock:
                self._threads.discard(threading.current_thread())


def connect_on_host(address: str, timeout: float = 5.0) -> socket.socket | None:
    """Connect to `tcp:PORT` (loopback) or `localabstract:NAME` on the host; None when refused."""
    kind, _, name = address.partition(":")
    try:
        if kind == "tcp":
            return socket.create_connection(("127.0.0.1", int(name)), timeout=timeout)
        if kind in ("localabstract", "localreserved", "localfilesystem") and hasattr(socket, "AF_UNIX"):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(timeout)
            sock.connect("\0" + name if kind == "localabstract" else name)
            return sock
    except OSError:
        return None
    return None


def relay(a: socket.socket, b: socket.socket, stop: threading.Event | None = None) -> None:
    """Copy bytes both ways until either side closes (then half-close the other), or `stop` is set."""
    for sock in (a, b):
        sock.settimeout(None)
        sock.setblocking(False)
    peer = {a: b, b: a}
    open_ends = {a, b}
    with selectors.DefaultSelector() as selector:
        for sock in open_ends:
            selector.register(sock, selectors.EVENT_READ)
        while open_ends and not (stop and stop.is_set()):
            for key, _ in selector.select(timeout=0.2):
                source = key.fileobj
                assert isinstance(source, socket.socket)   # only the two sockets are registered
                try:
                    data = source.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    selector.unregister(source)
                    open_ends.discard(source)
                    try:
                        peer[source].shutdown(socket.SHUT_WR)
                    except OSError:
                        pass
                    continue
                try:
                    peer[source].setblocking(True)
                    peer[source].sendall(data)
                    peer[source].setblocking(False)
                except OSError:
                    return


def close_gently(sock: socket.socket) -> None:
    """Close politely: shut our side, drain what the client still sends, then close.

    Closing with unread input makes the kernel send a reset, which can destroy output the
    client has not read yet (or show it a reset instead of an end of stream)."""
    try:
        sock.shutdown(socket.SHUT_WR)
        sock.settimeout(1.0)
        while sock.recv(65536):
            pass
    except OSError:
        pass
    sock.close()
