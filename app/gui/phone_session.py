"""The phone the window shows: which one, its live frames, its controls, and manual input to it.

Everything that talks to the phone runs as asyncio tasks on the qasync loop, with the
blocking ADB calls in worker threads (the device layer does that), so the GUI never
waits. The capture loop keeps one request in flight: a slow phone gives fewer frames,
never a queue.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from app.core import paths
from app.core.device.adb_transport import AdbTransport, DeviceListing
from app.core.device.android_device import AndroidDevice, ControlsSnapshot
from app.core.device.device_watch import DeviceWatcher
from app.core.device.errors import DeviceError
from app.core.device.phone_connection import PhoneConnection, open_phone

from .device_panel import DeviceEntry
from .mirror_frames import frame_for_view, qimage_from_rgb

log = logging.getLogger(__name__)

CONTROLS_REFRESH_SECONDS = 2.5
AFTER_INPUT_SECONDS = 0.4


class PhoneSession(QObject):
    frame_ready = Signal(object, object)          # QImage, device size (w, h)
    controls_ready = Signal(object)               # ControlsSnapshot
    devices_changed = Signal(object)              # list[DeviceEntry]
    device_changed = Signal(object)               # DeviceEntry | None
    status = Signal(str)
    fps = Signal(float)

    def __init__(self, view_size, parent: QObject | None = None):
        super().__init__(parent)
        self.view_size = view_size                # callable → QSize of the mirror
        self.connection: PhoneConnection | None = None
        self.device: AndroidDevice | None = None
        self.entry: DeviceEntry | None = None
        self.frame_ms = 0.0                       # last frame: capture decode + shrink + QImage wrap
        self.live_controls = True                 # refresh controls while idle (off during a run's review)
        self._tasks: set[asyncio.Task] = set()
        self._capture: asyncio.Task | None = None
        self._controls_dirty = asyncio.Event()
        self._watchers: dict[str, DeviceWatcher] = {}
        self._listings: dict[str, list[DeviceListing]] = {}
        self._virtual_server = None
        self._closing = False
        self._capturing: AndroidDevice | None = None    # the device the live capture loop is for

    def _spawn(self, coro) -> asyncio.Task:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # ------------------------------------------------------------------ choosing the phone

    async def start(self) -> None:
        try:
            self.connection = await open_phone()
        except DeviceError as exc:
            self.status.emit(str(exc))
            return
        self._virtual_server = self.connection.virtual_server
        if self.connection.note:
            self.status.emit(self.connection.note)
        transport = self.connection.device.transport
        self._watch(transport)
        self._use(self.connection.device, self._entry_for(transport.address, self.connection.listing))
        self._spawn(self._controls_loop())

    def _watch(self, transport: AdbTransport) -> None:
        if transport.address in self._watchers:
            return
        watcher = DeviceWatcher(transport, lambda devices, t=transport: self._on_devices(t, devices))
        self._watchers[transport.address] = watcher
        watcher.start()

    def _entry_for(self, server: str, listing: DeviceListing) -> DeviceEntry:
        virtual = self._virtual_server is not None and server.endswith(f":{self._virtual_server.port}")
        return DeviceEntry(server, listing.serial, listing.model, listing.describe_state(), listing.ready, virtual)

    def _on_devices(self, transport: AdbTransport, devices: list[DeviceListing]) -> None:
        self._listings[transport.address] = devices
        entries = [self._entry_for(server, d) for server, listed in self._listings.items() for d in listed]
        self.devices_changed.emit(entries)
        if self.entry is not None:
            now = next((e for e in entries if e.key == self.entry.key), None)
            if now is None and self.entry.ready:
                self.status.emit(f"{self.entry.serial} was disconnected; waiting for it to come back…")
                now = dataclasses.replace(self.entry, state="disconnected — waiting for it to come back",
                                          ready=False)
            elif now is not None and now.ready and not self.entry.ready:
                self.status.emit(f"{now.serial} is back.")
            if now is not None:
                self.entry = now
                self.device_changed.emit(now)

    def _use(self, device: AndroidDevice, entry: DeviceEntry) -> None:
        self.device, self.entry = device, entry
        self.device_changed.emit(entry)
        if self._capture is not None:
            self._capture.cancel()
        self._capturing = device
        self._capture = self._spawn(self._capture_loop(device))
        self.request_controls()

    def choose(self, entry: DeviceEntry) -> None:
        host, port = entry.server.rsplit(":", 1)
        self._use(AndroidDevice(AdbTransport(host, int(port)), entry.serial), entry)

    def connect_wifi(self, address: str) -> None:
        async def connect() -> None:
            transport = AdbTransport()
            try:
                message = await asyncio.to_thread(transport.connect, address)
                self.status.emit(message)
                self._watch(transport)
            except DeviceError as exc:
                self.status.emit(str(exc))
        self._spawn(connect())

    # ------------------------------------------------------------------ frames and controls

    def _keeps_capturing(self, device: AndroidDevice) -> bool:
        # Loops end on this flag too: on Python 3.11 asyncio.wait_for can swallow a cancellation.
        return not self._closing and self._capturing is device

    async def _capture_loop(self, device: AndroidDevice) -> None:
        frames, window_start = 0, time.monotonic()
        while self._keeps_capturing(device):
            try:
                shot = await device.screenshot()
                started = time.perf_counter()
                data, size = await asyncio.to_thread(frame_for_view, shot.image, self.view_size())
                image = qimage_from_rgb(data, *size)
                self.frame_ms = shot.decode_ms + (time.perf_counter() - started) * 1000
            except DeviceError as exc:
                self.status.emit(f"No picture from the phone: {exc}")
                await asyncio.sleep(1.0)
                continue
            if not self._keeps_capturing(device):
                return
            self.frame_ready.emit(image, shot.size)
            frames += 1
            elapsed = time.monotonic() - window_start
            if elapsed >= 1.0:
                self.fps.emit(frames / elapsed)
                frames, window_start = 0, time.monotonic()

    def request_controls(self) -> None:
        self._controls_dirty.set()

    async def _controls_loop(self) -> None:
        """Controls for the overlay and inspector: at start, after input, and every few seconds."""
        while not self._closing:
            try:
                await asyncio.wait_for(self._controls_dirty.wait(), CONTROLS_REFRESH_SECONDS)
            except asyncio.TimeoutError:
                pass
            self._controls_dirty.clear()
            if self.device is None or not self.live_controls:
                continue
            try:
                snapshot: ControlsSnapshot = await self.device.controls()
            except DeviceError as exc:
                log.info("controls not available: %s", exc)
                continue
            if self.live_controls and not self._closing:
                self.controls_ready.emit(snapshot)

    # ------------------------------------------------------------------ manual input

    def _input(self, what: str, coro) -> None:
        async def send() -> None:
            try:
                await coro
            except DeviceError as exc:
                self.status.emit(f"Could not {what}: {exc}")
                return
            await asyncio.sleep(AFTER_INPUT_SECONDS)
            self.request_controls()
        self._spawn(send())

    def tap(self, x: int, y: int) -> None:
        if self.device:
            self._input("tap", self.device.tap(x, y))

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int) -> None:
        if self.device:
            self._input("swipe", self.device.swipe(x1, y1, x2, y2, duration_ms))

    def press_key(self, key: str) -> None:
        if self.device:
            self._input(f"press {key}", self.device.press_key(key))

    def type_text(self, text: str) -> None:
        if self.device:
            self._input("type", self.device.type_text(text))

    def save_screenshot(self) -> None:
        async def save() -> None:
            try:
                shot = await self.device.screenshot()
            except DeviceError as exc:
                self.status.emit(f"Could not take a screenshot: {exc}")
                return
            folder = paths.data_dir() / "screenshots"
            path = folder / f"{self.entry.serial.replace(':', '_')}-{datetime.now():%Y%m%d-%H%M%S}.png"
            await asyncio.to_thread(_save_png, shot.image, path)
            self.status.emit(f"Screenshot saved to {path}")
        if self.device:
            self._spawn(save())

    async def shutdown(self) -> None:
        self._closing = True
        for watcher in self._watchers.values():
            watcher.stop()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=5)
        if self.connection is not None:
            await asyncio.to_thread(self.connection.close)


def _save_png(image, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path)
