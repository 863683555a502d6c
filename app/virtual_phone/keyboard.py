"""The on-screen keyboard (com.android.inputmethod.latin) and the ADB Keyboard's input bar.

The keyboard is its own top-level window; each key is a clickable node whose content-desc is the
key's letter or its name ("Shift", "Delete", "Space", "Enter", "Symbols", "Letters"). The picture
of a whole keyboard is drawn once per layout/size and cached.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, partial

from PIL import Image

from . import fonts, theme
from .render import paste_text
from .sprites import fill_round_rect, paste_glyph
from .views import FRAME, LINEAR, TEXT, View

LATIN_PACKAGE = "com.android.inputmethod.latin"
LATIN_IME = "com.android.inputmethod.latin/.LatinIME"
ADB_PACKAGE = "com.android.adbkeyboard"
ADB_IME = "com.android.adbkeyboard/.AdbIME"

# (label, code, width in key units); code: a character, or SHIFT DEL ENTER SYM ABC.
Key = tuple[str, str, float]

LETTERS: list[list[Key]] = [
    [(c, c, 1) for c in "qwertyuiop"],
    [(c, c, 1) for c in "asdfghjkl"],
    [("Shift", "SHIFT", 1.5)] + [(c, c, 1) for c in "zxcvbnm"] + [("Delete", "DEL", 1.5)],
    [("?123", "SYM", 1.5), (",", ",", 1), ("Space", " ", 5), (".", ".", 1), ("Enter", "ENTER", 1.5)],
]
SYMBOLS: list[list[Key]] = [
    [(c, c, 1) for c in "1234567890"],
    [(c, c, 1) for c in "@#$_&-+()/"],
    [("*", "*", 1.5)] + [(c, c, 1) for c in "\"':;!?%"] + [("Delete", "DEL", 1.5)],
    [("ABC", "ABC", 1.5), (",", ",", 1), ("Space", " ", 5), (".", ".", 1), ("Enter", "ENTER", 1.5)],
]
NUMBERS: list[list[Key]] = [
    [("1", "1", 1), ("2", "2", 1), ("3", "3", 1), ("-", "-", 1)],
    [("4", "4", 1), ("5", "5", 1), ("6", "6", 1), ("Space", " ", 1)],
    [("7", "7", 1), ("8", "8", 1), ("9", "9", 1), ("Delete", "DEL", 1)],
    [(",", ",", 1), ("0", "0", 1), (".", ".", 1), ("Enter", "ENTER", 1)],
]

_DESC = {"SYM": "Symbols", "ABC": "Letters", " ": "Space", "SHIFT": "Shift", "DEL": "Delete", "ENTER": "Enter"}
_GLYPH = {"SHIFT": "shift", "DEL": "backspace", "ENTER": "enter"}


def layout_for(mode: str, input_type: str) -> list[list[Key]]:
    if input_type in ("number", "phone"):
        return NUMBERS
    return SYMBOLS if mode == "symbols" else LETTERS


def _key_boxes(rows: list[list[Key]], width: int, top: int, height: int, pad: int):
    """Yield (row, col, key, box) with boxes covering the keyboard area (touch targets)."""
    units = max(sum(k[2] for k in row) for row in rows)
    unit = width / units
    row_h = (height - 2 * pad) / len(rows)
    for r, row in enumerate(rows):
        row_units = sum(k[2] for k in row)
        x = (width - row_units * unit) / 2
        y0 = top + pad + r * row_h
        for c, key in enumerate(row):
            w = key[2] * unit
            yield r, c, key, (int(round(x)), int(round(y0)), int(round(x + w)), int(round(y0 + row_h)))
            x += w


@lru_cache(maxsize=16)
def keyboard_image(rows_id: str, width: int, height: int, shift: bool, dp_unit: float) -> Image.Image:
    rows = {"letters": LETTERS, "symbols": SYMBOLS, "numbers": NUMBERS}[rows_id]
    im = Image.new("RGBA", (width, height), theme.KEYBOARD_BG + (255,))
    pad = int(8 * dp_unit)
    gap_x, gap_y = int(3 * dp_unit), int(5 * dp_unit)
    for _r, _c, (label, code, _w), (left, t, r, b) in _key_boxes(rows, width, 0, height, pad):
        box = (left + gap_x, t + gap_y, r - gap_x, b - gap_y)
        special = code in ("SHIFT", "DEL", "SYM", "ABC", ",", ".") and rows_id != "numbers"
        color = theme.KEY_ACTION if code == "ENTER" else (theme.KEY_SPECIAL if special else theme.KEY)
        fill_round_rect(im, box, int(6 * dp_unit), color)
        cx, cy = (box[0] + box[2]) // 2, (box[1] + box[3]) // 2
        ink = theme.WHITE if code == "ENTER" else theme.TEXT
        if code in _GLYPH:
            glyph = "shift_on" if code == "SHIFT" and shift else _GLYPH[code]
            paste_glyph(im, glyph, cx, cy, int(24 * dp_unit), ink)
        elif code == " ":
            if rows_id == "numbers":
                paste_glyph(im, "space", cx, cy, int(24 * dp_unit), ink)
            continue
        else:
            shown = label.upper() if shift and len(label) == 1 else label
            px = int((15 if len(shown) > 1 else 22) * dp_unit)
            w = fonts.width(shown, px)
            paste_text(im, shown, px, ink, cx - w // 2, cy - fonts.line_height(px) // 2 - int(1 * dp_unit))
    return im


def build_keyboard(rect: tuple[int, int, int, int], mode: str, shift: bool, input_type: str, dp_unit: float,
                   on_key: Callable[[str], None]) -> View:
    """The IME window root: a picture of the keys plus one clickable node per key."""
    left, t, r, b = rect
    rows_id = "numbers" if input_type in ("number", "phone") else mode
    rows = layout_for(mode, input_type)
    img = keyboard_image(rows_id, r - left, b - t, shift, dp_unit)
    pkg = LATIN_PACKAGE
    root = View(FRAME, rect, kind="image", image=img)
    area = View(LINEAR, rect, rid=f"{pkg}:id/keyboard_view")
    root.add(area)
    pad = int(8 * dp_unit)
    current_row = None
    for rr, cc, (label, code, _w), (kl, kt, kr, kb) in _key_boxes(rows, r - left, t, b - t, pad):
        if current_row is None or rr != current_row[0]:
            row_view = View(LINEAR, (left, kt, r, kb))
            area.add(row_view)
            current_row = (rr, row_view)
        if code in _DESC:
            desc = _DESC[code]
        else:
            desc = label.upper() if shift and len(label) == 1 else label
        current_row[1].add(View(FRAME, (left + kl, kt, left + kr, kb), desc=desc, rid=f"{pkg}:id/key_pos_{rr}_{cc}",
                                clickable=True, on_click=partial(on_key, code)))
    return root


def build_adb_bar(rect: tuple[int, int, int, int], dp_unit: float) -> View:
    """ADB Keyboard shows a small bar instead of keys."""
    px = int(14 * dp_unit)
    bar = View(FRAME, rect, bg=(40, 44, 52))
    bar.add(View(TEXT, rect, text="ADB Keyboard {ON}", rid=f"{ADB_PACKAGE}:id/keyboard_text", kind="text",
                 size=px, color=theme.WHITE, align="center", lines=1))
    return bar
