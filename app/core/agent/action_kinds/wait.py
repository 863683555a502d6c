"""wait: let the screen settle for a few seconds (at most 30)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from pydantic import Field

from app.core.perception.controls import Control

from .base import ActionArguments, ActionKind, Performer, ScriptWriter, number


class Wait(ActionArguments):
    seconds: float = Field(1.0, gt=0, le=30)


class WaitAction(ActionKind[Wait]):
    name = "wait"
    arguments = Wait
    hint = "let the screen settle, at most 30 s"
    touches_phone = False
    shorthand = ("wait SECONDS",)

    def describe(self, args: Wait, name: Callable[[int, str], str]) -> str:
        return f"Wait {args.seconds:g} s"

    def from_shorthand(self, verb: str, words: list[str]) -> dict[str, Any] | None:
        return {"seconds": number(words[0]) if words else 1} if verb == "wait" else None

    async def perform(self, args: Wait, performer: Performer, controls: list[Control]) -> str:
        await performer.control.interruptible(asyncio.sleep(args.seconds))
        return f"Waited {args.seconds:g} s"

    def export_python(self, args: Wait, writer: ScriptWriter) -> list[str]:
        return [f"time.sleep({args.seconds:g})"]
