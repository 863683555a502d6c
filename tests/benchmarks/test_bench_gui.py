"""`agentdesk bench gui` runs end to end (in its own process: it makes its own QApplication and qasync
loop) and reports every figure. Values are not asserted: timings are not tests."""

from __future__ import annotations

import os
import subprocess
import sys


def test_gui_bench_reports_all_figures(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "AGENTDESK_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "app.cli", "bench", "gui", "--rounds", "1"],
                          capture_output=True, text=True, env=env, timeout=110)
    assert done.returncode in (0, 1), done.stderr[-2000:]      # 1: a figure over its budget on a busy machine
    out = done.stdout
    for figure in ("longest event-loop stall in a 20-step run (median of 1 runs)",
                   "agent on the GUI thread's loop", "mirror frames per second during the runs",
                   "per frame: paint on the GUI thread", "closing the window"):
        assert figure in out, out
    assert "Runs ended: timeout (reached the limit of 20 steps)" in out     # all 20 steps ran
