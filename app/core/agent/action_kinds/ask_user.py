"""ask_user: ask the person and wait for the answer."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import Field

from app.core.perception.controls import Control

from .base import ActionArguments, ActionKind, Performer, ScriptWriter


class AskUser(ActionArguments):
    question: str = Field(min_length=1)


class AskUserAction(ActionKind[AskUser]):
    name = "ask_user"
    arguments = AskUser
    hint = "ask the person"
    touches_phone = False

    def describe(self, args: AskUser, name: Callable[[int, str], str]) -> str:
        return f"Ask you: {args.question}"

    async def perform(self, args: AskUser, performer: Performer, controls: list[Control]) -> str:
        performer.last_answer = await performer.control.interruptible(performer.ask_person(args.question))
        return f"The person answered: {performer.last_answer}"

    def export_python(self, args: AskUser, writer: ScriptWriter) -> list[str]:
        return [f"input({args.question.rstrip() + ' '!r})"]
