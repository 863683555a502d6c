"""Actions typed by a person in a few words: `tap 540 1200`, `click 7`, `type 3 hello`, `key BACK`…"""

from __future__ import annotations

import json
import shlex

from pydantic import ValidationError

from .actions import Action

SHORTHAND_HELP = ("click ID | long ID | tap X Y | swipe X1 Y1 X2 Y2 [MS] | type [ID] TEXT | "
                  "scroll up|down|left|right [ID] | key NAME | launch PACKAGE | back | home | recents | "
                  "wait SECONDS | finish | "
                  'or JSON like {"function": "tap", "arguments": {"x": 1, "y": 2}}')


class ShorthandError(ValueError):
    pass


def _number(word: str) -> float:
    try:
        return float(word)
    except ValueError:
        raise ShorthandError(f"'{word}' is not a number") from None


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
        action = _build(verb, rest, text)
        _ = action.args  # validate the arguments now
        return action
    except (ValidationError, IndexError, ValueError) as exc:
        if isinstance(exc, ShorthandError):
            raise
        raise ShorthandError(f"cannot read '{text}'. Use: {SHORTHAND_HELP}") from None


def _build(verb: str, rest: list[str], text: str) -> Action:
    if verb in ("click", "tap") and len(rest) == 1:
        return Action(function="click_control", arguments={"control_id": int(rest[0])})
    if verb in ("long", "longpress", "long_press"):
        return Action(function="long_press_control", arguments={"control_id": int(rest[0])})
    if verb == "tap":
        return Action(function="tap", arguments={"x": _number(rest[0]), "y": _number(rest[1])})
    if verb == "swipe":
        keys = ("start_x", "start_y", "end_x", "end_y", "duration_ms")
        return Action(function="swipe", arguments={k: _number(v) for k, v in zip(keys, rest, strict=False)})
    if verb == "type":
        if len(rest) >= 2 and rest[0].isdigit():
            return Action(function="type_text", arguments={"control_id": int(rest[0]), "text": " ".join(rest[1:])})
        return Action(function="type_text", arguments={"text": " ".join(rest)})
    if verb == "scroll":
        arguments: dict[str, str | int] = {"direction": rest[0]}
        if len(rest) > 1:
            arguments["control_id"] = int(rest[1])
        return Action(function="scroll", arguments=arguments)
    if verb in ("key", "press"):
        return Action(function="press_key", arguments={"key_code": rest[0]})
    if verb in ("back", "home", "recents"):
        return Action(function="press_key", arguments={"key_code": {"recents": "APP_SWITCH"}.get(verb, verb.upper())})
    if verb in ("launch", "open"):
        return Action(function="launch_app", arguments={"package_name": " ".join(rest)})
    if verb == "wait":
        return Action(function="wait", arguments={"seconds": _number(rest[0]) if rest else 1})
    if verb in ("finish", "done"):
        return Action(function="", status="FINISH")
    raise ShorthandError(f"unknown action '{verb}'. Use: {SHORTHAND_HELP}")
