"""`agentdesk bench gui`: does the window stay responsive during a run?

The real main window runs offscreen on a qasync loop, mirroring the virtual phone (in its
own process) while a 20-step auto run goes on against a loopback model. A 5 ms QTimer
measures the longest gap of the event loop (a stall); the mirror's frame rate and the
per-frame decode and paint times are recorded. The baseline, measured in the same run,
is what one screenshot taken on the GUI thread would stall the loop for.
"""

from __future__ import annotations

import asyncio
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


async def _measure(port: int, model_url: str, table: BenchTable) -> None:
    from app.core.config import AgentSettings, ProviderSettings, Settings
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
    frames: list[tuple[float, float]] = []
    fps: list[float] = []
    window.phone.fps.connect(fps.append)
    window.phone.frame_ready.connect(lambda *_: frames.append((window.phone.frame_ms, window.mirror.last_paint_ms)))
    meter = _StallMeter()
    settings = Settings(provider=ProviderSettings(base_url=model_url, model="bench", use_tools=False),
                        agent=AgentSettings(mode="auto", max_steps=RUN_STEPS, settle_seconds=0, stuck_threshold=10,
                                            reflection=True))
    window.controller.start("Benchmark: look at the screen", window.phone.device, settings, "bench-key")
    window.request.set_running(True)
    result = await window.controller.task
    meter.timer.stop()

    blocking = []
    transport = AdbTransport("127.0.0.1", port)
    for _ in range(5):
        started = time.perf_counter()
        decode_raw(transport.run(SERIAL, "exec:screencap"))
        blocking.append((time.perf_counter() - started) * 1000)
    table.add(f"longest event-loop stall during a {result.steps_taken}-step run", meter.worst,
              baseline=statistics.median(blocking), baseline_name="one screenshot on the GUI thread",
              budget=STALL_BUDGET_MS)
    table.add("event-loop stalls over 16 ms (one frame)", float(sum(s > 16 for s in meter.stalls)), unit="times")
    if frames:
        table.add("mirror frames per second during the run", statistics.median(fps) if fps else 0.0, unit="fps")
        table.add("per frame: decode + shrink off the GUI thread", statistics.median(f[0] for f in frames))
        table.add("per frame: paint on the GUI thread", statistics.median(f[1] for f in frames), budget=FRAME_BUDGET_MS)
    table.notes.append(f"Run result: {result.status} ({result.completion_reason}). The window is 1360x900, offscreen; "
                       "the virtual phone runs in its own process; the model answers after 300 ms.")
    window.close()
    started = time.perf_counter()
    try:
        await asyncio.wait_for(window.shutdown(), 10)
    except asyncio.TimeoutError:
        table.notes.append("Closing the window took longer than 10 s (shutdown did not finish).")
    else:
        table.add("closing the window (stop the run, capture, watchers)", (time.perf_counter() - started) * 1000)


def run_gui_bench(rounds: int = 1) -> BenchTable:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("AGENTDESK_HOME", tempfile.mkdtemp(prefix="agentdesk-bench-"))
    import qasync
    from PySide6.QtWidgets import QApplication

    from app.gui.event_loop import use_plain_worker_threads

    table = BenchTable("agentdesk bench gui — main window offscreen, virtual phone 1080x2400, 20-step auto run")
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)
    http = ThreadingHTTPServer(("127.0.0.1", 0), _LoopbackModel)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    try:
        with virtual_phone_process() as port:
            async def main() -> None:
                use_plain_worker_threads(asyncio.get_running_loop())
                await _measure(port, f"http://127.0.0.1:{http.server_address[1]}/v1", table)
            qasync.run(main())
    finally:
        http.shutdown()
    return table
