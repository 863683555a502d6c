"""The agent's states (seed 001, plus seed 002's CONFIRM) in a registry, with the transition matrix.

NONE → CONTINUE when a run starts. CONTINUE runs the 4-phase pipeline and goes on to
CONTINUE, CONFIRM (an action waits for the person: every one in step mode, a sensitive one in auto
mode, and any the model's reply marks CONFIRM, in every mode), FINISH or FAIL. CONFIRM returns to
CONTINUE once the person has decided (or FINISH/FAIL when they stop or the model ends).
FAIL always passes to FINISH for cleanup; FINISH stays FINISH.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar


class AgentStatus(enum.StrEnum):
    NONE = "NONE"
    CONTINUE = "CONTINUE"
    CONFIRM = "CONFIRM"
    FINISH = "FINISH"
    FAIL = "FAIL"


TRANSITIONS: dict[AgentStatus, frozenset[AgentStatus]] = {
    AgentStatus.NONE: frozenset({AgentStatus.CONTINUE, AgentStatus.FINISH}),
    AgentStatus.CONTINUE: frozenset({AgentStatus.CONTINUE, AgentStatus.CONFIRM, AgentStatus.FINISH, AgentStatus.FAIL}),
    AgentStatus.CONFIRM: frozenset({AgentStatus.CONTINUE, AgentStatus.FINISH, AgentStatus.FAIL}),
    AgentStatus.FAIL: frozenset({AgentStatus.FINISH}),
    AgentStatus.FINISH: frozenset({AgentStatus.FINISH}),
}


class AgentState:
    """Base of the registered states: what each one means for the loop."""

    status: ClassVar[AgentStatus]
    runs_pipeline: ClassVar[bool] = False     # the 4 phases run in this state
    is_round_end: ClassVar[bool] = False      # the run stops here
    waits_for_person: ClassVar[bool] = False

    @classmethod
    def name(cls) -> str:
        return cls.status.value


class AgentStateRegistry:
    """Looks states up by name; states join with the @register decorator."""

    _states: dict[str, type[AgentState]] = {}

    @classmethod
    def register(cls, state: type[AgentState]) -> type[AgentState]:
        cls._states[state.name()] = state
        return state

    @classmethod
    def get(cls, status: AgentStatus | str) -> type[AgentState]:
        key = status.value if isinstance(status, AgentStatus) else str(status).upper()
        try:
            return cls._states[key]
        except KeyError:
            raise KeyError(f"no agent state named {key!r}; known: {', '.join(cls._states)}") from None


@AgentStateRegistry.register
class NoneState(AgentState):
    status = AgentStatus.NONE


@AgentStateRegistry.register
class ContinueState(AgentState):
    status = AgentStatus.CONTINUE
    runs_pipeline = True


@AgentStateRegistry.register
class ConfirmState(AgentState):
    status = AgentStatus.CONFIRM
    waits_for_person = True


@AgentStateRegistry.register
class FinishState(AgentState):
    status = AgentStatus.FINISH
    is_round_end = True


@AgentStateRegistry.register
class FailState(AgentState):
    status = AgentStatus.FAIL
    is_round_end = True


class InvalidTransition(RuntimeError):
    pass


@dataclass(frozen=True)
class Transition:
    before: AgentStatus
    after: AgentStatus
    reason: str
    at: float


class StateMachine:
    """The current state, the transitions so far, and a listener told of each change."""

    def __init__(self, on_change: Callable[[Transition], None] | None = None):
        self.status = AgentStatus.NONE
        self.history: list[Transition] = []
        self.on_change = on_change

    @property
    def state(self) -> type[AgentState]:
        return AgentStateRegistry.get(self.status)

    def go(self, target: AgentStatus, reason: str = "") -> None:
        if target not in TRANSITIONS[self.status]:
            raise InvalidTransition(f"{self.status.value} → {target.value} is not allowed")
        transition = Transition(self.status, target, reason, time.time())
        self.status = target
        self.history.append(transition)
        if self.on_change:
            self.on_change(transition)

    def fail(self, reason: str) -> None:
        """Go to FAIL, then FINISH for cleanup (from wherever a run can fail)."""
        if self.status not in (AgentStatus.FAIL, AgentStatus.FINISH):
            self.go(AgentStatus.FAIL, reason)
        if self.status == AgentStatus.FAIL:
            self.go(AgentStatus.FINISH, "cleanup after failure")
