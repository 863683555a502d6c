"""One run of the agent: the state machine driving the 4-phase step processor until a result.

CONTINUE runs a step; the model's status (as approved by the person) decides what comes
next. A fail-fast phase failure is recorded in the step, then either ends the run
(fatal: phone gone, model unusable, stuck) or counts towards the consecutive-failure
limit. Stop and the time limit interrupt any wait; the step in progress is still
recorded. The time limit counts the agent's own time only: waiting for the person (a
review, an answer, a pause) is recorded apart and never ends a run. Everything the run
does is told on its event stream; writing it to disk is the recorder's job
(app.core.runs), not the run's.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from app.core.config import Settings
from app.core.device.android_device import AndroidDevice
from app.core.device.errors import DeviceError
from app.core.device.frames import FrameSource
from app.core.device.screen_tree import ScreenTree

from .action_strategies import Decide, Execute, Remember, Review, RunCannotGoOn, StuckFailure, TooManyRejections
from .collection_strategies import CaptureScreenshot, CollectApps, CollectControls, PrepareModelImages, Reflect
from .completion_check import CheckCompletion, CompletionVerdict
from .events import EventStream, StateChanged, StepStarted
from .executor import ActionExecutor
from .llm_client import ModelClient, ModelError
from .loop_guard import FATAL_DEVICE_ERRORS, StuckDetector
from .memory import RunResult, RunStatus
from .model_decision import ReplyUnusable
from .person_steps import persons_turn
from .pipeline import ComposedStrategy, PhaseFailed, ProcessingPhase, StepContext, StepProcessor, Strategy
from .prompts import PromptBuilder
from .run_context import RunContext
from .spending import SpendingCapReached
from .states import AgentStatus, StateMachine
from .supervisor import NeedsPerson, RunControl, RunStopped, RunTimedOut, Supervisor
from .take_over import PersonTookOver

log = logging.getLogger(__name__)

MAX_STEPS_REACHED = "Max steps reached"
"""Seed 004's reason for a run that used all its steps: it ends `failed` (the time limit alone ends `timeout`)."""

FATAL_ERRORS = (*FATAL_DEVICE_ERRORS, ModelError, ReplyUnusable, StuckFailure, TooManyRejections, SpendingCapReached,
                RunCannotGoOn)


Pipeline = list[tuple[ProcessingPhase, Strategy]]
PipelineFactory = Callable[[RunContext], Pipeline]


def seed_pipeline(rc: RunContext) -> Pipeline:
    """Seed 000's assembly: which strategy runs in which phase, and which may fail without stopping the step.

    A planner, a skill runner or a replay step goes in front of the model's decision by passing
    another factory to `AgentRun` that builds on this list.
    """
    decide = Decide(rc, fail_fast=True)
    return [
        (ProcessingPhase.DATA_COLLECTION, ComposedStrategy([
            CaptureScreenshot(rc, fail_fast=True),
            CollectApps(rc, fail_fast=False),
            CollectControls(rc, fail_fast=False),
            PrepareModelImages(rc, fail_fast=True),
            Reflect(rc, fail_fast=False),
        ], name="DataCollection", fail_fast=True)),
        (ProcessingPhase.LLM_INTERACTION, decide),
        (ProcessingPhase.ACTION_EXECUTION, ComposedStrategy([
            Review(rc, decide, fail_fast=True),
            Execute(rc, fail_fast=False),
            CheckCompletion(rc, fail_fast=False),
        ], name="ActionExecution", fail_fast=False)),
        (ProcessingPhase.MEMORY_UPDATE, Remember(rc, fail_fast=False)),
    ]


class AgentRun:
    """Runs a request on a phone until the model finishes, fails, the person stops, or a limit is hit."""

    def __init__(self, request: str, device: AndroidDevice, settings: Settings, client: ModelClient,
                 supervisor: Supervisor, *, frames: FrameSource, events: EventStream | None = None,
                 pipeline: PipelineFactory = seed_pipeline, screen_tree: ScreenTree | None = None):
        self.settings = settings
        self.events = events or EventStream()
        self.control = RunControl(settings.agent.timeout_seconds)
        self.machine = StateMachine(on_change=lambda t: self.events.emit(
            StateChanged(t.before.value, t.after.value, t.reason)))
        prompts = PromptBuilder(settings)
        executor = ActionExecutor(device, supervisor.ask, self.control)
        self.rc = RunContext(request=request, device=device, settings=settings, client=client, prompts=prompts,
                             supervisor=supervisor, control=self.control, executor=executor, machine=self.machine,
                             frames=frames, events=self.events, stuck=StuckDetector(settings.agent.stuck_threshold),
                             screen_tree=screen_tree)
        self.rc.system_message = prompts.system_message()
        self.processor = StepProcessor(pipeline(self.rc), initial=set())
        self.result: RunResult | None = None
        self.verification: tuple[str, str] = ("", "")   # how a success was verified, and what the check saw

    # controls for the face (GUI/CLI); safe to call at any moment
    def pause(self) -> None:
        self.control.pause()

    def resume(self) -> None:
        self.control.resume()

    def stop(self, reason: str = "stopped by the person") -> None:
        self.control.stop(reason)

    @property
    def status(self) -> AgentStatus:
        return self.machine.status

    def _agent_time(self) -> float:
        """The clock a step's phases are timed with: the agent's own seconds (still while the person decides)."""
        return self.control.clock.agent_seconds

    async def run(self) -> RunResult:
        started = time.monotonic()
        machine, rc = self.machine, self.rc
        machine.go(AgentStatus.CONTINUE, "run started")
        status: RunStatus = "failed"
        reason, error = "", ""
        consecutive_failures = 0
        refuted_finishes = 0      # FINISHes the completion check found not done
        step = 0
        persons_steps = 0         # steps the person took in their turns
        try:
            while True:
                await self.control.wait_if_paused()
                if self.control.take_over.active:        # the person drives; their actions are steps
                    before = step
                    step = await persons_turn(rc, self.processor, step)
                    persons_steps += step - before
                    continue
                if step - persons_steps >= self.settings.agent.max_steps:   # the person's steps don't count
                    status = "failed"
                    reason = f"{MAX_STEPS_REACHED} (the limit of {self.settings.agent.max_steps} steps)"
                    break
                step += 1
                rc.events.emit(StepStarted(step))
                ctx = StepContext(step, clock=self._agent_time)
                try:
                    await self.processor.process(ctx)
                except PersonTookOver:                   # the step is set aside, recorded as such
                    await self._record_anyway(ctx)
                    continue
                except PhaseFailed as exc:
                    await self._record_anyway(ctx)
                    error = str(exc.error)
                    if isinstance(exc.error, FATAL_ERRORS):
                        status, reason = "failed", error
                        break
                    consecutive_failures += 1
                    rc.events.message(f"Step {step} failed: {error}")
                    if consecutive_failures >= self.settings.agent.max_consecutive_failures:
                        status, reason = "failed", f"{consecutive_failures} steps in a row failed; last: {error}"
                        break
                    continue
                if self.control.step_done():
                    rc.events.message(f"Paused after step {step}.")
                outcome = ctx.get_or("outcome")
                consecutive_failures = consecutive_failures + 1 if outcome is not None and not outcome.success else 0
                if rc.stuck.failure:
                    status, reason = "failed", rc.stuck.failure
                    break
                if consecutive_failures >= self.settings.agent.max_consecutive_failures:
                    status = "failed"
                    reason = f"{consecutive_failures} actions in a row failed; last: {outcome.message}"
                    break
                decided = ctx.get("approved_action").status
                if decided == "FINISH":
                    verdict: CompletionVerdict = ctx.get_or("completion") or CompletionVerdict(None)
                    claim = ctx.get("proposal").comment or "the model reported the task done"
                    if verdict.refuted:
                        refuted_finishes += 1
                        if refuted_finishes > self.settings.agent.max_unconfirmed_finishes:
                            status, reason = "failed", (f"the model said the task was done {refuted_finishes} times, "
                                                        f"but the check found it not done: {verdict.reason}")
                            break
                        rc.pending_feedback = (f"You said the task is done ({claim}), but a check of the screen "
                                               f"found it is not: {verdict.reason}. Carry on, or say FAIL if it "
                                               "cannot be done.")
                        continue
                    status, reason = "success", claim
                    self.verification = verdict.ending, verdict.reason
                    break
                if decided == "FAIL":
                    proposal = ctx.get("proposal")
                    status, reason = "failed", proposal.comment or proposal.thought or "the model gave up"
                    break
        except NeedsPerson as exc:
            await self._record_anyway(ctx)
            status, reason, error = "failed", str(exc), str(exc)
        except (RunStopped, RunTimedOut) as exc:
            if step:
                await self._record_anyway(ctx)
            status = "stopped" if isinstance(exc, RunStopped) else "timeout"
            reason = str(exc) or "stopped by the person"
        except DeviceError as exc:   # outside a step (e.g. while paused the phone went away)
            status, reason, error = "failed", str(exc), str(exc)
        self._settle_state(status, reason)
        return await self._finish(status, reason, error if status != "success" else "", step, started)

    async def _record_anyway(self, ctx: StepContext) -> None:
        """Write the step in progress even though it did not complete (stop, failure)."""
        if "memory_item" in ctx.values:
            return
        try:
            await self.processor.process(ctx, only={ProcessingPhase.MEMORY_UPDATE})
        except Exception as exc:   # the record must not hide the original problem
            log.warning("could not record step %d: %s", ctx.step, exc)

    def _settle_state(self, status: RunStatus, reason: str) -> None:
        """Failures pass through FAIL to FINISH; success, stop and timeout end in FINISH directly."""
        if status == "failed":
            self.machine.fail(reason)
        elif self.machine.status != AgentStatus.FINISH:
            self.machine.go(AgentStatus.FINISH, reason)

    async def _finish(self, status: RunStatus, reason: str, error: str, steps: int, started: float) -> RunResult:
        tokens, cost = self.rc.memory.totals()
        self.result = RunResult(status=status, steps_taken=steps, actions_executed=self.rc.memory.executed_actions(),
                                time_seconds=round(time.monotonic() - started, 2), error=error,
                                completion_reason=reason, tokens=tokens, cost_usd=round(cost, 6),
                                tokens_estimated=self.rc.memory.tokens_estimated(),
                                agent_seconds=round(self.control.clock.agent_seconds, 2),
                                waiting_seconds=round(self.control.clock.waiting_seconds, 2),
                                **(dict(zip(("verification", "verification_note"), self.verification, strict=True))
                                   if status == "success" else {}))
        return self.result
