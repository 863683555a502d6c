"""Supervision: the person reviews each proposed action (step mode) or only sensitive ones (auto mode).

The pipeline awaits `supervisor.review(proposal)`; a GUI resolves it when a button is
pressed, the CLI when a key is typed, a test with a script. The answer approves, edits,
overrides, rejects with feedback, or stops the run. `RunControl` carries pause, resume,
stop and the overall deadline, so every wait in a step can be interrupted.
"""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass, field
from typing import Awaitable, Literal, Protocol, TypeVar

from PIL import Image

from app.core.perception.controls import Control

from .actions import Action, ClickControl, LongPressControl, TypeText
from .pipeline import ControlFlow

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

    @property
    def is_sensitive(self) -> bool:
        return bool(self.sensitive_reason)


@dataclass
class ReviewAnswer:
    kind: Literal["approve", "edit", "override", "reject", "stop"]
    action: Action | None = None     # the edited or overriding action (device pixels)
    feedback: str = ""               # why it was rejected: goes to the model

    @classmethod
    def approve(cls) -> "ReviewAnswer":
        return cls("approve")

    @classmethod
    def edit(cls, action: Action) -> "ReviewAnswer":
        return cls("edit", action)

    @classmethod
    def override(cls, action: Action) -> "ReviewAnswer":
        return cls("override", action)

    @classmethod
    def reject(cls, feedback: str) -> "ReviewAnswer":
        return cls("reject", feedback=feedback)

    @classmethod
    def stop(cls) -> "ReviewAnswer":
        return cls("stop")


class Supervisor(Protocol):
    async def review(self, proposal: Proposal) -> ReviewAnswer: ...

    async def ask(self, question: str) -> str: ...


def action_target(action: Action, controls: list[Control]) -> Control | None:
    args = action.args
    control_id = getattr(args, "control_id", None)
    if control_id is None:
        return None
    return next((c for c in controls if c.id == control_id), None)


def sensitive_reason(action: Action, target: Control | None, sensitive_words: list[str]) -> str:
    """Why an action needs a person even in auto mode; "" when it does not."""
    args = action.args
    if isinstance(args, TypeText) and target is not None and (
            target.password or "password" in target.resource_id.lower()):
        return "it types into a password field"
    if target is not None and isinstance(args, (ClickControl, LongPressControl, TypeText)):
        label = " ".join(filter(None, (target.name, target.text, target.content_desc, target.resource_id)))
        for word in sensitive_words:
            if word and re.search(rf"(?<![a-z]){re.escape(word.lower())}(?![a-z])", label.lower()):
                return f"its target “{target.name}” matches the sensitive word “{word}”"
    return ""


class RunStopped(ControlFlow):
    """The person stopped the run."""


class RunTimedOut(ControlFlow):
    """The run's overall time limit passed."""


class NeedsPerson(ControlFlow):
    """Nobody is there to decide (a script's run whose policy is to fail rather than wait): the run ends failed."""


class RunControl:
    """Pause, resume, stop and the deadline of one run; awaitable from any step."""

    def __init__(self, timeout_seconds: float | None = None):
        self.deadline = time.monotonic() + timeout_seconds if timeout_seconds else None
        self._running = asyncio.Event()
        self._running.set()
        self._stopped = asyncio.Event()
        self.stop_reason = ""
        self.pause_after_step = False

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

    def check(self) -> None:
        if self._stopped.is_set():
            raise RunStopped(self.stop_reason)
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise RunTimedOut("the run's time limit was reached")

    async def wait_if_paused(self) -> None:
        while not self._running.is_set():
            await self.interruptible(self._running.wait())
        self.check()

    async def interruptible(self, awaitable: Awaitable[T]) -> T:
        """Await something, but give up at once when the run is stopped or its time runs out."""
        try:
            self.check()
        except BaseException:
            discard(awaitable)
            raise
        task = asyncio.ensure_future(awaitable)
        stopper = asyncio.ensure_future(self._stopped.wait())
        remaining = None if self.deadline is None else max(0.0, self.deadline - time.monotonic())
        try:
            done, _ = await asyncio.wait({task, stopper}, timeout=remaining, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            task.cancel()
            raise
        finally:
            stopper.cancel()
        if task in done:
            return task.result()
        task.cancel()
        try:
            await task
        except BaseException:
            pass
        self.check()
        raise RunTimedOut("the run's time limit was reached")


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
