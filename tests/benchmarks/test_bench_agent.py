"""`agentdesk bench agent` in a small configuration: real agent runs on both virtual phones (realistic
at a small time scale). Checks structure and plausibility, not budgets."""

from __future__ import annotations

import re

import pytest

from app.bench.agent_bench import MODEL_LATENCY_S, run_agent_bench
from app.bench.moving_steps import DROIDRUN_FIXED_WAIT, DROIDRUN_NAME, TODAYS_FIXED_WAIT
from app.bench.phones import PhoneChoice
from app.bench.prompt_size import tools_as_sent
from app.core.agent.prompts import PromptBuilder
from app.core.config import AgentSettings, Settings
from app.virtual_phone.latency import DUMP, INPUT, REALISTIC_COSTS, SCREENCAP_RAW
from tests.conftest import CORPUS_DIR

SCALE = 0.05
WALL = "one step in a run, wall time (phone, model and app)"
PROMPT = "prompt incl. system message, ~300-node screen"
PHONE_PROMPT = "prompt incl. system message, this phone's screen"
DENSE_STEP = "app-side work of one step, ~300-node screen (decode to prompt)"
SETTLE = "wait after an action for the screen to settle"
SETTLE_WALL = "one step whose action moves the screen, wall time"


@pytest.fixture(scope="module")
def table():
    return run_agent_bench(rounds=2, choice=PhoneChoice(latency_scale=SCALE))


def test_overhead_and_step_figures_have_a_like_for_like_baseline_on_both_phones(table):
    assert table.columns == ["quick", f"realistic x{SCALE:g}"]
    figures = ["app-side work of one step, this phone's screen (decode to prompt)",
               "in-run overhead of one step (all but phone and model time)", WALL]
    dense = next(r for r in table.rows if r.figure == DENSE_STEP)
    if CORPUS_DIR.is_dir():
        figures.append(DENSE_STEP)
    else:                               # without ../shared the row says so instead of measuring another screen
        assert dense.missing.startswith("not measured: no ~300-node screen here") and not dense.cells
    for figure in figures:
        row = next(r for r in table.rows if r.figure == figure)
        assert set(row.cells) == set(table.columns)
        assert all(c.value > 0 and c.baseline > 0 for c in row.cells.values()), figure
    assert sum("2 steps each for ours and the baseline" in note for note in table.notes) == 2


def test_a_step_on_the_realistic_phone_pays_for_its_dump_capture_and_tap(table):
    quick, realistic = table.columns
    model_ms = MODEL_LATENCY_S * 1000
    phone_floor = sum(REALISTIC_COSTS[kind][0] for kind in (DUMP, SCREENCAP_RAW, INPUT)) * SCALE * 1000
    assert table.value(WALL, quick) >= model_ms
    assert table.value(WALL, realistic) >= model_ms + phone_floor


def test_the_prompt_counts_the_system_message(table):
    system_chars = len(PromptBuilder(Settings()).system_message()["content"])
    figure = PROMPT if CORPUS_DIR.is_dir() else PHONE_PROMPT
    row = next(r for r in table.rows if r.figure == figure)
    assert row.unit == "tokens" and row.budget == 1500
    note = next(n for n in table.notes if n.startswith(figure))
    found = re.search(r"([\d,]+) characters of system message \+ ([\d,]+) of step text \+ ([\d,]+) of the reply "
                      r"tool's definition", note)
    assert found and int(found[1].replace(",", "")) == system_chars
    step_chars, tool_chars = int(found[2].replace(",", "")), int(found[3].replace(",", ""))
    assert step_chars > 1000                                    # a screen's controls
    assert tool_chars == len(tools_as_sent([PromptBuilder(Settings()).reply_tool()]))     # as the client sends it
    for cell in row.cells.values():
        assert cell.value == (system_chars + step_chars + tool_chars) / 4
        assert cell.baseline > cell.value                      # seed 000's JSON list is longer
    assert ("corpus dump" in note) == CORPUS_DIR.is_dir()
    images = next(r for r in table.rows if r.figure == figure.replace("prompt incl. system message",
                                                                     "images sent with that prompt"))
    assert images.unit == "tokens" and re.search(r"images: [\d,]+ tokens \(\d images?: .+; OpenAI gpt-4o", note)
    for cell in images.cells.values():
        assert 0 < cell.value <= cell.baseline                 # never more than both images, the old default
    dense = next(r for r in table.rows if r.figure == PROMPT)
    assert bool(dense.cells) == CORPUS_DIR.is_dir() != bool(dense.missing)


def test_steps_wait_for_the_screen_instead_of_the_whole_fixed_wait(table):
    fixed_ms = TODAYS_FIXED_WAIT * 1000
    quiet_ms = AgentSettings().settle_quiet_seconds * 1000
    for label in ("streamed", "screenshot polling"):
        settle = next(r for r in table.rows if r.figure == f"{SETTLE}, {label}")
        assert set(settle.cells) == set(table.columns)
        for column, cell in settle.cells.items():
            assert cell.baseline >= fixed_ms - 1                 # today's waits its whole fixed 0.6 s
            assert quiet_ms <= cell.value, (label, column)       # ours: at least the quiet period
        assert settle.cells["quick"].value < settle.cells["quick"].baseline   # a still screen ends the wait early
        walls = next(r for r in table.rows if r.figure == f"{SETTLE_WALL}, {label}")
        assert all(cell.value > MODEL_LATENCY_S * 1000 and cell.baseline > fixed_ms for cell in walls.cells.values())
    assert sum("the screen settled within the cap in" in note for note in table.notes) == 4


def test_the_streamed_steps_really_stream_and_are_compared_with_the_prefetching_pipeline_and_a_peer(table):
    streamed = [n for n in table.notes if ", streamed: the screen settled" in n]
    assert len(streamed) == 2 and all("frames: scrcpy stream (H264" in n and "input by scrcpy control" in n
                                      for n in streamed)
    polled = [n for n in table.notes if ", screenshot polling: the screen settled" in n]
    assert len(polled) == 2 and all("frames: screenshots" in n and "scrcpy" not in n for n in polled)
    walls = next(r for r in table.rows if r.figure == f"{SETTLE_WALL}, streamed")
    assert "prefetch on" in walls.baseline_name
    speedup = next(r for r in table.rows if r.figure.endswith("times faster than the same pipeline with a fixed "
                                                              "wait (prefetch on)"))
    assert speedup.budget == 1.5 and speedup.at_least
    for column, cell in speedup.cells.items():
        assert cell.value == walls.cells[column].baseline / walls.cells[column].value
    peer = next(r for r in table.rows if r.figure.endswith("streamed: times faster than droidrun's fixed 1.3 s wait"))
    peer_walls = next(r for r in table.rows if r.figure == f"{SETTLE_WALL}, {DROIDRUN_NAME}")
    for column, cell in peer.cells.items():
        assert peer_walls.cells[column].value >= DROIDRUN_FIXED_WAIT * 1000     # it sleeps the whole 1.3 s
        assert cell.value == peer_walls.cells[column].value / walls.cells[column].value
    assert any("mobilerun/agent/executor/executor_agent.py" in note for note in table.notes)


def test_a_moving_step_without_the_model_has_its_budget_and_leaves_the_model_out(table):
    row = next(r for r in table.rows if r.figure == "one step whose action moves the screen, streamed, excluding "
                                                    "the model's time")
    assert row.budget == 800.0 and not row.at_least and "prefetch on" in row.baseline_name
    walls = next(r for r in table.rows if r.figure == f"{SETTLE_WALL}, streamed")
    for column, cell in row.cells.items():
        # each step spends at least MODEL_LATENCY_S in its model request: the medians differ by about that
        assert cell.value <= walls.cells[column].value - MODEL_LATENCY_S * 1000 * 0.9, column
        assert cell.value > 0 and cell.baseline > 0
