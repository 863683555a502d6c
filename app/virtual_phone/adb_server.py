"""An ADB server on loopback whose devices are virtual phones.

It speaks the real ADB host protocol (the one adbutils and Debian's `adb` client use to
talk to `adb server`): 4-hex-digit length-prefixed requests, OKAY/FAIL answers, host
services (version, devices, track-devices, transport, tport, features, connect...) and,
once a transport is chosen, the device services shell:, shell,v2:, exec: and sync:.
This module keeps the devices and answers host requests; adb_connection reads each
connection's requests and serves the device services.
"""

from __future__ import annotations

import logging
import os
import select
import socket
import socketserver
import struct
import threading
import time
from collections.abc import Callable

from .adb_connection import AdbConnection, protocol_string, serve_device_service
from .attached_device import DEVICE_STATES, AttachedDevice
from .latency import SERVICE_OPEN
from .phone import VirtualPhone
from .port_forwarding import ForwardError, HostForwards

log = logging.getLogger(__name__)

ADB_SERVER_VERSION = 41  # the version Debian's adb 29 and current platform-tools speak
DEVICE_FEATURES = "shell_v2,cmd,fixed_push_mkdir,apex,stat_v2,ls_v2"
UNAUTHORIZED_MESSAGE = (
    "device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set\n"
    "Try 'adb kill-server' if that seems wrong.\nOtherwise check for a confirmation dialog on your device."
)


class _TcpServer(socketserver.ThreadingTCPServer):
    # On Windows SO_REUSEADDR lets a second server bind a port in use: there the bind must fail instead.
    allow_reuse_address = os.name != "nt"
    daemon_threads = True
    adb: VirtualAdbServer

    def server_bind(self) -> None:
        if hasattr(socket, "SO_EXCLUSIVEADDRUSE"):       # Windows: nobody else may bind it while it serves
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_EXCLUSIVEADDRUSE, 1)
        super().server_bind()


class VirtualAdbServer:
    """Serves virtual phones over the ADB host protocol on loopback.

    Use as a context manager, or call start()/stop(). Point clients at it with
    ANDROID_ADB_SERVER_PORT (adbutils) or `adb -P PORT` (Debian's adb client).
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0):
        self._tcp = _TcpServer((host, port), AdbConnection, bind_and_activate=True)
        self._tcp.adb = self
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._generation = 0
        self._devices: dict[str, AttachedDevice] = {}       # attached, in order
        self._reachable: dict[str, AttachedDevice] = {}     # network phones that `adb connect` can reach
        self._next_transport_id = 1
        self.forwards = HostForwards()
        self._open_services: dict[int, set[socket.socket]] = {}   # transport id -> its open connections
        # More host services, by request prefix: the handler answers on the socket (and may hold it open).
        self.host_services: dict[str, Callable[[socket.socket, str], None]] = {}

    # ------------------------------------------------------------------ lifecycle

    @property
    def host(self) -> str:
        return str(self._tcp.server_address[0])   # a str for an AF_INET server

    @property
    def port(self) -> int:
        return self._tcp.server_address[1]

    def start(self) -> VirtualAdbServer:
        self._thread = threading.Thread(target=self._tcp.serve_forever, kwargs={"poll_interval": 0.1},
                                        name=f"virtual-adb:{self.port}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.forwards.remove_all()
        self._tcp.shutdown()
        self._tcp.server_close()
        with self._changed:
            self._generation += 1
            self._changed.notify_all()

    def __enter__(self) -> VirtualAdbServer:
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
        """Take a phone away as a pulled cable does: every open service on it ends at once."""
        with self._changed:
            device = self._devices.pop(serial)
            self._notify()
            open_services = list(self._open_services.get(device.transport_id, ()))
        self.forwards.remove_all(device)
        for sock in open_services:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
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
        for prefix, serve in list(self.host_services.items()):
            if request.startswith(prefix):
                serve(sock, request)
                return None
        if request == "host:version":
            sock.sendall(b"OKAY" + protocol_string(f"{ADB_SERVER_VERSION:04x}"))
        elif request == "host:kill":
            sock.sendall(b"OKAY")  # the virtual server outlives `adb kill-server`
        elif request in ("host:devices", "host:devices-l"):
            sock.sendall(b"OKAY" + protocol_string(self._listing(request.endswith("-l"))))
        elif request in ("host:track-devices", "host:track-devices-l"):
            self._track_devices(sock, request.endswith("-l"))
        elif request == "host:host-features":
            sock.sendall(b"OKAY" + protocol_string("shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir,apex"))
        elif request.startswith("host:connect:"):
            sock.sendall(b"OKAY" + protocol_string(self._connect(request[len("host:connect:"):])))
        elif request.startswith("host:disconnect:"):
            ok, message = self._disconnect(request[len("host:disconnect:"):])
            sock.sendall((b"OKAY" if ok else b"FAIL") + protocol_string(message))
        elif request.startswith(("host:transport", "host:tport:")):
            return self._switch_transport(sock, request)
        elif request == "host:list-forward":
            sock.sendall(b"OKAY" + protocol_string(self.forwards.listing()))
        elif request == "host:killforward-all":
            self.forwards.remove_all()
            sock.sendall(b"OKAY" + b"OKAY")
        else:
            selector, command = self._split_prefixed(request)
            if command.startswith(("forward:", "killforward:")) or command in ("list-forward", "killforward-all"):
                self._forward_request(sock, selector, command)
            else:
                self._device_query(sock, selector, command)
        return None

    def _forward_request(self, sock: socket.socket, selector: str, command: str) -> None:
        """forward / killforward / killforward-all / list-forward, as adb's server answers them."""
        if command == "list-forward":
            sock.sendall(b"OKAY" + protocol_string(self.forwards.listing()))
            return
        if command == "killforward-all":
            self.forwards.remove_all()
            sock.sendall(b"OKAY" + b"OKAY")
            return
        device, error = self._select(selector)
        if device is None:
            sock.sendall(b"FAIL" + protocol_string(error))
            return
        try:
            if command.startswith("killforward:"):
                self.forwards.remove(command[len("killforward:"):])
                port = None
            else:
                port = self.forwards.add(device, command[len("forward:"):])
        except ForwardError as exc:
            sock.sendall(b"FAIL" + protocol_string(str(exc)))
            return
        sock.sendall(b"OKAY" + b"OKAY" + (protocol_string(str(port)) if port is not None else b""))

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
            sock.sendall(b"FAIL" + protocol_string(error))
            return None
        sock.sendall(b"OKAY" + (struct.pack("<Q", device.transport_id) if tport else b""))
        return device

    def _device_query(self, sock: socket.socket, selector: str, command: str) -> None:
        if command.startswith("wait-for-"):
            self._wait_for(sock, selector, command)
            return
        device, error = self._find(selector) if command == "get-state" else self._select(selector)
        if device is None:
            sock.sendall(b"FAIL" + protocol_string(error))
            return
        answers = {
            "get-state": device.state,
            "get-serialno": device.phone.serial,
            "get-devpath": f"usb:1-{device.transport_id}" if device.network_address is None else "unknown",
            "features": DEVICE_FEATURES,
        }
        if command in answers:
            sock.sendall(b"OKAY" + protocol_string(answers[command]))
        else:
            sock.sendall(b"FAIL" + protocol_string(f"unsupported host service: {command}"))

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
                sock.sendall(protocol_string(self._listing(long)))
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
                    self.forwards.remove_all(self._devices.pop(serial))
                self._notify()
                return True, "disconnected everything"
            if ":" not in address:
                address += ":5555"
            device = self._devices.get(address)
            if device is None or device.network_address is None:
                return False, f"no such device '{address}'"
            self.forwards.remove_all(self._devices.pop(address))
            self._notify()
        return True, f"disconnected {address}"

    # ------------------------------------------------------------------ device services

    def handle_device_service(self, sock: socket.socket, device: AttachedDevice, service: str) -> None:
        """Record the service, apply the delay fault, then serve it if the device is still attached."""
        device.record_service(service)
        device.phone.timing.pause(SERVICE_OPEN)
        if device.faults.delay_seconds:
            time.sleep(device.faults.delay_seconds)
        with self._lock:
            if device.serial not in self._devices:
                sock.sendall(b"FAIL" + protocol_string(f"device '{device.serial}' not found"))
                return
            self._open_services.setdefault(device.transport_id, set()).add(sock)
        try:
            serve_device_service(sock, device, service)
        finally:
            with self._lock:
                self._open_services.get(device.transport_id, set()).discard(sock)
