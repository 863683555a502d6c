"""Carry out an approved action on the phone (seed 000 phase 3); every outcome is described in words."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from app.core.device.android_device import AndroidDevice
from app.core.device.errors import DeviceError
from app.core.perception.controls import Control

from .actions import (
    Action,
    ActionRejected,
    AskUser,
    ClickControl,
    LaunchApp,
    LongPressControl,
    PressKey,
    Scroll,
    Swipe,
    Tap,
    TypeText,
    Wait,
    find_control,
)
from .memory import ActionOutcome
from .sensitive import secret_in_text
from .supervisor import RunControl
from .typing_check import checkable, typing_mismatch

AskPerson = Callable[[str], Awaitable[str]]
SECRET_REFUSED = ("Refused: the text holds the stored API key or the API token, and these are never typed on a "
                  "phone. Nothing was typed.")


@dataclass(frozen=True)
class TypedText:
    """What a type action typed and where, kept until the field is read back."""

    text: str
    target: Control | None     # the field named by control_id; None: whichever field has focus
    password: bool
    where: str


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
        args = action.args
        device = self.device
        if isinstance(args, ClickControl):
            target = find_control(controls, args.control_id)
            await device.tap(*target.center)
            return f"Tapped “{target.name}” at {target.center}"
        if isinstance(args, LongPressControl):
            target = find_control(controls, args.control_id)
            await device.long_press(*target.center)
            return f"Long-pressed “{target.name}” at {target.center}"
        if isinstance(args, TypeText):
            if secret_in_text(args.text):      # whoever asked: the model, a person's edit, a skill, a replay
                raise ActionRejected(SECRET_REFUSED)
            where = ""
            field = next((control for control in controls if control.focused), None)
            if args.control_id is not None:
                field = find_control(controls, args.control_id)
                await device.tap(*field.center)
                where = f" into “{field.name}”"
            await device.type_text(args.text, clear_first=args.clear_current_text,
                                   current_length=len(field.text) if field is not None else None,
                                   password=field.password if field is not None else None)
            named = field.name if field is not None and field.name.strip() != field.text.strip() else ""
            self.typed = TypedText(args.text, field if args.control_id is not None else None,
                                   bool(field and field.password), f"the field “{named}”" if named else "the field")
            return f"Typed {len(args.text)} characters{where}"
        if isinstance(args, LaunchApp):
            package = await device.launch_app(args.package_name)
            return f"Opened {package}"
        if isinstance(args, Swipe):
            await device.swipe(args.start_x, args.start_y, args.end_x, args.end_y, args.duration_ms)
            return "Swiped"
        if isinstance(args, Scroll):
            area = find_control(controls, args.control_id).rect if args.control_id is not None else None
            await device.scroll(args.direction, area)
            return f"Scrolled {args.direction}"
        if isinstance(args, Tap):
            await device.tap(args.x, args.y)
            return f"Tapped at ({args.x:.0f}, {args.y:.0f})"
        if isinstance(args, PressKey):
            await device.press_key(args.key_code)
            return f"Pressed {args.key_code}"
        if isinstance(args, Wait):
            await self.control.interruptible(asyncio.sleep(args.seconds))
            return f"Waited {args.seconds:g} s"
        if isinstance(args, AskUser):
            self.last_answer = await self.control.interruptible(self.ask_person(args.question))
            return f"The person answered: {self.last_answer}"
        return "Nothing to do"
