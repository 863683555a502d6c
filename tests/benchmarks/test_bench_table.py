"""The benchmark table and timing helpers: budgets, ratios, unmeasured rows, interleaving."""

from __future__ import annotations

import pytest

from app.bench.table import BenchTable
from app.bench.timing import interleaved_ms, interleaved_values


def test_a_ceiling_budget_marks_each_column_and_the_ratio_is_baseline_over_ours():
    table = BenchTable("t", ["quick", "realistic"])
    table.put("quick", "dump", 10.0, 20.0, budget=15.0, baseline_name="adbutils")
    table.put("realistic", "dump", 1000.0, 1100.0)
    row = table.rows[0]
    assert row.ratio("quick") == 2.0 and row.ratio("realistic") == pytest.approx(1.1)
    assert row.ok("quick") and not row.ok("realistic") and not table.within_budget()
    line = next(text for text in table.render().splitlines() if text.startswith("| dump"))
    assert "10.0 ms ok" in line and "1,000.0 ms OVER" in line
    assert "adbutils: 20.0 / 1,100.0 ms" in line and "2.00x / 1.10x" in line


def test_a_floor_budget_is_met_from_above_and_its_ratio_is_ours_over_baseline():
    table = BenchTable("t", ["quick"])
    row = table.put("quick", "fps", 45.0, 15.0, unit="fps", budget=30.0, at_least=True)
    assert row.ok("quick") and row.ratio("quick") == 3.0 and row.budget_text() == ">= 30.0 fps"
    table.put("quick", "fps", 20.0, 15.0)
    assert not table.within_budget()


def test_a_figure_not_measured_yet_is_printed_with_its_budget_and_does_not_fail_the_table():
    table = BenchTable("t", ["quick", "realistic"])
    table.not_measured("decode, streamed H.264", "not measured yet (issue 13)", budget=4.0)
    line = table.render().splitlines()[4]
    assert line.count("not measured yet (issue 13)") == 2 and "<= 4.0 ms" in line
    assert table.within_budget()


def test_a_column_the_table_does_not_have_is_refused():
    with pytest.raises(ValueError, match="not a column"):
        BenchTable("t", ["quick"]).put("realistic", "x", 1.0)


def test_the_table_renders_one_line_per_row_and_keeps_first_seen_order():
    table = BenchTable("t", ["a", "b"])
    table.put("a", "first", 1.0)
    table.put("a", "second", 2.0)
    table.put("b", "first", 3.0)
    lines = [line for line in table.render().splitlines() if line.startswith("| ")]
    assert [line.split("|")[1].strip() for line in lines] == ["figure", "first", "second"]
    assert table.as_dict()["rows"][0]["cells"]["b"]["value"] == 3.0


def test_interleaving_gives_each_side_the_same_runs_and_changes_who_goes_first():
    calls = []
    result = interleaved_values({"ours": lambda: calls.append("o") or 1.0,
                                 "base": lambda: calls.append("b") or 3.0}, rounds=4, warmup=1)
    assert result == {"ours": 1.0, "base": 3.0}
    assert calls.count("o") == calls.count("b") == 5
    assert calls[2:] == ["o", "b", "b", "o", "o", "b", "b", "o"]


def test_interleaved_ms_measures_time():
    import time

    result = interleaved_ms({"slow": lambda: time.sleep(0.02), "fast": lambda: None}, rounds=2, warmup=0)
    assert result["slow"] >= 19 and result["fast"] < result["slow"]
