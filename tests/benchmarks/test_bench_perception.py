"""`agentdesk bench perception` in a small configuration: both virtual phones (realistic at a small
time scale), or one attached phone. Checks the table's structure and that figures are plausible,
not that they meet their budgets (timings are not tests)."""

from __future__ import annotations

import io

import pytest

from app.bench import perception_bench
from app.bench.corpus import NO_DENSE_SCREEN
from app.bench.perception_bench import ANNOTATE_GRID_FIGURE, SERVER_FIGURE, STEP_FIGURE, run_perception_bench
from app.bench.phones import PhoneChoice
from app.bench.table import BenchTable
from app.virtual_phone.latency import DUMP, REALISTIC_COSTS, SCREENCAP_RAW
from app.virtual_phone.phone import VirtualPhone
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
        if row.missing:                 # only the ~300-node rows, only without ../shared
            assert "~300-node screen" in row.figure and not CORPUS_DIR.is_dir() and not row.cells, row.figure
            continue
        assert set(row.cells) == set(table.columns), row.figure
    for figure in ("ADB round trip (shell echo)", RAW_FIGURE, "screenshot fetch + decode to RGB, png path",
                   DUMP_FIGURE, STEP_FIGURE):
        row = next(r for r in table.rows if r.figure.startswith(figure))
        assert row.baseline_name and all(c.baseline and c.baseline > 0 for c in row.cells.values()), figure
    step = next(r for r in table.rows if r.figure.startswith(STEP_FIGURE))
    assert step.budget == 30.0 and "plain" in step.baseline_name
    served = next(r for r in table.rows if r.figure == SERVER_FIGURE)      # the server's fetch, both phones
    assert served.budget == 300.0 and set(served.cells) == set(table.columns), served.missing
    assert all(cell.baseline == table.value(DUMP_FIGURE, column) for column, cell in served.cells.items())


def test_the_step_row_names_its_screen_and_the_images_the_default_setting_sends(table):
    from app.bench.step_work import DEFAULT_SEND

    step = next(r for r in table.rows if r.figure.startswith(STEP_FIGURE))
    on = "~300-node screen (323 nodes, 88 controls)" if CORPUS_DIR.is_dir() else "this phone's screen ("
    assert on in step.figure
    sent = next(note for note in table.notes if note.startswith("One step's app-side work makes"))
    assert f"images.send = {DEFAULT_SEND!r}" in sent
    assert "model image" in sent


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
    expected = "~300-node screen: corpus dump" if CORPUS_DIR.is_dir() else "No ~300-node screen here"
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


def test_annotating_sixty_controls_is_a_figure_with_its_budget_and_a_baseline(table):
    """Set-of-mark drawing on a full screenshot (a timing: measured here, not asserted in the unit tests)."""
    row = next(r for r in table.rows if r.figure == ANNOTATE_GRID_FIGURE)
    assert row.budget == 100.0 and row.baseline_name == "the same copy with no controls"
    assert all(cell.value > 0 and cell.baseline > 0 for cell in row.cells.values())


def test_without_the_corpus_the_300_node_rows_say_so_instead_of_measuring_another_screen(monkeypatch, tmp_path):
    monkeypatch.setenv("AGENTDESK_SHARED", str(tmp_path / "no-shared"))
    phone = VirtualPhone()
    xml = phone.dump_hierarchy()
    table = BenchTable("t", ["quick"])
    png = io.BytesIO()
    phone.screenshot().save(png, "PNG")
    perception_bench._app_side_rows("quick", None, png.getvalue(), "png", xml, 1, table)
    dense = [r for r in table.rows if "~300-node screen" in r.figure]
    assert len(dense) == 2 and all(r.missing == NO_DENSE_SCREEN and not r.cells for r in dense)
    assert "../shared" in table.render()
    own = [r for r in table.rows if "this phone's screen" in r.figure]      # parse, annotate and the step
    assert len(own) == 3 and all(r.cells["quick"].value > 0 for r in own)
    assert any(r.figure.startswith(STEP_FIGURE) for r in own)
    assert any(note.startswith("No ~300-node screen here: the step's figure is measured on this phone's screen")
               for note in table.notes)
