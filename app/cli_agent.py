"""agentdesk run and replay: the agent from the terminal. No Qt here (`key` is cli_key.py, `doctor` cli_doctor.py)."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import sys
from collections.abc import Callable

from pydantic import ValidationError

from app.cli_model_server import missing_key_words, model_failure_words, preflight_reason, unreachable_words
from app.console import ConsoleSupervisor
from app.core import paths
from app.core.agent.events import (
    Message,
    ModelAsked,
    ModelFailed,
    ModelWords,
    ProposalMade,
    QuestionAsked,
    ReplyRetried,
    ReviewRequested,
    RunFinished,
    StepFinished,
    StepRecorded,
)
from app.core.agent.records import ESTIMATED_WORDS
from app.core.agent.run_words import counted, ending_words
from app.core.agent.spending import SpendingCap, with_spending_caps
from app.core.config import Settings, describe_validation_error, load_settings, needs_api_key
from app.core.data_folder import data_folder_problem
from app.core.device.errors import DeviceError
from app.core.key_origins import origin_of
from app.core.providers import pricing_for
from app.core.redaction import setup_logging
from app.core.runs.handle import NothingToAnswer, RunHandle
from app.core.runs.service import MissingApiKey, RunRefused, RunRequest, provider_overrides, settings_for
from app.core.secrets import provider_key_variable
from app.desk import Desk
from app.desk.preflight import Missing


def load_user_settings(err=None) -> Settings:
    settings, warnings = load_settings(paths.settings_path())
    for warning in warnings:
        print(f"warning: {warning}", file=err or sys.stderr)
    return settings


def run_request_from_args(args) -> RunRequest:
    """`agentdesk run`'s options as a RunRequest (the run service applies and validates them).
    Raises RunRefused for an unknown `--preset`, naming the presets."""
    mode = "auto" if args.auto else "step" if args.step else None
    return RunRequest(args.request, phone=args.device, mode=mode, max_steps=args.max_steps,
                      timeout_seconds=getattr(args, "timeout", None),
                      provider=provider_overrides(getattr(args, "preset", None), args.base_url, args.model),
                      api_key_env=getattr(args, "api_key_env", None), replay=getattr(args, "replay_script", None),
                      env_key_to_base_url=bool(args.base_url),    # the person named the server: their key goes
                      use_skills=False if getattr(args, "no_skills", False) else None,
                      model_takes_over=not getattr(args, "no_model", False))


def run_spending_caps(args, settings: Settings) -> Settings:
    """`--max-tokens` / `--max-cost` applied to the settings; RunRefused names a bad value."""
    try:
        return with_spending_caps(settings, getattr(args, "max_tokens", None), getattr(args, "max_cost", None))
    except ValidationError as exc:
        raise RunRefused(f"The run's spending cap is not valid: {describe_validation_error(exc)}") from None


def spending_caps_line(settings: Settings) -> str:
    """The console's line about the run's spending caps ("" when there are none)."""
    cap = SpendingCap(settings)
    parts = [f"{cap.max_tokens:,} tokens"] if cap.max_tokens else []
    if cap.max_cost_usd:
        parts.append(f"${cap.max_cost_usd:g}" + ("" if cap.money_checkable else " (cannot be checked: price unknown)"))
    return f"Spending cap: {' and '.join(parts)}" if parts else ""


def follow_on_console(handle: RunHandle, console: ConsoleSupervisor,
                      explain_failure: Callable[[str], str] | None = None) -> None:
    """Print the run's steps and messages; ask the person at the keyboard when the run waits for them.

    While the model is asked, the console shows its words (or a ticker); a reply cut off or unusable is said
    when the model is asked again, and a model that failed for good is explained by `explain_failure(reason)`
    (the command's words, naming the flags the person passed)."""
    asking: set[asyncio.Task] = set()

    def spawn(coro) -> None:
        task = asyncio.ensure_future(coro)
        asking.add(task)
        task.add_done_callback(asking.discard)

    def late(what: str, exc: NothingToAnswer) -> None:
        console.say(f"  ✗ Your {what} was not used: {exc}")

    async def review(proposal) -> None:
        answer = await console.review(proposal)
        try:
            handle.answer(proposal.id, answer)       # only the proposal shown: never a later one
        except NothingToAnswer as exc:               # decided elsewhere meanwhile, or the run moved on
            if not handle.finished:
                late(f"decision on step {proposal.step}", exc)

    async def ask(question: str, question_id: str) -> None:
        text = await console.ask(question)
        try:
            handle.answer_question(question_id, text)
        except NothingToAnswer as exc:
            if not handle.finished:
                late("answer", exc)

    def on_event(event) -> None:
        if isinstance(event, StepRecorded):
            console.step_finished(event.item)
        elif isinstance(event, Message):
            console.say(f"  {event.text}")
        elif isinstance(event, ModelAsked):
            console.progress.asked(event.step)
        elif isinstance(event, ModelWords):
            console.model_words(event.step, event.text_so_far, event.tokens)
        elif isinstance(event, ReplyRetried):
            console.say(f"  step {event.step}: {retry_words(event)}")
        elif isinstance(event, ModelFailed):
            console.progress.done()
            if explain_failure is not None and (words := explain_failure(event.reason)):
                console.say(f"  ✗ {words}")
        elif isinstance(event, (ProposalMade, StepFinished, RunFinished)):
            console.progress.done()
        elif isinstance(event, ReviewRequested):
            console.progress.done()
            spawn(review(event.proposal))
        elif isinstance(event, QuestionAsked):
            console.progress.done()
            spawn(ask(event.question, event.question_id))

    handle.events.subscribe(on_event)


def retry_words(event: ReplyRetried) -> str:
    """A reply that was not used and the model asked again, in words."""
    if event.cut_off:
        return (f"{event.problem}; asking the model again with room for {event.max_output_tokens:,} tokens "
                "(raise the output budget in Settings if this happens often)")
    return f"the reply could not be used ({event.problem}); asking the model again"


BLOCKING = ("key", "data folder")
"""What `agentdesk run` cannot start without (the rest of the preflight list is said as a warning)."""

STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
"""Signals that end `agentdesk run` as Stop does: the run ends "stopped", its record and report are written."""


class SignalStop:
    """Stops the run on SIGINT (Ctrl+C), SIGTERM or SIGHUP, as the Stop button does.

    The process then exits 128 + the signal's number (130 for Ctrl+C), as shells expect. A second
    signal while the run is stopping ends the process at once (what was recorded stays readable).
    """

    def __init__(self, handle: RunHandle | None, console: ConsoleSupervisor) -> None:
        self.handle = handle
        self.console = console
        self.signum: int | None = None
        self._installed: list[int] = []
        self._starting: asyncio.Task | None = None

    def attach(self, handle: RunHandle) -> None:
        """The run has started: a signal from now on stops it (one that came before stops it at once)."""
        self.handle = handle
        if self.signum is not None:
            handle.stop(f"stopped by {signal.Signals(self.signum).name}")

    def install(self, loop: asyncio.AbstractEventLoop) -> None:
        self._starting = asyncio.current_task(loop)     # before the run starts, a signal cancels this task
        for signum in STOP_SIGNALS:
            try:
                loop.add_signal_handler(signum, self._received, signum)
                self._installed.append(signum)
            except (NotImplementedError, RuntimeError, ValueError):
                pass     # not on this platform, or not the main thread: the default behaviour stays

    def remove(self, loop: asyncio.AbstractEventLoop) -> None:
        for signum in self._installed:
            loop.remove_signal_handler(signum)
        self._installed.clear()

    @property
    def exit_code(self) -> int | None:
        return None if self.signum is None else 128 + self.signum

    def _received(self, signum: int) -> None:
        name = signal.Signals(signum).name
        if self.signum is not None:
            print(f"\n{name} again: quitting at once.", file=sys.stderr, flush=True)
            sys.stdout.flush()
            os._exit(128 + signum)
        self.signum = signum
        how = "Ctrl+C" if signum == signal.SIGINT else name
        if self.handle is None:          # still loading settings or connecting: nothing to stop yet
            self.console.say(f"\n{how}: quitting before the run began.")
            if self._starting is not None:
                self._starting.cancel()
            return
        self.console.say(f"\n{how}: stopping the run (Ctrl+C again quits at once).")
        self.handle.stop(f"stopped by {how}")


def preflight_words(item: Missing, args, settings: Settings, key_error: MissingApiKey | None) -> str:
    """A preflight item as `agentdesk run` says it: the model's server and a missing key name the flags the
    person passed (or could pass) before Settings."""
    if item.thing == "model":
        return unreachable_words(args, settings, preflight_reason(item.words))
    if item.thing == "key" and type(key_error) is MissingApiKey:      # not a key kept for another server
        return missing_key_words(args, settings, provider_key_variable(settings.provider.base_url))
    return item.words


def key_source_line(key: str | None, source: str, base_url: str) -> str:
    """The console's line saying which API key a run uses and which origin it goes to: its source, never the key."""
    if not key:
        return "API key: none (a local server needs none)"
    return f"API key: from {source}; it goes to {origin_of(base_url)} and nowhere else"


async def run_request(args) -> int:
    """`agentdesk run`: a signal before the run has begun ends it too, with 128 + the signal's number."""
    console = ConsoleSupervisor(out=sys.stderr if args.json else sys.stdout)
    stopper = SignalStop(None, console)
    loop = asyncio.get_running_loop()
    stopper.install(loop)
    try:
        return await _start_and_follow(args, console, stopper)
    except asyncio.CancelledError:
        if stopper.exit_code is None:
            raise
        task = asyncio.current_task()
        assert task is not None, "a coroutine runs in a task"
        task.uncancel()
        return stopper.exit_code
    finally:
        stopper.remove(loop)


async def _start_and_follow(args, console: ConsoleSupervisor, stopper: SignalStop) -> int:
    base = load_user_settings()
    try:
        request = run_request_from_args(args)
        base = run_spending_caps(args, base)
        settings = settings_for(base, request)
    except RunRefused as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    desk = Desk(base, bad_servers_noted=True)
    try:
        return await _run_on_desk(args, desk, request, settings, console, stopper)
    finally:
        await desk.close()


async def _run_on_desk(args, desk: Desk, request: RunRequest, settings: Settings, console: ConsoleSupervisor,
                       stopper: SignalStop) -> int:
    """What the desk says is missing first (a missing key ends it before any phone is touched), then the run."""
    key_error: MissingApiKey | None = None
    try:
        key, key_source = await desk.api_key(settings, request)
    except MissingApiKey as exc:
        key, key_source, key_error = None, "none", exc    # a replay runs without a model; a run is refused below
    model_used = request.replay is None or (request.model_takes_over and bool(
        key or not needs_api_key(settings.provider.base_url)))
    missing = await desk.preflight(settings=settings, request=request, display=False, adb=False, phone=False,
                                   key=request.replay is None, model=model_used)
    for item in missing:       # without a key the run cannot start; the model's server may yet come up
        words = preflight_words(item, args, settings, key_error)
        print(f"{'error' if item.thing in BLOCKING else 'warning'}: {words}", file=sys.stderr)
    if any(item.thing in BLOCKING for item in missing):
        return 2
    try:
        connection = await desk.open_phone(args.device)
    except DeviceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if connection.note:
        print(connection.note, file=sys.stderr)
    try:
        handle = await desk.service.start(request)
    except (RunRefused, DeviceError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    follow_on_console(handle, console, lambda reason: model_failure_words(reason, args, settings, key_source))
    stopper.attach(handle)
    if request.replay is not None:
        model_set_up = request.model_takes_over and (key or not needs_api_key(settings.provider.base_url))
        takes_over = f"{settings.provider.model} takes over" if model_set_up else "the replay stops"
        console.say(f"Replaying “{args.request}” ({len(request.replay.steps)} recorded steps) on "
                    f"{connection.session.id} ({settings.agent.mode} mode; where a step stops fitting, "
                    f"{takes_over})")
    else:
        console.say(f"Running “{args.request}” on {connection.session.id} with {settings.provider.model} "
                    f"({settings.agent.mode} mode, at most {settings.agent.max_steps} steps)")
        console.say(key_source_line(key, key_source, settings.provider.base_url))
    if caps := spending_caps_line(settings):
        console.say(caps)
    async with console.ticking():
        with console.clearing_live_line_for_logs():
            result = await handle.wait()
    if result is None:
        print("error: the run ended unexpectedly without a result", file=sys.stderr)
        return 1
    waited = f"; {result.waiting_seconds:.1f} s of it waiting for you" if result.waiting_seconds >= 0.05 else ""
    console.say(f"\nResult: {result.status} after {counted(result.steps_taken, 'step')} "
                f"in {result.time_seconds:.1f} s{waited} — {result.completion_reason}")
    if ending := ending_words(result):
        console.say(f"Ending: {ending}")
    estimated = ESTIMATED_WORDS if result.tokens_estimated else ""
    console.say(f"Tokens: {sum(result.tokens.values()):,}{estimated}; "
                f"cost: {pricing_for(settings).words(result.cost_usd)}")
    console.say(f"Trajectory: {result.run_dir}\nReport:     {result.report_path}")
    if args.json:
        print(json.dumps(result.to_dict(), indent=1))
    if stopper.exit_code is not None and result.status == "stopped":
        return stopper.exit_code
    return 0 if result.succeeded else 1


def cmd_replay(args) -> int:
    """`agentdesk replay RUN_DIR`: the recorded run's actions again, without the model (`run` does the rest)."""
    from app.core.learning.recorded_steps import script_from_run
    try:
        script = script_from_run(args.run_dir)
    except (FileNotFoundError, NotADirectoryError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not script.steps:
        print(f"error: {args.run_dir} has no action that could be done again (none was carried out, "
              "or every one failed)", file=sys.stderr)
        return 2
    args.request, args.replay_script, args.no_skills = script.request, script, True
    args.max_steps = args.max_steps or None
    return cmd_run(args)


def cmd_run(args) -> int:
    """Run the request; after a stop by signal, exit without waiting for a keyboard read that may never end.

    First the data folder: a run that could not be recorded must not start (one plain line, no traceback)."""
    unwritable = data_folder_problem()
    if unwritable:
        print(f"error: {unwritable}", file=sys.stderr)
        return 2
    setup_logging(args.verbose)
    runner = asyncio.Runner()
    try:
        code = runner.run(run_request(args))
    except BaseException:
        runner.close()
        raise
    if code > 128:
        # Stopped by a signal: the run is recorded and the phone released. A review may still be
        # waiting on input() in a worker thread, which would hold the exit until Enter is pressed.
        sys.stdout.flush()
        sys.stderr.flush()
        logging.shutdown()
        os._exit(code)
    runner.close()
    return code
