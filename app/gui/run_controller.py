"""The bridge between an AgentRun (core, no Qt) and the window: core callbacks become Qt signals,
and the person's answers resolve the futures the run awaits (Dangerzone's request pattern, async)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from app.core.agent.agent_run import AgentRun
from app.core.agent.llm_client import ModelClient
from app.core.agent.memory import MemoryItem, RunResult
from app.core.agent.run_context import RunEvents
from app.core.agent.states import Transition
from app.core.agent.supervisor import Proposal, ReviewAnswer
from app.core.agent.trajectory import TrajectoryWriter
from app.core.config import Settings
from app.core.device.android_device import AndroidDevice

log = logging.getLogger(__name__)


class RunController(QObject):
    """Starts, pauses, steps and stops runs; is the run's Supervisor."""

    state_changed = Signal(str, str)        # status, reason
    step_started = Signal(int)
    step_finished = Signal(object)          # MemoryItem
    proposal_shown = Signal(object)         # every proposal, also auto-approved ones (to draw it)
    review_requested = Signal(object)       # a Proposal that waits for the person
    question_asked = Signal(str)
    run_started = Signal(object, str)       # run folder (Path), request
    run_finished = Signal(object)           # RunResult
    message = Signal(str)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.run: AgentRun | None = None
        self.task: asyncio.Task | None = None
        self._review: asyncio.Future | None = None
        self._question: asyncio.Future | None = None
        self._pause_after_step = False

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    @property
    def awaiting_review(self) -> bool:
        return self._review is not None and not self._review.done()

    # ------------------------------------------------------------------ Supervisor

    async def review(self, proposal: Proposal) -> ReviewAnswer:
        self._review = asyncio.get_running_loop().create_future()
        self.review_requested.emit(proposal)
        try:
            return await self._review
        finally:
            self._review = None

    async def ask(self, question: str) -> str:
        self._question = asyncio.get_running_loop().create_future()
        self.question_asked.emit(question)
        try:
            return await self._question
        finally:
            self._question = None

    def answer(self, answer: ReviewAnswer) -> None:
        """The person decided about the proposal on screen."""
        if self._review is not None and not self._review.done():
            self._review.set_result(answer)

    def answer_question(self, text: str) -> None:
        if self._question is not None and not self._question.done():
            self._question.set_result(text)

    # ------------------------------------------------------------------ run control

    def start(self, request: str, device: AndroidDevice, settings: Settings, api_key: str | None,
              device_info: dict | None = None, *, paused: bool = False) -> None:
        if self.running:
            raise RuntimeError("a run is already in progress")
        self.task = asyncio.ensure_future(self._run(request, device, settings, api_key, device_info or {}, paused))

    async def _run(self, request: str, device: AndroidDevice, settings: Settings, api_key: str | None,
                   device_info: dict, paused: bool) -> RunResult | None:
        try:
            return await self._run_recorded(request, device, settings, api_key, device_info, paused)
        except Exception:
            self.run_finished.emit(None)     # the window leaves the running state; the error dialog explains
            raise

    async def _run_recorded(self, request: str, device: AndroidDevice, settings: Settings, api_key: str | None,
                            device_info: dict, paused: bool) -> RunResult:
        trajectory = await asyncio.to_thread(
            TrajectoryWriter.create, request, {"serial": device.serial, **device_info},
            {"base_url": settings.provider.base_url, "model": settings.provider.model}, settings.model_dump(mode="json"))
        events = RunEvents(step_started=self._on_step_started, step_finished=self._on_step_finished,
                           proposal=self.proposal_shown.emit, message=self.message.emit)
        # Building the client loads the CA bundle and the run its prompt templates: ~100 ms the GUI must not wait.
        client = await asyncio.to_thread(ModelClient, settings.provider, api_key, on_retry=self.message.emit)
        async with client:
            self.run = await asyncio.to_thread(AgentRun, request, device, settings, client, self, trajectory=trajectory,
                                               events=events, on_state=self._on_state)
            if paused:
                self.run.pause()
            self.run_started.emit(trajectory.run_dir, request)
            result = await self.run.run()
        self.run_finished.emit(result)
        return result

    def _on_state(self, transition: Transition) -> None:
        self.state_changed.emit(transition.after.value, transition.reason)

    def _on_step_started(self, step: int) -> None:
        self.step_started.emit(step)

    def _on_step_finished(self, item: MemoryItem) -> None:
        self.step_finished.emit(item)
        if self._pause_after_step and self.run is not None:
            self._pause_after_step = False
            self.run.pause()
            self.message.emit(f"Paused after step {item.step}.")

    def pause(self) -> None:
        if self.run is not None:
            self.run.pause()

    def resume(self) -> None:
        if self.run is not None:
            self.run.resume()

    def step_once(self) -> None:
        """Run one more step, then pause again."""
        if self.run is not None:
            self._pause_after_step = True
            self.run.resume()

    @property
    def paused(self) -> bool:
        return self.run is not None and self.run.control.paused

    def stop(self) -> None:
        if self.run is not None:
            self.run.stop("stopped by the person")

    async def shutdown(self) -> None:
        """Stop a run in progress and wait until its trajectory is written."""
        if self.running:
            self.stop()
            try:
                await asyncio.wait_for(asyncio.shield(self.task), 15)
            except (asyncio.TimeoutError, asyncio.CancelledError, Exception) as exc:   # closing anyway
                log.warning("the run did not end cleanly: %s", exc)

    def run_dir(self) -> Path | None:
        trajectory = self.run.rc.trajectory if self.run else None
        return trajectory.run_dir if trajectory else None
