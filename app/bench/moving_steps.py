"""`agentdesk bench agent`'s steps whose action moves the screen: ours (scrcpy's stream, a wait until the
screen is still) against the same pipeline with a fixed wait and the dump prefetch on, and against a
peer's habit (droidrun's fixed 1.3 s wait after each action); with and without the model's time.

Real runs whose model opens Settings and goes Home in turn (each action moves the screen), taken in
turn, the same number of counted steps each (agent_bench's `_one_run`).
"""

from __future__ import annotations

import asyncio
import statistics
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from app.core.config import AgentSettings

from .phones import BenchPhone
from .table import BenchTable

SETTLE_CONTENDERS = ("streamed", "polling", "fixed", "droidrun")
TODAYS_FIXED_WAIT = 0.6     # before issue 13 every action was followed by this sleep (agent.settle_seconds then)
DROIDRUN_FIXED_WAIT = 1.3
"""A peer's habit: droidrun (mobilerun 0.6.0rc2, github.com/droidrun/droidrun) sleeps
`agent_config.after_sleep_action` after every action (mobilerun/agent/executor/executor_agent.py,
mobilerun/agent/fast_agent/fast_agent.py), 1.0 s by default, and its config adds
`wait_for_stable_ui` = 0.3 s (mobilerun/config_manager/config_manager.py): 1.3 s in all; then it
reads the screen."""
DROIDRUN_SOURCE = ("droidrun's after_sleep_action 1.0 s + wait_for_stable_ui 0.3 s "
                   "(mobilerun/agent/executor/executor_agent.py, mobilerun/config_manager/config_manager.py)")


@dataclass
class MovingSteps:
    """What the counted steps of one contender's runs took, in ms, step by step."""

    settles: list[float] = field(default_factory=list)       # the wait after the action (StepRecord.settle_ms)
    walls: list[float] = field(default_factory=list)         # the whole step
    models: list[float] = field(default_factory=list)        # of which in model requests

    def without_model(self) -> list[float]:
        return [wall - model for wall, model in zip(self.walls, self.models, strict=True)]


def _settle_runs(phone: BenchPhone, model_url: str, steps: int, capture: str, sources: dict[str, set[str]],
                 one_run: Callable[..., Coroutine[Any, Any, list[tuple[float, float]]]], steps_per_run: int
                 ) -> dict[str, MovingSteps]:
    """`steps` counted steps each, in runs taken in turn:
    "streamed" reads scrcpy's stream and waits for the screen to stand still (default settings);
    "polling" does the same on screenshot polling; "fixed" polls screenshots and waits a fixed
    0.6 s (its quiet period is the cap, as the sleep before issue 13), with the dump prefetch on
    as in ours, so that only the stream and the wait differ; "droidrun" polls screenshots, sleeps
    1.3 s after each action and reads the screen after (no prefetch), as droidrun does."""
    cap = AgentSettings().settle_seconds
    agents = {"streamed": {"settle_seconds": cap}, "polling": {"settle_seconds": cap},
              "fixed": {"settle_seconds": TODAYS_FIXED_WAIT, "settle_quiet_seconds": TODAYS_FIXED_WAIT},
              "droidrun": {"settle_seconds": DROIDRUN_FIXED_WAIT, "settle_quiet_seconds": DROIDRUN_FIXED_WAIT}}
    streams = {"streamed": "auto", "polling": "screenshots", "fixed": "screenshots", "droidrun": "screenshots"}
    figures = {name: MovingSteps() for name in SETTLE_CONTENDERS}
    turn = 0
    while min(len(f.settles) for f in figures.values()) < steps:
        length = min(steps_per_run, steps - min(len(f.settles) for f in figures.values()))
        shift = turn % len(SETTLE_CONTENDERS)
        for name in SETTLE_CONTENDERS[shift:] + SETTLE_CONTENDERS[:shift]:
            moving = figures[name]
            counted = asyncio.run(one_run(phone, model_url, length + 1, capture, agents[name], moving.settles,
                                           streams[name], sources.setdefault(name, set()),
                                           prefetch=name != "droidrun", models=moving.models))
            if not counted:
                raise RuntimeError(f"a benchmark run on the {phone.column} phone ended before its second step")
            moving.walls += [wall for _, wall in counted]
        turn += 1
    return figures


STEP_SPEEDUP_BUDGET = 1.5     # issue 13: a step 1.5x faster streamed (issue 28: prefetch on both sides)
MOVING_STEP_BUDGET_MS = 800.0     # issue 28: a realistic step whose action moves the screen, the model's time aside
MOVING_STEP = "one step whose action moves the screen"
FIXED_NAME = f"screenshots + fixed {TODAYS_FIXED_WAIT * 1000:.0f} ms wait, prefetch on"
DROIDRUN_NAME = f"droidrun's habit: screenshots, fixed {DROIDRUN_FIXED_WAIT * 1000:.0f} ms wait, then the tree"


def measure_moving_steps(phone: BenchPhone, model_url: str, rounds: int, method: str, table: BenchTable,
                         one_run: Callable[..., Coroutine[Any, Any, list[tuple[float, float]]]],
                         steps_per_run: int) -> None:
    """The rows of steps whose action moves the screen; `one_run` is agent_bench's run of a few steps."""
    sources: dict[str, set[str]] = {}
    runs = _settle_runs(phone, model_url, rounds, method, sources, one_run, steps_per_run)
    median = statistics.median
    fixed, droidrun = runs["fixed"], runs["droidrun"]
    cap_ms = AgentSettings().settle_seconds * 1000
    for name, label in (("streamed", "streamed"), ("polling", "screenshot polling")):
        moving = runs[name]
        table.put(phone.column, f"wait after an action for the screen to settle, {label}", median(moving.settles),
                  median(fixed.settles), baseline_name=FIXED_NAME)      # the cap bounds it: no budget
        table.put(phone.column, f"{MOVING_STEP}, wall time, {label}", median(moving.walls), median(fixed.walls),
                  baseline_name=FIXED_NAME)
        capped = sum(settle >= cap_ms for settle in moving.settles)
        table.notes.append(f"{phone.column}, {label}: the screen settled within the cap in "
                           f"{len(moving.settles) - capped} of {len(moving.settles)} steps (quiet period "
                           f"{AgentSettings().settle_quiet_seconds * 1000:.0f} ms); frames: "
                           f"{'; '.join(sorted(sources.get(name, ())))}.")
    streamed = runs["streamed"]
    table.put(phone.column, f"{MOVING_STEP}, streamed, excluding the model's time", median(streamed.without_model()),
              median(fixed.without_model()), budget=MOVING_STEP_BUDGET_MS, baseline_name=FIXED_NAME)
    table.put(phone.column, f"{MOVING_STEP}, wall time, {DROIDRUN_NAME}", median(droidrun.walls))
    table.put(phone.column, f"{MOVING_STEP}, streamed: times faster than the same pipeline with a fixed wait "
                            "(prefetch on)", median(fixed.walls) / median(streamed.walls), unit="x",
              budget=STEP_SPEEDUP_BUDGET, at_least=True)
    table.put(phone.column, f"{MOVING_STEP}, streamed: times faster than droidrun's fixed 1.3 s wait",
              median(droidrun.walls) / median(streamed.walls), unit="x")
