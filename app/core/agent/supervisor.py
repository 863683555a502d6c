"""Supervision: the person reviews each proposed action (step mode) or only sensitive ones (auto mode).

The pipeline awaits `supervisor.review(proposal)`; a GUI resolves it when a button is
pressed, the CLI when a key is typed, a test with a script. The answer approves, edits,
overrides, rejects with feedback, or stops the run. `RunControl` carries pause, resume,
stop and the time limit, so every wait in a step can be interrupted; the limit counts the
agent's own time (`AgentClock`), never the time spent waiting for the person.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypeVar

from PIL import Image

from app.core.perception.controls import Control

from .actions import Action
from .pipeline import ControlFlow, cancel_and_wait
from .take_over import TakeOver

T = TypeVar("T")


@dataclass
class Proposal:
    """What the model wants to do next, in device pixels, with what a person needs to judge it."""

    step: int
    action: Action
    action_text: str
    thought: str = ""
    comment: str = ""
    plan: list[str] = field(default_factory=list)
    controls: list[Control] = field(default_factory=list)
    screen_size: tuple[int, int] = (0, 0)
    screenshot: Image.Image | None = None
    target: Control | None = None          # the control the action acts on, if any
    sensitive_reason: str = ""             # why auto mode stopped to ask ("" = not sensitive)
    proposed_by: str = "the model"         # who proposes it, for the person: "the model", "skill “…”", "the replay…"
    id: str = ""                           # names the run, the step and the proposal as shown (`review_id`);
                                           # set by the run's handle when it asks; every decision sends it back

    @property
    def is_sensitive(self) -> bool:
        return bool(self.sensitive_reason)


def _short_hash(*parts) -> str:
    return hashlib.sha256(json.dumps(parts, default=str, ensure_ascii=False).encode()).hexdigest()[:12]


def review_id(run_id: str, proposal: Proposal, shown: int) -> str:
    """The id of one proposal as shown for review: a hash of the run, the step, what it proposes (action, its
    words, its target) and `shown` (the run's count of reviews), so a proposal made again after a rejection
    is a new id. Readable as "step<n>-<hash>"; never contains "/"."""
    target = proposal.target
    where = (target.id, target.name, target.resource_id, str(target.rect)) if target is not None else None
    digest = _short_hash(run_id, proposal.step, shown, proposal.action.model_dump(mode="json"),
                         proposal.action_text, where)
    return f"step{proposal.step}-{digest}"


def question_id(run_id: str, step: int, question: str, asked: int) -> str:
    """The id of one question the run asks: the run, its step, the words, and `asked` (the run's count of
    questions), so the same question asked again is a new id."""
    return f"question{asked}-{_short_hash(run_id, step, question, asked)}"


@dataclass
class ReviewAnswer:
    kind: Literal["approve", "edit", "override", "reject", "stop", "take_over"]
    action: Action | None = None     # the edited or overriding action (device pixels)
    feedback: str = ""               # why it was rejected: goes to the model
    by: Literal["person", "program"] = "person"   # who decided: the window or console, or a program (API, MCP)

    @classmethod
    def approve(cls) -> ReviewAnswer:
        return cls("approve")

    @classmethod
    def edit(cls, action: Action) -> ReviewAnswer:
        return cls("edit", action)

    @classmethod
    def override(cls, action: Action) -> ReviewAnswer:
        return cls("override", action)

    @classmethod
    def reject(cls, feedback: str) -> ReviewAnswer:
        return cls("reject", feedback=feedback)

    @classmethod
    def stop(cls) -> ReviewAnswer:
        return cls("stop")

    @classmethod
    def take_over(cls) -> ReviewAnswer:
        """The person takes the phone instead (the proposal is set aside; see take_over.py)."""
        return cls("take_over")


class Supervisor(Protocol):
    async def review(self, proposal: Proposal) -> ReviewAnswer: ...

    async def ask(self, question: str) -> str: ...


class RunStopped(ControlFlow):
    """The person stopped the run."""


class RunTimedOut(ControlFlow):
    """The run's overall time limit passed."""


class NeedsPerson(ControlFlow):
    """Nobody is there to decide (a script's run whose policy is to fail rather than wait): the run ends failed."""


class AgentClock:
    """The run's own time: time since the run began minus the time it waited for the person.

    A review, a question or a pause is the person's time, not the agent's: inside `waiting()`
    the agent's clock stands still, so a person reading a proposal never uses up the run's
    time limit. Waits may nest (counted once). `now` is injectable for tests.
    """

    def __init__(self, now: Callable[[], float] = time.monotonic):
        self._now = now
        self.started = now()
        self._depth = 0
        self._wait_began = 0.0
        self._waited = 0.0                     # closed waits, in seconds
        self._changed: asyncio.Event | None = None

    @property
    def waiting_for_person(self) -> bool:
        return self._depth > 0

    @property
    def waiting_seconds(self) -> float:
        """Time spent waiting for the person so far (a wait in progress included)."""
        return self._waited + (self._now() - self._wait_began if self._depth else 0.0)

    @property
    def agent_seconds(self) -> float:
        """The agent's own time so far: everything but the waits for the person."""
        return max(0.0, self._now() - self.started - self.waiting_seconds)

    @contextmanager
    def waiting(self) -> Iterator[None]:
        """The clock stands still while the person is waited for."""
        self._depth += 1
        if self._depth == 1:
            self._wait_began = self._now()
            self._tell_changed()
        try:
            yield
        finally:
            self._depth -= 1
            if self._depth == 0:
                self._waited += self._now() - self._wait_began
                self._tell_changed()

    def next_change(self) -> asyncio.Event:
        """An event set when a wait for the person next begins or ends (the time left must then be
        worked out again). Taken before waiting, so a change in between is never missed."""
        if self._changed is None:
            self._changed = asyncio.Event()
        return self._changed

    def _tell_changed(self) -> None:
        event, self._changed = self._changed, None
        if event is not None:
            event.set()


class RunControl:
    """Pause, resume, stop and the time limit of one run; awaitable from any step.

    The limit (`timeout_seconds`) counts the agent's own time only (`clock`): waiting for a
    review, an answer or a pause never ends a run.
    """

    def __init__(self, timeout_seconds: float | None = None, clock: AgentClock | None = None):
        self.timeout_seconds = timeout_seconds or None
        self.clock = clock or AgentClock()
        self._running = asyncio.Event()
        self._running.set()
        self._stopped = asyncio.Event()
        self.stop_reason = ""
        self.pause_after_step = False
        self.take_over = TakeOver()            # the person's turn: they drive, the agent waits

    @property
    def paused(self) -> bool:
        return not self._running.is_set()

    @property
    def stop_requested(self) -> bool:
        return self._stopped.is_set()

    def pause(self) -> None:
        self._running.clear()

    def resume(self) -> None:
        self.pause_after_step = False
        self._running.set()

    def step_once(self) -> None:
        """Run one more step, then pause."""
        self.pause_after_step = True
        self._running.set()

    def step_done(self) -> bool:
        """Called as each step ends: pauses if only one step was asked for. True if it paused."""
        if self.pause_after_step:
            self.pause_after_step = False
            self._running.clear()
            return True
        return False

    def stop(self, reason: str = "stopped by the person") -> None:
        self.stop_reason = self.stop_reason or reason
        self._stopped.set()
        self._running.set()

    def waiting_for_person(self) -> AbstractContextManager[None]:
        """Wrap a wait for the person (review, question): it does not count towards the time limit."""
        return self.clock.waiting()

    def remaining_seconds(self) -> float | None:
        """The agent's time left; None when there is no limit or the clock stands still (waiting for the person)."""
        if self.timeout_seconds is None or self.clock.waiting_for_person:
            return None
        return max(0.0, self.timeout_seconds - self.clock.agent_seconds)

    def _timed_out(self) -> bool:
        remaining = self.remaining_seconds()
        return remaining is not None and remaining <= 0

    def check(self) -> None:
        if self._stopped.is_set():
            raise RunStopped(self.stop_reason)
        if self._timed_out():
            raise RunTimedOut(self._limit_words())

    def _limit_words(self) -> str:
        return f"the run's time limit of {self.timeout_seconds:g} s of the agent's own time was reached"

    async def wait_if_paused(self) -> None:
        """Wait while paused; the pause is the person's time, not the agent's."""
        if not self._running.is_set():
            with self.waiting_for_person():
                while not self._running.is_set():
                    await self.interruptible(self._running.wait())
        self.check()

    async def interruptible(self, awaitable: Awaitable[T]) -> T:
        """Await something, but give up at once when the run is stopped or the agent's time runs out.

        The time left is worked out again whenever a wait for the person begins or ends, so a
        review awaited in here never times out while the person decides.
        """
        try:
            self.check()
        except BaseException:
            discard(awaitable)
            raise
        task = asyncio.ensure_future(awaitable)
        stopper = asyncio.ensure_future(self._stopped.wait())
        try:
            while True:
                waiters = {task, stopper}
                changed = None
                if self.timeout_seconds is not None:
                    changed = asyncio.ensure_future(self.clock.next_change().wait())
                    waiters.add(changed)
                try:
                    done, _ = await asyncio.wait(waiters, timeout=self.remaining_seconds(),
                                                 return_when=asyncio.FIRST_COMPLETED)
                finally:
                    if changed is not None:
                        changed.cancel()
                if task in done or stopper in done or self._timed_out():
                    break
        except BaseException:
            task.cancel()
            raise
        finally:
            stopper.cancel()
        if task.done():
            return task.result()
        await cancel_and_wait(task)
        self.check()
        raise RunTimedOut(self._limit_words())


def discard(awaitable: Awaitable) -> None:
    """Drop an awaitable that will never be awaited, without a "never awaited/retrieved" complaint."""
    if asyncio.iscoroutine(awaitable):
        awaitable.close()
    elif asyncio.isfuture(awaitable):
        if awaitable.done():
            if not awaitable.cancelled():
                awaitable.exception()
        else:
            awaitable.cancel()
