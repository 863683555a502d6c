"""`agentdesk bench gui`: does the window stay responsive during a run, and what does the mirror cost?

The real main window runs offscreen on a qasync loop, mirroring each phone (the quick and the
realistic virtual phone, each in its own process, or an attached one) while 20-step auto runs
go on against a loopback model. A 5 ms QTimer measures the longest gap of the event loop (a
stall) in each run. The baseline is the same run with the agent on the GUI thread's asyncio
loop instead of its own thread (its blocking calls still in worker threads); ours and the
baseline alternate, the same number of runs each; the mirror streams during them (scrcpy).
The mirror's figures (frame rate while the screen changes, decode and paint per frame, CPU
while changing, still and hidden, touch to new frame) come from the same window afterwards,
for the stream and for screenshot polling side by side; see gui_mirror.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import statistics
import sys
import time
from typing import TYPE_CHECKING

from .agent_bench import _LoopbackModel, bench_home, loopback_model
from .gui_mirror import FRAME_TIMEOUT_S, STREAM, measure_mirror, use_frame_source
from .phones import DEFAULT_CHOICE, BenchPhone, PhoneChoice, adb_server_for, each_phone
from .table import BenchTable

if TYPE_CHECKING:
    from app.core.agent.records import RunResult

STALL_BUDGET_MS = 30.0
RUN_STEPS = 20
RUNS = 3
STILL_SECONDS = 3.0
TOUCH_SAMPLES = 5


class _RecentsAndHome(_LoopbackModel):
    """Opens Recents, then goes Home, in turn: every step changes the screen (so the run is not ended
    as stuck), and nothing it does harms an attached phone."""

    replies = [json.dumps({"thought": "open recents", "comment": "", "action": {
                   "function": "press_key", "arguments": {"key_code": "APP_SWITCH"}, "status": "CONTINUE"}}),
               json.dumps({"thought": "go home", "comment": "", "action": {
                   "function": "press_key", "arguments": {"key_code": "HOME"}, "status": "CONTINUE"}})]


class _StallMeter:
    """A QTimer every `interval` ms; a stall is how much later than due a tick arrives."""

    def __init__(self, interval_ms: int = 5):
        from PySide6.QtCore import QTimer

        self.interval = interval_ms
        self.worst = 0.0
        self.stalls: list[float] = []
        self._last = time.perf_counter()
        self.timer = QTimer()
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._tick)
        self.timer.start()

    def _tick(self) -> None:
        now = time.perf_counter()
        late = (now - self._last) * 1000 - self.interval
        self._last = now
        self.stalls.append(late)
        self.worst = max(self.worst, late)

    @property
    def over_a_frame(self) -> int:
        return sum(s > 16 for s in self.stalls)


class _OnThisLoop:
    """LoopThread's interface on the caller's own loop: the baseline runs the agent on the GUI thread."""

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return asyncio.get_event_loop()

    def run(self, coro):
        return asyncio.ensure_future(coro)

    def call(self, function, *args) -> None:
        asyncio.get_running_loop().call_soon(function, *args)


def _bench_settings(model_url: str, steps: int):
    from app.core.config import AgentSettings, ProviderSettings, Settings

    return Settings(provider=ProviderSettings(base_url=model_url, model="bench", use_tools=False),
                    agent=AgentSettings(mode="auto", max_steps=steps, settle_seconds=0, stuck_threshold=10,
                                        reflection=True))


async def _one_run(window, phone_id) -> tuple[_StallMeter, RunResult]:
    """One auto run in the open window; the stall meter runs while it goes on."""
    from app.core.runs.service import RunRequest

    meter = _StallMeter()
    window.request.set_running(True)
    await window.controller.start(RunRequest("Benchmark: open recents and go home", phone=phone_id,
                                             api_key="bench-key"))
    try:
        result = await window.controller.task
    finally:
        meter.timer.stop()
    await asyncio.sleep(0.3)       # the window settles (live controls come back) before the next run
    return meter, result


async def _baseline_run(window, phone: BenchPhone) -> _StallMeter:
    """The same run with the agent (and a session of its own for the phone) on the GUI thread's loop."""
    from app.desk import Desk

    baseline = Desk(window.settings, virtual=False, bad_servers_noted=True)   # its run service on this loop
    transport = phone.transport()
    listing = next(d for d in await asyncio.to_thread(transport.list_devices) if d.serial == phone.serial)
    session = baseline.phones.open(transport, listing)
    core, service = window.controller.core, window.controller.service
    window.controller.core, window.controller.service = _OnThisLoop(), baseline.service
    try:
        meter, _ = await _one_run(window, session.id)
    finally:
        window.controller.core, window.controller.service = core, service
        await baseline.close()
    return meter


async def _open_window(phone: BenchPhone):
    from app.gui.event_loop import keep_startup_objects_out_of_collections
    from app.gui.main_window import MainWindow
    from app.gui.phones.device_panel import DeviceEntry

    window = MainWindow(asyncio.Event())
    window.resize(1360, 900)
    window.show()
    await window.start()
    keep_startup_objects_out_of_collections()          # as the app does once its window has started
    session = window.phone.session
    if session is None or session.serial != phone.serial:       # --device on a server with several phones
        window.phone.choose(DeviceEntry(f"{phone.host}:{phone.port}", phone.serial, "", "connected", True))
    deadline = time.perf_counter() + FRAME_TIMEOUT_S
    while time.perf_counter() < deadline and not (window.mirror.last_paint_ms and window.phone.session
                                                   and window.phone.session.serial == phone.serial):
        await asyncio.sleep(0.05)
    # A person reads the screen before typing a request; by then the window has loaded the agent's
    # libraries in the background (openai alone is ~350 ms of imports). The runs start after that.
    await window.agent_warm_up
    return window


async def _runs(window, phone: BenchPhone, model_url: str, runs: int, steps: int, table: BenchTable) -> None:
    column = phone.column
    frames: list[tuple[float, float]] = []
    fps: list[float] = []
    window.settings = _bench_settings(model_url, steps)
    window.phone.fps.connect(fps.append)
    on_frame = lambda *_: frames.append((window.phone.frame_ms, window.mirror.last_paint_ms))  # noqa: E731
    window.phone.frame_ready.connect(on_frame)
    ours, baseline, results = [], [], []
    for index in range(runs):
        for kind in (("ours", "baseline") if index % 2 == 0 else ("baseline", "ours")):
            if kind == "ours":
                meter, result = await _one_run(window, window.phone.session.id)
                ours.append(meter)
                results.append(result)
            else:
                baseline.append(await _baseline_run(window, phone))
    window.phone.frame_ready.disconnect(on_frame)
    window.phone.fps.disconnect(fps.append)

    median = statistics.median
    table.put(column, f"longest event-loop stall in a {steps}-step run (median of runs)",
              median(m.worst for m in ours), median(m.worst for m in baseline),
              baseline_name="agent on the GUI thread's loop", budget=STALL_BUDGET_MS)
    table.put(column, "longest event-loop stall, worst run", max(m.worst for m in ours),
              max(m.worst for m in baseline), baseline_name="agent on the GUI thread's loop")
    table.put(column, "event-loop stalls over 16 ms (one frame) per run", median(m.over_a_frame for m in ours),
              median(m.over_a_frame for m in baseline), unit="times", baseline_name="agent on the GUI thread's loop")
    method = window.phone.session.frames.method
    if fps:      # the screen moves only around each action, so this is no measure of the mirror's pace
        table.put(column, f"mirror frames per second during the runs ({method}, idle gaps included)", median(fps),
                  unit="fps")
    if frames:
        table.put(column, f"per frame during the runs: decode + convert off the GUI thread ({method})",
                  median(f[0] for f in frames))
        table.put(column, f"per frame during the runs: paint on the GUI thread ({method})",
                  median(f[1] for f in frames))
    table.notes.append(f"{column}: longest stall of each run, ours: " + ", ".join(f"{m.worst:.1f}" for m in ours)
                       + " ms; baseline: " + ", ".join(f"{m.worst:.1f}" for m in baseline) + " ms. Runs ended: "
                       + ", ".join(sorted({f"{r.status} ({r.completion_reason})" for r in results})) + ".")


def _blocking_screenshot_ms(phone: BenchPhone) -> float:
    from app.core.device.screen_capture import decode_raw

    transport, samples = phone.transport(), []
    for _ in range(5):
        started = time.perf_counter()
        decode_raw(transport.run(phone.serial, "exec:screencap"))
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


async def _measure(phone: BenchPhone, model_url: str, table: BenchTable, runs: int, steps: int,
                   still_seconds: float) -> None:
    window = await _open_window(phone)
    try:
        try:                 # the runs go on with the app's default frame source, the stream where it runs
            await use_frame_source(window, STREAM, 1280)
        except RuntimeError as exc:
            table.notes.append(f"{phone.column}: the runs poll screenshots: {exc}")
        await _runs(window, phone, model_url, runs, steps, table)
        table.put(phone.column, "one screenshot taken on the GUI thread would stall it for",
                  _blocking_screenshot_ms(phone))
        await measure_mirror(window, phone, table, still_seconds, TOUCH_SAMPLES)
    finally:
        window.close()
        started = time.perf_counter()
        try:
            await asyncio.wait_for(window.shutdown(), 10)
        except TimeoutError:
            table.notes.append(f"{phone.column}: closing the window took longer than 10 s.")
        else:
            table.put(phone.column, "closing the window (stop the run, capture, watchers)",
                      (time.perf_counter() - started) * 1000)


def run_gui_bench(rounds: int = RUNS, choice: PhoneChoice = DEFAULT_CHOICE, steps: int = RUN_STEPS,
                  still_seconds: float = STILL_SECONDS) -> BenchTable:
    """`rounds` runs of `steps` steps each for ours and for the baseline, on each phone."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import qasync
    from PySide6.QtWidgets import QApplication

    from app.gui.event_loop import prepare_gui_loop

    runs = max(1, rounds)
    table = BenchTable(f"agentdesk bench gui — main window 1360x900 offscreen, {choice.describe()}, "
                       f"{runs} + {runs} interleaved {steps}-step auto runs", choice.columns)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication), "the window needs a QApplication, not a QCoreApplication"
    app.setQuitOnLastWindowClosed(False)
    with bench_home(), loopback_model(_RecentsAndHome) as model_url:
        with contextlib.closing(each_phone(choice)) as phones:
            for phone in phones:
                with adb_server_for(phone):
                    async def main(phone: BenchPhone) -> None:
                        prepare_gui_loop(asyncio.get_running_loop())
                        await _measure(phone, model_url, table, runs, steps, still_seconds)
                    qasync.run(main(phone))
    table.notes.append("The model answers after 300 ms and opens Recents, then Home, in turn; the agent runs on the "
                       "core's loop thread; runs start once the window has loaded the agent's libraries. CPU is this "
                       f"process's (the phone runs in its own), over {still_seconds:g} s.")
    return table
