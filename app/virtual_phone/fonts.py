"""Text for the virtual phone: Pillow's bundled scalable font, measured and rasterised once.

Only `PIL.ImageFont.load_default(size=N)` is used (never a system font path). That font covers
ASCII, so drawing maps other characters to a close ASCII form (é → e, ‑ → -); characters with
no such form draw as the font's missing-glyph box. The dump always keeps the real text.
"""

from __future__ import annotations

import threading
import unicodedata
from collections import OrderedDict
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

_lock = threading.Lock()
_MASK_CACHE: "OrderedDict[tuple, tuple[Image.Image, int]]" = OrderedDict()
_MASK_CACHE_MAX = 4000

_PUNCT = {
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-",
    "\u00a0": " ", "\u202f": " ", "\u2009": " ", "\u2018": "'", "\u2019": "'", "\u201c": '"',
    "\u201d": '"', "\u2022": "·", "\u00d7": "x", "\u2192": ">", "\u2190": "<", "\u00ab": "<<",
    "\u00bb": ">>", "\u00b0": "o", "\u00f7": "/", "\u232b": "DEL", "\u2026": "...",
}


@lru_cache(maxsize=64)
def font(px: int) -> ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=max(4, int(px)))


@lru_cache(maxsize=1)
def _missing_signature() -> tuple:
    f = font(40)
    return (f.getlength("\ue000"), f.getmask("\ue000").getbbox())


@lru_cache(maxsize=4096)
def _supported(ch: str) -> bool:
    if ch in " \n\t" or 32 <= ord(ch) < 127:
        return True
    f = font(40)
    return (f.getlength(ch), f.getmask(ch).getbbox()) != _missing_signature()


@lru_cache(maxsize=8192)
def drawable(text: str) -> str:
    """The text as the bundled font can draw it."""
    if text.isascii():
        return text
    out = []
    for ch in text:
        if _supported(ch):
            out.append(ch)
        elif ch in _PUNCT:
            out.append(_PUNCT[ch])
        else:
            base = unicodedata.normalize("NFKD", ch)
            base = "".join(c for c in base if not unicodedata.combining(c))
            out.append(base if base and all(_supported(c) for c in base) else ch)
    return "".join(out)


@lru_cache(maxsize=64)
def metrics(px: int) -> tuple[int, int]:
    """(ascent, descent) in pixels."""
    return font(px).getmetrics()


def line_height(px: int) -> int:
    return int(px * 1.3)


@lru_cache(maxsize=16384)
def width(text: str, px: int) -> int:
    return int(round(font(px).getlength(drawable(text))))


@lru_cache(maxsize=4096)
def ellipsize(text: str, px: int, max_w: int) -> str:
    if width(text, px) <= max_w:
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if width(text[:mid].rstrip() + "…", px) <= max_w:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + "…"


@lru_cache(maxsize=4096)
def wrap(text: str, px: int, max_w: int) -> tuple[str, ...]:
    """Greedy word wrap; explicit newlines are kept; overlong words are broken."""
    lines: list[str] = []
    for para in text.split("\n"):
        current = ""
        for word in para.split(" "):
            candidate = word if not current else current + " " + word
            if width(candidate, px) <= max_w:
                current = candidate
                continue
            if current:
                lines.append(current)
            while width(word, px) > max_w and len(word) > 1:
                cut = len(word)
                while cut > 1 and width(word[:cut], px) > max_w:
                    cut -= 1
                lines.append(word[:cut])
                word = word[cut:]
            current = word
        lines.append(current)
    return tuple(lines)


def mask(text: str, px: int, bold: bool = False) -> tuple[Image.Image, int]:
    """An 'L' mask of the text (top = line ascent) and its x offset; cached."""
    key = (text, px, bold)
    with _lock:
        hit = _MASK_CACHE.get(key)
        if hit is not None:
            _MASK_CACHE.move_to_end(key)
            return hit
    f = font(px)
    s = drawable(text)
    stroke = max(1, px // 40) if bold else 0
    ascent, descent = f.getmetrics()
    w = max(1, int(f.getlength(s)) + 2 * stroke + 2)
    h = ascent + descent + 2 * stroke
    img = Image.new("L", (w, h), 0)
    ImageDraw.Draw(img).text((stroke, stroke), s, font=f, fill=255, stroke_width=stroke, stroke_fill=255)
    result = (img, -stroke)
    with _lock:
        _MASK_CACHE[key] = result
        if len(_MASK_CACHE) > _MASK_CACHE_MAX:
            _MASK_CACHE.popitem(last=False)
    return result
