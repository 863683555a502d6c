"""scroll: scroll a scrollable control (else the screen) so that what lies in `direction` comes into view."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import field_validator

from app.core.perception.controls import Control

from .base import ActionArguments, ActionKind, Box, Gesture, Performer, Place, ScriptWriter, find_control, no_box

SCROLL_SWIPES = {"down": "up", "up": "down", "left": "right", "right": "left"}
"""A scroll direction (what comes into view) as the finger's direction for uiautomator2's `swipe_ext`."""

SCROLL_SCALE = 0.7
"""How far an exported scroll swipes, as a part of the area: the app's own scroll moves the finger 70 %."""


class Scroll(ActionArguments):
    direction: Literal["up", "down", "left", "right"]
    control_id: int | None = None

    @field_validator("direction", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.lower().strip() if isinstance(value, str) else value


class ScrollAction(ActionKind[Scroll]):
    name = "scroll"
    arguments = Scroll
    hint = "a scrollable control, else the screen"
    places = (Place(control="control_id", control_checked=False),)
    shorthand = ("scroll up|down|left|right [ID]",)

    def describe(self, args: Scroll, name: Callable[[int, str], str]) -> str:
        where = f" in {name(args.control_id, '')}" if args.control_id is not None else ""
        return f"Scroll {args.direction}{where}"

    def from_shorthand(self, verb: str, words: list[str]) -> dict[str, Any] | None:
        if verb != "scroll":
            return None
        arguments: dict[str, Any] = {"direction": words[0]}
        if len(words) > 1:
            arguments["control_id"] = int(words[1])
        return arguments

    async def perform(self, args: Scroll, performer: Performer, controls: list[Control]) -> str:
        area = find_control(controls, args.control_id).rect if args.control_id is not None else None
        await performer.device.scroll(args.direction, area)
        return f"Scrolled {args.direction}"

    def gesture(self, args: Scroll, target: Box | None, screen_size: tuple[int, int],
                box_of: Callable[[int], Box | None] = no_box) -> Gesture | None:
        width, height = screen_size
        left, top, right, bottom = target or (0, 0, width, height)
        x, y = (left + right) / 2, (top + bottom) / 2
        dx, dy = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}[args.direction]
        reach = min(right - left, bottom - top, width, height) * 0.35
        return Gesture(f"scrolled {args.direction}", f"a rejected scroll {args.direction} (dashed)",
                       arrow=(x - dx * reach, y - dy * reach, x + dx * reach, y + dy * reach))

    def export_python(self, args: Scroll, writer: ScriptWriter) -> list[str]:
        swipe = SCROLL_SWIPES[args.direction]
        if not writer.has_target():
            return [f"d.swipe_ext({swipe!r}, scale={SCROLL_SCALE})   # scroll {args.direction}"]
        bounds = writer.found_box()
        box = repr(bounds) if bounds is not None else f"area({writer.found()})"
        return [f"d.swipe_ext({swipe!r}, scale={SCROLL_SCALE}, box={box})   # scroll {args.direction}"]
