"""click_control: tap a control from the screen's list."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.core.perception.controls import Control

from .base import ActionArguments, ActionKind, Box, Gesture, Performer, Place, ScriptWriter, find_control, no_box
from .keyboard_first import out_from_under_the_keyboard


class ClickControl(ActionArguments):
    control_id: int
    control_name: str = ""


class ClickControlAction(ActionKind[ClickControl]):
    name = "click_control"
    arguments = ClickControl
    hint = "by id"
    places = (Place(control="control_id"),)
    target_label_may_vary = True
    shorthand = ("click ID",)

    def describe(self, args: ClickControl, name: Callable[[int, str], str]) -> str:
        return f"Tap {name(args.control_id, args.control_name)}"

    def from_shorthand(self, verb: str, words: list[str]) -> dict[str, Any] | None:
        return {"control_id": int(words[0])} if verb in ("click", "tap") and len(words) == 1 else None

    async def perform(self, args: ClickControl, performer: Performer, controls: list[Control]) -> str:
        target, first = await out_from_under_the_keyboard(performer, find_control(controls, args.control_id), controls)
        await performer.device.tap(*target.center)
        message = f"“{target.name}” at {target.center}"
        return f"{first}tapped {message}" if first else f"Tapped {message}"

    def gesture(self, args: ClickControl, target: Box | None, screen_size: tuple[int, int],
                box_of: Callable[[int], Box | None] = no_box) -> Gesture | None:
        if target is None:
            return None
        return Gesture("tapped here", "a rejected tap (dashed)", ring=((target[0] + target[2]) / 2,
                                                                       (target[1] + target[3]) / 2))

    def export_python(self, args: ClickControl, writer: ScriptWriter) -> list[str]:
        at = writer.found_at()
        return [f"d.click({at[0]}, {at[1]})" if at is not None else f"{writer.found()}.click()"]
