"""The window's side of the run service: Qt signals for a run's events, and the person's answers back.

The run service, the phones and every run live on the core's loop thread (`LoopThread`),
so none of a run's work — parsing, prompts, the model client, validation — ever runs on
the GUI thread. The controller follows a run's event stream (a late start sees the whole
run so far) and re-emits each event as a Qt signal on the GUI thread; the person's
decisions, Pause, Step and Stop go back to the run's handle on the core loop.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.core.agent.actions import Action
from app.core.agent.events import (
    HandedBack,
    Message,
    ModelWords,
    ProposalMade,
    QuestionAsked,
    ReviewRequested,
    RunEvent,
    RunStarted,
    StateChanged,
    StepRecorded,
    StepStarted,
    TakenOver,
)
from app.core.agent.memory import RunResult
from app.core.agent.supervisor import ReviewAnswer
from app.core.agent.take_over import NotTakenOver
from app.core.loop_thread import LoopThread
from app.core.runs.handle import NothingToAnswer, RunHandle, new_run_id
from app.core.runs.service import RunRequest, RunService
from app.gui.bridge import GuiHop, RunFollow, follow_run

log = logging.getLogger(__name__)


class RunController(QObject):
    """Starts and follows one run at a time for the window."""

    state_changed = Signal(str, str)        # status, reason
    step_started = Signal(int)
    step_finished = Signal(object)          # the step's record, once it is on disk
    proposal_shown = Signal(object)         # every proposal, also auto-approved ones (to draw it)
    review_requested = Signal(object)       # a Proposal that waits for the person
    question_asked = Signal(str)
    run_started = Signal(object, str)       # run folder (Path), request
    run_finished = Signal(object)           # RunResult (None when the run crashed)
    message = Signal(str)
    model_words = Signal(int, str)          # step, the model's reply so far (streamed)
    taken_over = Signal(bool)               # True: the person has the phone; False: handed back (or the run ended)

    def __init__(self, core: LoopThread, service: RunService, parent: QObject | None = None):
        super().__init__(parent)
        self.core = core
        self.service = service
        self.handle: RunHandle | None = None
        self.task: asyncio.Future | None = None       # on the GUI loop: ends with the run's result
        self.hop = GuiHop()                          # the core's thread's way back to this one
        self._following: RunFollow | None = None
        self._others: list[RunHandle] = []           # runs other programs started, to show after this one
        self._own_ids: set[str] = set()
        self.shows_phone: Callable[[str], bool] = lambda _phone: True   # runs on other phones are not offered
        self.person_has_phone = False
        self.shown_proposal_id = ""      # the ids of the proposal and the question the window last showed:
        self.shown_question_id = ""      # the person's answers name them (never a later one)

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    @property
    def awaiting_review(self) -> bool:
        return self.handle is not None and self.handle.awaiting_review

    @property
    def paused(self) -> bool:
        return self.handle is not None and self.handle.paused

    # ------------------------------------------------------------------ starting and following

    async def start(self, request: RunRequest) -> RunHandle:
        """Ask the service for a run and follow it. Raises what the service refuses with (RunRefused, DeviceError)."""
        if self.running:
            raise RuntimeError("a run is already in progress")
        request.run_id = request.run_id or new_run_id()
        self._own_ids.add(request.run_id)        # not offered again as another program's run
        handle = await self.core.run(self.service.start(request))
        self.follow(handle)
        return handle

    def follow(self, handle: RunHandle) -> None:
        """Show `handle`'s run in the window, from its first event (it may have begun long ago)."""
        self.hop.bind()
        if self._following is not None:
            self._following.stop()               # the previous run's late events no longer reach the window
        self.handle = handle
        self._following = follow_run(self.core, self.hop, handle, self._on_event)
        self.task = asyncio.ensure_future(self._result(handle))

    async def _result(self, handle: RunHandle) -> RunResult | None:
        try:
            result = await self.core.run(handle.wait())
        except BaseException:
            self._set_taken_over(False)
            self.run_finished.emit(None)     # the window leaves the running state; the error dialog explains
            raise
        finally:
            asyncio.get_running_loop().call_soon(self._follow_next_other)
        self._set_taken_over(False)
        self.run_finished.emit(result)
        return result

    def follow_other_runs(self) -> None:
        """Show runs other programs start (tasks posted to the task API) as they come, one after another,
        each from its first event; the person approves their steps here as for the window's own."""
        self.hop.bind()
        self.core.call(self.service.on_new_run, self._new_run)

    def _new_run(self, handle: RunHandle) -> None:
        """On the core loop: a run started anywhere (the window's own are followed already)."""
        self.hop.call(self._offer, handle)

    def _offer(self, handle: RunHandle) -> None:
        if handle is self.handle or handle in self._others or handle.id in self._own_ids \
                or not self.shows_phone(handle.phone):
            return
        self._others.append(handle)
        self._follow_next_other()

    def _follow_next_other(self) -> None:
        if self.running:
            return
        while self._others:
            handle = self._others.pop(0)
            if not handle.finished:
                self.message.emit(f"A task from another program: “{handle.request}” ({handle.id}).")
                self.follow(handle)
                return

    def _show_review(self, proposal) -> None:
        """On the GUI thread: the proposal the window shows now, and the id the person's decision names."""
        self.shown_proposal_id = proposal.id
        self.review_requested.emit(proposal)

    def _show_question(self, question: str, question_id: str) -> None:
        self.shown_question_id = question_id
        self.question_asked.emit(question)

    def _on_event(self, _handle: RunHandle, event: RunEvent) -> None:
        """On the GUI thread: each event the window shows becomes its signal."""
        if isinstance(event, StateChanged):
            self.state_changed.emit(event.after, event.reason)
        elif isinstance(event, StepStarted):
            self.step_started.emit(event.step)
        elif isinstance(event, StepRecorded):
            self.step_finished.emit(event.item)
        elif isinstance(event, ProposalMade):
            self.proposal_shown.emit(event.proposal)
        elif isinstance(event, ReviewRequested):
            self._show_review(event.proposal)
        elif isinstance(event, QuestionAsked):
            self._show_question(event.question, event.question_id)
        elif isinstance(event, RunStarted):
            self.run_started.emit(Path(event.run_dir), event.request)
        elif isinstance(event, Message):
            self.message.emit(event.text)
        elif isinstance(event, ModelWords):
            self.model_words.emit(event.step, event.text_so_far)
        elif isinstance(event, (TakenOver, HandedBack)):
            self._set_taken_over(isinstance(event, TakenOver))

    def _set_taken_over(self, taken: bool) -> None:
        if taken != self.person_has_phone:
            self.person_has_phone = taken
            self.taken_over.emit(taken)

    # ------------------------------------------------------------------ the person's side (GUI thread)

    def _to_run(self, method: str, *args: Any) -> None:
        handle = self.handle
        if handle is None:
            return

        def call() -> None:
            try:
                getattr(handle, method)(*args)
            except (NothingToAnswer, NotTakenOver) as exc:    # answered elsewhere first, or the run moved on
                log.info("%s", exc)
        self.core.call(call)

    def answer(self, answer: ReviewAnswer) -> None:
        """The person decided about the proposal on screen (a late click never decides a later one)."""
        self._to_run("answer", self.shown_proposal_id, answer)

    def answer_question(self, text: str) -> None:
        """The person's answer to the question on screen."""
        self._to_run("answer_question", self.shown_question_id, text)

    def pause(self) -> None:
        self._to_run("pause")

    def resume(self) -> None:
        self._to_run("resume")

    def step_once(self) -> None:
        """Run one more step, then pause again."""
        self._to_run("step_once")

    def stop(self) -> None:
        self._to_run("stop", "stopped by the person")

    # ------------------------------------------------------------------ take over and hand back

    def take_over(self) -> None:
        """The person takes the phone: the agent's step is set aside; their actions become the run's steps."""
        self._to_run("take_over")

    def hand_back(self, note: str) -> None:
        self._to_run("hand_back", note)

    def person_act(self, action: Action, what: str) -> None:
        """Do one of the person's actions as a step of the taken-over run; a failure is said as a message."""
        handle = self.handle
        if handle is None:
            return

        def act() -> None:
            try:
                done = handle.person_act(action)
            except NotTakenOver as exc:
                self.hop.emit(self.message, str(exc))
                return
            done.add_done_callback(lambda future: self._said_if_failed(future, what))
        self.core.call(act)

    def _said_if_failed(self, future: asyncio.Future, what: str) -> None:
        """On the core loop: a person's action that could not be done is said in words."""
        if future.cancelled():
            return
        error = future.exception()
        if error is not None:
            self.hop.emit(self.message, f"Could not {what}: {error}")
        elif future.result() is not None and future.result().result is not None \
                and not future.result().result.success:
            self.hop.emit(self.message, f"Could not {what}: {future.result().result.message}")

    async def shutdown(self) -> None:
        """Stop a run in progress and wait until its trajectory is written."""
        if self.running and self.task is not None:
            self.stop()
            try:
                await asyncio.wait_for(asyncio.shield(self.task), 15)
            except (TimeoutError, asyncio.CancelledError, Exception) as exc:   # closing anyway
                log.warning("the run did not end cleanly: %s", exc)

    def run_dir(self) -> Path | None:
        return Path(self.handle.run_dir) if self.handle is not None and self.handle.run_dir else None
