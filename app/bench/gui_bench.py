"""`agentdesk bench gui`: does the window stay responsive during a run?

The real main window runs offscreen on a qasync loop, mirroring the virtual phone (in its
own process) while 20-step auto runs go on against a loopback model. A 5 ms QTimer
measures the longest gap of the event loop (a stall) in each run; the median run is
reported, and the worst. The mirror's frame rate and the
per-frame decode and paint times are recorded. The baseline, measured in the same session,
is one more run with the agent on the GUI thread's asyncio loop instead of its own thread
(its blocking calls still in worker threads); how long one screenshot taken on the GUI
thread would stall it is printed too.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from http.server import ThreadingHTTPServer

from .agent_bench import SERIAL, _LoopbackModel
from .phone_process import virtual_phone_process
from .table import BenchTable

STALL_BUDGET_MS = 30.0
FRAME_BUDGET_MS = 8.0
RUN_STEPS = 20
RUNS = 3


class _ChangingScreenModel(_LoopbackModel):
    """Opens Settings, then goes Home, in turn: every step changes the screen, so the run is not ended as stuck."""

    replies = [json.dumps({"thought": "open Settings", "comment": "", "action": {
                   "function": "click_control", "arguments": {"control_id": 5, "control_name": "Settings"},
                   "status": "CONTINUE"}}),
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


class _OnThisLoop:
    """LoopThread's interface on the caller's own loop: the baseline runs the agent on the GUI thread."""

    def run(self, coro):
        return asyncio.ensure_future(coro)

    def call(self, function, *args) -> None:
        asyncio.get_running_loop().call_soon(function, *args)


def _bench_settings(model_url: str):
    from app.core.config import AgentSettings, ProviderSettings, Settings

    return Settings(provider=ProviderSettings(base_url=model_url, model="bench", use_tools=False),
                    agent=AgentSettings(mode="auto", max_steps=RUN_STEPS, settle_seconds=0, stuck_threshold=10,
                                        reflection=True))


async def _one_run(window, phone) -> tuple[_StallMeter, object]:
    """One 20-step auto run in the open window; the stall meter runs while it goes on."""
    from app.core.runs.service import RunRequest

    meter = _StallMeter()
    window.request.set_running(True)
    await window.controller.start(RunRequest("Benchmark: open Settings and go home", phone=phone,
                                             api_key="bench-key"))
    try:
        result = await window.controller.task
    finally:
        meter.timer.stop()
    await asyncio.sleep(0.3)       # the window settles (live controls come back) before the next run
    return meter, result


async def _baseline_run(window, port: int) -> _StallMeter:
    """The same run with the agent (and a session of its own for the phone) on the GUI thread's loop."""
    from app.core.device.adb_transport import AdbTransport
    from app.core.device.phone_session import PhoneRegistry
    from app.core.runs.service import RunService

    phones = PhoneRegistry()
    transport = AdbTransport("127.0.0.1", port)
    session = phones.open(transport, (await asyncio.to_thread(transport.list_devices))[0])
    core, service = window.controller.core, window.controller.service
    window.controller.core, window.controller.service = _OnThisLoop(), RunService(phones, lambda: window.settings)
    try:
        meter, _ = await _one_run(window, session.id)
    finally:
        window.controller.core, window.controller.service = core, service
        await phones.close()
    return meter


async def _measure(port: int, model_url: str, table: BenchTable, runs: int) -> None:
    from app.core.device.adb_transport import AdbTransport
    from app.core.device.screen_capture import decode_raw
    from app.gui.main_window import MainWindow

    os.environ["ANDROID_ADB_SERVER_PORT"] = str(port)
    closed = asyncio.Event()
    window = MainWindow(closed)
    window.resize(1360, 900)
    window.show()
    await window.start()
    for _ in range(100):                       # wait for the first frames
        if window.mirror.last_paint_ms:
            break
        await asyncio.sleep(0.05)
    # A person reads the screen before typing a request; by then the window has loaded the agent's
    # libraries in the background (openai alone is ~350 ms of imports). The runs start after that.
    await window.agent_warm_up
    frames: list[tuple[float, float]] = []
    fps: list[float] = []
    window.settings = _bench_settings(model_url)
    window.phone.fps.connect(fps.append)
    window.phone.frame_ready.connect(lambda *_: frames.append((window.phone.frame_ms, window.mirror.last_paint_ms)))
    worst_per_run, over_a_frame, results = [], [], []
    for _ in range(runs):
        meter, result = await _one_run(window, window.phone.session.id)
        worst_per_run.append(meter.worst)
        over_a_frame.append(sum(s > 16 for s in meter.stalls))
        results.append(result)
    baseline_meter = await _baseline_run(window, port)

    blocking = []
    transport = AdbTransport("127.0.0.1", port)
    for _ in range(5):
        started = time.perf_counter()
        decode_raw(transport.run(SERIAL, "exec:screencap"))
        blocking.append((time.perf_counter() - started) * 1000)
    steps = results[-1].steps_taken
    table.add(f"longest event-loop stall in a {steps}-step run (median of {runs} runs)",
              statistics.median(worst_per_run), baseline=baseline_meter.worst,
              baseline_name="agent on the GUI thread's loop", budget=STALL_BUDGET_MS)
    table.add("one screenshot taken on the GUI thread would stall it for", statistics.median(blocking))
    table.add(f"longest event-loop stall, worst of the {runs} runs", max(worst_per_run))
    table.add("event-loop stalls over 16 ms (one frame) per run", statistics.median(over_a_frame), unit="times")
    if frames:
        table.add("mirror frames per second during the runs", statistics.median(fps) if fps else 0.0, unit="fps")
        table.add("per frame: decode + shrink off the GUI thread", statistics.median(f[0] for f in frames))
        table.add("per frame: paint on the GUI thread", statistics.median(f[1] for f in frames), budget=FRAME_BUDGET_MS)
    table.notes.append("Longest stall of each run, in order: " + ", ".join(f"{w:.1f} ms" for w in worst_per_run) + ".")
    outcomes = ", ".join(sorted({f"{r.status} ({r.completion_reason})" for r in results}))
    table.notes.append(f"Runs ended: {outcomes}. The window is 1360x900, offscreen; the virtual phone runs in its "
                       "own process; the model answers after 300 ms; the agent runs on the core's loop thread; runs start once the "
                       "window has loaded the agent's libraries in the background.")
    window.close()
    started = time.perf_counter()
    try:
        await asyncio.wait_for(window.shutdown(), 10)
    except asyncio.TimeoutError:
        table.notes.append("Closing the window took longer than 10 s (shutdown did not finish).")
    else:
        table.add("closing the window (stop the run, capture, watchers)", (time.perf_counter() - started) * 1000)


def run_gui_bench(rounds: int = RUNS) -> BenchTable:
    """`rounds` 20-step runs (at most RUNS: each takes ~8 s)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("AGENTDESK_HOME", tempfile.mkdtemp(prefix="agentdesk-bench-"))
    import qasync
    from PySide6.QtWidgets import QApplication

    from app.gui.event_loop import prepare_gui_loop

    table = BenchTable("agentdesk bench gui — main window offscreen, virtual phone 1080x2400, 3 x 20-step auto runs")
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)
    http = ThreadingHTTPServer(("127.0.0.1", 0), _ChangingScreenModel)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    try:
        with virtual_phone_process() as port:
            async def main() -> None:
                prepare_gui_loop(asyncio.get_running_loop())
                await _measure(port, f"http://127.0.0.1:{http.server_address[1]}/v1", table, max(1, min(rounds, RUNS)))
            qasync.run(main())
    finally:
        http.shutdown()
    return table
