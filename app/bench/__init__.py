"""`agentdesk bench`: figures measured on the quick and the realistic virtual phone (or an attached
phone), each next to its budget and a baseline measured in the same run, printed as tables."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from .phones import DEFAULT_CHOICE, PhoneChoice

if TYPE_CHECKING:
    from .phone_bench import PhoneReport
    from .table import BenchTable

SUITES = ("perception", "agent", "gui", "startup", "phone", "api", "tasks", "map", "navigation")


class _Rounds(TypedDict, total=False):
    rounds: int                        # absent: each suite's own number of rounds


def run_benchmark(suite: str, rounds: int | None = None, json_out: str | None = None, bundle: str | None = None,
                  choice: PhoneChoice = DEFAULT_CHOICE, model_from_settings: bool = False) -> int:
    """Run one suite, print its table; exit status 1 when a measured figure is over its budget.

    `model_from_settings` (tasks only): drive the runs with the configured provider instead of the oracle."""
    options: _Rounds = {} if rounds is None else {"rounds": rounds}
    table: BenchTable | PhoneReport
    if suite == "perception":
        from .perception_bench import run_perception_bench

        table = run_perception_bench(choice=choice, **options)
    elif suite == "gui":
        from .gui_bench import run_gui_bench

        table = run_gui_bench(choice=choice, **options)
    elif suite == "map":
        from .map_bench import run_map_bench

        if choice.device:
            print("note: the map bench uses no phone; --device is ignored", file=sys.stderr)
        table = run_map_bench(**options)
    elif suite == "startup":
        from .startup_bench import run_startup_bench

        if choice.device:
            print("note: the startup bench uses no phone; --device is ignored", file=sys.stderr)
        table = run_startup_bench(bundle=bundle, **options)
    elif suite == "agent":
        from .agent_bench import run_agent_bench

        table = run_agent_bench(choice=choice, **options)
    elif suite == "api":
        from .api_bench import run_api_bench

        table = run_api_bench(choice=choice, **options)
    elif suite == "phone":
        from .phone_bench import run_phone_bench

        table = run_phone_bench(choice=choice, **options)
    elif suite == "tasks":
        from .tasks_bench import run_tasks_bench

        model = None
        if model_from_settings:            # read before the bench points AGENTDESK_HOME at its own folder
            from app.core.config import load_settings
            from app.core.paths import settings_path

            model, warnings = load_settings(settings_path())
            for warning in warnings:
                print(f"warning: {warning}", file=sys.stderr)
        table = run_tasks_bench(choice=choice, model=model, **options)
    elif suite == "navigation":
        from .navigation_bench import run_navigation_bench

        table = run_navigation_bench(choice=choice, **options)
    else:
        raise SystemExit(f"unknown benchmark suite: {suite}")
    print(table.render())
    if json_out:
        Path(json_out).write_text(json.dumps(table.as_dict(), indent=1))
    return 0 if table.within_budget() else 1
