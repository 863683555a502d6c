"""`agentdesk bench map` end to end in a small configuration (in its own process: it makes its own
QApplication and qasync loop): a synthetic app of 60 screens, one opening of ours and one of the baseline.
Checks that every figure has its row and that the values are plausible, not budgets."""

from __future__ import annotations

import pytest

from tests.support.bench_process import FIXTURE_TIMEOUT, bench_figures, figure_row

SCREENS = 60
pytestmark = pytest.mark.timeout(FIXTURE_TIMEOUT)     # the module's first test runs the whole bench
figures = bench_figures("from app.bench.map_bench import run_map_bench", f"run_map_bench(1, screens={SCREENS})",
                        "map-bench")


def test_the_stall_rows_have_the_guides_budget_and_a_baseline(figures):
    for start, budget in (("longest event-loop stall while the map of 60 screens loads and draws", 30.0),
                          ("longest event-loop stall without the startup objects frozen", None)):
        row = figure_row(figures, start)
        assert row["budget"] == budget and row["baseline_name"] == "all on the GUI thread in one call"
        cell = row["cells"]["value"]
        assert 0 <= cell["value"] < 5000 and 0 < cell["baseline"] < 60_000
    assert figure_row(figures, "layout of 60 screens")["budget"] == 1000.0
    assert "agentdesk bench map" in figures["rendered"] and "ratio vs baseline" in figures["rendered"]


def test_every_screen_and_arrow_is_drawn_and_the_timings_are_plausible(figures):
    value = lambda start: figure_row(figures, start)["cells"]["value"]["value"]     # noqa: E731
    assert value("screens drawn (cards)") == SCREENS
    assert SCREENS - 1 <= value("arrows drawn (one per pair of screens)") <= 2 * SCREENS
    drawn = figure_row(figures, "time until the map is fully drawn")["cells"]["value"]
    assert 0 < drawn["value"] < 60_000 and 0 < drawn["baseline"] < 60_000
    assert 0 < value("layout of 60 screens") < 10_000
    assert 0 < value("one repaint of the whole map fitted in the window") < 5_000
    assert 0 <= value("of which: longest full garbage collection with gc.freeze off") < 5_000
    assert 0 <= value("longest full garbage collection of the process while drawing") < 5_000
    assert any(note.startswith("Longest stall of each round, ours: ") for note in figures["notes"])
