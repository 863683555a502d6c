"""press_key: press BACK, HOME, ENTER, APP_SWITCH or any Android key code."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.android.keycodes import keycode_from_string
from app.core.perception.controls import Control

from .base import ActionArguments, ActionKind, CannotExport, Performer, ScriptWriter

U2_KEY_NAMES = {3: "home", 4: "back", 19: "up", 20: "down", 21: "left", 22: "right", 23: "center",
                24: "volume_up", 25: "volume_down", 26: "power", 27: "camera", 66: "enter", 67: "delete",
                82: "menu", 84: "search", 164: "volume_mute", 187: "recent"}
"""Android key codes uiautomator2's `press()` knows by name; other keys are pressed by their code."""


class PressKey(ActionArguments):
    key_code: str | int


class PressKeyAction(ActionKind[PressKey]):
    name = "press_key"
    arguments = PressKey
    hint = "BACK, HOME, ENTER, APP_SWITCH or a keycode"
    shorthand = ("key NAME", "back", "home", "recents")

    def describe(self, args: PressKey, name: Callable[[int, str], str]) -> str:
        return f"Press {str(args.key_code).upper()}"

    def from_shorthand(self, verb: str, words: list[str]) -> dict[str, Any] | None:
        if verb in ("key", "press"):
            return {"key_code": words[0]}
        if verb in ("back", "home", "recents"):
            return {"key_code": {"recents": "APP_SWITCH"}.get(verb, verb.upper())}
        return None

    async def perform(self, args: PressKey, performer: Performer, controls: list[Control]) -> str:
        await performer.device.press_key(args.key_code)
        return f"Pressed {args.key_code}"

    def export_python(self, args: PressKey, writer: ScriptWriter) -> list[str]:
        code = keycode_from_string(args.key_code)
        if code is None:
            raise CannotExport(f"the key {args.key_code!r} is not an Android key")
        return [f"d.press({U2_KEY_NAMES.get(code, code)!r})"]
