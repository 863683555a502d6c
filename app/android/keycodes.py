"""Android key codes by name (android.view.KeyEvent), shared by the core's device layer and the virtual phone."""

from __future__ import annotations

KEYCODES: dict[str, int] = {
    "UNKNOWN": 0, "SOFT_LEFT": 1, "SOFT_RIGHT": 2, "HOME": 3, "BACK": 4, "CALL": 5, "ENDCALL": 6,
    "0": 7, "1": 8, "2": 9, "3": 10, "4": 11, "5": 12, "6": 13, "7": 14, "8": 15, "9": 16,
    "STAR": 17, "POUND": 18, "DPAD_UP": 19, "DPAD_DOWN": 20, "DPAD_LEFT": 21, "DPAD_RIGHT": 22,
    "DPAD_CENTER": 23, "VOLUME_UP": 24, "VOLUME_DOWN": 25, "POWER": 26, "CAMERA": 27, "CLEAR": 28,
    **{chr(ord("A") + i): 29 + i for i in range(26)},
    "COMMA": 55, "PERIOD": 56, "ALT_LEFT": 57, "ALT_RIGHT": 58, "SHIFT_LEFT": 59, "SHIFT_RIGHT": 60,
    "TAB": 61, "SPACE": 62, "SYM": 63, "EXPLORER": 64, "ENVELOPE": 65, "ENTER": 66, "DEL": 67,
    "GRAVE": 68, "MINUS": 69, "EQUALS": 70, "LEFT_BRACKET": 71, "RIGHT_BRACKET": 72, "BACKSLASH": 73,
    "SEMICOLON": 74, "APOSTROPHE": 75, "SLASH": 76, "AT": 77, "NUM": 78, "HEADSETHOOK": 79,
    "FOCUS": 80, "PLUS": 81, "MENU": 82, "NOTIFICATION": 83, "SEARCH": 84, "MEDIA_PLAY_PAUSE": 85,
    "MEDIA_STOP": 86, "MEDIA_NEXT": 87, "MEDIA_PREVIOUS": 88, "MEDIA_REWIND": 89,
    "MEDIA_FAST_FORWARD": 90, "MUTE": 91, "PAGE_UP": 92, "PAGE_DOWN": 93, "ESCAPE": 111,
    "FORWARD_DEL": 112, "CTRL_LEFT": 113, "CTRL_RIGHT": 114, "CAPS_LOCK": 115, "MOVE_HOME": 122,
    "MOVE_END": 123, "INSERT": 124, "MEDIA_PLAY": 126, "MEDIA_PAUSE": 127, "VOLUME_MUTE": 164,
    "APP_SWITCH": 187, "SETTINGS": 176, "BRIGHTNESS_DOWN": 220, "BRIGHTNESS_UP": 221,
    "SLEEP": 223, "WAKEUP": 224, "ASSIST": 219, "VOICE_ASSIST": 231, "ALL_APPS": 284,
}

# Names people and models use that are not Android's own.
ALIASES: dict[str, str] = {
    "RECENTS": "APP_SWITCH", "RECENT_APPS": "APP_SWITCH", "OVERVIEW": "APP_SWITCH",
    "RETURN": "ENTER", "BACKSPACE": "DEL", "DELETE": "DEL", "ESC": "ESCAPE",
    "UP": "DPAD_UP", "DOWN": "DPAD_DOWN", "LEFT": "DPAD_LEFT", "RIGHT": "DPAD_RIGHT",
    "VOL_UP": "VOLUME_UP", "VOL_DOWN": "VOLUME_DOWN",
}

NAMES_BY_CODE: dict[int, str] = {code: name for name, code in KEYCODES.items()}


def keycode_from_string(value: str | int) -> int | None:
    """Resolve "KEYCODE_BACK", "back", "4" or 4 to an Android key code; None when unknown.

    Mirrors KeyEvent.keyCodeFromString, which accepts a number, a name, or a name with
    the KEYCODE_ prefix.
    """
    if isinstance(value, int):
        return value if 0 <= value <= 400 else None
    text = value.strip()
    if text.isdigit():
        code = int(text)
        return code if 0 <= code <= 400 else None
    name = text.upper().replace(" ", "_")
    if name.startswith("KEYCODE_"):
        name = name[len("KEYCODE_"):]
    name = ALIASES.get(name, name)
    return KEYCODES.get(name)
