"""`adb forward`: listeners on the host whose connections the ADB server carries to a phone's socket.

Host requests handled here, as adb's server answers them (OKAY, then OKAY or FAIL for the
outcome, then the port when `tcp:0` asked for one):
`forward:[norebind:]LOCAL;REMOTE`, `killforward:LOCAL`, `killforward-all`, `list-forward`.
A forward dies with its phone's transport (unplugged or disconnected), as on a real server.
"""

from __future__ import annotations

import logging
import socket
import threading
from dataclasses import dataclass, field

from .attached_device import AttachedDevice
from .device_sockets import close_gently, normalise_address, relay

log = logging.getLogger(__name__)


class ForwardError(Exception):
    """The request cannot be carried out; the message is what adb would say."""


@dataclass
class Forward:
    device: AttachedDevice
    local: str            # as listed, e.g. tcp:27183 (a tcp:0 request lists the port it got)
    remote: str
    listener: socket.socket
    stop: threading.Event = field(default_factory=threading.Event)


class HostForwards:
    """Every forward of one ADB server (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._forwards: dict[str, Forward] = {}

    def add(self, device: AttachedDevice, spec: str) -> int | None:
        """Set up `[norebind:]LOCAL;REMOTE`; returns the port bound for a `tcp:0` request, else None."""
        rebind = True
        if spec.startswith("norebind:"):
            rebind, spec = False, spec[len("norebind:"):]
        pieces = spec.split(";")
        if len(pieces) != 2 or not pieces[0] or not pieces[1] or pieces[1].startswith("*"):
            raise ForwardError(f"bad forward: {spec}")
        try:
            local, remote = normalise_address(pieces[0]), normalise_address(pieces[1])
        except ValueError as exc:
            raise ForwardError(str(exc)) from None
        with self._lock:
            existing = self._forwards.get(local)
            if existing is not None:
                if not rebind:
                    raise ForwardError("cannot rebind existing socket")
                if existing.device is device:   # same listener, new target
                    existing.remote = remote
                    return None
                self._close(self._forwards.pop(local))
            listener, local = _listen(local)
            forward = Forward(device, local, remote, listener)
            self._forwards[local] = forward
        threading.Thread(target=self._accept, args=(forward,), daemon=True,
                         name=f"virtual-adb-forward:{local}").start()
        return int(local[4:]) if pieces[0] in ("tcp:0", "tcp:00") else None

    def remove(self, local: str) -> None:
        try:
            key = normalise_address(local)
        except ValueError:
            key = local
        with self._lock:
            forward = self._forwards.pop(key, None)
        if forward is None:
            raise ForwardError(f"listener '{local}' not found")
        self._close(forward)

    def remove_all(self, device: AttachedDevice | None = None) -> None:
        """Remove every forward, or only those of `device`."""
        with self._lock:
            gone = [f for f in self._forwards.values() if device is None or f.device is device]
            for forward in gone:
                del self._forwards[forward.local]
        for forward in gone:
            self._close(forward)

    def listing(self) -> str:
        with self._lock:
            return "".join(f"{f.device.serial} {f.local} {f.remote}\n" for f in self._forwards.values())

    @staticmethod
    def _close(forward: Forward) -> None:
        forward.stop.set()
        try:
            forward.listener.close()
        except OSError:
            pass

    def _accept(self, forward: Forward) -> None:
        while not forward.stop.is_set():
            try:
                client, _ = forward.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return  # the forward was removed
            threading.Thread(target=self._carry, args=(forward, client), daemon=True,
                             name=f"virtual-adb-forward:{forward.local}:conn").start()

    @staticmethod
    def _carry(forward: Forward, client: socket.socket) -> None:
        try:
            phone_side = forward.device.sockets.connect(forward.remote)
        except ValueError:
            phone_side = None
        if phone_side is None:
            close_gently(client)  # nothing listens there on the phone: adb closes the connection
            return
        try:
            relay(client, phone_side, forward.stop)
        except OSError:
            pass
        finally:
            client.close()
            phone_side.close()


def _listen(local: str) -> tuple[socket.socket, str]:
    kind, _, name = local.partition(":")
    try:
        if kind == "tcp":
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(("127.0.0.1", int(name)))
            local = f"tcp:{listener.getsockname()[1]}"
        elif kind == "localabstract" and hasattr(socket, "AF_UNIX"):
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind("\0" + name)
        else:
            raise ForwardError(f"cannot bind listener: {kind} sockets are not supported on this host")
        listener.listen(16)
        listener.settimeout(0.2)
    except OSError as exc:
        raise ForwardError(f"cannot bind listener: {exc.strerror or exc}") from None
    return listener, local

