"""One client connection to the virtual ADB server.

Reads the 4-hex-digit length-prefixed requests, hands host requests to the server until
one switches the connection to a device, then serves that device's one service: shell:,
shell,v2:, exec: or sync:.
"""

from __future__ import annotations

import socket
import socketserver
import struct
from typing import TYPE_CHECKING

from .attached_device import AttachedDevice
from .device_sockets import SOCKET_KINDS, close_gently, relay
from .shell_service import DropConnection, interactive_shell, serve_command
from .sync_service import recv_exact, serve_sync
from .system_programs.properties import properties

if TYPE_CHECKING:
    from .adb_server import _TcpServer

def protocol_string(text: str | bytes) -> bytes:
    """Text as the ADB protocol sends a string: its length in 4 hex digits, then its bytes."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    return b"%04x" % len(data) + data


class AdbConnection(socketserver.BaseRequestHandler):
    """The handler the server's TCP listener runs for each client connection."""

    server: _TcpServer

    def handle(self) -> None:
        sock: socket.socket = self.request
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            self._serve(sock)
        except DropConnection:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.close()   # a reset, not a polite close
            return
        except (ConnectionError, OSError):
            pass
        close_gently(sock)

    def _serve(self, sock: socket.socket) -> None:
        """Host requests until one switches to a device; then that device's one service."""
        adb = self.server.adb
        transport: AttachedDevice | None = None
        while True:
            header = recv_exact(sock, 4)
            if header is None:
                return
            try:
                length = int(header, 16)
            except ValueError:
                return
            payload = recv_exact(sock, length)
            if payload is None:
                return
            request = payload.decode("utf-8", "replace")
            if transport is None:
                transport = adb.handle_host_request(sock, request)
                if transport is None:
                    return
            elif request.startswith("host:"):
                # After `host:tport:…` adb's own client sends host requests (forward…) meant for that phone.
                adb.handle_host_request(sock, f"host-transport-id:{transport.transport_id}:{request[5:]}")
                return
            else:
                adb.handle_device_service(sock, transport, request)
                return


def serve_device_service(sock: socket.socket, device: AttachedDevice, service: str) -> None:
    """Serve shell:, shell,v2:, exec: or sync: on an attached device; FAIL anything else."""
    name, _, argument = service.partition(":")
    kind, *options = name.split(",")
    if kind == "sync":
        sock.sendall(b"OKAY")
        serve_sync(sock, device.storage)
        return
    if kind in SOCKET_KINDS:
        _connect_to_phone_socket(sock, device, service)
        return
    if kind == "reverse":
        sock.sendall(b"OKAY")
        sock.sendall(reverse_request(device, argument))
        return
    if kind in ("root", "unroot"):
        sock.sendall(b"OKAY")
        sock.sendall(restart_adbd(device, as_root=kind == "root").encode())
        return
    if kind not in ("shell", "exec"):
        sock.sendall(b"FAIL" + protocol_string(f"unknown service {kind}"))
        return
    sock.sendall(b"OKAY")
    protocol_v2 = kind == "shell" and "v2" in options
    if not argument:
        interactive_shell(sock, device, service, protocol_v2, with_pty=kind == "shell" and "raw" not in options)
        return
    serve_command(sock, device, service, argument, protocol_v2)


def restart_adbd(device: AttachedDevice, as_root: bool) -> str:
    """What adbd says to `adb root` / `adb unroot` (a userdebug build such as the emulator's lets it run as
    root; the shells it starts from then on run as uid 0)."""
    phone = device.phone
    if as_root:
        if phone.adbd_root:
            return "adbd is already running as root\n"
        if properties(phone).get("ro.debuggable") != "1":
            return "adbd cannot run as root in production builds\n"
        phone.adbd_root = True
        return "restarting adbd as root\n"
    if not phone.adbd_root:
        return "adbd not running as root\n"
    phone.adbd_root = False
    return "restarting adbd as non root\n"


def _connect_to_phone_socket(sock: socket.socket, device: AttachedDevice, address: str) -> None:
    """tcp:PORT / localabstract:NAME…: a stream to whatever listens there on the phone."""
    try:
        phone_side = device.sockets.connect(address)
    except ValueError:
        phone_side = None
    if phone_side is None:
        sock.sendall(b"FAIL" + protocol_string("closed"))
        return
    sock.sendall(b"OKAY")
    try:
        relay(sock, phone_side)
    finally:
        phone_side.close()


def reverse_request(device: AttachedDevice, request: str) -> bytes:
    """The answer adbd gives to `reverse:forward|killforward|killforward-all|list-forward` (after OKAY)."""
    sockets = device.sockets
    if request == "list-forward":
        return protocol_string("".join(f"UsbFfs {phone} {host}\n" for phone, host in sockets.reverse_rules()))
    if request == "killforward-all":
        sockets.remove_all_reverse()
        return b"OKAY"
    if request.startswith("killforward:"):
        address = request[len("killforward:"):]
        if sockets.remove_reverse(address):
            return b"OKAY"
        return b"FAIL" + protocol_string(f"listener '{address}' not found")
    if request.startswith("forward:"):
        spec, rebind = request[len("forward:"):], True
        if spec.startswith("norebind:"):
            spec, rebind = spec[len("norebind:"):], False
        pieces = spec.split(";")
        if len(pieces) != 2 or not all(pieces):
            return b"FAIL" + protocol_string(f"bad forward: {spec}")
        error = sockets.add_reverse(pieces[0], pieces[1], rebind)
        return b"OKAY" if error is None else b"FAIL" + protocol_string(error)
    return b"FAIL" + protocol_string(f"unknown reverse request: {request}")
