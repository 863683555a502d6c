"""The registry of action kinds: every function the model (or a person, a replay, a skill) may ask for.

To add an action, write its class in a module of this package (see `base.ActionKind` and an existing
kind such as `tap.py`) and list it in `ACTION_KINDS`. Everything else — validation, the prompt's function
list and the tool schema, the points mapped from the model's coordinates, the checks against the screen,
the words, the executor, the sensitive check, the report's marks, replay and export — reads it from here.
The order of `ACTION_KINDS` is the order the model is offered the functions in.
"""

from __future__ import annotations

from typing import Any

from .ask_user import AskUserAction
from .base import ActionArguments, ActionKind
from .click_control import ClickControlAction
from .drag import DragAction
from .launch_app import LaunchAppAction
from .long_press_control import LongPressControlAction
from .offered import GoToScreenAction, UseSkillAction
from .press_key import PressKeyAction
from .scroll import ScrollAction
from .swipe import SwipeAction
from .tap import TapAction
from .type_text import TypeTextAction
from .wait import WaitAction

ACTION_KINDS: tuple[ActionKind[Any], ...] = (
    LaunchAppAction(),
    ClickControlAction(),
    LongPressControlAction(),
    TypeTextAction(),
    SwipeAction(),
    DragAction(),
    ScrollAction(),
    TapAction(),
    PressKeyAction(),
    WaitAction(),
    AskUserAction(),
    UseSkillAction(),
    GoToScreenAction(),
)

KINDS_BY_NAME: dict[str, ActionKind[Any]] = {kind.name: kind for kind in ACTION_KINDS}


def kind_of(function: str) -> ActionKind[Any] | None:
    """The kind of a function name; None for no action ("") and for a name the app does not know."""
    return KINDS_BY_NAME.get(function)


def argument_models() -> dict[str, type[ActionArguments]]:
    return {kind.name: kind.arguments for kind in ACTION_KINDS}


__all__ = ["ACTION_KINDS", "KINDS_BY_NAME", "ActionKind", "kind_of", "argument_models"]
