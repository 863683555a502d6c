"""use_skill and go_to_screen: offered to the model only when there is a skill or a known screen; never
reach the phone as such (the pipeline plays their recorded steps instead, each its own action)."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import Field

from app.core.perception.controls import Control

from .base import ActionArguments, ActionKind, Performer

NOTHING_TO_DO = "Nothing to do"


class UseSkill(ActionArguments):
    """Do a saved skill's recorded steps (offered only when skills exist; never reaches the phone as such)."""

    name: str = Field(min_length=1)
    parameters: dict[str, str] = Field(default_factory=dict)


class UseSkillAction(ActionKind[UseSkill]):
    name = "use_skill"
    arguments = UseSkill
    hint = "do a saved skill's recorded steps (only the skills listed with the request)"
    offered_always = False

    def describe(self, args: UseSkill, name: Callable[[int, str], str]) -> str:
        values = ", ".join(f"{key} = {value}" for key, value in args.parameters.items())
        return f"Use the skill “{args.name}”" + (f" with {values}" if values else "")

    async def perform(self, args: UseSkill, performer: Performer, controls: list[Control]) -> str:
        return NOTHING_TO_DO


class GoToScreen(ActionArguments):
    """Go to a screen the map of earlier runs knows, by its known way (offered only when there is one;
    never reaches the phone as such: its steps do)."""

    screen: str = Field(min_length=1)


class GoToScreenAction(ActionKind[GoToScreen]):
    name = "go_to_screen"
    arguments = GoToScreen
    hint = "go to a screen the map knows, by its known way (only the screens listed with the request, by their name)"
    offered_always = False

    def describe(self, args: GoToScreen, name: Callable[[int, str], str]) -> str:
        return f"Go to “{args.screen}” by its known way"

    async def perform(self, args: GoToScreen, performer: Performer, controls: list[Control]) -> str:
        return NOTHING_TO_DO
