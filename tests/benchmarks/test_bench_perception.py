"""`agentdesk bench perception` in a small configuration: both virtual phones (realistic at a small
time scale), or one attached phone. Checks the table's structure and that figures are plausible,
not that they meet their budgets (timings are not tests)."""

from __future__ import annotations

import pytest

from app.bench.perception_bench import STEP_FIGURE, run_perception_bench
from app.bench.phones import PhoneChoice
from app.virtual_phone.latency import DUMP, REALISTIC_COSTS, SCREENCAP_RAW
from tests.conftest import CORPUS_DIR

SCALE = 0.05
DUMP_FIGURE = "hierarchy fetch (uiautomator dump, then read the XML)"
RAW_FIGURE = "screenshot fetch + decode to RGB, raw path"


@pytest.fixture(scope="module")
def table():
    return run_perception_bench(rounds=1, choice=PhoneChoice(latency_scale=SCALE))


def test_every_figure_is_measured_on_both_phones_against_a_baseline(table):
    assert table.columns == ["quick", f"realistic x{SCALE:g}"]
    for row in table.rows:
        assert set(row.cells) == set(table.columns), row.figure
    for figure in ("ADB round trip (shell echo)", RAW_FIGURE, "screenshot fetch + decode to RGB, png path",
                   DUMP_FIGURE, STEP_FIGURE):
        row = next(r for r in table.rows if r.figure == figure)
        assert row.baseline_name and all(c.baseline and c.baseline > 0 for c in row.cells.values()), figure
    step = next(r for r in table.rows if r.figure == STEP_FIGURE)
    assert step.budget == 30.0 and "plain" in step.baseline_name


def test_the_realistic_phone_costs_what_its_profile_says_and_the_quick_one_does_not(table):
    quick, realistic = table.columns
    dump_floor = REALISTIC_COSTS[DUMP][0] * SCALE * 1000
    assert table.value(DUMP_FIGURE, realistic) >= dump_floor > table.value(DUMP_FIGURE, quick)
    assert table.value(RAW_FIGURE, realistic) >= REALISTIC_COSTS[SCREENCAP_RAW][0] * SCALE * 1000
    # The dump's ratio against adbutils shrinks when the phone's own dump time dominates.
    dump = next(r for r in table.rows if r.figure == DUMP_FIGURE)
    assert dump.ratio(realistic) < dump.ratio(quick)


def test_the_dense_screen_is_named_and_the_table_renders_one_line_per_figure(table):
    rendered = table.render()
    assert rendered.count("\n|") == len(table.rows) + 2     # header, rule, one line per figure
    expected = "~300-node screen: corpus dump" if CORPUS_DIR.is_dir() else "~300-node screen: this phone's screen"
    assert expected in rendered
    assert any(r.figure.startswith("parse + select, corpus median") for r in table.rows) == CORPUS_DIR.is_dir()


def test_an_attached_phone_replaces_the_virtual_ones(virtual_adb):
    serial = virtual_adb.devices[0].serial
    table = run_perception_bench(rounds=1, choice=PhoneChoice(device=serial))
    assert table.columns == [f"phone {serial}"]
    assert all(set(r.cells) == {f"phone {serial}"} for r in table.rows)
    assert any(service.startswith("shell:echo") for service in virtual_adb.devices[0].services)


def test_a_phone_that_is_not_attached_is_named_with_the_ones_that_are(virtual_adb):
    with pytest.raises(SystemExit, match="phone nope is not attached.*emulator-5554"):
        run_perception_bench(rounds=1, choice=PhoneChoice(device="nope"))
