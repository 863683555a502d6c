"""Blocking access to an ADB server through adbutils: device lists and one-shot device services.

Everything here blocks; the async layer (android_device.py) runs it in worker threads.
adbutils opens one socket per request; we select the device and run the service on that
same socket (one round trip less than adbutils' own shell()) and read the answer with
a linear-time loop (adbutils' read_until_close is quadratic on a 10 MB screenshot).
"""

from __future__ import annotations

import socket
import time
from dataclasses import dataclass

import adbutils
from adbutils.errors import AdbConnectionError, AdbError, AdbTimeout

from .errors import (
    AdbUnavailable,
    DeviceDisconnected,
    DeviceError,
    DeviceNotFound,
    DeviceOffline,
    DeviceTimeout,
    DeviceUnauthorized,
)

DEFAULT_TIMEOUT = 20.0
_READ_CHUNK = 1 << 20


@dataclass(frozen=True)
class DeviceListing:
    """One line of `adb devices -l`."""

    serial: str
    state: str  # device | unauthorized | offline | ...
    model: str = ""
    product: str = ""
    transport_id: int | None = None

    @property
    def is_network(self) -> bool:
        return ":" in self.serial and not self.serial.startswith("emulator-")

    @property
    def ready(self) -> bool:
        return self.state == "device"

    def describe_state(self) -> str:
        """The state in words a person can act on."""
        return STATE_WORDS.get(self.state, f"{self.state} — not ready for ADB yet")


STATE_WORDS = {
    "device": "connected",
    "unauthorized": "unauthorized — Allow USB debugging on the phone: unlock it and tap Allow in the dialog",
    "offline": "offline — unlock the phone; if it stays offline, unplug it and plug it in again",
    "no permissions": ("no permission to use this USB device — add a udev rule for it (Debian/Ubuntu: "
                       "`sudo apt install android-sdk-platform-tools-common`), then plug it in again"),
    "authorizing": "authorizing — wait a moment",
    "connecting": "connecting — wait a moment",
    "recovery": "in recovery mode — restart the phone normally to use it",
    "rescue": "in rescue mode — restart the phone normally to use it",
    "sideload": "in sideload mode — finish or cancel the update, then restart the phone normally",
    "bootloader": "in the bootloader — restart the phone normally to use it",
    "host": "is another computer, not a phone",
}
"""adb's device states in words (`adb devices`). A phone that Windows has no driver for is not listed at all."""


INSTALL_ADB = ("Install Android platform-tools (Debian/Ubuntu: `sudo apt install adb`; Fedora: "
               "`sudo dnf install android-tools`; macOS: `brew install android-platform-tools`), "
               "or start a server with `adb start-server`.")


def translate_adb_error(exc: Exception, serial: str | None = None) -> DeviceError:
    """Turn an adbutils/socket error into one of ours with a message a user understands."""
    text = str(exc)
    who = f"Phone {serial}" if serial else "The phone"
    if isinstance(exc, DeviceError):
        return exc
    if "no adb exe" in text.lower():      # adbutils found no adb program to start a server with
        return AdbUnavailable(f"No ADB server is running, and no adb program was found to start one. {INSTALL_ADB}")
    if isinstance(exc, (AdbTimeout, socket.timeout, TimeoutError)):
        return DeviceTimeout(f"{who} did not answer in time. Check that it is unlocked and still connected.")
    if isinstance(exc, AdbConnectionError):
        return AdbUnavailable(f"Cannot reach the ADB server. {INSTALL_ADB}")
    if "unauthorized" in text:
        return DeviceUnauthorized(f"{who} has not authorised this computer. Unlock it and accept "
                                  "the “Allow USB debugging?” prompt, then try again.")
    if "offline" in text:
        return DeviceOffline(f"{who} is offline. Unlock it, or unplug and plug it in again.")
    if "not found" in text or "no devices" in text:
        return DeviceNotFound(f"{who} is not connected. Plug it in (USB debugging on) or connect over Wi-Fi.")
    if isinstance(exc, (ConnectionError, OSError, EOFError)):
        return DeviceDisconnected(f"{who} disconnected in the middle of a command. Check the cable or Wi-Fi.")
    return DeviceError(f"ADB error: {text}")


class AdbTransport:
    """One ADB server (host:port): lists devices and runs services on them."""

    def __init__(self, host: str | None = None, port: int | None = None):
        self.client = adbutils.AdbClient(host=host, port=port)

    @property
    def address(self) -> str:
        return f"{self.client.host}:{self.client.port}"

    def _connect(self, timeout: float | None):
        try:
            return self.client.make_connection(timeout=timeout)
        except (AdbError, OSError) as exc:
            if "no adb exe" in str(exc).lower():
                raise translate_adb_error(exc) from exc
            raise AdbUnavailable(f"Cannot reach the ADB server at {self.address}: {exc}. {INSTALL_ADB}") from exc

    def server_version(self) -> int:
        try:
            return self.client.server_version()
        except (AdbError, OSError) as exc:
            raise translate_adb_error(exc) from exc

    def list_devices(self) -> list[DeviceListing]:
        with self._connect(5.0) as conn:
            try:
                conn.send_command("host:devices-l")
                conn.check_okay()
                return parse_devices_l(conn.read_string_block())
            except (AdbError, OSError) as exc:
                raise translate_adb_error(exc) from exc

    def connect(self, address: str, timeout: float = 10.0) -> str:
        """`adb connect host:port`; returns the server's message, raises when it failed."""
        try:
            message = self.client.connect(address, timeout=timeout)
        except (AdbError, OSError) as exc:
            raise translate_adb_error(exc) from exc
        if "connected to" not in message:
            raise DeviceNotFound(f"Could not connect to {address}: {message}. Check the address, that the "
                                 "phone is on the same network, and that wireless debugging is on.")
        return message

    def disconnect(self, address: str) -> str:
        try:
            return self.client.disconnect(address, raise_error=True) or ""
        except (AdbError, OSError) as exc:
            raise translate_adb_error(exc) from exc

    def open_service(self, serial: str, service: str, timeout: float | None = DEFAULT_TIMEOUT) -> socket.socket:
        """Open a device service ("shell:…", "exec:…", "localabstract:NAME"…) and hand over its socket
        (reads time out after `timeout`; None: never)."""
        conn = self._connect(timeout)
        try:
            conn.send_command(f"host:transport:{serial}")
            conn.check_okay()
            conn.send_command(service)
            conn.check_okay()
        except (AdbError, OSError, EOFError) as exc:
            conn.conn.close()
            raise translate_adb_error(exc, serial) from exc
        return conn.conn

    def run(self, serial: str, service: str, timeout: float | None = DEFAULT_TIMEOUT, *,
            max_bytes: int | None = None) -> bytes:
        """Run a device service ("shell:…", "exec:…") and return everything it printed: at most `max_bytes`
        + 1 bytes (the read stops there, so the caller sees it passed the cap), and nothing read after
        `timeout` in all (the thread reading ends with the caller's wait, not when the phone stops)."""
        sock = self.open_service(serial, service, timeout)
        deadline = time.monotonic() + timeout if timeout is not None else None
        try:
            return read_to_end(sock, max_bytes, deadline)
        except OSError as exc:
            raise translate_adb_error(exc, serial) from exc
        finally:
            # The phone has closed its side; adbutils' close() would add a 10 ms linger for nothing.
            sock.close()

    def push(self, serial: str, data: bytes, path: str, mode: int = 0o644) -> None:
        """Write `data` to `path` on the phone (ADB's sync SEND; PushFailed says the phone's reason)."""
        import io

        from .sync_send import send

        sock = self.open_service(serial, "sync:", DEFAULT_TIMEOUT)
        try:
            send(sock, io.BytesIO(data), len(data), path, mode, name=path.rsplit("/", 1)[-1])
        except (OSError, EOFError) as exc:
            raise translate_adb_error(exc, serial) from exc
        finally:
            sock.close()

    def track_devices(self):
        """Yield the full device list each time it changes (blocks; run in a thread)."""
        with self._connect(None) as conn:
            try:
                conn.send_command("host:track-devices-l")
                conn.check_okay()
                while True:
                    yield parse_devices_l(conn.read_string_block())
            except (AdbError, OSError, ValueError) as exc:
                raise translate_adb_error(exc) from exc


def read_to_end(sock: socket.socket, max_bytes: int | None = None, deadline: float | None = None) -> bytes:
    """Read until the other side closes, in linear time; stop past `max_bytes` (returning max_bytes + 1
    bytes) or at `deadline` (time.monotonic(); socket.timeout)."""
    buffer = bytearray()
    chunk = bytearray(_READ_CHUNK)
    view = memoryview(chunk)
    while True:
        n = sock.recv_into(view)
        if n == 0:
            return bytes(buffer)
        buffer += view[:n]
        if max_bytes is not None and len(buffer) > max_bytes:
            return bytes(buffer[:max_bytes + 1])
        if deadline is not None and time.monotonic() > deadline:
            raise TimeoutError("the phone's answer did not end in time")


def parse_devices_l(text: str) -> list[DeviceListing]:
    """Parse `adb devices -l` output (also accepts the short form)."""
    devices = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 2 or line.startswith(("List of devices", "*")):
            continue
        serial, state, rest = parts[0], parts[1], parts[2:]
        if state == "no" and rest[:1] == ["permissions"]:
            state, rest = "no permissions", rest[1:]
        fields = dict(p.split(":", 1) for p in rest if ":" in p)
        transport = fields.get("transport_id", "")
        devices.append(DeviceListing(serial, state, fields.get("model", "").replace("_", " "),
                                     fields.get("product", ""), int(transport) if transport.isdigit() else None))
    return devices
