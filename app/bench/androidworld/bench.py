"""`agentdesk bench androidworld`: AndroidWorld's own tasks, set up and judged by AndroidWorld's own code, run by
Agent Desk's agent loop on one phone.

Per task instance, as AndroidWorld's own harness does: parameters drawn at random with a seed made from the run's
seed, the task's name and the instance's number (AndroidWorld's own formula, so a seed gives its parameters);
`initialize_task`; the goal given to Agent Desk as a request (auto mode, or a person approving each step); the
verdict of `is_successful`; `tear_down`. AndroidWorld's code blocks, so it runs in a worker thread, and while it
reads the phone (its checkers use `uiautomator dump`) the desk's own UI-automation server is stopped.

AndroidWorld's set-up erases the owner's data (`ERASED`): the bench runs on the virtual phone (a private one,
made for the bench), on an emulator, or on a phone whose serial the person repeats with `--wipe-this-phone`."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import hashlib
import logging
import random
import sys
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, TextIO

from app.bench.oracle_model import OracleModel
from app.bench.tasks_bench import CallTally, CountingClient
from app.core.config import Settings
from app.core.device.adb_transport import AdbTransport
from app.core.device.android_device import AndroidDevice
from app.core.runs.service import MissingApiKey, RunRefused, RunRequest, settings_for
from app.desk import Desk

from .catalogue import TaskEntry, catalogue, family_of
from .environment import DeskAdb, DeskController, DeskEnv
from .scripts import scripted_task

log = logging.getLogger(__name__)

DEFAULT_SEED = 30                  # AndroidWorld's own default (its run.py's --task_random_seed)
EMULATOR_PROPERTIES = ("ro.kernel.qemu", "ro.boot.qemu")
ERASED = (
    "the data of every app the chosen tasks use (replaced by AndroidWorld's snapshots where it has them)",
    "all contacts, SMS and MMS messages and the call log (the tasks about them clear them first)",
    "files in the folders of those apps on the shared storage (Markor's notes, recordings, photos …)",
    "the date and time: set to 15 October 2023, with automatic date, time and time zone turned off",
    "the time zone (set to UTC) and the clock format (24-hour)",
    "the settings the tasks start from: Wi-Fi, Bluetooth, brightness …",
)


class BenchRefused(RuntimeError):
    """The bench will not run as asked (a phone that is not an emulator, no task chosen); the message says why."""


@dataclass(frozen=True)
class AndroidWorldOptions:
    """What the person asked for (`agentdesk bench androidworld`'s options)."""

    checkout: Path | None = None              # an AndroidWorld source checkout; None: the installed package
    device: str | None = None                 # a phone on an ADB server; None: a private virtual phone
    wipe_this_phone: str = ""                 # the serial of a phone that is not an emulator, repeated: erase it
    tasks: tuple[str, ...] = ()               # names or patterns (fnmatch); none: every runnable task
    repeat: int = 1                           # instances per task, each with its own parameters
    seed: int = DEFAULT_SEED
    max_steps: int | None = None              # None: AndroidWorld's budget, 10 steps per unit of complexity
    mode: str = "auto"                        # or "step": a person approves each action
    provider: dict[str, Any] = field(default_factory=dict)     # base_url, model … for these runs
    api_key_env: str | None = None
    env_key_to_base_url: bool = False
    api_key: str | None = None                # a key given for these runs only (the scripted model's)
    list_only: bool = False                   # list the tasks against the phone; set up and erase nothing

    def scripted(self, key: str) -> AndroidWorldOptions:
        """These options for the offline scripted model: its own server and key, no provider override."""
        return dataclasses.replace(self, provider={}, api_key_env=None, env_key_to_base_url=False, api_key=key)

    def __post_init__(self) -> None:
        if self.repeat < 1:
            raise ValueError("--repeat must be at least 1")
        if self.max_steps is not None and self.max_steps < 1:
            raise ValueError("--max-steps must be at least 1")


@dataclass
class Episode:
    """One instance of one task: AndroidWorld's verdict and what the run cost."""

    task: str
    instance: int
    seed: int
    goal: str = ""
    score: float | None = None                # AndroidWorld's is_successful (1.0: done; composite tasks: a share)
    ending: str = ""                          # the run's own ending: success, failed, …, or "" (it did not run)
    steps: int = 0
    calls: int = 0
    tokens: int = 0
    seconds: float = 0.0
    run_dir: str = ""
    report: str = ""
    problem: str = ""                         # set-up, run, check or tear-down trouble, in words

    @property
    def succeeded(self) -> bool:
        return self.score == 1.0

    @property
    def false_success(self) -> bool:
        """The app says success and AndroidWorld says no: the one outcome a yardstick must never hide."""
        return self.ending == "success" and not self.succeeded


@dataclass
class AndroidWorldReport:
    """Every task of AndroidWorld's list with this phone's reason where it cannot run, and the episodes run."""

    phone: str
    model: str
    seed: int
    entries: list[TaskEntry]
    chosen: list[str]
    episodes: list[Episode] = field(default_factory=list)


def instance_seed(seed: int, name: str, index: int) -> int:
    """AndroidWorld's seed of instance `index` of task `name` (suite_utils.create_suite's formula)."""
    return int(hashlib.sha256(f"{seed}_{name}_{index}".encode()).hexdigest(), 16) % 2**32


def make_instance(task_type: Any, seed: int, env: DeskEnv) -> Any:
    """A task instance with its parameters drawn as AndroidWorld draws them (its _instantiate_task)."""
    task_type.set_device_time(env)
    random.seed(seed)
    params = task_type.generate_random_params()
    params["seed"] = seed
    return task_type(params)


def step_budget(task_type: Any) -> int:
    """AndroidWorld's own step budget for a task: 10 steps per unit of its complexity."""
    return max(1, int(10 * (getattr(task_type, "complexity", None) or 1)))


def choose(entries: Sequence[TaskEntry], wanted: Sequence[str]) -> list[str]:
    """The tasks to run: those `wanted` names or patterns match (every runnable one when none is given).
    A pattern that matches no task is refused; a chosen task this phone cannot run is listed, not run."""
    if not wanted:
        return [entry.name for entry in entries if entry.runnable]
    names = [entry.name for entry in entries]
    chosen: list[str] = []
    for pattern in wanted:
        matched = [name for name in names if fnmatchcase(name, pattern) or name.casefold() == pattern.casefold()]
        if not matched:
            close = [name for name in names if pattern.casefold() in name.casefold()][:5]
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise BenchRefused(f"AndroidWorld has no task {pattern!r}{hint}; `--tasks` takes names or patterns "
                               "such as 'SystemWifi*'.")
        chosen += [name for name in matched if name not in chosen]
    return chosen


def guard_words(serial: str) -> str:
    """Why the bench will not run on a phone that is not an emulator, and what it would erase."""
    erased = "\n".join(f"  - {item}" for item in ERASED)
    return (f"{serial} is not an emulator (neither {' nor '.join(EMULATOR_PROPERTIES)} is 1). AndroidWorld's "
            f"set-up would erase on it:\n{erased}\nRun the bench on AndroidWorld's emulator (docs/androidworld.md) "
            f"or on the virtual phone (leave out --device). To erase this phone anyway, add "
            f"--wipe-this-phone {serial}.")


def is_emulator(adb: DeskAdb) -> bool:
    values = [adb.device.getprop(name).strip() for name in EMULATOR_PROPERTIES]
    return "1" in values


class AndroidWorldBench:
    """The bench on one opened phone: `run(entries, chosen)` plays each chosen task `repeat` times."""

    def __init__(self, desk: Desk, device: AndroidDevice, env: DeskEnv, tasks: dict[str, Any],
                 options: AndroidWorldOptions, tally: CallTally, *, follow: Callable[[Any], None] | None = None,
                 oracle: OracleModel | None = None, person_at_hand: bool = False) -> None:
        self.desk, self.device, self.env, self.tasks = desk, device, env, tasks
        self.options, self.tally, self.follow, self.oracle = options, tally, follow, oracle
        self.person_at_hand = person_at_hand      # sensitive actions ask the person (a phone that is not a test one)

    async def run(self, chosen: Sequence[str], say: Callable[[str], None]) -> list[Episode]:
        episodes = []
        for name in chosen:
            for index in range(self.options.repeat):
                episode = await self.episode(name, index)
                episodes.append(episode)
                verdict = "-" if episode.score is None else f"{episode.score:g}"
                say(f"{name} #{index + 1}: AndroidWorld {verdict}, the app {episode.ending or 'did not run'}"
                    + (f" — {episode.problem}" if episode.problem else ""))
        return episodes

    def request_for(self, instance: Any, task_type: Any) -> RunRequest:
        asks_person = self.options.mode == "step" or self.person_at_hand
        question = instance.goal if _answers_a_question(task_type) else ""
        return RunRequest(instance.goal, mode=self.options.mode,
                          max_steps=self.options.max_steps or step_budget(task_type),
                          provider=dict(self.options.provider), api_key_env=self.options.api_key_env,
                          env_key_to_base_url=self.options.env_key_to_base_url, api_key=self.options.api_key,
                          policy="person" if asks_person else "fail", sensitive_needs_person=asks_person,
                          use_skills=False, use_map=False, output=question)

    async def episode(self, name: str, index: int) -> Episode:
        task_type = self.tasks[name]
        seed = instance_seed(self.options.seed, name, index)
        episode = Episode(name, index + 1, seed)
        try:
            instance = await asyncio.to_thread(make_instance, task_type, seed, self.env)
            episode.goal = str(instance.goal)
        except Exception as exc:                 # noqa: BLE001 - AndroidWorld's code: any failure is the task's
            episode.problem = f"AndroidWorld could not make the task: {type(exc).__name__}: {exc}"
            return episode
        await self.device.release_ui_automation()
        try:
            await asyncio.to_thread(instance.initialize_task, self.env)
        except Exception as exc:                 # noqa: BLE001
            episode.problem = f"AndroidWorld's set-up failed: {type(exc).__name__}: {exc}"
            await self._tear_down(instance, episode)
            return episode
        try:
            await self._play(instance, task_type, episode)
            await self.device.release_ui_automation()
            try:
                episode.score = float(await asyncio.to_thread(instance.is_successful, self.env))
            except Exception as exc:             # noqa: BLE001
                episode.problem = _joined(episode.problem, f"AndroidWorld's check failed: {type(exc).__name__}: {exc}")
        finally:
            await self._tear_down(instance, episode)
        return episode

    async def _play(self, instance: Any, task_type: Any, episode: Episode) -> None:
        if self.oracle is not None:
            scripted = scripted_task(episode.task, episode.goal, dict(instance.params))
            if scripted is not None:
                self.oracle.add_task(scripted)
            self.oracle.begin(episode.goal)
        self.tally.calls = self.tally.tokens = 0
        started = time.perf_counter()
        try:
            handle = await self.desk.service.start(self.request_for(instance, task_type))
            if self.follow is not None:
                self.follow(handle)
            result = await handle.wait()
        except Exception as exc:                 # noqa: BLE001 - refused (key, settings) or the phone went away
            episode.problem = f"the run did not happen: {type(exc).__name__}: {exc}"
            result = None
        episode.seconds = time.perf_counter() - started
        episode.calls, episode.tokens = self.tally.calls, self.tally.tokens
        if result is None:
            return
        episode.ending, episode.steps = result.status, result.steps_taken
        episode.run_dir, episode.report = result.run_dir, result.report_path
        if result.tokens and not episode.tokens:
            episode.tokens = sum(result.tokens.values())
        self.env.interaction_cache = "" if result.output is None else str(result.output)

    async def _tear_down(self, instance: Any, episode: Episode) -> None:
        try:
            await self.device.release_ui_automation()
            await asyncio.to_thread(instance.tear_down, self.env)
        except Exception as exc:                 # noqa: BLE001
            episode.problem = _joined(episode.problem, f"AndroidWorld's tear-down failed: {type(exc).__name__}: {exc}")


def _answers_a_question(task_type: Any) -> bool:
    """AndroidWorld's information-retrieval tasks are judged on the agent's answer (its interaction cache)."""
    return family_of(task_type) == "information_retrieval"


def _joined(first: str, second: str) -> str:
    return f"{first}; {second}" if first else second


@contextlib.asynccontextmanager
async def opened_phone(desk: Desk, options: AndroidWorldOptions, make_virtual_phone: Callable[[], Any] | None
                       ) -> AsyncIterator[tuple[AndroidDevice, DeskAdb, bool]]:
    """The phone the bench plays on, opened on `desk`: (device, adb for AndroidWorld, is it the virtual one).
    Without `--device`, a virtual phone of the bench's own (never the built-in one other windows share)."""
    if options.device:
        try:
            connection = await desk.open_phone(options.device)
            phone_id = connection.session.id
            host, _, port = phone_id.server.rpartition(":")
            yield connection.device, DeskAdb(host.strip("[]"), int(port), phone_id.serial), False
        finally:
            await desk.close()
        return
    from app.virtual_phone.adb_server import VirtualAdbServer
    from app.virtual_phone.phone import VirtualPhone

    server = VirtualAdbServer().start()
    try:
        server.add_phone((make_virtual_phone or VirtualPhone)())
        transport = AdbTransport("127.0.0.1", server.port)
        listing = (await asyncio.to_thread(transport.list_devices))[0]
        session = desk.phones.open(transport, listing, virtual=True, timeout=10)
        yield session.device, DeskAdb("127.0.0.1", server.port, listing.serial), True
    finally:
        await desk.close()
        server.stop()


async def run_androidworld(registry: Any, options: AndroidWorldOptions, settings: Settings, *,
                           out: TextIO = sys.stdout, follow_with: Callable[[Any], Callable[[Any], None]] | None = None,
                           oracle: OracleModel | None = None,
                           make_virtual_phone: Callable[[], Any] | None = None) -> AndroidWorldReport:
    """Play the chosen tasks of AndroidWorld's `registry` (android_world.registry) on the phone `options` name.

    `follow_with(say)`: what follows each run on the console (its steps, the person's reviews); `oracle`: the
    offline scripted model, told each task's script. Raises BenchRefused before anything is erased."""
    tasks = registry.TaskRegistry()
    family = tasks.get_registry(tasks.ANDROID_WORLD_FAMILY)
    tally = CallTally()
    desk = Desk(settings, virtual=False, client_factory=functools.partial(CountingClient, tally=tally),
                bad_servers_noted=True)

    def say(text: str) -> None:
        print(text, file=out, flush=True)

    effective = await _check_key(desk, settings, options, needed=not options.list_only)
    async with opened_phone(desk, options, make_virtual_phone) as (device, adb, virtual):
        serial = adb.serial
        if not virtual and not options.list_only:
            emulator = await asyncio.to_thread(is_emulator, adb)
            if not emulator and options.wipe_this_phone != serial:
                raise BenchRefused(guard_words(serial))
        installed = set(await device.all_packages(refresh=True))
        entries = await asyncio.to_thread(catalogue, family, installed)
        chosen = choose(entries, options.tasks)
        runnable = {entry.name for entry in entries if entry.runnable}
        playable = [name for name in chosen if name in runnable]
        what = "the virtual phone" if virtual else serial
        doing = "listing them" if options.list_only else (f"playing {len(playable)} × {options.repeat} (random "
                                                          f"seed {options.seed}) with {effective.provider.model}")
        say(f"AndroidWorld on {what}: {len(runnable)} of {len(entries)} tasks can run here; {doing}")
        env = DeskEnv(DeskController(adb))
        bench = AndroidWorldBench(desk, device, env, family, options, tally,
                                  follow=follow_with(say) if follow_with else None, oracle=oracle,
                                  person_at_hand=not virtual and options.wipe_this_phone == serial)
        report = AndroidWorldReport(what, f"{effective.provider.model} at {effective.provider.base_url}",
                                    options.seed, entries, chosen)
        if not options.list_only:
            report.episodes = await bench.run(playable, say)
    return report


async def _check_key(desk: Desk, settings: Settings, options: AndroidWorldOptions, *, needed: bool) -> Settings:
    """The runs' settings (the saved ones with the options' overrides). A run that would be refused for want of a
    key (when `needed`) or for a bad override is refused before any phone is set up."""
    probe = RunRequest("probe", provider=dict(options.provider), api_key_env=options.api_key_env,
                       env_key_to_base_url=options.env_key_to_base_url, api_key=options.api_key)
    try:
        effective = settings_for(settings, probe)
        if needed:
            await desk.api_key(effective, probe)
    except (MissingApiKey, RunRefused) as exc:
        raise BenchRefused(str(exc)) from None
    return effective
