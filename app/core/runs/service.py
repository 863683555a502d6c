"""The run service: the one way to start, watch, answer, pause, stop and list runs.

It resolves everything a run needs — settings with the request's overrides, the API key,
the phone, the model client, the trajectory recorder — and runs requests one at a time
per phone, in the order asked (different phones side by side). Faces (window, command
line, benchmarks, tests, the HTTP API) ask it and follow the run's event stream; none of
them assembles a run. It lives on one asyncio loop (the core's); call it there.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.core.agent.agent_run import AgentRun, PipelineFactory, seed_pipeline
from app.core.agent.events import RunStarted
from app.core.agent.llm_client import ModelClient
from app.core.agent.memory import RunResult
from app.core.agent.screen_query import answer_from_screen
from app.core.agent.trajectory import RunSummary, TrajectoryWriter, list_runs
from app.core.config import AgentSettings, ProviderSettings, Settings, needs_api_key
from app.core.data_folder import data_folder_problem, storage_problem
from app.core.device.android_device import InputLimits
from app.core.device.errors import DeviceError
from app.core.device.phone_facts import app_version_reader, phone_facts
from app.core.device.phone_id import PhoneId
from app.core.device.phone_lock import PhoneBusy
from app.core.device.phone_session import PhoneRegistry, PhoneSession
from app.core.device.tree_server import tree_server_policy
from app.core.key_origins import origin_of
from app.core.learning.navigation import map_guide
from app.core.learning.planner import RunPlan, learn_from_run, plan_run
from app.core.learning.recorded_steps import ReplayScript
from app.core.learning.replay import replaying
from app.core.learning.transitions import TransitionRecorder, TransitionStore
from app.core.paths import runs_dir
from app.core.providers import AZURE_PLACEHOLDER, CUSTOM, UnknownPreset, connection_defaults_for_url, find_preset
from app.core.secrets import SecretStore, env_source, provider_key_variable, register_secret, resolve_api_key

from .handle import PersonPolicy, RunHandle, new_run_id
from .phone_ready import run_on_ready_phone
from .recorder import RunRecorder, guard_pipeline
from .recording_privacy import watch_privacy
from .screen_recording import record_run_screen

log = logging.getLogger(__name__)

NO_API_KEY = ("No API key for the model. Store one in Settings or with `agentdesk key set`, "
              "or set OPENAI_API_KEY for scripts.")


class RunRefused(ValueError):
    """The run cannot start: a setting, the key or the phone is missing or wrong. The message says which."""


class MissingApiKey(RunRefused):
    pass


class KeyForAnotherOrigin(MissingApiKey):
    """A key exists, but it belongs to another origin than the run's model server: not sent. The message says
    which origin and how to allow it."""


@dataclass
class RunRequest:
    """What a face asks for. Everything but `request` has a default from the settings."""

    request: str
    phone: str | PhoneId | None = None        # full id or an unambiguous serial; None: the first phone
    mode: str | None = None                   # "step" | "auto"
    max_steps: int | None = None
    timeout_seconds: float | None = None
    max_tokens: int | None = None             # this run's spending caps (0: none); None: the saved ones
    max_cost_usd: float | None = None
    provider: dict[str, Any] = field(default_factory=dict)    # base_url, model, … for this run only
    api_key: str | None = None                # given for this run (a task's own key for its own URL): used alone
    api_key_env: str | None = None            # the environment variable holding this run's key (wins too)
    env_key_to_base_url: bool = False         # the person at the terminal named this base URL: the environment's
                                              # key goes there (else a key goes only to its own origin)
    policy: PersonPolicy = "person"
    wait_if_busy: bool = True                 # queue behind the phone's current run, else refuse
    paused: bool = False                      # take one step, then pause
    run_id: str | None = None
    review_timeout: float | None = None       # seconds a person's decision may take (None: no limit)
    sensitive_needs_person: bool = True       # False: auto mode takes sensitive actions without asking
    output: str = ""                          # a question answered from the final screen, into the result
    output_schema: dict[str, Any] | None = None   # the answer's JSON schema, when it must be data
    replay: ReplayScript | None = None        # do these recorded steps again (the model takes over where they stop
                                              # fitting, when one is set up); see app/core/learning/replay.py
    use_skills: bool | None = None            # let the planner replay a stored skill that fits; None: the setting
    use_map: bool | None = None               # tell the model where it is on the map of screens; None: the setting
    model_takes_over: bool = True             # False: a replay that stops fitting ends, even with a model set up


KEY_FIELDS = ("key_name", "key_origin", "key_also_for")
"""Provider settings a run's overrides never change: which key, and which origins it may go to."""


def settings_for(base: Settings, request: RunRequest) -> Settings:
    """The settings of one run: the saved ones with the request's overrides, validated like the file is."""
    agent = {key: value for key, value in (("mode", request.mode), ("max_steps", request.max_steps),
                                           ("timeout_seconds", request.timeout_seconds),
                                           ("max_tokens_per_run", request.max_tokens),
                                           ("max_cost_usd_per_run", request.max_cost_usd)) if value is not None}
    provider = {key: value for key, value in request.provider.items()
                if value not in (None, "") and key not in KEY_FIELDS}    # where the key goes is the person's
    try:
        return base.model_copy(update={   # every other section (images, prices, limits…) as saved
            "provider": ProviderSettings.model_validate({**base.provider.model_dump(), **provider}),
            "agent": AgentSettings.model_validate({**base.agent.model_dump(), **agent})})
    except ValueError as exc:
        raise RunRefused(f"The run's settings are not valid: {exc}") from exc


def provider_overrides(preset_name: str | None, base_url: str | None, model: str | None, *,
                       names: tuple[str, str] = ("--base-url", "--model")) -> dict[str, object]:
    """The provider settings of one run: a preset's base URL, model, timeout and retries, with the given base
    URL and model over them. A base URL without a preset brings the timeout and retries of the preset whose
    URL it is, or a local server's (minutes, one retry): the saved ones belong to another server. `names` are
    what the face calls the base URL and the model, for the errors."""
    provider: dict[str, object] = {}
    if preset_name:
        try:
            preset = find_preset(preset_name)
        except UnknownPreset as exc:
            raise RunRefused(str(exc)) from None
        provider.update(preset.settings_values())
        if not preset.model and not model and preset.name != CUSTOM:
            raise RunRefused(f"The preset {preset.name} has no default model: give the "
                             f"{preset.model_placeholder} with {names[1]}.")
        if AZURE_PLACEHOLDER in preset.base_url and not base_url:
            raise RunRefused(f"The preset {preset.name} needs your resource's URL: give {names[0]} "
                             f"({preset.base_url} with {AZURE_PLACEHOLDER} replaced).")
    elif base_url:
        provider.update(connection_defaults_for_url(base_url))
    provider.update({key: value for key, value in (("base_url", base_url), ("model", model)) if value})
    return provider


def api_key_for(settings: Settings, secrets: SecretStore | None, given: str | None = None,
                api_key_env: str | None = None, env: Mapping[str, str] = os.environ, *,
                env_goes_anywhere: bool = False) -> tuple[str | None, str]:
    """The key for a run and where it came from; MissingApiKey when the endpoint needs one and none may go there.

    `given` (a task's own key for its own URL) is used alone; then the variable `api_key_env` (named at the
    terminal, which must then be set); then the provider's variable and the keyring, each only for the origin
    it belongs to (see resolve_api_key; `env_goes_anywhere`: the person at the terminal named the base URL).
    A key that belongs to another origin is never sent: a server that needs none runs without, else the
    refusal says which origin and how to allow it. Blocking (the keyring may be slow): call it in a worker thread.
    """
    if given:
        register_secret(given)
        return given, "given for this run"
    if api_key_env:
        key = env.get(api_key_env, "").strip()
        if not key:
            raise MissingApiKey(f"The API key was to be read from the environment variable {api_key_env}, "
                                "but it is not set or empty.")
        register_secret(key)
        return key, env_source(api_key_env)
    provider = settings.provider
    variable = provider_key_variable(provider.base_url)
    choice = resolve_api_key(provider.key_name, env, store=secrets, variable=variable,
                             goes_to=origin_of(provider.base_url), key_origin=provider.key_origin,
                             also_for=provider.key_also_for, env_goes_anywhere=env_goes_anywhere)
    if choice.key is None and needs_api_key(provider.base_url):
        if choice.withheld:
            raise KeyForAnotherOrigin(choice.withheld)
        raise MissingApiKey(NO_API_KEY.replace("OPENAI_API_KEY", variable))
    return choice.key, choice.source


class RunService:
    def __init__(self, phones: PhoneRegistry, settings: Callable[[], Settings] | Settings, *,
                 secrets: SecretStore | None = None, client_factory: Callable[..., ModelClient] = ModelClient,
                 pipeline: PipelineFactory = seed_pipeline, runs_root: Path | None = None) -> None:
        self.phones = phones
        self._settings = settings if callable(settings) else (lambda: settings)
        self.secrets = secrets
        self.client_factory = client_factory
        self.pipeline = pipeline
        self.runs_root = runs_root
        self._runs: dict[str, RunHandle] = {}
        self._listeners: list[Callable[[RunHandle], None]] = []

    # ------------------------------------------------------------------ asking for runs

    async def start(self, request: RunRequest) -> RunHandle:
        """Check and queue a run; it starts when its phone is free. Raises RunRefused or DeviceError."""
        if not request.request.strip():
            raise RunRefused("The request is empty: say what the agent should do.")
        unwritable = await asyncio.to_thread(data_folder_problem, [self.runs_root or runs_dir(create=False)])
        if unwritable:                      # a run that cannot be recorded must not start
            raise RunRefused(unwritable)
        settings = settings_for(self._settings(), request)
        secrets = self.secrets
        try:
            key, key_source = await asyncio.to_thread(api_key_for, settings, secrets, request.api_key,
                                                       request.api_key_env,
                                                       env_goes_anywhere=request.env_key_to_base_url)
        except MissingApiKey:
            if request.replay is None:
                raise
            key, key_source = None, "none: a replay without a model"   # it stops, not hands over, on a mismatch
        model_available = (key is not None or not needs_api_key(settings.provider.base_url)) and (
            request.replay is None or request.model_takes_over)
        if not model_available:               # nothing may call a model: the ending is checked by the screen only
            settings = settings.model_copy(update={"agent": settings.agent.model_copy(update={
                "completion_check": "screen_only", "model_reflection": False})})
        session = self.phones.get(request.phone)
        if not request.wait_if_busy and session.busy:
            raise PhoneBusy(f"Phone {session.id} is busy with {session.driver or 'another run'}.")
        run_id = request.run_id or new_run_id()
        if run_id in self._runs:
            raise RunRefused(f"There is already a run with the id {run_id}.")
        handle = RunHandle(run_id, request.request, str(session.id), request.policy, paused=request.paused,
                           mode=settings.agent.mode, review_timeout=request.review_timeout,
                           sensitive_needs_person=request.sensitive_needs_person)
        self._runs[run_id] = handle
        handle.task = asyncio.ensure_future(self._execute(handle, request, session, settings, key, key_source,
                                                          model_available))
        for listener in list(self._listeners):
            listener(handle)
        return handle

    async def run(self, request: RunRequest) -> RunResult | None:
        """Start a run and wait for its result."""
        return await (await self.start(request)).wait()

    def on_new_run(self, listener: Callable[[RunHandle], None]) -> Callable[[], None]:
        """Be told of every run started from now on (the window shows runs other programs start).
        Returns a function that stops telling (call it on the service's loop)."""
        self._listeners.append(listener)

        def forget() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)
        return forget

    async def _execute(self, handle: RunHandle, request: RunRequest, session: PhoneSession, settings: Settings,
                       key: str | None, key_source: str, model_available: bool) -> RunResult | None:
        events = handle.events
        try:
            handle.waiting_for_phone = True       # a stop now ends the wait (handle.stop cancels this task)
            async with session.drive(f"{request.request!r} ({handle.id})", wait=request.wait_if_busy,
                                     on_wait=events.message):
                handle.waiting_for_phone = False
                if handle.stop_requested:
                    return self._stopped_before_it_began(handle)
                return await self._drive(handle, request, session, settings, key, key_source, model_available)
        except asyncio.CancelledError:
            if not (handle.waiting_for_phone and handle.stop_requested):
                raise
            if (task := asyncio.current_task()) is not None:
                task.uncancel()                   # stopped while queued: it never touched the phone
            return self._stopped_before_it_began(handle)
        except DeviceError as exc:          # the phone was busy in another process, or went away
            if handle.finished:
                raise
            result = RunResult("failed", 0, [], 0.0, error=str(exc), completion_reason=str(exc))
            handle.finish(result, str(exc))
            return result
        finally:
            if not handle.finished:         # cancelled, or crashed: readers still see the end
                handle.finish(None, "the run ended unexpectedly")

    @staticmethod
    def _stopped_before_it_began(handle: RunHandle) -> RunResult:
        result = RunResult("stopped", 0, [], 0.0, completion_reason="stopped before it began")
        handle.finish(result)
        return result

    async def _drive(self, handle: RunHandle, request: RunRequest, session: PhoneSession, settings: Settings,
                     key: str | None, key_source: str, model_available: bool) -> RunResult | None:
        events = handle.events
        phone = {**session.describe(), **await phone_facts(session.device)}
        try:
            writer = await asyncio.to_thread(
                TrajectoryWriter.create, handle.request, phone,
                {"base_url": settings.provider.base_url, "model": settings.provider.model, "key_from": key_source},
                settings.model_dump(mode="json"), self.runs_root)
        except OSError as exc:              # a run that cannot be recorded does not touch the phone
            reason = storage_problem("create the run's folder", self.runs_root or runs_dir(create=False), exc)
            unrecorded = RunResult("failed", 0, [], 0.0, error=reason, completion_reason=reason)
            handle.finish(unrecorded, reason)
            return unrecorded
        handle.run_dir = str(writer.run_dir)
        recorder = RunRecorder(writer, events, on_fault=handle.stop)    # a failed record stops the run
        result: RunResult | None = None
        error = ""
        session.device.limits = InputLimits.from_settings(settings.limits)   # this run's caps on dumps and pictures
        session.device.tree_server.policy = tree_server_policy(settings)
        hold = getattr(session.frames, "hold", None)     # the stream runs for the whole run, watched or not
        release_stream = hold() if hold is not None else (lambda: None)
        screen = record_run_screen(session.frames, writer.run_dir, settings.mirror.record_runs, screened=True)
        if screen is not None:          # private screens are cut from it (None: polling, nothing recorded)
            watch_privacy(events, screen, settings.images.never_send_apps)
        use_skills = settings.learning.use_skills if request.use_skills is None else request.use_skills
        plan: RunPlan = await plan_run(handle.request, replay=request.replay, use_skills=use_skills,
                                       model_available=model_available, phone=phone)
        use_map = settings.learning.use_map if request.use_map is None else request.use_map
        guide = await map_guide(phone, handle.request, events.message) \
            if use_map and model_available and request.replay is None else None
        learning = replaying(self.pipeline, plan.player, plan.adopt, plan.offered_triggers(), guide) \
            if plan.player or plan.offered or guide else self.pipeline
        pipeline = guard_pipeline(learning, recorder)
        graph = TransitionRecorder(events, TransitionStore(), phone, handle.id,
                                   app_versions=app_version_reader(session.device, asyncio.get_running_loop()),
                                   run_dir=writer.run_dir) \
            if settings.learning.record_screens else None
        if graph is not None:
            graph.attach()
        try:
            async with self.client_factory(settings.provider, key, on_retry=events.message) as client:
                run = AgentRun(handle.request, session.device, settings, client, handle, frames=session.frames,
                               events=events, pipeline=pipeline,
                               screen_tree=session.screen_tree)
                handle.begin(run.control)
                events.emit(RunStarted(handle.id, handle.request, session.describe(), settings.agent.mode,
                                       str(writer.run_dir)))
                for note in plan.notes:
                    events.message(note)
                result = await run_on_ready_phone(run, session.device, handle)   # woken, unlocked, kept on
                if request.output.strip() and result is not None and result.status != "stopped":
                    await self._answer_output(result, request, client, session, settings, events)
        except BaseException as exc:
            error = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            release_stream()
            if screen is not None:          # finished before run.json and the report, which name its files
                screen.stop_listening()     # here on the loop, where the listener was added
                writer.screen_recordings = await asyncio.to_thread(screen.close)
            result = await recorder.close(result)
            if graph is not None:
                await graph.close()
            await learn_from_run(plan, result, handle.run_dir, settings, handle.request, events.message)
            handle.finish(result, error)
        return result

    @staticmethod
    async def _answer_output(result: RunResult, request: RunRequest, client: ModelClient, session: PhoneSession,
                             settings: Settings, events) -> None:
        """The task's output question, answered from the screen the run left (into the result)."""
        events.message(f"Reading the answer to “{request.output.strip()}” from the screen…")
        answer = await answer_from_screen(client, session.device, session.frames, settings, request.output,
                                          request.output_schema)
        result.output, result.output_error = answer.value, answer.error
        for reply in answer.replies:
            result.tokens["prompt"] = result.tokens.get("prompt", 0) + reply.prompt_tokens
            result.tokens["completion"] = result.tokens.get("completion", 0) + reply.completion_tokens
            result.tokens_estimated = result.tokens_estimated or reply.prompt_estimated
        events.message(f"Output: {answer.error or answer.value!r}")

    # ------------------------------------------------------------------ the runs

    def get(self, run_id: str) -> RunHandle | None:
        return self._runs.get(run_id)

    def live(self) -> list[RunHandle]:
        """Runs queued or going on, oldest first."""
        return [handle for handle in self._runs.values() if not handle.finished]

    def handles(self) -> list[RunHandle]:
        return list(self._runs.values())

    def past(self) -> list[RunSummary]:
        """Every recorded run on disk, newest first (blocking: reads the runs folder)."""
        return list_runs(self.runs_root)

    async def shutdown(self, timeout: float = 15.0) -> None:
        """Stop every run and wait until each has recorded its end."""
        live = self.live()
        for handle in live:
            handle.stop("the app is closing")
        tasks = [handle.task for handle in live if handle.task is not None]
        if tasks:
            done, pending = await asyncio.wait(tasks, timeout=timeout)
            for task in pending:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
