"""The main window: for now the live mirror of the phone (the full app grows from here)."""

from __future__ import annotations

import asyncio
import logging
import time

from PySide6.QtWidgets import QLabel, QMainWindow

from app.core.device.errors import DeviceError
from app.core.device.phone_connection import PhoneConnection, open_phone

from .mirror_view import MirrorView, frame_for_view, qimage_from_rgb

log = logging.getLogger(__name__)


class MainWindow(QMainWindow):
    def __init__(self, closed: asyncio.Event):
        super().__init__()
        self.setWindowTitle("Agent Desk")
        self._closed = closed
        self.mirror = MirrorView(self)
        self.setCentralWidget(self.mirror)
        self.status = QLabel("Looking for a phone…")
        self.statusBar().addWidget(self.status, 1)
        self.fps_label = QLabel("")
        self.statusBar().addPermanentWidget(self.fps_label)
        self.connection: PhoneConnection | None = None
        self._capture_task: asyncio.Task | None = None
        self.resize(480, 960)

    async def start(self) -> None:
        try:
            self.connection = await open_phone()
        except DeviceError as exc:
            self.status.setText(str(exc))
            return
        listing = self.connection.listing
        if self.connection.is_virtual:
            self.status.setText(f"Virtual phone · {listing.serial}")
            self.status.setToolTip(self.connection.note)
        else:
            self.status.setText(f"{listing.model or 'Phone'} · {listing.serial}")
        self._capture_task = asyncio.create_task(self._capture_loop())

    async def _capture_loop(self) -> None:
        device = self.connection.device
        frames, window_start = 0, time.monotonic()
        while True:
            try:
                shot = await device.screenshot()
                data, size = await asyncio.to_thread(frame_for_view, shot.image, self.mirror.size())
            except DeviceError as exc:
                self.status.setText(f"Phone lost: {exc}")
                await asyncio.sleep(1.0)
                continue
            self.mirror.set_frame(qimage_from_rgb(data, *size))
            frames += 1
            elapsed = time.monotonic() - window_start
            if elapsed >= 1.0:
                self.fps_label.setText(f"{frames / elapsed:.1f} fps")
                frames, window_start = 0, time.monotonic()

    async def shutdown(self) -> None:
        if self._capture_task is not None:
            self._capture_task.cancel()
            try:
                await self._capture_task
            except asyncio.CancelledError:
                pass
        if self.connection is not None:
            await asyncio.to_thread(self.connection.close)

    def closeEvent(self, event) -> None:
        self._closed.set()
        super().closeEvent(event)
