"""`agentdesk bench perception` runs and reports every figure (values are not asserted: timings are not tests)."""

from __future__ import annotations

from app.bench.perception_bench import run_perception_bench
from tests.conftest import CORPUS_DIR


def test_perception_bench_reports_all_figures():
    table = run_perception_bench(rounds=1)
    figures = [row.figure for row in table.rows]
    for expected in ("screenshot fetch+decode, raw path", "screenshot fetch+decode, PNG path",
                     "hierarchy fetch (uiautomator dump)", "annotate, full size 1080x2400",
                     "one data-collection step, app-side total"):
        assert expected in figures
    # The corpus figures need the shared corpus (a fresh clone has none: the bench leaves them out).
    assert any(f.startswith("parse+select, corpus median") for f in figures) == CORPUS_DIR.is_dir()
    step = next(r for r in table.rows if r.figure == "one data-collection step, app-side total")
    assert step.budget == 30.0 and step.baseline is not None and step.value > 0
    rendered = table.render()
    assert rendered.count("\n|") == len(table.rows) + 2     # header, rule, one line per figure
    assert "PNG path / raw path" in rendered
