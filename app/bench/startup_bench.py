"""`agentdesk bench startup`: how big is the bundle, and how soon is the window up?

Start-to-window is measured from outside, as a person waits for it: from launching the
process to the moment it prints that its main window is shown and painted (the app does so,
then exits, when AGENTDESK_STARTUP_PROBE is set). Both the source checkout (`python -m app`)
and the PyInstaller bundle are timed, on Qt's offscreen platform, each with a fresh
AGENTDESK_HOME. The baseline, measured in the same run, is a bare PySide6 window: the least
any Qt app pays.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

from app.__main__ import STARTUP_PROBE, WINDOW_SHOWN

from .table import BenchTable
from .timing import interleaved_values

SIZE_BUDGET_MB = 150.0
STARTUP_RUNS = 5
TIMEOUT_S = 60.0
COLUMN = "this machine"
BARE_QT_WINDOW = (f"import sys; from PySide6.QtWidgets import QApplication, QMainWindow; "
                  f"app = QApplication(sys.argv); w = QMainWindow(); w.resize(1440, 920); w.show(); "
                  f"app.processEvents(); print({WINDOW_SHOWN!r}, flush=True)")


def default_bundle() -> Path:
    """Where `pyinstaller build.spec` leaves the executable, from the current folder."""
    name = "AgentDesk.exe" if sys.platform == "win32" else "AgentDesk"
    return Path("dist") / "AgentDesk" / name


def folder_size_mb(folder: Path) -> float:
    total = 0
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink():
            total += path.stat().st_size
    return total / 1e6


def time_to_window_ms(command: list[str]) -> float:
    """Launch `command` and return the milliseconds until it says its window is shown."""
    with tempfile.TemporaryDirectory(prefix="agentdesk-startup-") as home:
        return _time_to_window_ms(command, {**os.environ, STARTUP_PROBE: "1", "QT_QPA_PLATFORM": "offscreen",
                                            "AGENTDESK_HOME": home})


def _time_to_window_ms(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
    assert process.stdout is not None, "stdout=PIPE"
    try:
        for line in process.stdout:
            if WINDOW_SHOWN in line:
                return (time.perf_counter() - started) * 1000
            if time.perf_counter() - started > TIMEOUT_S:
                break
    finally:
        process.stdout.close()
        try:
            process.wait(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
    raise RuntimeError(f"{' '.join(command)} exited (status {process.returncode}) without showing its window")


def run_startup_bench(rounds: int = STARTUP_RUNS, bundle: str | None = None) -> BenchTable:
    runs = max(1, min(rounds, STARTUP_RUNS))
    table = BenchTable(f"agentdesk bench startup — time to a shown window (median of {runs} interleaved launches, "
                       "offscreen) and the bundle's size; no phone involved", [COLUMN])
    executable = Path(bundle) if bundle else default_bundle()
    commands = {"bare": [sys.executable, "-c", BARE_QT_WINDOW], "source": [sys.executable, "-m", "app"]}
    if executable.is_file():
        commands["bundle"] = [str(executable)]
    # The first launch of each (not counted) warms the disk cache, as on a second launch.
    started = interleaved_values({name: partial(time_to_window_ms, command) for name, command in commands.items()},
                                 runs)
    table.put(COLUMN, "start to shown window, from source", started["source"], started["bare"],
              baseline_name="a bare PySide6 window")
    if "bundle" in started:
        table.put(COLUMN, "start to shown window, from the bundle", started["bundle"], started["source"],
                  baseline_name="from source")
        folder = executable.parent
        table.put(COLUMN, f"bundle size unpacked ({folder})", folder_size_mb(folder), unit="MB", budget=SIZE_BUDGET_MB)
        table.notes.append(f"Bundle: {executable.resolve()}, {sum(1 for p in folder.rglob('*') if p.is_file())} "
                           "files.")
    else:
        table.notes.append(f"No bundle at {executable}: build one with `pyinstaller build.spec` "
                           "(or pass --bundle PATH) to time it and measure its size.")
    table.notes.append("Each launch uses a fresh AGENTDESK_HOME; launches of each kind take turns; the first of "
                       "each kind is not counted (it warms the disk cache).")
    return table
