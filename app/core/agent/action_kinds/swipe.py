"""swipe: move a finger from one point to another (a fling: the content scrolls)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import Field

from app.core.perception.controls import Control

from .base import ActionArguments, ActionKind, Box, Gesture, Performer, Place, ScriptWriter, no_box, number, pixels


class Swipe(ActionArguments):
    start_x: float
    start_y: float
    end_x: float
    end_y: float
    duration_ms: int = Field(300, ge=1, le=10_000)


class SwipeAction(ActionKind[Swipe]):
    name = "swipe"
    arguments = Swipe
    hint = "a fling: the content scrolls"
    places = (Place(x="start_x", y="start_y", point_words="the swipe from"), Place(x="end_x", y="end_y"))
    shorthand = ("swipe X1 Y1 X2 Y2 [MS]",)

    def describe(self, args: Swipe, name: Callable[[int, str], str]) -> str:
        return f"Swipe from ({args.start_x:.0f}, {args.start_y:.0f}) to ({args.end_x:.0f}, {args.end_y:.0f})"

    def from_shorthand(self, verb: str, words: list[str]) -> dict[str, Any] | None:
        if verb != "swipe":
            return None
        keys = ("start_x", "start_y", "end_x", "end_y", "duration_ms")
        return {key: number(word) for key, word in zip(keys, words, strict=False)}   # the duration may be left out

    async def perform(self, args: Swipe, performer: Performer, controls: list[Control]) -> str:
        await performer.device.swipe(args.start_x, args.start_y, args.end_x, args.end_y, args.duration_ms)
        return "Swiped"

    def gesture(self, args: Swipe, target: Box | None, screen_size: tuple[int, int],
                box_of: Callable[[int], Box | None] = no_box) -> Gesture | None:
        return Gesture("swiped along the arrow", "a rejected swipe (dashed)",
                       arrow=(args.start_x, args.start_y, args.end_x, args.end_y))

    def export_python(self, args: Swipe, writer: ScriptWriter) -> list[str]:
        return ["# a swipe is recorded only as coordinates",
                f"d.swipe({pixels(args.start_x)}, {pixels(args.start_y)}, {pixels(args.end_x)}, "
                f"{pixels(args.end_y)}, duration={args.duration_ms / 1000:g})"]
