"""`agentdesk bench agent` runs a real agent loop and reports its figures (values are not asserted)."""

from __future__ import annotations

from app.bench.agent_bench import run_agent_bench


def test_agent_bench_reports_overhead_and_prompt_size(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path))
    table = run_agent_bench(rounds=2)
    work = table.rows[0]
    assert work.figure.startswith("app-side work of one step") and work.budget == 30.0 and work.value > 0
    overhead = table.rows[1]
    assert overhead.figure.startswith("in-run overhead of one step")
    assert overhead.budget == 30.0 and overhead.value > 0 and overhead.baseline is not None
    prompt = next(r for r in table.rows if r.figure.startswith("prompt text, largest virtual screen"))
    assert prompt.unit == "tokens" and 100 < prompt.value < 5000
    assert "characters" in table.render()
