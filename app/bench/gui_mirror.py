"""The mirror's figures from GUIDE §5 and issue 13, measured in the open window for scrcpy's stream
and for screenshot polling side by side: frames per second while the screen changes (the virtual
phone's running stopwatch, which animates without end), decode + convert and paint per frame, the
app's CPU while the screen changes, is still and while the window is hidden, and how long a tap in
the mirror takes to show a new frame.

The same window measures both: `mirror.stream` is switched in its settings and the phone's frame
source restarted (`frames.settings_changed()`); each half starts once `frames.method` says the
wanted source is in use. The stream is ours, screenshot polling its baseline.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from dataclasses import dataclass, field

from app.core.device.android_device import AndroidDevice
from app.core.device.errors import DeviceError
from app.core.device.phone_frames import SCREENSHOTS, STREAM

from .phone_own_work import render_and_encode_ms, stopwatch_tick_render_ms
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
SWITCH_TIMEOUT_S = 30.0    # the stream's server starts within this (a JVM on a slow phone)
CLOCK_PACKAGE = "com.android.deskclock"
POLLING = "screenshot polling"
SETTINGS = {STREAM: "auto", SCREENSHOTS: "screenshots"}


class FrameWatch:
    """Counts the mirror's frames, notes when the picture changes (a frame unlike the one before),
    and keeps each frame's decode + convert (`phone.frame_ms`) and paint (`last_paint_ms`) times."""

    def __init__(self, window) -> None:
        self.count = 0
        self.changes: list[float] = []
        self.frame_ms: list[float] = []
        self.paint_ms: list[float] = []
        self._window = window
        self._watching_since = time.perf_counter()
        self._last = None
        self._signal = window.phone.frame_ready
        self._signal.connect(self._on_frame)

    def _on_frame(self, image, _device_size) -> None:
        self.count += 1
        self.frame_ms.append(self._window.phone.frame_ms)
        self.paint_ms.append(self._window.mirror.last_paint_ms)   # the frame before (painted since)
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


@dataclass
class MirrorFigures:
    """One frame source's figures on one phone (None: not measured, `why` says why)."""

    status: str = ""
    changing_fps: float | None = None
    changing_cpu: float | None = None
    frame_ms: float | None = None            # the GUI's decode + convert per frame
    paint_ms: float | None = None
    stream_decode_ms: float | None = None    # the stream's own: PyAV decode + the view's BGRX rows
    video_size: tuple[int, int] = (0, 0)
    still_cpu: float | None = None
    still_fps: float | None = None
    hidden_cpu: float | None = None
    hidden_fps: float | None = None
    touch_ms: float | None = None
    why: dict[str, str] = field(default_factory=dict)


async def cpu_and_frames(watch: FrameWatch, seconds: float) -> tuple[float, float]:
    """(this process's CPU as a share of one core, mirror frames per second) over `seconds`."""
    cpu0, wall0, frames0 = time.process_time(), time.perf_counter(), watch.count
    await asyncio.sleep(seconds)
    wall = time.perf_counter() - wall0
    return (time.process_time() - cpu0) / wall * 100, (watch.count - frames0) / wall


async def use_frame_source(window, method: str, max_size: int | None = None) -> str:
    """Switch the window's phone to `method` (STREAM or SCREENSHOTS), optionally at another
    mirror.max_size, and wait until its frames come from there; returns the frame source's status.
    Raises RuntimeError with the status when the stream cannot run or the switch takes too long."""
    mirror = window.settings.mirror
    mirror.stream = SETTINGS[method]
    if max_size is not None:
        mirror.max_size = max_size
    frames = window.phone.session.frames
    window.core.call(frames.settings_changed)
    deadline = time.perf_counter() + SWITCH_TIMEOUT_S
    await asyncio.sleep(0.2)                       # the old source notices the restart
    while time.perf_counter() < deadline:
        session = frames.session
        if method == STREAM and frames.streaming and (max_size is None or session.settings.max_size == max_size):
            return frames.status
        if method == SCREENSHOTS and not frames.streaming and frames.status.startswith(SCREENSHOTS):
            return frames.status
        if method == STREAM and frames.stream_refused:
            raise RuntimeError(f"the stream cannot run: {frames.stream_refused}")
        await asyncio.sleep(0.05)
    raise RuntimeError(f"the frames did not switch to {method} within {SWITCH_TIMEOUT_S:.0f} s "
                       f"(status: {frames.status})")


async def _find(device: AndroidDevice, name: str) -> tuple[int, int] | None:
    controls = (await device.controls(refresh=True)).controls
    found = next((c for c in controls if c.name == name), None)
    return found.center if found is not None else None


async def start_stopwatch(phone: BenchPhone) -> tuple[int, int]:
    """Open the virtual phone's Clock on its Stopwatch tab and start it (the screen then animates
    without end); returns where its Start/Pause button is."""
    device = AndroidDevice(phone.transport(), phone.serial)
    await device.launch_app(CLOCK_PACKAGE)
    tab = await _find(device, "Stopwatch")
    if tab is None:
        raise RuntimeError("the Clock app shows no Stopwatch tab")
    await device.tap(*tab)
    button = await _find(device, "Start")
    if button is None:
        raise RuntimeError("the Stopwatch tab shows no Start button")
    await device.tap(*button)
    return button


async def stop_stopwatch(phone: BenchPhone, button: tuple[int, int]) -> None:
    device = AndroidDevice(phone.transport(), phone.serial)
    await device.tap(*button)        # Pause
    await device.home()


async def _changing(window, phone: BenchPhone, seconds: float, figures: MirrorFigures) -> None:
    """Frames, CPU and per-frame costs while the stopwatch runs (a virtual phone only: an attached
    phone stays where its owner left it)."""
    if not phone.virtual:
        figures.why["changing"] = "not measured: needs the virtual phone's stopwatch (see the runs' figures)"
        return
    button = await start_stopwatch(phone)
    watch = FrameWatch(window)
    try:
        await asyncio.sleep(1.0)                   # the mirror catches up with the moving screen
        frames = window.phone.session.frames
        session = frames.session
        decoded0 = (session.frames_decoded, session.decode_ms_total) if session is not None else None
        first = len(watch.frame_ms)
        figures.changing_cpu, figures.changing_fps = await cpu_and_frames(watch, seconds)
        if len(watch.frame_ms) > first:
            figures.frame_ms = statistics.median(watch.frame_ms[first:])
            figures.paint_ms = statistics.median(watch.paint_ms[first:])
        if session is not None and session is frames.session and decoded0 is not None:
            count = session.frames_decoded - decoded0[0]
            if count:
                figures.stream_decode_ms = (session.decode_ms_total - decoded0[1]) / count
            figures.video_size = session.video_size
    finally:
        watch.close()
        await stop_stopwatch(phone, button)


async def _touch_to_frame(window, phone: BenchPhone, samples: int) -> tuple[list[float], str]:
    """Tap the home screen's Settings icon in the mirror and time the first changed frame; Home between.

    Returns the samples in ms, and why there are none if so."""
    device = AndroidDevice(phone.transport(), phone.serial)       # only to find where to tap
    watch = FrameWatch(window)
    try:
        await device.home()
        await watch.settled()
        target = await _find(device, "Settings")
        if target is None:
            return [], "no Settings icon on the home screen"
        times: list[float] = []
        for _ in range(samples):
            changes = len(watch.changes)
            started = time.perf_counter()
            window.phone.tap(*target)
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


async def measure_source(window, phone: BenchPhone, method: str, still_seconds: float,
                         samples: int) -> MirrorFigures:
    """Every mirror figure of one frame source, in the open window."""
    figures = MirrorFigures()
    try:
        figures.status = await use_frame_source(window, method, 1280 if method == STREAM else None)
    except RuntimeError as exc:
        figures.why["all"] = f"not measured: {exc}"
        return figures
    await _changing(window, phone, still_seconds, figures)
    watch = FrameWatch(window)
    try:
        await watch.settled()
        figures.still_cpu, figures.still_fps = await cpu_and_frames(watch, still_seconds)
        window.hide()
        figures.hidden_cpu, figures.hidden_fps = await cpu_and_frames(watch, still_seconds)
        window.show()
    finally:
        watch.close()
    times, why = await _touch_to_frame(window, phone, samples)
    if times:
        figures.touch_ms = statistics.median(times)
    else:
        figures.why["touch"] = f"not measured: {why}"
    return figures


async def full_resolution_decode(window, phone: BenchPhone, seconds: float) -> MirrorFigures:
    """The stream's own decode per frame at the phone's full resolution (mirror.max_size = 0)."""
    figures = MirrorFigures()
    try:
        figures.status = await use_frame_source(window, STREAM, 0)
        await _changing(window, phone, seconds, figures)
    except (RuntimeError, DeviceError) as exc:
        figures.why["all"] = f"not measured: {exc}"
    finally:
        window.settings.mirror.max_size = 1280
    return figures


# (figure, MirrorFigures attribute, unit, budget, at_least, which `why` key explains a gap)
SIDE_BY_SIDE = (
    ("mirror frames per second while the screen changes (running stopwatch)", "changing_fps", "fps", FPS_BUDGET,
     True, "changing"),
    ("per frame: decode + convert off the GUI thread (the mirror's frame_ms)", "frame_ms", "ms", DECODE_BUDGET_MS,
     False, "changing"),
    ("per frame: paint on the GUI thread", "paint_ms", "ms", PAINT_BUDGET_MS, False, "changing"),
    ("app CPU while the screen changes (running stopwatch)", "changing_cpu", CORE_SHARE, None, False, "changing"),
    ("app CPU while the screen is still", "still_cpu", CORE_SHARE, CPU_BUDGET_PERCENT, False, ""),
    ("mirror frames per second while the screen is still", "still_fps", "fps", None, False, ""),
    ("app CPU while the window is hidden", "hidden_cpu", CORE_SHARE, None, False, ""),
    ("mirror frames per second while the window is hidden", "hidden_fps", "fps", 0.0, False, ""),
    ("touch to new frame in the mirror", "touch_ms", "ms", TOUCH_BUDGET_MS, False, "touch"),
)


def _why(figures: MirrorFigures, key: str) -> str:
    return figures.why.get("all") or figures.why.get(key, "") or "not measured"


def put_mirror_rows(table: BenchTable, column: str, stream: MirrorFigures, polling: MirrorFigures,
                    full: MirrorFigures) -> None:
    """The stream's figures with screenshot polling's as their baseline, measured in the same window."""
    for figure, attribute, unit, budget, at_least, why_key in SIDE_BY_SIDE:
        ours, theirs = getattr(stream, attribute), getattr(polling, attribute)
        options = {"unit": unit, "budget": budget, "at_least": at_least, "baseline_name": POLLING}
        if ours is not None:
            table.put(column, figure + ", streamed", ours, theirs, **options)
        else:
            table.not_measured(figure + ", streamed", _why(stream, why_key), **options)
        if ours is None and theirs is not None:       # the stream could not run: polling's own figure stands
            table.put(column, figure + ", " + POLLING, theirs, unit=unit, budget=budget, at_least=at_least)
    decode = "per frame: the stream's own decode + the view's rows (PyAV)"
    if stream.stream_decode_ms is not None:
        width, height = stream.video_size
        table.put(column, decode, stream.stream_decode_ms, budget=DECODE_BUDGET_MS)
        table.notes.append(f"{column}: streamed {width}×{height}; {stream.status}. Polling: {polling.status}.")
    else:
        table.not_measured(decode, _why(stream, "changing"), budget=DECODE_BUDGET_MS)
    full_figure = "per frame: the stream's own decode at full resolution (mirror.max_size = 0)"
    if full.stream_decode_ms is not None:
        table.put(column, full_figure, full.stream_decode_ms)
        width, height = full.video_size
        table.notes.append(f"{column}: full resolution streamed {width}×{height}, {full.changing_fps:.1f} fps, "
                           f"GUI decode + convert {full.frame_ms or 0:.1f} ms per frame.")
    else:
        table.not_measured(full_figure, _why(full, "changing"))


async def measure_mirror(window, phone: BenchPhone, table: BenchTable, still_seconds: float, samples: int) -> None:
    """The stream and screenshot polling side by side in `phone`'s column, then the full-resolution
    stream's decode; the window ends on the stream at 1280."""
    stream = await measure_source(window, phone, STREAM, still_seconds, samples)
    polling = await measure_source(window, phone, SCREENSHOTS, still_seconds, samples)
    full = await full_resolution_decode(window, phone, still_seconds)
    put_mirror_rows(table, phone.column, stream, polling, full)
    if phone.virtual:
        own = await asyncio.to_thread(render_and_encode_ms)
        figure = "of touch to new frame: the virtual phone's own render + encode of the new screen (measured apart)"
        if own is not None:
            table.put(phone.column, figure, own)
        else:
            table.not_measured(figure, "this PyAV cannot encode H.264")
        partial_ms, whole_ms = await asyncio.to_thread(stopwatch_tick_render_ms)
        table.put(phone.column, "the virtual phone's picture of a running stopwatch's tick (repaints what changed)",
                  partial_ms, baseline=whole_ms, baseline_name="a whole picture every tick")
    try:
        await use_frame_source(window, STREAM, 1280)
    except RuntimeError:
        pass
