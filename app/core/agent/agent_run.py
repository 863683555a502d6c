"""One run of the agent: the state machine driving the 4-phase step processor until a result.

CONTINUE runs a step; the model's status (as approved by the person) decides what comes
next. A fail-fast phase failure is recorded in the step, then either ends the run
(fatal: phone gone, model unusable, stuck) or counts towards the consecutive-failure
limit. Stop and the time limit interrupt any wait; the step in progress is still
recorded, and the trajectory and report are always written.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Callable

from app.core.config import Settings
from app.core.device.android_device import AndroidDevice
from app.core.device.errors import DeviceError

from .action_strategies import Decide, Execute, Remember, Review, StuckFailure, TooManyRejections
from .collection_strategies import CaptureScreenshot, CollectApps, CollectControls, PrepareModelImages, Reflect
from .executor import ActionExecutor
from .llm_client import ModelClient, ModelError
from .loop_guard import FATAL_DEVICE_ERRORS, StuckDetector
from .memory import RunResult, RunStatus
from .model_decision import ReplyUnusable
from .pipeline import ComposedStrategy, PhaseFailed, ProcessingPhase, StepContext, StepProcessor
from .prompts import PromptBuilder
from .report import write_report
from .run_context import RunContext, RunEvents
from .states import AgentStatus, StateMachine, Transition
from .supervisor import RunControl, RunStopped, RunTimedOut, Supervisor
from .trajectory import TrajectoryWriter

log = logging.getLogger(__name__)

FATAL_ERRORS = (*FATAL_DEVICE_ERRORS, ModelError, ReplyUnusable, StuckFailure, TooManyRejections)


def build_processor(rc: RunContext) -> StepProcessor:
    """Seed 000's assembly: which strategy runs in which phase, and which may fail without stopping the step."""
    decide = Decide(rc, fail_fast=True)
    return StepProcessor([
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
        ], name="ActionExecution", fail_fast=False)),
        (ProcessingPhase.MEMORY_UPDATE, Remember(rc, fail_fast=False)),
    ], initial=set())


class AgentRun:
    """Runs a request on a phone until the model finishes, fails, the person stops, or a limit is hit."""

    def __init__(self, request: str, device: AndroidDevice, settings: Settings, client: ModelClient,
                 supervisor: Supervisor, *, trajectory: TrajectoryWriter | None = None,
                 events: RunEvents | None = None, on_state: Callable[[Transition], None] | None = None):
        self.settings = settings
        self.control = RunControl(settings.agent.timeout_seconds)
        self.machine = StateMachine(on_change=on_state)
        prompts = PromptBuilder(settings)
        executor = ActionExecutor(device, supervisor.ask, self.control)
        self.rc = RunContext(request=request, device=device, settings=settings, client=client, prompts=prompts,
                             supervisor=supervisor, control=self.control, executor=executor, machine=self.machine,
                             trajectory=trajectory, events=events or RunEvents(),
                             stuck=StuckDetector(settings.agent.stuck_threshold))
        self.rc.system_message = prompts.system_message()
        self.processor = build_processor(self.rc)
        self.result: RunResult | None = None

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

    async def run(self) -> RunResult:
        started = time.monotonic()
        machine, rc = self.machine, self.rc
        machine.go(AgentStatus.CONTINUE, "run started")
        status: RunStatus = "failed"
        reason, error = "", ""
        consecutive_failures = 0
        step = 0
        try:
            while True:
                await self.control.wait_if_paused()
                if step >= self.settings.agent.max_steps:
                    status, reason = "timeout", f"reached the limit of {self.settings.agent.max_steps} steps"
                    break
                step += 1
                rc.events.step_started(step)
                ctx = StepContext(step)
                try:
                    await self.processor.process(ctx)
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
                outcome = ctx.get_or("outcome")
                consecutive_failures = consecutive_failures + 1 if outcome is not None and not outcome.success else 0
                if rc.stuck.failure:
                    status, reason = "failed", rc.stuck.failure
                    break
                if consecutive_failures >= self.settings.agent.max_consecutive_failures:
                    status, reason = "failed", f"{consecutive_failures} actions in a row failed; last: {outcome.message}"
                    break
                decided = ctx.get("approved_action").status
                if decided == "FINISH":
                    status, reason = "success", ctx.get("proposal").comment or "the model reported the task done"
                    break
                if decided == "FAIL":
                    proposal = ctx.get("proposal")
                    status, reason = "failed", proposal.comment or proposal.thought or "the model gave up"
                    break
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
        result = RunResult(status=status, steps_taken=steps, actions_executed=self.rc.memory.executed_actions(),
                           time_seconds=round(time.monotonic() - started, 2), error=error,
                           completion_reason=reason, tokens=tokens, cost_usd=round(cost, 6))
        trajectory = self.rc.trajectory
        await self.rc.finish_writes()
        if trajectory is not None:
            result.run_dir = str(trajectory.run_dir)
            await asyncio.to_thread(trajectory.finish, result)
            try:
                result.report_path = str(await asyncio.to_thread(write_report, trajectory.run_dir))
            except Exception as exc:
                log.warning("could not write the report: %s", exc)
        self.result = result
        return result
