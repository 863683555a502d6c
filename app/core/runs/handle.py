"""One run as the run service holds it: its id, its events, its state, and the person's side of it.

The handle is the run's `Supervisor`: when the run wants a decision it tells the stream
(`ReviewRequested`, `QuestionAsked`) and waits for `answer()` / `answer_question()`, from
whichever face answers first (the window, the console, a script through the API). Who may
answer is the run's policy:

- "person": someone is there; wait for them as long as it takes;
- "hold":   nobody is there now; hold the question until someone answers it (same wait,
            but the run says plainly that it is holding);
- "fail":   nobody will come; the run ends failed with the reason (scripts, CI).

Two more knobs, for tasks other programs post: `review_timeout` ends a run whose question
nobody answers within that many seconds (failed, saying so), and `sensitive_needs_person=False`
lets an auto-mode run take its sensitive actions without asking (the caller vouches for them).

Time spent waiting for an answer is the person's, not the agent's: the run's clock stands
still meanwhile, so the run's time limit never ends a run while someone decides.

Every review and question has an id (`Proposal.id`, `pending_question_id`) naming the run, the
step and what was shown; a face answers with the id it showed. A decision for anything but the
pending id is refused (`NotPending`) and does nothing; a decision for an id already decided is
refused too (`AlreadyDecided`), so the same decision sent twice is acted on once.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import time
from contextlib import AbstractContextManager, nullcontext
from datetime import datetime
from typing import Literal

from app.core.agent.actions import Action
from app.core.agent.events import (
    EventStream,
    QuestionAnswered,
    QuestionAsked,
    ReviewAnswered,
    ReviewRequested,
    RunFinished,
    StepStarted,
)
from app.core.agent.memory import RunResult
from app.core.agent.supervisor import NeedsPerson, Proposal, ReviewAnswer, RunControl, question_id, review_id
from app.core.agent.take_over import NotTakenOver

PersonPolicy = Literal["person", "hold", "fail"]
RunState = Literal["queued", "running", "waiting_for_person", "finished"]

_ids = itertools.count(1)


def new_run_id() -> str:
    return f"{datetime.now():%Y%m%d-%H%M%S}-{next(_ids)}"


def _duration(seconds: float) -> str:
    if seconds >= 120 and seconds % 60 == 0:
        return f"{seconds / 60:g} minutes"
    return f"{seconds:g} seconds"


class NothingToAnswer(RuntimeError):
    """An answer came while the run waits for no decision (or for another kind of answer)."""


class NotPending(NothingToAnswer):
    """A decision names a proposal or question other than the one the run waits for: nothing was done."""


class AlreadyDecided(NotPending):
    """A decision names a proposal or question that was already decided: it was acted on once, not again."""


class RunHandle:
    def __init__(self, run_id: str, request: str, phone: str, policy: PersonPolicy = "person",
                 *, paused: bool = False, mode: str = "step", review_timeout: float | None = None,
                 sensitive_needs_person: bool = True) -> None:
        self.id = run_id
        self.request = request
        self.phone = phone                       # str(PhoneId)
        self.policy: PersonPolicy = policy
        self.mode = mode                         # "step" | "auto", as the run was asked
        self.review_timeout = review_timeout     # seconds a decision may take; None: as long as it takes
        self.sensitive_needs_person = sensitive_needs_person
        self.events = EventStream()
        self.state: RunState = "queued"
        self.result: RunResult | None = None
        self.run_dir: str = ""
        self.created = time.time()
        self.task: asyncio.Task | None = None
        self.control: RunControl | None = None   # set when the run begins
        self._review: asyncio.Future | None = None
        self._question: asyncio.Future | None = None
        self.pending_proposal: Proposal | None = None
        self.pending_question: str = ""
        self.pending_question_id: str = ""
        self._shown = itertools.count(1)         # reviews and questions asked, for their ids
        self._decided: dict[str, str] = {}       # id → what was decided (a repeat is refused, naming it)
        self._answered_by = "person"             # who gave the last decision (the window and console: the person)
        self._pause_first = paused
        self._stop_reason = ""
        self.waiting_for_phone = False           # queued behind another run on the phone (set by the service)

    def __repr__(self) -> str:
        return f"RunHandle({self.id}, {self.state}, {self.request!r})"

    # ------------------------------------------------------------------ the run's side

    def begin(self, control: RunControl) -> None:
        """The run starts: controls asked for while it was queued take effect now."""
        self.control = control
        self.state = "running"
        if self._pause_first:
            control.step_once()
        if self._stop_reason:
            control.stop(self._stop_reason)

    async def review(self, proposal: Proposal) -> ReviewAnswer:
        proposal.id = review_id(self.id, proposal, next(self._shown))
        if not self.sensitive_needs_person and self.mode == "auto" and proposal.is_sensitive:
            answer = ReviewAnswer("approve", by="program")
            self.events.emit(ReviewAnswered(proposal.step, answer, by="the task's parameters"))
            return answer
        if self.policy == "fail":
            raise NeedsPerson(f"Step {proposal.step} needs a person to approve it "
                              f"({proposal.sensitive_reason or 'step mode'}), and this run has nobody to ask.")
        self._review = asyncio.get_running_loop().create_future()
        self.pending_proposal = proposal
        self.state = "waiting_for_person"
        self.events.emit(ReviewRequested(proposal.step, proposal))
        try:
            with self._person_time():
                answer = await self._wait_for_person(self._review, f"a decision on step {proposal.step}")
        finally:
            self._review, self.pending_proposal = None, None
            if self.state == "waiting_for_person":
                self.state = "running"
        self.events.emit(ReviewAnswered(proposal.step, answer, by=self._answered_by))
        return answer

    async def ask(self, question: str) -> str:
        if self.policy == "fail":
            raise NeedsPerson(f"The agent asked “{question}”, and this run has nobody to ask.")
        self._question = asyncio.get_running_loop().create_future()
        self.pending_question = question
        self.pending_question_id = question_id(self.id, self._step_now(), question, next(self._shown))
        self.state = "waiting_for_person"
        self.events.emit(QuestionAsked(question, self.pending_question_id))
        try:
            with self._person_time():
                answer = await self._wait_for_person(self._question, "an answer")
        finally:
            self._question, self.pending_question, self.pending_question_id = None, "", ""
            if self.state == "waiting_for_person":
                self.state = "running"
        self.events.emit(QuestionAnswered(question, answer))
        return answer

    async def _wait_for_person(self, future: asyncio.Future, what: str):
        """The person's answer; NeedsPerson (the run ends failed) when nobody gives it in time."""
        if self.review_timeout is None:
            return await future
        try:
            return await asyncio.wait_for(asyncio.shield(future), self.review_timeout)
        except TimeoutError:
            future.cancel()
            raise NeedsPerson(f"Nobody gave {what} within {_duration(self.review_timeout)} "
                              "(the task's review timeout).") from None

    def _step_now(self) -> int:
        """The step the run is at (0 before its first)."""
        return next((event.step for event in reversed(self.events.history) if isinstance(event, StepStarted)), 0)

    def _person_time(self) -> AbstractContextManager[None]:
        """While the run waits for the person, its clock (and so its time limit) stands still."""
        return self.control.waiting_for_person() if self.control is not None else nullcontext()

    def finish(self, result: RunResult | None, error: str = "") -> None:
        self.result = result
        self.state = "finished"
        self.events.emit(RunFinished(result, error))

    # ------------------------------------------------------------------ the faces' side (on the run's loop)

    @property
    def awaiting_review(self) -> bool:
        return self._review is not None and not self._review.done()

    @property
    def awaiting_answer(self) -> bool:
        return self._question is not None and not self._question.done()

    @property
    def finished(self) -> bool:
        return self.state == "finished"

    @property
    def paused(self) -> bool:
        return self.control.paused if self.control is not None else self._pause_first

    @property
    def pending_id(self) -> str:
        """The id of the proposal or question the run waits for ("" when it waits for none)."""
        if self.awaiting_review and self.pending_proposal is not None:
            return self.pending_proposal.id
        return self.pending_question_id if self.awaiting_answer else ""

    def check_pending(self, decision_id: str) -> None:
        """Raise unless `decision_id` names what the run waits for now (see the module's docstring)."""
        if decision_id in self._decided:
            raise AlreadyDecided(f"{decision_id} was already decided ({self._decided[decision_id]}); "
                                 "it was acted on once and nothing was done again.")
        pending = self.pending_id
        if not pending:
            raise NothingToAnswer(f"Run {self.id} is not waiting for a decision.")
        if decision_id != pending:
            raise NotPending(f"Run {self.id} waits for a decision on {pending}, not on “{decision_id}”: "
                             "nothing was done. Read the task again and decide on what it shows now.")

    def answer(self, proposal_id: str, answer: ReviewAnswer, *, by: str = "person") -> None:
        """A decision about the proposal waiting for review; `proposal_id` is the id the face showed, `by` who
        decided as the run's history says it ("person", or e.g. "a program through the task API")."""
        self.check_pending(proposal_id)
        review = self._review
        if review is None or review.done():       # not awaiting_review
            raise NotPending(f"Run {self.id} waits for an answer to its question {proposal_id}, not a decision.")
        self._decided[proposal_id] = answer.kind
        self._answered_by = by
        review.set_result(dataclasses.replace(answer, by="person" if by == "person" else "program"))

    def answer_question(self, question_id: str, text: str) -> None:
        """The answer to the question the run asked; `question_id` is the id the face showed."""
        self.check_pending(question_id)
        question = self._question
        if question is None or question.done():   # not awaiting_answer
            raise NotPending(f"Run {self.id} waits for a decision on {question_id}, not an answer to a question.")
        self._decided[question_id] = "answered"
        question.set_result(text)

    def pause(self) -> None:
        if self.control is not None:
            self.control.pause()
        else:
            self._pause_first = True

    def resume(self) -> None:
        if self.control is not None:
            self.control.resume()
        else:
            self._pause_first = False

    def step_once(self) -> None:
        if self.control is not None:
            self.control.step_once()
        else:
            self._pause_first = True

    # ------------------------------------------------------------------ take over and hand back

    @property
    def taken_over(self) -> bool:
        return self.control is not None and self.control.take_over.active

    def take_over(self) -> None:
        """The person takes the phone now: the agent's step in progress is set aside (a waiting proposal
        too) and their actions (`person_act`) are the run's steps until `hand_back`."""
        if self.control is None or self.finished:
            raise NotTakenOver(f"Run {self.id} has not begun on the phone yet: there is nothing to take over."
                               if not self.finished else f"Run {self.id} has ended.")
        self.control.take_over.begin()
        review, question = self._review, self._question
        if review is not None and not review.done():          # awaiting_review
            self._decided[self.pending_id] = "taken over"
            self._answered_by = "person"
            review.set_result(ReviewAnswer.take_over())
        if question is not None and not question.done():      # awaiting_answer
            self._decided[self.pending_id] = "taken over"
            question.set_result("(The person took over the phone instead of answering.)")
        if self.control.paused:
            self.control.resume()          # the run's loop wakes up to carry out the person's actions

    def person_act(self, action: Action) -> asyncio.Future:
        """One of the person's actions, done by the run as its next step; the future ends with the step record."""
        if self.control is None:
            raise NotTakenOver(f"Run {self.id} is not taken over.")
        return self.control.take_over.act(action)

    def hand_back(self, note: str = "") -> None:
        """Give the phone back to the agent; `note` goes into its next prompt with what the person did."""
        if self.control is None:
            raise NotTakenOver(f"Run {self.id} is not taken over.")
        self.control.take_over.hand_back(note)

    def stop(self, reason: str = "stopped by the person") -> None:
        """Stop now (a queued run ends without touching the phone)."""
        self._stop_reason = self._stop_reason or reason
        if self.control is not None:
            self.control.stop(reason)
        elif self.waiting_for_phone and self.task is not None and not self.task.done():
            self.task.cancel()                   # the service ends it "stopped before it began"

    @property
    def stop_requested(self) -> bool:
        return bool(self._stop_reason)

    async def wait(self) -> RunResult | None:
        """The run's result once it has ended (a crash inside the run is raised here)."""
        assert self.task is not None
        return await asyncio.shield(self.task)
