"""`agentdesk bench navigation` in a small configuration: two settings tasks teach the map, then start in
Notes with the map and without; with it the oracle needs fewer model calls and still succeeds."""

from __future__ import annotations

import pytest

from app.bench.navigation_bench import WITHOUT, run_navigation_bench
from app.bench.phones import PhoneChoice


@pytest.fixture(scope="module")
def table(tmp_path_factory, monkeypatch_module):
    monkeypatch_module.setenv("AGENTDESK_HOME", str(tmp_path_factory.mktemp("navigation-bench")))
    return run_navigation_bench(1, PhoneChoice(latency_scale=0.05), tasks=["wifi_on", "dark_theme_on"],
                                learn=["wifi_on", "dark_theme_on", "note_create"], think_seconds=0.0, quick_only=True)


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def cell(table, figure):
    row = next(r for r in table.rows if r.figure == figure)
    return row.cells["quick"], row


def test_far_tasks_succeed_with_fewer_model_calls_and_tokens_with_the_map(table):
    success, _ = cell(table, "all tasks: success")
    assert success.value == 100.0 and success.baseline == 100.0, table.render()
    calls, row = cell(table, "all tasks: model calls")
    assert row.baseline_name == WITHOUT
    assert calls.value < calls.baseline, table.render()
    for task in ("wifi_on from Notes", "dark_theme_on from Notes"):
        each, _ = cell(table, f"{task}: model calls")
        assert each.value < each.baseline, (task, table.render())
    tokens, _ = cell(table, "all tasks: tokens")
    assert tokens.value < tokens.baseline
    assert "learnt first from one run of each of 3 suite tasks" in table.render()
    assert not [note for note in table.notes if note.startswith("FAILED")]
