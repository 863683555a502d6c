"""The mirror's figures from GUIDE §5, measured in the open window: the app's CPU while the screen is
still and while the window is hidden, and how long a tap in the mirror takes to show a new frame.

The mirror today polls screenshots (`ScreenshotPolling`); the guide's figures are for the
streamed H.264 mirror of issue 13. Figures are labelled with the frame source in use, and the
stream's own rows say "not measured yet" until a stream is there to measure.
"""

from __future__ import annotations

import asyncio
import statistics
import time

from app.core.device.android_device import AndroidDevice

from .phones import BenchPhone
from .table import BenchTable

CPU_BUDGET_PERCENT = 5.0
TOUCH_BUDGET_MS = 100.0
FPS_BUDGET = 30.0
DECODE_BUDGET_MS = 4.0
PAINT_BUDGET_MS = 8.0
CORE_SHARE = "% of a core"
QUIET_SECONDS = 1.0        # a screen with no new picture for this long has settled
FRAME_TIMEOUT_S = 15.0
NOT_YET = "not measured yet (issue 13)"
STREAM_ROWS = (("mirror frames per second while the screen changes, streamed H.264", "fps", FPS_BUDGET, True),
               ("per frame: decode + convert, streamed H.264", "ms", DECODE_BUDGET_MS, False),
               ("app CPU while the screen is still, streamed H.264", CORE_SHARE, CPU_BUDGET_PERCENT, False),
               ("touch to new frame in the mirror, streamed H.264", "ms", TOUCH_BUDGET_MS, False))


class FrameWatch:
    """Counts the mirror's frames and notes when the picture changes (a frame unlike the one before)."""

    def __init__(self, phone_view) -> None:
        self.count = 0
        self.changes: list[float] = []
        self._watching_since = time.perf_counter()
        self._last = None
        self._signal = phone_view.frame_ready
        self._signal.connect(self._on_frame)

    def _on_frame(self, image, _device_size) -> None:
        self.count += 1
        if self._last is not None and image != self._last:
            self.changes.append(time.perf_counter())
        self._last = image

    async def settled(self) -> None:
        """Wait until the picture has not changed for QUIET_SECONDS (at most FRAME_TIMEOUT_S)."""
        deadline = time.perf_counter() + FRAME_TIMEOUT_S
        while time.perf_counter() < deadline:
            last_change = self.changes[-1] if self.changes else self._watching_since
            if time.perf_counter() - last_change >= QUIET_SECONDS:
                return
            await asyncio.sleep(0.1)

    async def next_change(self, after: int) -> float | None:
        """When the picture changed for the first time after the `after`-th change; None on timeout."""
        deadline = time.perf_counter() + FRAME_TIMEOUT_S
        while len(self.changes) <= after:
            if time.perf_counter() > deadline:
                return None
            await asyncio.sleep(0.005)
        return self.changes[after]

    def close(self) -> None:
        self._signal.disconnect(self._on_frame)


async def cpu_and_frames(watch: FrameWatch, seconds: float) -> tuple[float, float]:
    """(this process's CPU as a share of one core, mirror frames per second) over `seconds`."""
    cpu0, wall0, frames0 = time.process_time(), time.perf_counter(), watch.count
    await asyncio.sleep(seconds)
    wall = time.perf_counter() - wall0
    return (time.process_time() - cpu0) / wall * 100, (watch.count - frames0) / wall


async def touch_to_frame(window, phone: BenchPhone, samples: int) -> tuple[list[float], str]:
    """Tap the home screen's Settings icon in the mirror and time the first changed frame; Home between.

    Returns the samples in ms, and why there are none if so."""
    device = AndroidDevice(phone.transport(), phone.serial)       # only to find where to tap
    watch = FrameWatch(window.phone)
    try:
        await device.home()
        await watch.settled()
        target = next((c for c in (await device.controls(refresh=True)).controls if c.name == "Settings"), None)
        if target is None:
            return [], "no Settings icon on the home screen"
        times = []
        for _ in range(samples):
            changes = len(watch.changes)
            started = time.perf_counter()
            window.phone.tap(*target.center)
            shown = await watch.next_change(changes)
            if shown is None:
                return times, f"no new frame within {FRAME_TIMEOUT_S:.0f} s of a tap"
            times.append((shown - started) * 1000)
            await watch.settled()
            window.phone.press_key("HOME")
            await asyncio.sleep(QUIET_SECONDS)
            await watch.settled()
        return times, ""
    finally:
        watch.close()


async def measure_mirror(window, phone: BenchPhone, table: BenchTable, still_seconds: float, samples: int) -> None:
    """Still, hidden and touch figures for `phone`'s column, in the open window."""
    column = phone.column
    method = window.phone.session.frames.method
    watch = FrameWatch(window.phone)
    try:
        await watch.settled()
        cpu, fps = await cpu_and_frames(watch, still_seconds)
        table.put(column, f"app CPU while the screen is still ({method})", cpu, unit=CORE_SHARE,
                  budget=CPU_BUDGET_PERCENT)
        table.put(column, f"mirror frames per second while the screen is still ({method})", fps, unit="fps")
        window.hide()
        cpu, fps = await cpu_and_frames(watch, still_seconds)
        window.show()
        table.put(column, "mirror frames per second while the window is hidden", fps, unit="fps", budget=0.0)
        table.put(column, "app CPU while the window is hidden", cpu, unit=CORE_SHARE)
    finally:
        watch.close()
    times, why = await touch_to_frame(window, phone, samples)
    figure = f"touch to new frame in the mirror ({method})"
    if times:
        table.put(column, figure, statistics.median(times), budget=TOUCH_BUDGET_MS)
    else:
        table.not_measured(figure, f"not measured: {why}", budget=TOUCH_BUDGET_MS)
    if method == "screenshots":
        for figure, unit, budget, at_least in STREAM_ROWS:
            table.not_measured(figure, NOT_YET, unit=unit, budget=budget, at_least=at_least)
