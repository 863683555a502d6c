"""Take over and hand back: the person drives the phone in the middle of a run, then gives it back.

A captcha, a login, a choice only the person can make: `TakeOver.begin()` (from any face, through
the run's handle) sets the agent aside at once — a model still thinking is not waited for, a
proposal waiting for review is set aside (`PersonTookOver`), and no action of the agent's reaches
the phone until the person hands back. Meanwhile every tap, swipe, key and text the person sends
through `act()` is carried out by the run itself as a step of the run, decided "by the person"
(its screen before, its outcome, a password typed into a password field masked like the agent's).
`hand_back(note)` ends the person's turn: the agent's next prompt says what the person did and
the note they left.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TypeVar

from .actions import Action
from .pipeline import ControlFlow, cancel_and_wait

T = TypeVar("T")

PERSON = "the person"
"""Who proposes the steps of the person's turn (`Proposal.proposed_by`)."""

TEXT_GATHER_SECONDS = 0.6
"""Text typed key by key on the mirror becomes one step: pieces that follow within this time are joined."""


class PersonTookOver(ControlFlow):
    """The person took the phone: the step in progress ends without acting (recorded as set aside)."""


class NotTakenOver(RuntimeError):
    """The person's action came while the run has not been taken over (or was handed back already)."""


@dataclass
class _Act:
    action: Action
    done: asyncio.Future


class TakeOver:
    """The person's turn in one run. Lives on the run's loop; faces reach it through the run's handle."""

    def __init__(self) -> None:
        self._taken = asyncio.Event()
        self._queue: asyncio.Queue[_Act | str] | None = None
        self.steps: list[str] = []          # what the person did, as the record says it (passwords masked)
        self.turns = 0                      # turns handed back so far (a skill being replayed stops at one)

    @property
    def active(self) -> bool:
        return self._taken.is_set()

    def begin(self) -> None:
        if self.active:
            return
        self._queue = asyncio.Queue()
        self.steps = []
        self._taken.set()

    def act(self, action: Action) -> asyncio.Future:
        """Queue one of the person's actions; the future ends with its step record (or the error)."""
        if not self.active or self._queue is None:
            raise NotTakenOver("The run is not taken over: take it over first to act on the phone as part of it.")
        done = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Act(action, done))
        return done

    def hand_back(self, note: str = "") -> None:
        if not self.active or self._queue is None:
            raise NotTakenOver("The run is not taken over: there is nothing to hand back.")
        self._queue.put_nowait(note.strip())

    async def next(self) -> _Act | str:
        """The person's next action, or their note when they hand back (which ends the turn)."""
        assert self._queue is not None
        item = await self._queue.get()
        if isinstance(item, str):
            self._end()
            self.turns += 1
            return item
        if item.action.function == "type_text":
            item = await self._gather_text(item)
        return item

    async def _gather_text(self, first: _Act) -> _Act:
        """Text typed piece by piece (each key on the mirror) as one action, and one step."""
        assert self._queue is not None
        pieces, futures = [str(first.action.arguments.get("text") or "")], [first.done]
        while True:
            try:
                item = await asyncio.wait_for(self._queue.get(), TEXT_GATHER_SECONDS)
            except TimeoutError:
                break
            if isinstance(item, _Act) and item.action.function == "type_text" \
                    and not item.action.arguments.get("control_id"):
                pieces.append(str(item.action.arguments.get("text") or ""))
                futures.append(item.done)
                continue
            self._put_back(item)
            break
        done = futures[0]
        for other in futures[1:]:
            done.add_done_callback(functools.partial(_copy_result, target=other))
        action = first.action.model_copy(update={"arguments": {**first.action.arguments, "text": "".join(pieces)}})
        return _Act(action, done)

    def _put_back(self, item: _Act | str) -> None:
        """An item read past the typed text goes first again."""
        assert self._queue is not None
        rest = [item]
        while not self._queue.empty():
            rest.append(self._queue.get_nowait())
        for each in rest:
            self._queue.put_nowait(each)

    def _end(self) -> None:
        self._taken.clear()
        queue, self._queue = self._queue, None
        while queue is not None and not queue.empty():      # acts sent after the hand-back: not done
            item = queue.get_nowait()
            if isinstance(item, _Act) and not item.done.done():
                item.done.set_exception(NotTakenOver("The run was handed back before this action was done."))

    def abandon(self) -> None:
        """The run ended during the person's turn: queued acts fail, the turn is over."""
        self._end()

    async def or_taken(self, awaitable: Awaitable[T]) -> T:
        """Await `awaitable`, unless the person takes over first (PersonTookOver; the awaitable is cancelled)."""
        task = asyncio.ensure_future(awaitable)
        if self.active:
            task.cancel()
            raise PersonTookOver("the person took over")
        taken = asyncio.ensure_future(self._taken.wait())
        try:
            await asyncio.wait({task, taken}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            task.cancel()
            raise
        finally:
            taken.cancel()
        if task.done():
            return task.result()
        await cancel_and_wait(task)
        raise PersonTookOver("the person took over")


def _copy_result(source: asyncio.Future, target: asyncio.Future) -> None:
    if target.done():
        return
    if source.cancelled():
        target.cancel()
    elif (error := source.exception()) is not None:
        target.set_exception(error)
    else:
        target.set_result(source.result())


def hand_back_note(steps: list[str], note: str) -> str:
    """What the agent's next prompt says of the person's turn."""
    did = "; ".join(steps) if steps else "nothing on the phone"
    words = f"The person took over the phone and did: {did}."
    if note:
        words += f" Then they handed it back and said: “{note}”."
    else:
        words += " Then they handed it back."
    return words + " Carry on with the task from the screen as it is now."
