"""Watch phones being plugged in and unplugged (ADB track-devices), reported on the event loop."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable

from .adb_transport import AdbTransport, DeviceListing
from .errors import DeviceError

log = logging.getLogger(__name__)

DevicesCallback = Callable[[list[DeviceListing]], None]


class DeviceWatcher:
    """Calls `on_change(devices)` on the loop each time the device list changes.

    The blocking track-devices stream runs in a daemon thread; when the ADB server goes
    away the watcher retries every `retry_seconds` and reports an empty list meanwhile.
    """

    def __init__(self, transport: AdbTransport, on_change: DevicesCallback, retry_seconds: float = 2.0):
        self.transport = transport
        self.on_change = on_change
        self.retry_seconds = retry_seconds
        self.devices: list[DeviceListing] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._thread = threading.Thread(target=self._watch, name="adb-track-devices", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _publish(self, devices: list[DeviceListing]) -> None:
        if self._stop.is_set() or self._loop is None or self._loop.is_closed():
            return

        def deliver() -> None:
            if devices != self.devices:
                self.devices = devices
                self.on_change(devices)

        self._loop.call_soon_threadsafe(deliver)

    def _watch(self) -> None:
        said = ""
        while not self._stop.is_set():
            try:
                for devices in self.transport.track_devices():
                    if self._stop.is_set():
                        return
                    said = ""
                    self._publish(devices)
            except DeviceError as exc:
                if str(exc) != said:          # once per change, not once per retry
                    log.info("device watch interrupted: %s", exc)
                    said = str(exc)
            self._publish([])
            self._stop.wait(self.retry_seconds)
