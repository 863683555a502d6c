"""Carry out an approved action on the phone (seed 000 phase 3); every outcome is described in words."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from app.core.device.android_device import AndroidDevice
from app.core.device.errors import DeviceError
from app.core.perception.controls import Control

from .action_kinds import kind_of
from .action_kinds.base import TypedText
from .action_kinds.type_text import SECRET_REFUSED
from .actions import Action, ActionRejected
from .memory import ActionOutcome
from .supervisor import RunControl
from .typing_check import checkable, typing_mismatch

AskPerson = Callable[[str], Awaitable[str]]
__all__ = ["SECRET_REFUSED", "ActionExecutor", "AskPerson", "TypedText"]


class ActionExecutor:
    """Turns actions into device calls. Control ids are resolved against the step's controls."""

    def __init__(self, device: AndroidDevice, ask_person: AskPerson, control: RunControl):
        self.device = device
        self.ask_person = ask_person
        self.control = control
        self.last_answer = ""
        self.typed: TypedText | None = None    # what the last action typed, until it is read back

    async def check_typing(self, outcome: ActionOutcome) -> ActionOutcome:
        """Read the field the last action typed into back from a fresh dump (after the screen
        settled); a field that does not show exactly the typed text makes the action failed."""
        typed, self.typed = self.typed, None
        if typed is None or not outcome.success:
            return outcome
        if not checkable(typed.text):
            return ActionOutcome(True, outcome.message + " (not read back: Enter may have submitted the field)",
                                 outcome.duration_ms)
        started = time.perf_counter()
        try:
            field = await self.device.read_field(typed.target)
        except DeviceError as exc:
            return ActionOutcome(True, f"{outcome.message} (could not read the field back: {exc})",
                                 outcome.duration_ms)
        took = round(outcome.duration_ms + (time.perf_counter() - started) * 1000, 1)
        problem = typing_mismatch(typed.text, field, password=typed.password, where=typed.where,
                                  targeted=typed.target is not None)
        if problem is None:
            return ActionOutcome(True, outcome.message + " (read back from the screen)", took)
        return ActionOutcome(False, problem[0].upper() + problem[1:], took)

    async def execute(self, action: Action, controls: list[Control]) -> ActionOutcome:
        started = time.perf_counter()
        self.typed = None
        try:
            message = await self._perform(action, controls)
            success = True
        except (DeviceError, ActionRejected) as exc:
            message, success = str(exc), False
        return ActionOutcome(success, message, round((time.perf_counter() - started) * 1000, 1))

    async def _perform(self, action: Action, controls: list[Control]) -> str:
        """The action's kind carries it out (see `action_kinds`); an action with no kind does nothing."""
        kind = kind_of(action.function)
        if kind is None or not action.does_something:
            return "Nothing to do"
        return await kind.perform(action.args, self, controls)
