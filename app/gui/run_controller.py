"""The bridge between an AgentRun (core, no Qt) and the window.

The run lives on its own thread with its own asyncio loop (`AgentLoopThread`), so none of
its work — parsing, prompts, the model client's request building, validation — ever
runs on the GUI thread. Its callbacks are handed to the GUI thread and become Qt signals
there; the person's answers and Pause/Stop are handed to the run's loop and resolve the
futures the run awaits (Dangerzone's request pattern, async).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path
from typing import Any, Callable

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


class AgentLoopThread:
    """A daemon thread running an asyncio loop of its own, for one run."""

    def __init__(self) -> None:
        # A plain asyncio loop even where qasync installed its policy (its loops belong to the GUI thread).
        self.loop = asyncio.DefaultEventLoopPolicy().new_event_loop()
        self._thread = threading.Thread(target=self._serve, name="agentdesk-run", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_forever()
        finally:
            self.loop.run_until_complete(self.loop.shutdown_default_executor())
            self.loop.close()

    def call(self, function: Callable[..., Any], *args: Any) -> None:
        """Call `function(*args)` on the run's loop, from any thread."""
        if not self.loop.is_closed():
            self.loop.call_soon_threadsafe(function, *args)

    async def run(self, coro) -> Any:
        """Run `coro` on this thread's loop; await its result from the caller's loop."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.loop))

    def close(self) -> None:
        """Stop the loop; the thread finishes its executor and ends on its own."""
        self.call(self.loop.stop)


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

    def __init__(self, parent: QObject | None = None, *, own_thread: bool = True):
        """`own_thread=False` runs the agent on the GUI's loop: only the GUI benchmark does, for its baseline."""
        super().__init__(parent)
        self.own_thread = own_thread
        self.run: AgentRun | None = None
        self.task: asyncio.Task | None = None       # on the GUI loop: ends with the run's result
        self._agent_thread: AgentLoopThread | None = None
        self._gui_loop: asyncio.AbstractEventLoop | None = None
        self._review: asyncio.Future | None = None
        self._question: asyncio.Future | None = None
        self._pause_after_step = False
        self._stop_requested = False

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    @property
    def awaiting_review(self) -> bool:
        return self._review is not None and not self._review.done()

    # ------------------------------------------------------------------ between the threads

    def _to_gui(self, signal, *args: Any) -> None:
        """Emit `signal` on the GUI thread (called from the run's thread)."""
        if self._gui_loop is not None and not self._gui_loop.is_closed():
            self._gui_loop.call_soon_threadsafe(signal.emit, *args)

    def _to_run(self, function: Callable[..., Any], *args: Any) -> None:
        """Call `function` on the run's loop (called from the GUI thread)."""
        if self._agent_thread is not None:
            self._agent_thread.call(function, *args)
        elif self._gui_loop is not None:
            self._gui_loop.call_soon(function, *args)

    # ------------------------------------------------------------------ Supervisor (on the run's thread)

    async def review(self, proposal: Proposal) -> ReviewAnswer:
        self._review = asyncio.get_running_loop().create_future()
        self._to_gui(self.review_requested, proposal)
        try:
            return await self._review
        finally:
            self._review = None

    async def ask(self, question: str) -> str:
        self._question = asyncio.get_running_loop().create_future()
        self._to_gui(self.question_asked, question)
        try:
            return await self._question
        finally:
            self._question = None

    def answer(self, answer: ReviewAnswer) -> None:
        """The person decided about the proposal on screen."""
        self._to_run(_resolve, self._review, answer)

    def answer_question(self, text: str) -> None:
        self._to_run(_resolve, self._question, text)

    # ------------------------------------------------------------------ run control

    def start(self, request: str, device: AndroidDevice, settings: Settings, api_key: str | None,
              device_info: dict | None = None, *, paused: bool = False) -> None:
        """Start a run on its own thread; with `paused`, it takes one step and then pauses."""
        if self.running:
            raise RuntimeError("a run is already in progress")
        self._gui_loop = asyncio.get_running_loop()
        self._agent_thread = AgentLoopThread() if self.own_thread else None
        self.run = None
        self._pause_after_step = paused
        self._stop_requested = False
        self.task = asyncio.ensure_future(self._run(request, device, settings, api_key, device_info or {}))

    async def _run(self, request: str, device: AndroidDevice, settings: Settings, api_key: str | None,
                   device_info: dict) -> RunResult | None:
        agent_thread = self._agent_thread
        run = self._run_recorded(request, device, settings, api_key, device_info)
        try:
            result = await (agent_thread.run(run) if agent_thread else run)
        except BaseException:
            self.run_finished.emit(None)     # the window leaves the running state; the error dialog explains
            raise
        finally:
            if agent_thread:
                agent_thread.close()
        self.run_finished.emit(result)
        return result

    async def _run_recorded(self, request: str, device: AndroidDevice, settings: Settings, api_key: str | None,
                            device_info: dict) -> RunResult:
        """The run itself, on the run's thread and loop."""
        trajectory = await asyncio.to_thread(
            TrajectoryWriter.create, request, {"serial": device.serial, **device_info},
            {"base_url": settings.provider.base_url, "model": settings.provider.model}, settings.model_dump(mode="json"))
        def message(text: str) -> None:
            self._to_gui(self.message, text)

        events = RunEvents(step_started=lambda step: self._to_gui(self.step_started, step),
                           step_finished=self._on_step_finished,
                           proposal=lambda proposal: self._to_gui(self.proposal_shown, proposal), message=message)
        async with ModelClient(settings.provider, api_key, on_retry=message) as client:
            self.run = AgentRun(request, device, settings, client, self, trajectory=trajectory, events=events,
                                on_state=self._on_state)
            if self._stop_requested:                 # Stop came while the run was being set up
                self.run.stop("stopped by the person")
            self._to_gui(self.run_started, trajectory.run_dir, request)
            return await self.run.run()

    def _on_state(self, transition: Transition) -> None:
        self._to_gui(self.state_changed, transition.after.value, transition.reason)

    def _on_step_finished(self, item: MemoryItem) -> None:
        if self._pause_after_step and self.run is not None:    # paused first: the window reads it on the signal
            self._pause_after_step = False
            self.run.pause()
            self._to_gui(self.message, f"Paused after step {item.step}.")
        self._to_gui(self.step_finished, item)

    # ------------------------------------------------------------------ from the GUI thread

    def pause(self) -> None:
        if self.run is not None:
            self._to_run(self.run.pause)

    def resume(self) -> None:
        if self.run is not None:
            self._to_run(self.run.resume)

    def step_once(self) -> None:
        """Run one more step, then pause again."""
        self._pause_after_step = True
        if self.run is not None:
            self._to_run(self.run.resume)

    @property
    def paused(self) -> bool:
        return self.run is not None and self.run.control.paused

    def stop(self) -> None:
        self._stop_requested = True
        if self.run is not None:
            self._to_run(self.run.stop, "stopped by the person")

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


def _resolve(future: asyncio.Future | None, value: Any) -> None:
    if future is not None and not future.done():
        future.set_result(value)
