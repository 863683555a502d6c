"""Text for the virtual phone: measured and rasterised once, in the same way for both.

Pillow's bundled scalable font (`ImageFont.load_default(size=N)`) draws every character it covers
(ASCII and a little punctuation), so pictures of plain text never depend on the machine. Any other
character is drawn with a font of the OS that has it (see `font_fallback`): the line is split into
runs, one per font, laid out left to right. Where no font has a character, a close ASCII form is
drawn (é → e, – → -), else the bundled font's missing-glyph box. The dump always keeps the real text.
"""

from __future__ import annotations

import math
import threading
import unicodedata
from collections import OrderedDict
from functools import lru_cache
from typing import NamedTuple

from PIL import Image, ImageDraw, ImageFont

from . import font_fallback
from .text_runs import Run, ignorable, presentation, right_to_left, split_runs

_lock = threading.Lock()
_LINE_CACHE: OrderedDict[tuple, LineImage] = OrderedDict()
_LINE_CACHE_MAX = 4000

_PUNCT = {
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-",
    "\u00a0": " ", "\u202f": " ", "\u2009": " ", "\u2018": "'", "\u2019": "'", "\u201c": '"',
    "\u201d": '"', "\u2022": "·", "\u00d7": "x", "\u2192": ">", "\u2190": "<", "\u00ab": "<<",
    "\u00bb": ">>", "\u00b0": "o", "\u00f7": "/", "\u232b": "DEL", "\u2026": "...",
}


class LineImage(NamedTuple):
    """One line of text, drawn: `mask` takes the text colour, `colour` (emoji) goes over it as is.

    Both images have the same size; their top left corner is at (x + dx, top + dy), where top is
    the top of the bundled font's ascent.
    """

    mask: Image.Image
    colour: Image.Image | None
    dx: int
    dy: int


class _Piece(NamedTuple):
    """A run placed on the line: its font at the size it is drawn, where, and how it is scaled."""

    text: str
    font: ImageFont.FreeTypeFont
    x: float                 # pen position at the run's start, in line pixels
    scale: float             # line pixels per pixel of `font` (1 except for bitmap emoji fonts)
    colour: bool
    bbox: tuple[int, int, int, int]   # ink box at the font's size, relative to the pen on the baseline


@lru_cache(maxsize=64)
def font(px: int) -> ImageFont.FreeTypeFont:
    loaded = ImageFont.load_default(size=max(4, int(px)))
    if not isinstance(loaded, ImageFont.FreeTypeFont):   # Pillow gives its bitmap font only without FreeType
        raise RuntimeError("The virtual phone draws text with FreeType; this Pillow was built without it")
    return loaded


@lru_cache(maxsize=1)
def _missing_signature() -> tuple:
    f = font(40)
    return (f.getlength("\ue000"), f.getmask("\ue000").getbbox())


@lru_cache(maxsize=4096)
def _supported(ch: str) -> bool:
    """Whether the bundled font has a glyph for the character (its own, not the missing-glyph box)."""
    if ch in " \n\t" or 32 <= ord(ch) < 127:
        return True
    f = font(40)
    return (f.getlength(ch), f.getmask(ch).getbbox()) != _missing_signature()


def _look_alike(cluster: str) -> str:
    """The cluster in characters the bundled font has, when no font has it: a close ASCII form where
    one exists, else its first character (drawn as the bundled font's missing-glyph box)."""
    visible = "".join(ch for ch in cluster if not ignorable(ch))
    if not visible:
        return ""
    if visible in _PUNCT:
        return _PUNCT[visible]
    base = "".join(c for c in unicodedata.normalize("NFKD", visible) if not unicodedata.combining(c))
    return base if base and all(_supported(c) for c in base) else visible[0]


@lru_cache(maxsize=8192)
def choose(cluster: str) -> Run:
    """The font for one cluster and the text that font draws for it."""
    bundled = all(_supported(ch) or ignorable(ch) for ch in cluster)
    if bundled and presentation(cluster) != "emoji":
        return Run(None, "".join(ch for ch in cluster if not ignorable(ch)))
    face = font_fallback.face_for(cluster)
    if face is not None:
        return Run(face, "".join(ch for ch in cluster if not ignorable(ch) or ord(ch) in face.coverage))
    return Run(None, _look_alike(cluster))


@lru_cache(maxsize=8192)
def runs(text: str) -> tuple[Run, ...]:
    return split_runs(text, choose)


@lru_cache(maxsize=64)
def metrics(px: int) -> tuple[int, int]:
    """(ascent, descent) in pixels."""
    return font(px).getmetrics()


def line_height(px: int) -> int:
    return int(px * 1.3)


@lru_cache(maxsize=4096)
def _layout(text: str, px: int) -> tuple[tuple[_Piece, ...], float]:
    """The runs of a non-ASCII line placed left to right, and the line's advance width."""
    pieces = []
    x = 0.0
    for run in runs(text):
        if run.face is None:
            f, scale, colour = font(px), 1.0, False
        else:
            f, colour = run.face.font(px), run.face.colour
            scale = px / run.face.render_size(px)
        drawn = run.text
        if font_fallback.LAYOUT == ImageFont.Layout.BASIC and right_to_left(drawn):
            drawn = drawn[::-1]          # no raqm: letters stay unjoined, but read right to left
        if not drawn:
            continue
        left, top, right, bottom = f.getbbox(drawn, anchor="ls")   # whole pixels, though typed as float
        bbox = (int(left), int(top), int(right), int(bottom))
        pieces.append(_Piece(drawn, f, x, scale, colour, bbox))
        x += f.getlength(drawn) * scale
    return tuple(pieces), x


@lru_cache(maxsize=16384)
def width(text: str, px: int) -> int:
    if text.isascii():
        return int(round(font(px).getlength(text)))
    return int(round(_layout(text, px)[1]))


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


def _draw_ascii(text: str, px: int, stroke: int) -> LineImage:
    f = font(px)
    ascent, descent = f.getmetrics()
    w = max(1, int(f.getlength(text)) + 2 * stroke + 2)
    img = Image.new("L", (w, ascent + descent + 2 * stroke), 0)
    ImageDraw.Draw(img).text((stroke, stroke), text, font=f, fill=255, stroke_width=stroke, stroke_fill=255)
    return LineImage(img, None, -stroke, -stroke)


def _colour_glyphs(piece: _Piece) -> tuple[Image.Image, int, int]:
    """A colour run drawn at its font's size and scaled to the line: the image and its offset from the pen."""
    left, top, right, bottom = piece.bbox
    big = Image.new("RGBA", (max(1, right - left), max(1, bottom - top)), (0, 0, 0, 0))
    ImageDraw.Draw(big).text((-left, -top), piece.text, font=piece.font, anchor="ls", embedded_color=True)
    if piece.scale == 1.0:
        return big, left, top
    size = (max(1, round(big.width * piece.scale)), max(1, round(big.height * piece.scale)))
    return big.resize(size, Image.Resampling.LANCZOS), round(left * piece.scale), round(top * piece.scale)


def _draw_runs(text: str, px: int, stroke: int) -> LineImage:
    ascent, descent = metrics(px)
    pieces, advance = _layout(text, px)
    above = max([ascent] + [math.ceil(-p.bbox[1] * p.scale) for p in pieces])   # taller glyphs grow the image
    below = max([descent] + [math.ceil(p.bbox[3] * p.scale) for p in pieces])
    right = max([advance] + [p.x + p.bbox[2] * p.scale for p in pieces])
    size = (max(1, math.ceil(right) + 2 * stroke + 2), above + below + 2 * stroke)
    mask = Image.new("L", size, 0)
    colour = None
    baseline = stroke + above
    draw = ImageDraw.Draw(mask)
    for p in pieces:
        if p.colour:
            glyphs, dx, dy = _colour_glyphs(p)
            colour = colour or Image.new("RGBA", size, (0, 0, 0, 0))
            colour.alpha_composite(glyphs, dest=(max(0, stroke + round(p.x) + dx), max(0, baseline + dy)))
        else:
            draw.text((stroke + p.x, baseline), p.text, font=p.font, fill=255, anchor="ls",
                      stroke_width=stroke, stroke_fill=255)
    return LineImage(mask, colour, -stroke, -stroke - (above - ascent))


def line_image(text: str, px: int, bold: bool = False) -> LineImage:
    """The line drawn (bold as a thin stroke), cached."""
    key = (text, px, bold)
    with _lock:
        hit = _LINE_CACHE.get(key)
        if hit is not None:
            _LINE_CACHE.move_to_end(key)
            return hit
    stroke = max(1, px // 40) if bold else 0
    result = _draw_ascii(text, px, stroke) if text.isascii() else _draw_runs(text, px, stroke)
    with _lock:
        _LINE_CACHE[key] = result
        if len(_LINE_CACHE) > _LINE_CACHE_MAX:
            _LINE_CACHE.popitem(last=False)
    return result
