"""`agentdesk bench tasks`: the offline task suite on the virtual phone, first run vs repeat vs replay.

Each task of `task_suite` runs through the run service (auto mode, nobody to ask) on a freshly
made virtual phone, and its checker judges the phone's true state afterwards. Three runs per task:

- first: a new phone, the skills store emptied, the model drives;
- repeat: a new phone, the same request with skills on: the skill saved from the first run is
  replayed, so it should need at most half the model calls and tokens;
- replay: a new phone, the first run's recorded steps done again (`replay=`): no model call.

The model is the oracle (`oracle_model`), or the configured provider (`--model-from-settings`).
The phone runs in this process (its state is read directly); the quick and the realistic profile
are the table's two sides. Figures per task: success (by the checker), model calls, tokens
(prompt + completion, as the server reported them), steps and wall time, plus totals and the
ratios repeat / first and replay / first.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import shutil
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from app.core.agent.llm_client import ModelClient
from app.core.config import AgentSettings, ProviderSettings, Settings
from app.core.device.adb_transport import AdbTransport
from app.core.paths import data_dir
from app.core.runs.service import RunRequest
from app.desk import Desk
from app.virtual_phone.adb_server import VirtualAdbServer
from app.virtual_phone.latency import latency_named
from app.virtual_phone.phone import VirtualPhone

from .agent_bench import bench_home
from .oracle_model import OracleModel
from .phones import DEFAULT_CHOICE, QUICK, REALISTIC, PhoneChoice
from .table import BenchTable
from .task_suite import TASKS, BenchTask, phone_state, task_named

KINDS = ("first", "repeat", "replay")
BENCH_TIME = datetime(2026, 11, 21, 9, 41)        # a fixed clock: the time picker and toasts read it
ORACLE_KEY = "oracle-bench-key"
REPEAT_BUDGET = 0.5                               # a repeat needs at most half the first run's calls and tokens
NOT_AVAILABLE = "not available"


@dataclass(frozen=True)
class PhoneSpec:
    """One side of the table: the virtual phone's latency profile (and time scale) and device profile."""

    column: str
    latency: str
    scale: float = 1.0
    profile: str = "android14"

    def make_phone(self) -> VirtualPhone:
        return VirtualPhone(profile=self.profile, latency=latency_named(self.latency, self.scale),
                            clock=lambda: BENCH_TIME)


def phone_specs(choice: PhoneChoice, quick_only: bool = False) -> list[PhoneSpec]:
    """The quick and the realistic virtual phone of `choice` (the realistic one at its latency scale)."""
    specs = [PhoneSpec(column, latency, scale, choice.profile)
             for column, latency, scale in zip(choice.columns, (QUICK, REALISTIC), (1.0, choice.latency_scale),
                                                   strict=True)]
    return specs[:1] if quick_only else specs


@dataclass
class TaskOutcome:
    """One run of one task: what the checker said and what the run cost."""

    task: str
    kind: str
    column: str
    success: bool = False
    reason: str = ""                 # the checker's words, or why the run did not happen
    calls: int = 0
    tokens: int = 0
    steps: int = 0
    seconds: float = 0.0
    status: str = ""                 # the run's own ending (success, failed, …): the agent's opinion
    run_dir: str = ""
    available: bool = True           # False: the run service cannot do this kind of run yet


@dataclass
class CallTally:
    calls: int = 0
    tokens: int = 0


class CountingClient(ModelClient):
    """The app's model client, counting every call and the tokens the server reported."""

    def __init__(self, *args: Any, tally: CallTally, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tally = tally

    async def complete(self, *args: Any, **kwargs: Any):
        self.tally.calls += 1
        response = await super().complete(*args, **kwargs)
        self.tally.tokens += response.prompt_tokens + response.completion_tokens
        return response


def kinds_available() -> dict[str, str]:
    """Each kind of run → "" when the run service can do it, else why not (RunRequest lacks the option)."""
    reasons = {"first": ""}
    for kind, option in (("repeat", {"use_skills": True}), ("replay", {"replay": None})):
        try:
            RunRequest("probe", **option)
            reasons[kind] = ""
        except TypeError:
            reasons[kind] = f"RunRequest does not take {next(iter(option))}= yet"
    return reasons


def oracle_settings(base_url: str) -> Settings:
    """The app's default settings, talking to the oracle (auto mode)."""
    return Settings(provider=ProviderSettings(base_url=base_url, model="oracle", timeout_seconds=30, http_retries=1),
                    agent=AgentSettings(mode="auto"))


def request_for(task: BenchTask, kind: str, api_key: str | None, replay_script: Any = None) -> RunRequest:
    """The run service request of one kind of run. TypeError when RunRequest lacks the kind's option."""
    options: dict[str, Any] = {"mode": "auto", "policy": "fail", "sensitive_needs_person": False, "api_key": api_key}
    if kind == "repeat":
        options["use_skills"] = True
    elif kind == "replay":
        options["replay"] = replay_script
    return RunRequest(task.request, **options)


def forget_what_was_learnt() -> None:
    """Remove every saved skill and the map of screens (under the data folder, which the bench points at
    its own home): a first run starts knowing nothing."""
    shutil.rmtree(data_dir() / "skills", ignore_errors=True)
    shutil.rmtree(data_dir() / "graph", ignore_errors=True)


async def run_task(task: BenchTask, kind: str, spec: PhoneSpec, settings: Settings, *,
                   oracle: OracleModel | None = None, api_key: str | None = None,
                   replay_script: Any = None, request: RunRequest | None = None) -> TaskOutcome:
    """One run of `task` on a freshly made phone of `spec`, judged by the task's checker (`request`: the
    run service request to make, instead of `kind`'s)."""
    outcome = TaskOutcome(task.name, kind, spec.column)
    try:
        request = request or request_for(task, kind, api_key, replay_script)
    except TypeError as exc:
        outcome.available, outcome.reason = False, f"{NOT_AVAILABLE}: {exc}"
        return outcome
    phone = spec.make_phone()
    task.prepare(phone)
    if oracle is not None:
        oracle.begin(task.request)
    server = VirtualAdbServer().start()
    tally = CallTally()
    try:
        server.add_phone(phone)
        transport = AdbTransport("127.0.0.1", server.port)
        desk = Desk(settings, virtual=False, client_factory=functools.partial(CountingClient, tally=tally),
                    bad_servers_noted=True)
        desk.phones.open(transport, transport.list_devices()[0], virtual=True, timeout=10)
        service = desk.service
        started = time.perf_counter()
        try:
            result = await service.run(request)
        except Exception as exc:          # refused (key, settings) or the phone went away: a failed run
            result = None
            outcome.reason = f"the run did not happen: {type(exc).__name__}: {exc}"
        finally:
            outcome.seconds = time.perf_counter() - started
            await desk.close()
    finally:
        server.stop()
    outcome.calls, outcome.tokens = tally.calls, tally.tokens
    if result is not None:
        outcome.steps, outcome.status, outcome.run_dir = result.steps_taken, result.status, result.run_dir
        if result.tokens and not outcome.tokens:      # a client that counted nothing: the run's own count
            outcome.tokens = sum(result.tokens.values())
    verdict, why = task.check(phone_state(phone))
    outcome.success = verdict
    outcome.reason = f"{outcome.reason}; {why}" if outcome.reason else why
    if result is not None and not verdict:
        outcome.reason += f" (the run ended {result.status}: {result.completion_reason or result.error})"
    return outcome


def _replay_script(first: TaskOutcome) -> Any:
    """The first run's steps to do again; None when there is no recorded first run."""
    if not first.run_dir:
        return None
    from app.core.learning.recorded_steps import script_from_run

    try:
        return script_from_run(first.run_dir)
    except (FileNotFoundError, OSError):
        return None


async def run_suite(tasks: Sequence[BenchTask], specs: Sequence[PhoneSpec], settings: Settings, *,
                    kinds: Sequence[str] = KINDS, rounds: int = 1, oracle: OracleModel | None = None,
                    api_key: str | None = None) -> list[TaskOutcome]:
    """Every task on every phone, `rounds` times, each round a first run then its repeat and replay."""
    outcomes: list[TaskOutcome] = []
    for spec in specs:
        for task in tasks:
            for _ in range(rounds):
                forget_what_was_learnt()
                first = await run_task(task, "first", spec, settings, oracle=oracle, api_key=api_key)
                if "first" in kinds:
                    outcomes.append(first)
                if "repeat" in kinds:
                    outcomes.append(await run_task(task, "repeat", spec, settings, oracle=oracle, api_key=api_key))
                if "replay" in kinds:
                    script = _replay_script(first)
                    if script is None and first.available:
                        outcomes.append(TaskOutcome(task.name, "replay", spec.column,
                                                    reason="no recorded first run to replay"))
                    else:
                        outcomes.append(await run_task(task, "replay", spec, settings, oracle=oracle,
                                                       api_key=api_key, replay_script=script))
    return outcomes


# ----------------------------------------------------------------------------- the table


@dataclass
class _Figures:
    """The mean (time: median) figures of one task's runs of one kind on one phone."""

    success: float
    calls: float
    tokens: float
    steps: float
    seconds: float

    @classmethod
    def of(cls, runs: list[TaskOutcome]) -> _Figures:
        mean = statistics.fmean
        return cls(mean(r.success for r in runs) * 100, mean(r.calls for r in runs), mean(r.tokens for r in runs),
                   mean(r.steps for r in runs), statistics.median(r.seconds for r in runs))


FIGURES = (("success", "%"), ("model calls", "calls"), ("tokens", "tokens"), ("steps", "steps"),
           ("wall time", "s"))


@dataclass
class _Grouped:
    by_task: dict[tuple[str, str, str], _Figures] = field(default_factory=dict)     # (column, kind, task)
    missing: dict[tuple[str, str], str] = field(default_factory=dict)              # (column, kind) → why


def _group(outcomes: list[TaskOutcome]) -> _Grouped:
    runs: dict[tuple[str, str, str], list[TaskOutcome]] = {}
    grouped = _Grouped()
    for outcome in outcomes:
        if not outcome.available:
            grouped.missing[(outcome.column, outcome.kind)] = outcome.reason
            continue
        runs.setdefault((outcome.column, outcome.kind, outcome.task), []).append(outcome)
    grouped.by_task = {key: _Figures.of(value) for key, value in runs.items()}
    return grouped


def _values(figures: _Figures) -> tuple[float, ...]:
    return figures.success, figures.calls, figures.tokens, figures.steps, figures.seconds


def fill_table(table: BenchTable, outcomes: list[TaskOutcome], tasks: Sequence[BenchTask],
               specs: Sequence[PhoneSpec], kinds: Sequence[str], *, success_budget: bool) -> None:
    """One row per task and figure, the totals, the ratios to the first run, and notes on every failure."""
    grouped = _group(outcomes)
    for task in tasks:
        for (figure, unit), index in zip(FIGURES, range(len(FIGURES)), strict=True):
            row = table.row(f"{task.name}: {figure}", unit=unit)
            for spec in specs:
                for kind in kinds:
                    figures = grouped.by_task.get((spec.column, kind, task.name))
                    if figures is not None:
                        table.put(f"{spec.column} {kind}", row.figure, _values(figures)[index])
                    else:
                        row.missing = NOT_AVAILABLE
    totals: dict[tuple[str, str], _Figures] = {}
    for spec in specs:
        for kind in kinds:
            each = [grouped.by_task[(spec.column, kind, t.name)] for t in tasks
                    if (spec.column, kind, t.name) in grouped.by_task]
            if len(each) != len(tasks):
                continue
            totals[(spec.column, kind)] = _Figures(statistics.fmean(f.success for f in each),
                                                   *(sum(_values(f)[i] for f in each) for i in range(1, 5)))
    summary_options = {"success": {"budget": 100.0, "at_least": True} if success_budget else {}}
    for (figure, unit), index in zip(FIGURES, range(len(FIGURES)), strict=True):
        name = "all tasks: success rate" if figure == "success" else f"all tasks: {figure}"
        row = table.row(name, unit=unit, **summary_options.get(figure, {}))
        for (column, kind), figures in totals.items():
            table.put(f"{column} {kind}", name, _values(figures)[index])
        if len(totals) < len(specs) * len(kinds):
            row.missing = NOT_AVAILABLE
    ratios = (("repeat", "model calls", 1, REPEAT_BUDGET), ("repeat", "tokens", 2, REPEAT_BUDGET),
              ("repeat", "wall time", 4, None), ("replay", "model calls", 1, 0.0), ("replay", "wall time", 4, None))
    for kind, figure, index, budget in ratios:
        if kind not in kinds or "first" not in kinds:
            continue
        name = f"{kind} / first: {figure}"
        row = table.row(name, unit="x", budget=budget)
        for spec in specs:
            if (spec.column, kind) in grouped.missing:
                row.missing = NOT_AVAILABLE
                continue
            pairs = [(grouped.by_task[(spec.column, "first", t.name)], grouped.by_task[(spec.column, kind, t.name)])
                     for t in tasks if (spec.column, "first", t.name) in grouped.by_task
                     and (spec.column, kind, t.name) in grouped.by_task]
            pairs = [(first, other) for first, other in pairs if first.success == 100 and other.success == 100]
            base = sum(_values(first)[index] for first, _ in pairs)
            if not pairs or not base:
                row.missing = "no task succeeded in both"
                continue
            table.put(f"{spec.column} {kind}", name, sum(_values(other)[index] for _, other in pairs) / base)
            if figure == "model calls" and len(pairs) < len(tasks):
                table.notes.append(f"{spec.column} {kind} / first: over the {len(pairs)} of {len(tasks)} tasks "
                                   "that succeeded in every round of both.")
    for (column, kind), why in sorted(grouped.missing.items()):
        table.notes.append(f"{column} {kind}: {why}.")
    for outcome in outcomes:
        if outcome.available and not outcome.success:
            table.notes.append(f"FAILED {outcome.column} {outcome.kind} · {outcome.task}: {outcome.reason}")


ORACLE_THINK_SECONDS = 1.0
"""How long the offline oracle takes per answer in `agentdesk bench tasks` (tests use 0)."""


def run_tasks_bench(rounds: int = 1, choice: PhoneChoice = DEFAULT_CHOICE, model: Settings | None = None, *,
                    tasks: Sequence[str] | None = None, kinds: Sequence[str] = KINDS,
                    quick_only: bool = False) -> BenchTable:
    """Run the suite (or the `tasks` named) with the oracle, or with `model`'s provider when given
    (the configured one: its key comes from the keyring or the provider's environment variable)."""
    if choice.device:
        raise SystemExit("error: the task suite judges the virtual phone's own state, so it cannot run on an "
                         f"attached phone ({choice.device}); leave out --device")
    unknown = [kind for kind in kinds if kind not in KINDS]
    if unknown:
        raise ValueError(f"unknown kinds of run {unknown}; they are {', '.join(KINDS)}")
    chosen = [task_named(name) for name in tasks] if tasks else list(TASKS)
    specs = phone_specs(choice, quick_only)
    who = "the oracle model (scripted, loopback)" if model is None else \
        f"{model.provider.model} at {model.provider.base_url}"
    table = BenchTable(f"agentdesk bench tasks — {len(chosen)} tasks, {who}, {rounds} round(s); virtual phone "
                       f"({choice.profile}, in process): {' | '.join(s.column for s in specs)}",
                       [f"{spec.column} {kind}" for spec in specs for kind in kinds])
    oracle = OracleModel(chosen, ORACLE_THINK_SECONDS) if model is None else None
    with bench_home(), oracle if oracle is not None else contextlib.nullcontext():
        settings = oracle_settings(oracle.base_url) if oracle is not None else model
        assert settings is not None, "the oracle's settings, else the model given"
        outcomes = asyncio.run(run_suite(chosen, specs, settings, kinds=kinds, rounds=rounds, oracle=oracle,
                                         api_key=ORACLE_KEY if oracle is not None else None))
    fill_table(table, outcomes, chosen, specs, kinds, success_budget=oracle is not None)
    table.notes += [
        "Success is the task's checker on the phone's true state afterwards, not the agent's opinion. Each run "
        "starts on a newly made phone; first runs start with no skills and no map of screens.",
        "Model calls and tokens are counted in the app's model client (tokens as the server reports them; the "
        "oracle estimates a quarter of a token per character and 85 per image). Per task: the mean of the rounds "
        "(wall time: the median); 'all tasks' sums them.",
        f"repeat / first: at most {REPEAT_BUDGET:g}x the calls and tokens (the saved skill replays); "
        "replay / first: no model call at all.",
    ]
    if oracle is not None:
        table.notes.append(f"The oracle takes {ORACLE_THINK_SECONDS:g} s per answer (a fast hosted model's time "
                           "for a step), so wall times show what the model calls cost.")
    if oracle is not None and oracle.problems:
        table.notes += [f"oracle: {problem}" for problem in oracle.problems[:20]]
    return table
