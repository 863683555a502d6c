"""`agentdesk bench gui` end to end in a small configuration (in its own process: it makes its own
QApplication and qasync loop): short runs on both virtual phones, realistic at a small time scale.
Checks that every figure of the guide has its row and that values are plausible, not budgets."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

SCALE = 0.05
SCRIPT = f"""
import json, sys
from app.bench.gui_bench import run_gui_bench
from app.bench.phones import PhoneChoice
table = run_gui_bench(1, PhoneChoice(latency_scale={SCALE}), steps=4, still_seconds=1.0)
print(table.render())
json.dump(table.as_dict(), open(sys.argv[1], "w"))
"""


@pytest.fixture(scope="module")
def figures(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gui-bench")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "AGENTDESK_HOME": str(folder)}
    out = folder / "table.json"
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(out)], capture_output=True, text=True, env=env,
                          timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    table = json.loads(out.read_text())
    table["rendered"] = done.stdout
    return table


def _row(table, start):
    return next(r for r in table["rows"] if r["figure"].startswith(start))


def test_every_figure_of_the_guide_has_a_budget_row(figures):
    budgets = {r["figure"]: (r["budget"], r["at_least"]) for r in figures["rows"]}
    expected = {"longest event-loop stall in a 4-step run": (30.0, False),
                "mirror frames per second during the runs": (30.0, True),
                "per frame: decode + convert off the GUI thread": (4.0, False),
                "per frame: paint on the GUI thread": (8.0, False),
                "touch to new frame in the mirror (": (100.0, False),
                "app CPU while the screen is still (": (5.0, False),
                "mirror frames per second while the window is hidden": (0.0, False)}
    for start, budget in expected.items():
        assert [b for f, b in budgets.items() if f.startswith(start)] == [budget], start
    if any(r["figure"].endswith("(screenshots)") for r in figures["rows"]):    # the mirror still polls
        streamed = [r for r in figures["rows"] if r["figure"].endswith("streamed H.264")]
        assert len(streamed) == 4 and all(r["missing"] == "not measured yet (issue 13)" for r in streamed)
        assert figures["rendered"].count("not measured yet (issue 13)") == 8      # 4 rows x 2 phones


def test_both_phones_are_measured_with_plausible_values(figures):
    columns = figures["columns"]
    assert columns == ["quick", f"realistic x{SCALE:g}"]
    stall = _row(figures, "longest event-loop stall in a 4-step run")
    for column in columns:
        assert 0 <= stall["cells"][column]["value"] < 5000 and stall["cells"][column]["baseline"] is not None
        assert 0 < _row(figures, "mirror frames per second during the runs")["cells"][column]["value"] < 500
        assert 0 <= _row(figures, "app CPU while the screen is still")["cells"][column]["value"] <= 100 * os.cpu_count()
        assert 0 < _row(figures, "touch to new frame in the mirror (")["cells"][column]["value"] < 15_000
    assert "Runs ended: timeout (reached the limit of 4 steps)" in figures["rendered"]
