"""Actions typed by a person in a few words: `tap 540 1200`, `click 7`, `type 3 hello`, `key BACK`…

Each action kind reads its own words (`ActionKind.shorthand` and `from_shorthand`); this module asks them in
the registry's order and adds `finish` and JSON.
"""

from __future__ import annotations

import json
import shlex

from pydantic import ValidationError

from .action_kinds import ACTION_KINDS
from .action_kinds.base import ShorthandError
from .actions import Action

__all__ = ["SHORTHAND_HELP", "ShorthandError", "parse_shorthand"]

SHORTHAND_HELP = " | ".join((*(usage for kind in ACTION_KINDS for usage in kind.shorthand), "finish",
                             'or JSON like {"function": "tap", "arguments": {"x": 1, "y": 2}}'))


def parse_shorthand(text: str) -> Action:
    """Parse a typed action (device pixels). Raises ShorthandError with what to type instead."""
    text = text.strip()
    if text.startswith("{"):
        try:
            return Action.model_validate(json.loads(text))
        except (ValueError, ValidationError) as exc:
            raise ShorthandError(f"not a valid action: {exc}") from None
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise ShorthandError(str(exc)) from None
    if not words:
        raise ShorthandError("type an action, e.g. `tap 540 1200`")
    verb, rest = words[0].lower(), words[1:]
    try:
        action = _build(verb, rest)
        _ = action.args  # validate the arguments now
        return action
    except (ValidationError, IndexError, ValueError) as exc:
        if isinstance(exc, ShorthandError):
            raise
        raise ShorthandError(f"cannot read '{text}'. Use: {SHORTHAND_HELP}") from None


def _build(verb: str, rest: list[str]) -> Action:
    if verb in ("finish", "done"):
        return Action(function="", status="FINISH")
    for kind in ACTION_KINDS:
        arguments = kind.from_shorthand(verb, rest)
        if arguments is not None:
            return Action(function=kind.name, arguments=arguments)
    raise ShorthandError(f"unknown action '{verb}'. Use: {SHORTHAND_HELP}")
