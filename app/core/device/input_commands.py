"""Shell command lines for input on an Android phone, built so that no text can escape its quotes.

Every argument that may come from a model or a person goes through `shlex.quote` (the
phone's mksh understands POSIX single quotes). `input text` turns "%s" into a space, so
spaces are sent as %s and a literal "%s" in the text is split across two `input text`
calls. Text outside printable ASCII cannot be typed by `input text` at all (Android's
KeyCharacterMap has no key for it); it goes through the ADB Keyboard broadcast instead.
"""

from __future__ import annotations

import base64
import shlex

from app.android.keycodes import KEYCODES

ADB_KEYBOARD_IME = "com.android.adbkeyboard/.AdbIME"
INPUT_TEXT_CHUNK = 80          # long texts are typed in pieces; one huge `input text` is slow and may fail
CLEAR_KEYS_PER_COMMAND = 400  # delete keys per command line: ~1.6 kB, well under old ADB's 4 kB service limit

_TYPABLE = {chr(c) for c in range(32, 127)}


def _int(value: float) -> int:
    return int(round(value))


def tap(x: float, y: float) -> str:
    return f"input tap {_int(x)} {_int(y)}"


def swipe(x1: float, y1: float, x2: float, y2: float, duration_ms: int = 300) -> str:
    return f"input swipe {_int(x1)} {_int(y1)} {_int(x2)} {_int(y2)} {max(1, int(duration_ms))}"


def drag_and_drop(x1: float, y1: float, x2: float, y2: float, duration_ms: int = 300) -> str:
    """Press, hold for the long-press time, move to (x2, y2) in `duration_ms`, release (Android 7 and later)."""
    return f"input draganddrop {_int(x1)} {_int(y1)} {_int(x2)} {_int(y2)} {max(1, int(duration_ms))}"


def long_press(x: float, y: float, duration_ms: int = 800) -> str:
    """A swipe that does not move is how `input` does a long press."""
    return swipe(x, y, x, y, duration_ms)


def keyevent(*codes: int) -> str:
    return "input keyevent " + " ".join(str(int(c)) for c in codes)


def needs_adb_keyboard(text: str) -> bool:
    """True when `input text` cannot type this text (anything outside printable ASCII but newlines)."""
    return any(ch not in _TYPABLE and ch != "\n" for ch in text)


def _input_text_pieces(text: str) -> list[str]:
    """Split text so no piece contains "%s" and none is longer than INPUT_TEXT_CHUNK."""
    pieces: list[str] = []
    for part in text.split("%s"):
        if pieces:
            pieces[-1] += "%"  # "%s" → "%" ends this piece, "s" starts the next one
            part = "s" + part
        pieces.append(part)
    chunks: list[str] = []
    for piece in pieces:
        chunks.extend(piece[i:i + INPUT_TEXT_CHUNK] for i in range(0, len(piece), INPUT_TEXT_CHUNK))
    return [c for c in chunks if c]


def type_ascii(text: str) -> str:
    """One command line that types printable-ASCII text (newlines become ENTER)."""
    commands: list[str] = []
    for line_number, line in enumerate(text.split("\n")):
        if line_number:
            commands.append(keyevent(KEYCODES["ENTER"]))
        for piece in _input_text_pieces(line):
            commands.append("input text " + shlex.quote(piece.replace(" ", "%s")))
    return " && ".join(commands) if commands else "true"


def type_with_adb_keyboard(text: str) -> str:
    """The ADB Keyboard broadcast: base64 so any Unicode survives every layer of quoting."""
    encoded = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return f"am broadcast -a ADB_INPUT_B64 --es msg {shlex.quote(encoded)}"


def clear_field(count: int, *, forward: bool = False) -> str:
    """Move to the end of the focused field's line and delete `count` characters before the cursor;
    with `forward`, also `count` after it (text after the cursor, or on later lines of a multi-line field).

    Long fields take several calls (see `clear_field_commands`); the caller re-reads the field."""
    count = max(0, int(count))
    keys = [KEYCODES["DEL"]] * count + ([KEYCODES["FORWARD_DEL"]] * count if forward else [])
    return " && ".join([keyevent(KEYCODES["MOVE_END"])] + [keyevent(*keys[i:i + CLEAR_KEYS_PER_COMMAND])
                                                          for i in range(0, len(keys), CLEAR_KEYS_PER_COMMAND)])


def clear_field_commands(count: int, *, forward: bool = False) -> list[str]:
    """`clear_field` split into command lines of at most CLEAR_KEYS_PER_COMMAND keys per direction."""
    count = max(0, int(count))
    batches = [min(CLEAR_KEYS_PER_COMMAND // (2 if forward else 1), count - done)
               for done in range(0, count, CLEAR_KEYS_PER_COMMAND // (2 if forward else 1))]
    return [clear_field(batch, forward=forward) for batch in batches] or [clear_field(0)]


def launch_app(package: str) -> str:
    return f"monkey -p {shlex.quote(package)} -c android.intent.category.LAUNCHER 1"


def switch_ime(ime_id: str) -> str:
    quoted = shlex.quote(ime_id)
    return f"ime enable {quoted} >/dev/null; ime set {quoted}"
