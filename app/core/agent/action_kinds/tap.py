"""tap: tap a point (for what has no control in the list)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.core.perception.controls import Control

from .base import ActionArguments, ActionKind, Box, Gesture, Performer, Place, ScriptWriter, no_box, number, pixels


class Tap(ActionArguments):
    x: float
    y: float


class TapAction(ActionKind[Tap]):
    name = "tap"
    arguments = Tap
    hint = "a point"
    places = (Place(x="x", y="y", point_words="the tap at"),)
    shorthand = ("tap X Y",)

    def describe(self, args: Tap, name: Callable[[int, str], str]) -> str:
        return f"Tap at ({args.x:.0f}, {args.y:.0f})"

    def from_shorthand(self, verb: str, words: list[str]) -> dict[str, Any] | None:
        return {"x": number(words[0]), "y": number(words[1])} if verb == "tap" else None

    async def perform(self, args: Tap, performer: Performer, controls: list[Control]) -> str:
        await performer.device.tap(args.x, args.y)
        return f"Tapped at ({args.x:.0f}, {args.y:.0f})"

    def gesture(self, args: Tap, target: Box | None, screen_size: tuple[int, int],
                box_of: Callable[[int], Box | None] = no_box) -> Gesture | None:
        return Gesture("tapped here", "a rejected tap (dashed)", ring=(args.x, args.y))

    def export_python(self, args: Tap, writer: ScriptWriter) -> list[str]:
        return ["# coordinates: the run tapped a point, not a control", f"d.click({pixels(args.x)}, {pixels(args.y)})"]
