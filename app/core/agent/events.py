"""What happens in a run, as typed events on one stream that any number of readers follow.

The run emits; the trajectory recorder, the console, the window and (later) the HTTP API
subscribe. A reader that joins late first receives the run's events so far, so a window
opened mid-run shows the whole run. Events are emitted and delivered on the run's loop;
a reader on another thread hands them over itself (the GUI's adapter does).

The history keeps events light: pictures are dropped from the kept copy (`for_history`),
so a long run does not hold every screenshot in memory; the recorded files have them.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunEvent:
    kind: ClassVar[str] = "event"
    at: float = field(default_factory=time.time, kw_only=True)     # wall clock, for the record

    def for_history(self) -> RunEvent:
        """The copy kept for late readers (heavy payloads dropped)."""
        return self


@dataclass(frozen=True)
class RunStarted(RunEvent):
    kind: ClassVar[str] = "run_started"
    run_id: str
    request: str
    phone: dict[str, Any]
    mode: str
    run_dir: str = ""


@dataclass(frozen=True)
class StepStarted(RunEvent):
    kind: ClassVar[str] = "step_started"
    step: int


@dataclass(frozen=True)
class ObservationReady(RunEvent):
    """The screen of a step: the screenshot, the annotated image (None if it could not be made), the controls."""

    kind: ClassVar[str] = "observation_ready"
    step: int
    screenshot: Any = None          # PIL image, full size
    annotated: Any = None           # PIL image as sent to the model, with the numbered boxes
    controls: tuple = ()
    foreground: str = ""
    screen_only: bool = False

    def for_history(self) -> ObservationReady:
        return dataclasses.replace(self, screenshot=None, annotated=None)


@dataclass(frozen=True)
class ProposalMade(RunEvent):
    """What the model wants to do (shown before any review, also for auto-approved actions)."""

    kind: ClassVar[str] = "proposal"
    step: int
    proposal: Any                   # supervisor.Proposal

    def for_history(self) -> ProposalMade:
        return dataclasses.replace(self, proposal=_without_screenshot(self.proposal))


@dataclass(frozen=True)
class ReviewRequested(RunEvent):
    kind: ClassVar[str] = "review_requested"
    step: int
    proposal: Any

    def for_history(self) -> ReviewRequested:
        return dataclasses.replace(self, proposal=_without_screenshot(self.proposal))


@dataclass(frozen=True)
class ReviewAnswered(RunEvent):
    kind: ClassVar[str] = "review_answered"
    step: int
    answer: Any                     # supervisor.ReviewAnswer
    by: str = "person"


@dataclass(frozen=True)
class QuestionAsked(RunEvent):
    kind: ClassVar[str] = "question_asked"
    question: str
    question_id: str = ""           # the id every answer names (RunHandle.answer_question)


@dataclass(frozen=True)
class QuestionAnswered(RunEvent):
    kind: ClassVar[str] = "question_answered"
    question: str
    answer: str


@dataclass(frozen=True)
class ActionExecuted(RunEvent):
    kind: ClassVar[str] = "action_executed"
    step: int
    action_text: str
    success: bool
    message: str = ""
    duration_ms: float = 0.0


@dataclass(frozen=True)
class ReflectionMade(RunEvent):
    kind: ClassVar[str] = "reflection"
    step: int                        # the step whose action was judged
    reflection: dict[str, Any]


@dataclass(frozen=True)
class StepFinished(RunEvent):
    kind: ClassVar[str] = "step_finished"
    step: int
    item: Any                       # memory.MemoryItem


@dataclass(frozen=True)
class StepRecorded(RunEvent):
    """The step's line and images are on disk (the recorder emits it)."""

    kind: ClassVar[str] = "step_recorded"
    step: int
    item: Any
    run_dir: str


@dataclass(frozen=True)
class StateChanged(RunEvent):
    kind: ClassVar[str] = "state_changed"
    before: str
    after: str
    reason: str


@dataclass(frozen=True)
class TakenOver(RunEvent):
    """The person has taken the phone: their actions are the run's next steps until they hand back."""

    kind: ClassVar[str] = "taken_over"
    step: int                       # the last step before the person's turn


@dataclass(frozen=True)
class HandedBack(RunEvent):
    """The person gave the phone back to the agent, with a note for its next prompt."""

    kind: ClassVar[str] = "handed_back"
    step: int                       # the person's last step
    note: str = ""
    steps: int = 0                  # how many steps the person took


@dataclass(frozen=True)
class Message(RunEvent):
    """Progress in words, for the status bar or the console."""

    kind: ClassVar[str] = "message"
    text: str


@dataclass(frozen=True)
class ModelWords(RunEvent):
    """The model's reply so far, while it streams in (at most a few times a second), so a face can
    show that a slow server is working and what it is writing."""

    kind: ClassVar[str] = "model_words"
    step: int
    text_so_far: str
    tokens: int = 0                 # pieces of the reply received so far (a server streams about one token each)

    def for_history(self) -> ModelWords:
        """Late readers get the tail only: the whole reply is in the step's record."""
        return dataclasses.replace(self, text_so_far=self.text_so_far[-MODEL_WORDS_HISTORY_CHARS:])


MODEL_WORDS_HISTORY_CHARS = 200


@dataclass(frozen=True)
class ModelAsked(RunEvent):
    """The model is asked for the step's action (each try, the first and every one after `ReplyRetried`):
    a face can say how long the model has been thinking, since a local server may take minutes."""

    kind: ClassVar[str] = "model_asked"
    step: int
    max_output_tokens: int = 0      # the reply's budget for this try


@dataclass(frozen=True)
class ReplyRetried(RunEvent):
    """A reply was not used and the model is asked again: cut off by the output budget (asked again with
    a larger one), or not a valid action (asked again with the problem named)."""

    kind: ClassVar[str] = "reply_retried"
    step: int
    problem: str                    # e.g. "the reply was cut off at 1024 tokens (the output budget)"
    cut_off: bool = False
    max_output_tokens: int = 0      # the next try's budget


@dataclass(frozen=True)
class ModelFailed(RunEvent):
    """Asking the model failed for good (its client's retries are spent): `reason` says how, so a face can
    name what to change the way its person gave it (a flag, a setting)."""

    kind: ClassVar[str] = "model_failed"
    step: int
    reason: str                     # one of model_errors.FAILURE_REASONS' values: "unreachable", "key_refused", …
    message: str = ""


@dataclass(frozen=True)
class PhaseFinished(RunEvent):
    kind: ClassVar[str] = "phase_finished"
    step: int
    phase: str
    ms: float


@dataclass(frozen=True)
class RunFinished(RunEvent):
    kind: ClassVar[str] = "run_finished"
    result: Any                     # memory.RunResult, or None when the run crashed
    error: str = ""


def _without_screenshot(proposal: Any) -> Any:
    if (dataclasses.is_dataclass(proposal) and not isinstance(proposal, type)
            and getattr(proposal, "screenshot", None) is not None):
        return dataclasses.replace(proposal, screenshot=None)
    return proposal


Subscriber = Callable[[RunEvent], None]


class EventStream:
    """The events of one run: kept in order, delivered to every subscriber as they happen."""

    def __init__(self) -> None:
        self.history: list[RunEvent] = []
        self._subscribers: list[Subscriber] = []
        self.finished = False

    def subscribe(self, subscriber: Subscriber, *, replay: bool = True) -> Callable[[], None]:
        """Call `subscriber(event)` for every event (first the ones so far, if `replay`).

        Returns a function that unsubscribes. Call on the run's loop.
        """
        if replay:
            for event in list(self.history):
                self._deliver(subscriber, event)
        self._subscribers.append(subscriber)

        def unsubscribe() -> None:
            if subscriber in self._subscribers:
                self._subscribers.remove(subscriber)
        return unsubscribe

    def emit(self, event: RunEvent) -> None:
        self.history.append(event.for_history())
        if isinstance(event, RunFinished):
            self.finished = True
        for subscriber in list(self._subscribers):
            self._deliver(subscriber, event)

    def message(self, text: str) -> None:
        self.emit(Message(text))

    @staticmethod
    def _deliver(subscriber: Subscriber, event: RunEvent) -> None:
        try:
            subscriber(event)
        except Exception:     # one broken reader must not break the run or the other readers
            log.exception("a subscriber of the run's events failed on %s", event.kind)

    async def follow(self) -> AsyncGenerator[RunEvent, None]:
        """Every event of the run, from the first, until the run finishes (for streaming faces)."""
        queue: asyncio.Queue[RunEvent] = asyncio.Queue()
        unsubscribe = self.subscribe(queue.put_nowait)
        try:
            while True:
                event = await queue.get()
                yield event
                if isinstance(event, RunFinished):
                    return
        finally:
            unsubscribe()
