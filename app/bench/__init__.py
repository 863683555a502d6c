"""`agentdesk bench`: speed figures measured against the virtual phone, printed as tables."""

from __future__ import annotations

import json
from pathlib import Path


def run_benchmark(suite: str, rounds: int = 15, json_out: str | None = None, bundle: str | None = None) -> int:
    if suite == "perception":
        from .perception_bench import run_perception_bench

        table = run_perception_bench(rounds)
    elif suite == "gui":
        from .gui_bench import run_gui_bench

        table = run_gui_bench(rounds)
    elif suite == "startup":
        from .startup_bench import run_startup_bench

        table = run_startup_bench(rounds, bundle)
    elif suite == "agent":
        from .agent_bench import run_agent_bench

        table = run_agent_bench(rounds)
    else:
        raise SystemExit(f"unknown benchmark suite: {suite}")
    print(table.render())
    if json_out:
        Path(json_out).write_text(json.dumps(table.as_dict(), indent=1))
    return 0 if table.within_budget() else 1
