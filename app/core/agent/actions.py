"""The model's reply and the actions it may ask for (GUIDE §2), validated with pydantic.

A reply is `{"thought", "action": {"function", "arguments", "status"}, "comment"}` plus
optional `plan` and `questions`. `parse_reply_dict` turns a decoded dict into a
`ModelReply` whose `action.args` is the typed argument model of its function, or raises
`ReplyInvalid` with a message written for the model (it is sent back on retry).
`check_against_screen` then rejects ids and coordinates that do not exist on the
current screen, before anything runs.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from app.core.perception.controls import Control

from .action_kinds import ACTION_KINDS, argument_models, kind_of
from .action_kinds.ask_user import AskUser
from .action_kinds.base import ActionArguments, ActionRejected, find_control
from .action_kinds.click_control import ClickControl
from .action_kinds.launch_app import LaunchApp
from .action_kinds.long_press_control import LongPressControl
from .action_kinds.offered import GoToScreen, GoToScreenAction, UseSkill, UseSkillAction
from .action_kinds.press_key import PressKey
from .action_kinds.scroll import Scroll
from .action_kinds.swipe import Swipe
from .action_kinds.tap import Tap
from .action_kinds.type_text import TypeText
from .action_kinds.wait import Wait

__all__ = ["ARGUMENT_MODELS", "FUNCTION_NAMES", "GO_TO_SCREEN", "NO_ACTION", "USE_SKILL", "Action", "ActionArgs",
           "ActionRejected", "AskUser", "ClickControl", "Expectation", "GoToScreen", "LaunchApp", "LongPressControl",
           "ModelReply", "PressKey", "ReplyInvalid", "Scroll", "Status", "Swipe", "Tap", "TypeText", "UseSkill", "Wait",
           "check_against_screen", "describe_action", "find_control", "parse_reply_dict"]

Status = Literal["CONTINUE", "CONFIRM", "FINISH", "FAIL"]
"""CONFIRM (seed 002): the action runs only once a person has confirmed it, in every mode; then as CONTINUE."""
NO_ACTION = ""  # function of a FINISH/FAIL reply that does nothing more


ActionArgs = ActionArguments
"""The typed arguments of any function (each kind's own model derives from it)."""


class NoAction(ActionArguments):
    pass


USE_SKILL = UseSkillAction.name
GO_TO_SCREEN = GoToScreenAction.name
ARGUMENT_MODELS: dict[str, type[ActionArguments]] = argument_models()
"""Each function's argument model, read from the registry of action kinds (`action_kinds`)."""
OFFERED_ONLY = tuple(kind.name for kind in ACTION_KINDS if not kind.offered_always)
FUNCTION_NAMES = tuple(kind.name for kind in ACTION_KINDS if kind.offered_always)
"""The functions every model is offered; use_skill only when there are skills, go_to_screen only when the
map knows screens to go to."""


class Action(BaseModel):
    """One action of the model (or of the person, when they override)."""

    model_config = ConfigDict(extra="ignore")

    function: str = NO_ACTION
    arguments: dict[str, Any] = Field(default_factory=dict)
    status: Status = "CONTINUE"

    @field_validator("status", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.upper().strip() if isinstance(value, str) else value

    @field_validator("function", mode="before")
    @classmethod
    def _normalise_function(cls, value: Any) -> Any:
        return "" if value is None else (value.strip() if isinstance(value, str) else value)

    @model_validator(mode="after")
    def _check_function(self) -> Action:
        if self.function.lower() in ("none", "finish", "fail", "done", "stop"):
            self.function = NO_ACTION
        if self.function == NO_ACTION:
            if self.status in ("CONTINUE", "CONFIRM"):
                raise ValueError(f"a {self.status} action needs a function; use status FINISH or FAIL when done")
        elif self.function not in ARGUMENT_MODELS:
            raise ValueError(f"unknown function '{self.function}'; use one of: {', '.join(FUNCTION_NAMES)}")
        else:
            ARGUMENT_MODELS[self.function].model_validate(self.arguments)
        return self

    @property
    def args(self) -> ActionArgs:
        """The arguments as the typed model of the function."""
        return ARGUMENT_MODELS.get(self.function, NoAction).model_validate(self.arguments)

    @property
    def does_something(self) -> bool:
        return self.function != NO_ACTION


class Expectation(BaseModel):
    """What a FINISH says the screen now shows, so a fresh dump can check it: a control (by its
    name or text) and its state or text — or, without a control, a text shown somewhere."""

    model_config = ConfigDict(extra="ignore")

    control: str = ""
    checked: bool | None = None
    selected: bool | None = None
    text: str | None = None

    @property
    def names_a_fact(self) -> bool:
        """A state or text to look for: a control merely being there proves nothing."""
        return self.text is not None and self.text.strip() != "" or (
            bool(self.control.strip()) and (self.checked is not None or self.selected is not None))


class ModelReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    thought: str = ""
    action: Action
    comment: str = ""
    plan: list[str] = Field(default_factory=list)
    questions: list[str] = Field(default_factory=list)
    expect: Expectation | None = None      # with FINISH: what the screen should now show
    clean_image: bool = False              # the next step sends the screen without ids drawn too (images.send auto)

    @field_validator("expect", mode="before")
    @classmethod
    def _lenient_expectation(cls, value: Any) -> Any:
        """A malformed expectation is dropped (the FINISH is then checked by the model), never
        a reason to refuse the whole reply."""
        if not isinstance(value, dict):
            return None
        try:
            return Expectation.model_validate(value)
        except ValidationError:
            return None

    @field_validator("clean_image", mode="before")
    @classmethod
    def _lenient_flag(cls, value: Any) -> Any:
        """Only a plain true asks for the clean image; anything else (a string, a number, null) is no ask,
        never a reason to refuse the whole reply."""
        return value is True

    @field_validator("plan", "questions", mode="before")
    @classmethod
    def _listify(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, str):
            return [line.strip(" -*\t") for line in value.splitlines() if line.strip()]
        return value


class ReplyInvalid(ValueError):
    """The model's reply cannot be used; the message tells the model what to fix."""


def parse_reply_dict(data: Any) -> ModelReply:
    """Validate a decoded reply. Accepts a top-level action too (some models flatten it)."""
    if not isinstance(data, dict):
        raise ReplyInvalid("The reply must be a JSON object with keys thought, action, comment.")
    if "action" not in data and "function" in data:
        data = {"thought": data.get("thought", ""), "comment": data.get("comment", ""),
                "plan": data.get("plan"), "questions": data.get("questions"), "expect": data.get("expect"),
                "action": {k: data[k] for k in ("function", "arguments", "status") if k in data}}
    try:
        return ModelReply.model_validate(data)
    except ValidationError as exc:
        raise ReplyInvalid(_explain(exc)) from exc


def _explain(error: ValidationError) -> str:
    problems = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "reply"
        message = item["msg"].removeprefix("Value error, ")
        problems.append(f"{where}: {message}")
    return "The reply is not valid: " + "; ".join(problems) + "."


# ---------------------------------------------------------------------------- the screen


def check_against_screen(action: Action, controls: list[Control], screen_size: tuple[int, int]) -> None:
    """Reject hallucinated control ids and coordinates off the screen (device pixels)."""
    kind = kind_of(action.function)
    if kind is not None:
        kind.check_against_screen(action.args, controls, screen_size)


def describe_action(action: Action, controls: list[Control] | None = None) -> str:
    """The action in words a person reads at a glance: 'Tap “Wi-Fi” (#4)'."""
    if not action.does_something:
        return {"FINISH": "Finish: the task is done", "FAIL": "Give up: the task cannot be done"}.get(
            action.status, "No action")

    def control_name(control_id: int, fallback: str) -> str:
        known = next((c for c in controls or [] if c.id == control_id), None)
        return f"“{(known.name if known else fallback) or '?'}” (#{control_id})"

    kind = kind_of(action.function)
    return kind.describe(action.args, control_name) if kind is not None else action.function
