"""long_press_control: press and hold a control from the screen's list."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.core.perception.controls import Control

from .base import ActionArguments, ActionKind, Box, Gesture, Performer, Place, ScriptWriter, find_control, no_box
from .keyboard_first import out_from_under_the_keyboard


class LongPressControl(ActionArguments):
    control_id: int
    control_name: str = ""


class LongPressControlAction(ActionKind[LongPressControl]):
    name = "long_press_control"
    arguments = LongPressControl
    hint = "by id"
    places = (Place(control="control_id"),)
    target_label_may_vary = True
    shorthand = ("long ID",)

    def describe(self, args: LongPressControl, name: Callable[[int, str], str]) -> str:
        return f"Long-press {name(args.control_id, args.control_name)}"

    def from_shorthand(self, verb: str, words: list[str]) -> dict[str, Any] | None:
        return {"control_id": int(words[0])} if verb in ("long", "longpress", "long_press") else None

    async def perform(self, args: LongPressControl, performer: Performer, controls: list[Control]) -> str:
        target, first = await out_from_under_the_keyboard(performer, find_control(controls, args.control_id), controls)
        await performer.device.long_press(*target.center)
        message = f"“{target.name}” at {target.center}"
        return f"{first}long-pressed {message}" if first else f"Long-pressed {message}"

    def gesture(self, args: LongPressControl, target: Box | None, screen_size: tuple[int, int],
                box_of: Callable[[int], Box | None] = no_box) -> Gesture | None:
        if target is None:
            return None
        return Gesture("pressed and held here", "a rejected long press (dashed)",
                       ring=((target[0] + target[2]) / 2, (target[1] + target[3]) / 2), held=True)

    def export_python(self, args: LongPressControl, writer: ScriptWriter) -> list[str]:
        at = writer.found_at()
        return [f"d.long_click({at[0]}, {at[1]})" if at is not None else f"{writer.found()}.long_click()"]
