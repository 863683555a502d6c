"""`agentdesk bench gui` end to end in a small configuration (in its own process: it makes its own
QApplication and qasync loop): short runs on both virtual phones, realistic at a small time scale.
Checks that every figure of the guide has its row and that values are plausible, not budgets."""

from __future__ import annotations

import os

import pytest

from tests.support.bench_process import FIXTURE_TIMEOUT, bench_figures, figure_row

SCALE = 0.05
pytestmark = pytest.mark.timeout(FIXTURE_TIMEOUT)     # the module's first test runs the whole bench
figures = bench_figures("from app.bench.gui_bench import run_gui_bench\nfrom app.bench.phones import PhoneChoice",
                        f"run_gui_bench(1, PhoneChoice(latency_scale={SCALE}), steps=4, still_seconds=2.0)",
                        "gui-bench")


def test_every_figure_of_the_guide_has_a_budget_row(figures):
    budgets = {r["figure"]: (r["budget"], r["at_least"]) for r in figures["rows"]}
    expected = {"longest event-loop stall in a 4-step run": (30.0, False),
                "mirror frames per second while the screen changes (running stopwatch), streamed": (30.0, True),
                "per frame: decode + convert off the GUI thread (the mirror's frame_ms), streamed": (4.0, False),
                "per frame: paint on the GUI thread, streamed": (8.0, False),
                "per frame: the stream's own decode + the view's rows": (4.0, False),
                "touch to new frame in the mirror, streamed": (100.0, False),
                "app CPU while the screen is still, streamed": (5.0, False),
                "mirror frames per second while the window is hidden, streamed": (0.0, False)}
    for start, budget in expected.items():
        assert [b for f, b in budgets.items() if f.startswith(start)] == [budget], start
    assert "not measured yet" not in figures["rendered"]


def test_the_stream_and_screenshot_polling_are_measured_side_by_side(figures):
    """Every mirror figure has the stream's value and polling's as its baseline, on both phones; the
    stream sends nothing while the screen is still, polling keeps capturing."""
    columns = figures["columns"]
    side_by_side = [r for r in figures["rows"] if r["figure"].endswith(", streamed")]
    assert len(side_by_side) == 9
    for row in side_by_side:
        assert row["baseline_name"] == "screenshot polling" and not row["missing"], row["figure"]
        for column in columns:
            cell = row["cells"][column]
            assert cell["value"] >= 0 and cell["baseline"] is not None, (row["figure"], column)
    still = figure_row(figures, "mirror frames per second while the screen is still, streamed")
    changing = figure_row(figures, "mirror frames per second while the screen changes (running stopwatch), streamed")
    for column in columns:
        # at most one frame in the still window's 2 s: the status bar's clock may turn a minute in it
        assert still["cells"][column]["value"] < 0.75 and still["cells"][column]["baseline"] > 1
        assert changing["cells"][column]["value"] > 5 and changing["cells"][column]["baseline"] > 1
        assert changing["cells"][column]["ratio"] == pytest.approx(
            changing["cells"][column]["value"] / changing["cells"][column]["baseline"])
    full = figure_row(figures, "per frame: the stream's own decode at full resolution")
    assert all(full["cells"][column]["value"] > 0 for column in columns)
    assert sum("full resolution streamed 1080×2400" in note for note in figures["notes"]) == 2


def test_both_phones_are_measured_with_plausible_values(figures):
    columns = figures["columns"]
    assert columns == ["quick", f"realistic x{SCALE:g}"]
    stall = figure_row(figures, "longest event-loop stall in a 4-step run")
    for column in columns:
        value = lambda start, column=column: figure_row(figures, start)["cells"][column]["value"]     # noqa: E731
        assert 0 <= stall["cells"][column]["value"] < 5000 and stall["cells"][column]["baseline"] is not None
        assert 0 < value("mirror frames per second during the runs (scrcpy stream") < 500
        assert 0 <= value("app CPU while the screen is still") <= 100 * os.cpu_count()
        assert 0 < value("touch to new frame in the mirror") < 15_000
    assert "Runs ended: failed (Max steps reached (the limit of 4 steps))" in figures["rendered"]
