"""An ADB server on loopback whose devices are virtual phones.

It speaks the real ADB host protocol (the one adbutils and Debian's `adb` client use to
talk to `adb server`): 4-hex-digit length-prefixed requests, OKAY/FAIL answers, host
services (version, devices, track-devices, transport, tport, features, connect...) and,
once a transport is chosen, the device services shell:, shell,v2:, exec: and sync:.
"""

from __future__ import annotations

import logging
import select
import socket
import socketserver
import struct
import threading
import time

from .attached_device import DEVICE_STATES, AttachedDevice
from .phone import VirtualPhone
from .shell import Result, ShellExit
from .sync_service import recv_exact, serve_sync

log = logging.getLogger(__name__)

ADB_SERVER_VERSION = 41  # the version Debian's adb 29 and current platform-tools speak
DEVICE_FEATURES = "shell_v2,cmd,fixed_push_mkdir,apex,stat_v1"
UNAUTHORIZED_MESSAGE = (
    "device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set\n"
    "Try 'adb kill-server' if that seems wrong.\nOtherwise check for a confirmation dialog on your device."
)

# Shell protocol v2 packet ids.
SHELL_STDOUT, SHELL_STDERR, SHELL_EXIT = 1, 2, 3


class DropConnection(Exception):
    """Raised by a fault: the connection must end abruptly (TCP reset), as when a cable is pulled."""


def _block(text: str | bytes) -> bytes:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return b"%04x" % len(data) + data


class _Handler(socketserver.BaseRequestHandler):
    server: "_TcpServer"

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
        _finish(sock)

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
            else:
                adb.handle_device_service(sock, transport, request)
                return


def _finish(sock: socket.socket) -> None:
    """Close politely: shut our side, drain what the client still sends, then close.

    Closing with unread input makes the kernel send RST, which can destroy output the
    client has not read yet; draining first avoids that.
    """
    try:
        sock.shutdown(socket.SHUT_WR)
        sock.settimeout(1.0)
        while sock.recv(65536):
            pass
    except OSError:
        pass
    sock.close()


class _TcpServer(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True
    adb: "VirtualAdbServer"


class VirtualAdbServer:
    """Serves virtual phones over the ADB host protocol on loopback.

    Use as a context manager, or call start()/stop(). Point clients at it with
    ANDROID_ADB_SERVER_PORT (adbutils) or `adb -P PORT` (Debian's adb client).
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0):
        self._tcp = _TcpServer((host, port), _Handler, bind_and_activate=True)
        self._tcp.adb = self
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._generation = 0
        self._devices: dict[str, AttachedDevice] = {}       # attached, in order
        self._reachable: dict[str, AttachedDevice] = {}     # network phones that `adb connect` can reach
        self._next_transport_id = 1

    # ------------------------------------------------------------------ lifecycle

    @property
    def host(self) -> str:
        return self._tcp.server_address[0]

    @property
    def port(self) -> int:
        return self._tcp.server_address[1]

    def start(self) -> "VirtualAdbServer":
        self._thread = threading.Thread(target=self._tcp.serve_forever, kwargs={"poll_interval": 0.1},
                                        name=f"virtual-adb:{self.port}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._tcp.shutdown()
        self._tcp.server_close()
        with self._changed:
            self._generation += 1
            self._changed.notify_all()

    def __enter__(self) -> "VirtualAdbServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # ------------------------------------------------------------------ devices

    def _new_device(self, phone: VirtualPhone, address: str | None = None) -> AttachedDevice:
        device = AttachedDevice(phone=phone, transport_id=self._next_transport_id, network_address=address)
        self._next_transport_id += 1
        return device

    def add_phone(self, phone: VirtualPhone | None = None, **phone_options) -> AttachedDevice:
        """Plug a phone in (as over USB). Returns its attached-device record."""
        phone = phone or VirtualPhone(**phone_options)
        with self._changed:
            device = self._new_device(phone)
            self._devices[device.serial] = device
            self._notify()
        return device

    def add_network_phone(self, address: str, phone: VirtualPhone | None = None, **phone_options) -> AttachedDevice:
        """Make a phone reachable at host:port; it shows up once a client runs `adb connect`."""
        phone = phone or VirtualPhone(serial=address, **phone_options)
        with self._changed:
            device = self._new_device(phone, address)
            self._reachable[address] = device
        return device

    def device(self, serial: str) -> AttachedDevice:
        return self._devices[serial]

    @property
    def devices(self) -> list[AttachedDevice]:
        with self._lock:
            return list(self._devices.values())

    def set_state(self, serial: str, state: str) -> None:
        """Make a device show as "device", "offline" or "unauthorized"."""
        if state not in DEVICE_STATES:
            raise ValueError(f"state must be one of {DEVICE_STATES}")
        with self._changed:
            self._devices[serial].state = state
            self._notify()

    def unplug(self, serial: str) -> AttachedDevice:
        with self._changed:
            device = self._devices.pop(serial)
            self._notify()
        return device

    def plug(self, device: AttachedDevice) -> None:
        with self._changed:
            self._devices[device.serial] = device
            self._notify()

    def _notify(self) -> None:
        self._generation += 1
        self._changed.notify_all()

    # ------------------------------------------------------------------ host services

    def _listing(self, long: bool) -> str:
        lines = []
        for device in self.devices:
            if not long:
                lines.append(f"{device.serial}\t{device.state}\n")
                continue
            phone = device.phone
            details = f"transport_id:{device.transport_id}"
            if device.state == "device":
                model = phone.model.replace(" ", "_")
                details = f"product:agentdesk_virtual model:{model} device:virtual {details}"
            lines.append(f"{device.serial:<22} {device.state} {details}\n")
        return "".join(lines)

    def _find(self, selector: str) -> tuple[AttachedDevice | None, str]:
        """The device a transport selector names, whatever its state; (device, "") or (None, error)."""
        devices = self.devices
        if selector in ("any", "usb", "local"):
            candidates = [d for d in devices
                          if selector == "any" or (selector == "local") == (d.network_address is not None)]
            if not candidates:
                return None, "no devices/emulators found"
            if len(candidates) > 1:
                return None, "more than one device/emulator"
            return candidates[0], ""
        if selector.startswith("id:"):
            device = next((d for d in devices if str(d.transport_id) == selector[3:]), None)
            return (device, "") if device else (None, f"no device with transport id '{selector[3:]}'")
        device = next((d for d in devices if d.serial == selector), None)
        return (device, "") if device else (None, f"device '{selector}' not found")

    def _select(self, selector: str) -> tuple[AttachedDevice | None, str]:
        """Like _find, but only a device that is online and authorised will do."""
        device, error = self._find(selector)
        if device is not None and device.state == "offline":
            return None, "device offline"
        if device is not None and device.state == "unauthorized":
            return None, UNAUTHORIZED_MESSAGE
        return device, error

    def _split_prefixed(self, request: str) -> tuple[str, str]:
        """Turn host-serial:S:cmd / host-transport-id:N:cmd / host-usb:cmd into (selector, cmd)."""
        if request.startswith("host-serial:"):
            rest = request[len("host-serial:"):]
            for device in self.devices:
                if rest.startswith(device.serial + ":"):
                    return device.serial, rest[len(device.serial) + 1:]
            serial, _, command = rest.rpartition(":")
            return serial, command
        if request.startswith("host-transport-id:"):
            number, _, command = request[len("host-transport-id:"):].partition(":")
            return f"id:{number}", command
        for prefix, selector in (("host-usb:", "usb"), ("host-local:", "local"), ("host:", "any")):
            if request.startswith(prefix):
                return selector, request[len(prefix):]
        return "any", request

    def handle_host_request(self, sock: socket.socket, request: str) -> AttachedDevice | None:
        """Answer one host request. Returns the device when the connection switches to it."""
        if request == "host:version":
            sock.sendall(b"OKAY" + _block(f"{ADB_SERVER_VERSION:04x}"))
        elif request == "host:kill":
            sock.sendall(b"OKAY")  # the virtual server outlives `adb kill-server`
        elif request in ("host:devices", "host:devices-l"):
            sock.sendall(b"OKAY" + _block(self._listing(request.endswith("-l"))))
        elif request in ("host:track-devices", "host:track-devices-l"):
            self._track_devices(sock, request.endswith("-l"))
        elif request == "host:host-features":
            sock.sendall(b"OKAY" + _block("shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir,apex"))
        elif request.startswith("host:connect:"):
            sock.sendall(b"OKAY" + _block(self._connect(request[len("host:connect:"):])))
        elif request.startswith("host:disconnect:"):
            ok, message = self._disconnect(request[len("host:disconnect:"):])
            sock.sendall((b"OKAY" if ok else b"FAIL") + _block(message))
        elif request.startswith(("host:transport", "host:tport:")):
            return self._switch_transport(sock, request)
        else:
            selector, command = self._split_prefixed(request)
            self._device_query(sock, selector, command)
        return None

    def _switch_transport(self, sock: socket.socket, request: str) -> AttachedDevice | None:
        tport = request.startswith("host:tport:")
        selector = request.split(":", 2)[2] if tport else request[len("host:transport"):]
        selector = selector.lstrip(":-")
        if selector.startswith("serial:"):
            selector = selector[len("serial:"):]
        elif selector.startswith(("transport-id:", "id-")) or request.startswith("host:transport-id:"):
            selector = "id:" + selector.split(":")[-1]
        device, error = self._select(selector or "any")
        if device is None:
            sock.sendall(b"FAIL" + _block(error))
            return None
        sock.sendall(b"OKAY" + (struct.pack("<Q", device.transport_id) if tport else b""))
        return device

    def _device_query(self, sock: socket.socket, selector: str, command: str) -> None:
        if command.startswith("wait-for-"):
            self._wait_for(sock, selector, command)
            return
        device, error = self._find(selector) if command == "get-state" else self._select(selector)
        if device is None:
            sock.sendall(b"FAIL" + _block(error))
            return
        answers = {
            "get-state": device.state,
            "get-serialno": device.phone.serial,
            "get-devpath": f"usb:1-{device.transport_id}" if device.network_address is None else "unknown",
            "features": DEVICE_FEATURES,
        }
        if command in answers:
            sock.sendall(b"OKAY" + _block(answers[command]))
        else:
            sock.sendall(b"FAIL" + _block(f"unsupported host service: {command}"))

    def _wait_for(self, sock: socket.socket, selector: str, command: str) -> None:
        wanted = command.rsplit("-", 1)[-1]
        deadline = time.monotonic() + 60
        with self._changed:
            while time.monotonic() < deadline:
                devices = [d for d in self._devices.values()
                           if selector in ("any", "usb", "local") or d.serial == selector]
                if (wanted == "disconnect" and not devices) or any(d.state == wanted for d in devices):
                    break
                self._changed.wait(0.2)
        sock.sendall(b"OKAY" + b"OKAY")

    def _track_devices(self, sock: socket.socket, long: bool) -> None:
        sock.sendall(b"OKAY")
        seen = -1
        while True:
            with self._changed:
                if self._generation == seen:
                    self._changed.wait(0.25)
                generation = self._generation
            if generation != seen:
                seen = generation
                sock.sendall(_block(self._listing(long)))
            readable, _, _ = select.select([sock], [], [], 0)
            if readable and not sock.recv(1):
                return  # the client went away
            if self._tcp.socket.fileno() < 0:
                return

    def _connect(self, address: str) -> str:
        if ":" not in address:
            address += ":5555"
        with self._changed:
            if address in self._devices:
                return f"already connected to {address}"
            device = self._reachable.get(address)
            if device is None:
                return f"failed to connect to '{address}': Connection refused"
            self._devices[address] = device
            self._notify()
        return f"connected to {address}"

    def _disconnect(self, address: str) -> tuple[bool, str]:
        with self._changed:
            if not address:
                for serial in [s for s, d in self._devices.items() if d.network_address]:
                    del self._devices[serial]
                self._notify()
                return True, "disconnected everything"
            if ":" not in address:
                address += ":5555"
            device = self._devices.get(address)
            if device is None or device.network_address is None:
                return False, f"no such device '{address}'"
            del self._devices[address]
            self._notify()
        return True, f"disconnected {address}"

    # ------------------------------------------------------------------ device services

    def handle_device_service(self, sock: socket.socket, device: AttachedDevice, service: str) -> None:
        device.record_service(service)
        if device.faults.delay_seconds:
            time.sleep(device.faults.delay_seconds)
        if device.serial not in self._devices:
            sock.sendall(b"FAIL" + _block(f"device '{device.serial}' not found"))
            return
        name, _, argument = service.partition(":")
        kind, *options = name.split(",")
        if kind == "sync":
            sock.sendall(b"OKAY")
            serve_sync(sock, device.storage)
            return
        if kind not in ("shell", "exec"):
            sock.sendall(b"FAIL" + _block(f"unknown service {kind}"))
            return
        sock.sendall(b"OKAY")
        protocol_v2 = kind == "shell" and "v2" in options
        if not argument:
            self._interactive_shell(sock, device, service)
            return
        try:
            result = device.new_shell(service).run_line(argument)
        except ShellExit as exc:
            result = Result(code=exc.code)
        if device.faults.take("drop_connections"):
            output = result.stdout + result.stderr
            sock.sendall(output[: len(output) // 3])
            raise DropConnection()
        if protocol_v2:
            packets = bytearray()
            for packet_id, data in ((SHELL_STDOUT, result.stdout), (SHELL_STDERR, result.stderr)):
                if data:
                    packets += struct.pack("<BI", packet_id, len(data)) + data
            packets += struct.pack("<BIB", SHELL_EXIT, 1, result.code & 0xFF)
            sock.sendall(packets)
        else:
            sock.sendall(result.stdout + result.stderr)

    def _interactive_shell(self, sock: socket.socket, device: AttachedDevice, service: str) -> None:
        shell = device.new_shell(service)
        prompt = f"{device.phone.model.split()[0].lower()}:/ $ ".encode()
        sock.sendall(prompt)
        pending = b""
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                return
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                try:
                    result = shell.run_line(line.decode("utf-8", "replace").rstrip("\r"))
                except ShellExit:
                    return
                sock.sendall(result.stdout + result.stderr + prompt)
