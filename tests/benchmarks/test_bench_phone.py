"""`agentdesk bench phone` (the fidelity table) in a small configuration, and the dump figures it uses."""

from __future__ import annotations

import csv
import re
import statistics

import pytest

from app.bench.phone_bench import SERVICES, run_phone_bench
from app.bench.phones import PhoneChoice
from app.virtual_phone.cost_sources import COST_SOURCES, source_names
from app.virtual_phone.dump_fidelity import dump_figures
from app.virtual_phone.latency import REALISTIC_COSTS
from tests.conftest import CORPUS_DIR

SCALE = 0.05


def test_the_dump_figures_agree_with_the_corpus_manifest(corpus_dir):
    """The bench's dump figures (dump_fidelity.py) against MANIFEST.tsv, written by whoever gathered
    the corpus, not by this code."""
    with open(corpus_dir / "MANIFEST.tsv", newline="") as manifest:
        rows = list(csv.DictReader(manifest, delimiter="\t"))
    assert rows
    for row in rows:
        figures = dump_figures((corpus_dir / row["file"]).read_bytes())
        assert figures.node_count == int(row["node_count"]), row["file"]
        depth = re.search(r"max_depth=(\d+)", row["notes"])
        windows = re.search(r"top_level_windows=(\d+)", row["notes"])
        if depth:
            assert figures.max_depth == int(depth[1]), row["file"]
        if windows:
            assert figures.top_level_nodes == int(windows[1]), row["file"]


@pytest.fixture(scope="module")
def report():
    return run_phone_bench(rounds=2, choice=PhoneChoice(latency_scale=SCALE))


def test_dumps_of_both_profiles_stand_next_to_the_corpus(report):
    sources = [source for source, _ in report.dump_rows]
    assert sources[-2:] == ["virtual phone, android14", "virtual phone, android9"]
    assert ("real phones (corpus)" in sources) == CORPUS_DIR.is_dir()
    for source, shapes in report.dump_rows[-2:]:
        assert len(shapes) >= 5 and all(s.node_count > 5 and s.top_level_nodes >= 1 for s in shapes), source
    rendered = report.render()
    assert "attribute order A: index text resource-id" in rendered


def test_every_service_is_timed_on_both_phones_next_to_published_figures(report):
    quick, realistic = report.columns
    for kind, label, _ in SERVICES:
        assert len(report.times[quick].samples[label]) == 2, label
        floor = REALISTIC_COSTS[kind][0] * SCALE * 1000
        assert min(report.times[realistic].samples[label]) >= floor, label
        if not label.startswith("screencap"):       # a screenshot is real work (encoding) even when quick
            assert statistics.median(report.times[quick].samples[label]) < floor, label
    rendered = report.render()
    assert f"{realistic} vs sources" in rendered
    for kind, label, _ in SERVICES:             # each row: the sources' range and their names, listed with URLs
        low, high = COST_SOURCES[kind].published
        row = next(line for line in rendered.splitlines() if line.startswith(f"| {label} "))
        assert f"{low * 1000:,.0f}–{high * 1000:,.0f} ms" in row and source_names(kind) in row, label
        for measurement in COST_SOURCES[kind].measurements:
            assert f"- {measurement.source}: {measurement.url}" in rendered, measurement.source
    assert report.as_dict()["sources"]["uiautomator dump"]["urls"]


def test_the_scroll_table_counts_pictures_while_the_finger_drags_and_none_once_still(report):
    """The stream sends pictures while the list moves; with the screen still it sends none once the first
    picture's repeats (up to 10, 100 ms apart, as a phone's encoder sends them) are over."""
    assert set(report.scroll) == set(report.columns)
    for figures in report.scroll.values():
        assert figures.still == 0.0, "pictures with nothing changing: the repeats were counted, or frames leak"
        assert figures.dragging > 5, "no pictures while the finger dragged the list"
