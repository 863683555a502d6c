"""drag: press, hold until the view under the finger takes it, move, release — to reorder a list or move a
slider's thumb. Each end is a control from the list or a point; over scrcpy the finger goes down, moves a
step per frame and comes up, over the shell it is `input draganddrop`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import Field, model_validator

from app.core.perception.controls import Control

from .base import (
    ActionArguments,
    ActionKind,
    Box,
    CannotExport,
    Gesture,
    Performer,
    Place,
    ScriptWriter,
    ShorthandError,
    no_box,
    number,
    pixels,
)

FROM = Place(control="from_control_id", x="from_x", y="from_y", point_words="the drag from")
TO = Place(control="to_control_id", x="to_x", y="to_y", point_words="the drop at",
           control_words="the place it drops on, “{name}”,")


class Drag(ActionArguments):
    from_control_id: int | None = None
    from_x: float | None = None
    from_y: float | None = None
    to_control_id: int | None = None
    to_x: float | None = None
    to_y: float | None = None
    duration_ms: int = Field(1000, ge=1, le=10_000)

    @model_validator(mode="after")
    def _each_end_is_somewhere(self) -> Drag:
        for end in ("from", "to"):
            if getattr(self, f"{end}_control_id") is None and (
                    getattr(self, f"{end}_x") is None or getattr(self, f"{end}_y") is None):
                raise ValueError(f"a drag needs {end}_control_id, or both {end}_x and {end}_y")
        return self


def _end(word: str) -> dict[str, Any]:
    """One end of a typed drag: a control id (`7`) or a point (`540,1200`)."""
    if word.isdigit():
        return {"control_id": int(word)}
    x, comma, y = word.partition(",")
    if not comma:
        raise ShorthandError(f"'{word}' is neither a control id nor a point X,Y")
    return {"x": number(x), "y": number(y)}


class DragAction(ActionKind[Drag]):
    name = "drag"
    arguments = Drag
    hint = "press, hold, move, release (move a slider, reorder a list); each end an id or a point"
    places = (FROM, TO)
    shorthand = ("drag ID|X,Y ID|X,Y [MS]",)

    def describe(self, args: Drag, name: Callable[[int, str], str]) -> str:
        def end(control_id: int | None, x: float | None, y: float | None) -> str:
            return name(control_id, "") if control_id is not None else f"({x:.0f}, {y:.0f})"
        return (f"Drag {end(args.from_control_id, args.from_x, args.from_y)} "
                f"to {end(args.to_control_id, args.to_x, args.to_y)}")

    def from_shorthand(self, verb: str, words: list[str]) -> dict[str, Any] | None:
        if verb != "drag":
            return None
        arguments = {f"from_{key}": value for key, value in _end(words[0]).items()}
        arguments |= {f"to_{key}": value for key, value in _end(words[1]).items()}
        if len(words) > 2:
            arguments["duration_ms"] = number(words[2])
        return arguments

    async def perform(self, args: Drag, performer: Performer, controls: list[Control]) -> str:
        start, end = self.where(args, FROM, controls), self.where(args, TO, controls)
        await performer.device.drag(*start, *end, args.duration_ms)
        return f"Dragged from ({start[0]:.0f}, {start[1]:.0f}) to ({end[0]:.0f}, {end[1]:.0f})"

    def gesture(self, args: Drag, target: Box | None, screen_size: tuple[int, int],
                box_of: Callable[[int], Box | None] = no_box) -> Gesture | None:
        def centre(place: Place, box: Box | None) -> tuple[float, float] | None:
            if self.control_id(args, place) is None:
                return self.point(args, place)
            return ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2) if box is not None else None
        drop = box_of(args.to_control_id) if args.to_control_id is not None else None
        start, end = centre(FROM, target), centre(TO, drop)
        if start is None or end is None:
            return None
        return Gesture("dragged along the arrow", "a rejected drag (dashed)", arrow=(*start, *end), end_box=drop)

    def export_python(self, args: Drag, writer: ScriptWriter) -> list[str]:
        if args.to_x is None or args.to_y is None:
            raise CannotExport("the place the drag ended on was recorded only by its number on that screen")
        to_x, to_y, seconds = pixels(args.to_x), pixels(args.to_y), f"{args.duration_ms / 1000:g}"
        if writer.has_target() and writer.found_at() is None:
            return [f"{writer.found()}.drag_to({to_x}, {to_y}, duration={seconds})"]
        start = writer.found_at()
        if start is None:
            if args.from_x is None or args.from_y is None:
                raise CannotExport("the place the drag started on was recorded only by its number on that screen")
            start = (pixels(args.from_x), pixels(args.from_y))
        return [f"d.drag({start[0]}, {start[1]}, {to_x}, {to_y}, duration={seconds})"]
