"""`agentdesk bench navigation`: tasks that start far from their screen, with the map of screens and without.

First the offline task suite runs once on the quick virtual phone (skills off, the map off) and
records every screen and action into the map of that kind of phone. Then each far task — a
settings task started with the Notes app open — runs on a new phone twice, in turn: with the
map (the model is told where the phone is and may `go_to_screen` by a known way, whose steps
need no model call) and without it (the baseline). Both phones (quick, realistic) share the map:
they are the same kind of phone, which is how a map is shared between phones.

Figures per task and in total: success (the task's checker on the phone's true state), model
calls, tokens, steps and wall time; each "with the map" value next to its "without" baseline.
"""

from __future__ import annotations

import asyncio
import dataclasses
import shutil
import statistics
from collections.abc import Sequence

from app.core.config import Settings
from app.core.paths import data_dir
from app.core.runs.service import RunRequest

from .agent_bench import bench_home
from .oracle_model import OracleModel
from .phones import DEFAULT_CHOICE, PhoneChoice
from .table import BenchTable
from .task_suite import NOTES, TASKS, BenchTask, task_named
from .tasks_bench import (
    ORACLE_KEY,
    ORACLE_THINK_SECONDS,
    PhoneSpec,
    TaskOutcome,
    oracle_settings,
    phone_specs,
    run_task,
)

FAR_TASKS = ("wifi_on", "bluetooth_on", "airplane_on", "dark_theme_on")
WITH, WITHOUT = "with the map", "without the map"
FIGURES = (("success", "%"), ("model calls", "times"), ("tokens", "tokens"), ("steps", "times"), ("wall time", "s"))


def far_away(task: BenchTask) -> BenchTask:
    """The task started with the Notes app open, far from its screen."""
    def setup(phone) -> None:
        task.prepare(phone)
        phone.launch(NOTES)
    return dataclasses.replace(task, name=f"{task.name} from Notes", setup=setup)


def _request(task: BenchTask, use_map: bool) -> RunRequest:
    return RunRequest(task.request, mode="auto", policy="fail", sensitive_needs_person=False, api_key=ORACLE_KEY,
                      use_skills=False, use_map=use_map)


def learning_settings(settings: Settings) -> Settings:
    """Runs that record screens for the map and keep no skills (skills would replay instead of the map)."""
    learning = settings.learning.model_copy(update={"use_skills": False, "save_skills": False,
                                                    "record_screens": True})
    return settings.model_copy(update={"learning": learning})


async def learn_the_map(spec: PhoneSpec, settings: Settings, oracle: OracleModel,
                        learn: Sequence[BenchTask] = TASKS) -> list[TaskOutcome]:
    """The suite (or the `learn` tasks) once, the model driving, every screen and action recorded."""
    shutil.rmtree(data_dir() / "graph", ignore_errors=True)
    outcomes = []
    for task in learn:
        outcomes.append(await run_task(task, "learning", spec, settings, oracle=oracle,
                                       request=_request(task, use_map=False)))
    return outcomes


async def run_navigation(tasks: Sequence[BenchTask], specs: Sequence[PhoneSpec], settings: Settings,
                         oracle: OracleModel, rounds: int,
                         learn: Sequence[BenchTask] = TASKS) -> tuple[list[TaskOutcome], list[TaskOutcome]]:
    settings = learning_settings(settings)
    learned = await learn_the_map(specs[0], settings, oracle, learn)
    outcomes: list[TaskOutcome] = []
    for spec in specs:
        for task in tasks:
            far = far_away(task)
            for _ in range(rounds):
                for kind, use_map in ((WITH, True), (WITHOUT, False)):
                    outcomes.append(await run_task(far, kind, spec, settings, oracle=oracle,
                                                   request=_request(far, use_map)))
    return learned, outcomes


def _figures(runs: list[TaskOutcome]) -> tuple[float, ...]:
    return (100.0 * statistics.fmean(run.success for run in runs), statistics.fmean(run.calls for run in runs),
            statistics.fmean(run.tokens for run in runs), statistics.fmean(run.steps for run in runs),
            statistics.median(run.seconds for run in runs))


def fill_table(table: BenchTable, outcomes: list[TaskOutcome], tasks: Sequence[BenchTask],
               specs: Sequence[PhoneSpec]) -> None:
    """Per task and in total, each figure with the map next to its baseline without it."""
    def runs(column: str, kind: str, name: str | None = None) -> list[TaskOutcome]:
        return [o for o in outcomes if o.column == column and o.kind == kind and (name is None or o.task == name)]

    for label, name in [(far_away(task).name, far_away(task).name) for task in tasks] + [("all tasks", None)]:
        for index, (figure, unit) in enumerate(FIGURES):
            row_name = f"{label}: {figure}"
            table.row(row_name, unit=unit, baseline_name=WITHOUT, at_least=figure == "success")
            for spec in specs:
                mapped, plain = runs(spec.column, WITH, name), runs(spec.column, WITHOUT, name)
                if not mapped or not plain:
                    continue
                if name is None and figure != "success" and figure != "wall time":   # totals: sums of the means
                    each = [(_figures(runs(spec.column, WITH, far_away(t).name))[index],
                             _figures(runs(spec.column, WITHOUT, far_away(t).name))[index]) for t in tasks]
                    table.put(spec.column, row_name, sum(a for a, _ in each), sum(b for _, b in each))
                else:
                    table.put(spec.column, row_name, _figures(mapped)[index], _figures(plain)[index])


def run_navigation_bench(rounds: int = 1, choice: PhoneChoice = DEFAULT_CHOICE, *,
                         tasks: Sequence[str] | None = None, quick_only: bool = False,
                         think_seconds: float = ORACLE_THINK_SECONDS, learn: Sequence[str] | None = None) -> BenchTable:
    """The far tasks (or `tasks`) with the map and without, after the suite (or the `learn` tasks) taught it."""
    if choice.device:
        raise SystemExit("error: the navigation bench judges the virtual phone's own state, so it cannot run on an "
                         f"attached phone ({choice.device}); leave out --device")
    chosen = [task_named(name) for name in (tasks or FAR_TASKS)]
    specs = phone_specs(choice, quick_only)
    table = BenchTable(f"agentdesk bench navigation — {len(chosen)} tasks started in Notes, the oracle model, "
                       f"{rounds} round(s); with the map of screens vs without (baseline)",
                       [spec.column for spec in specs])
    oracle = OracleModel(TASKS, think_seconds)
    with bench_home(), oracle:
        teachers = [task_named(name) for name in learn] if learn else list(TASKS)
        learned, outcomes = asyncio.run(run_navigation(chosen, specs, oracle_settings(oracle.base_url), oracle,
                                                       rounds, teachers))
    fill_table(table, outcomes, chosen, specs)
    learnt = sum(outcome.success for outcome in learned)
    table.notes += [
        f"The map was learnt first from one run of each of {len(learned)} suite tasks on the {specs[0].column} "
        f"phone ({learnt} succeeded), the model driving; both phones are the same kind and share it.",
        "Each far task starts on a new phone with the Notes app open. With the map, the model is told where the "
        "phone is and may go to a known screen (go_to_screen): the way's steps are taken without model calls, "
        "each checked on arrival. Skills are off in every run, so the map alone makes the difference.",
        "Per task: the mean of the rounds (wall time: the median); 'all tasks' sums the tasks' means (wall time: "
        "the median of every run). The ratio column is without / with (above 1: the map saves).",
        f"The oracle takes {think_seconds:g} s per answer (a fast hosted model's time for a step).",
    ]
    table.notes += [f"FAILED {o.column} {o.kind} · {o.task}: {o.reason}" for o in outcomes if not o.success]
    table.notes += [f"learning run FAILED · {o.task}: {o.reason}" for o in learned if not o.success]
    if oracle.problems:
        table.notes += [f"oracle: {problem}" for problem in oracle.problems[:10]]
    return table
