"""Split a line of text into runs, each drawn with one font: grapheme-like clusters and font choice.

A cluster is a character with what must stay with it (combining accents, variation selectors,
emoji skin tones, the parts of a ZWJ sequence, a flag's second letter), so one font draws it
whole. Clusters that pick the same font form one run.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple, Protocol

if TYPE_CHECKING:
    from PIL import ImageFont

ZWJ = "\u200d"
VS_TEXT, VS_EMOJI = "\ufe0e", "\ufe0f"
_EMOJI_MODIFIERS = range(0x1F3FB, 0x1F400)
_REGIONAL_INDICATORS = range(0x1F1E6, 0x1F200)
# Blocks whose characters are emoji by default (Unicode's Emoji_Presentation is mostly here):
# misc symbols and pictographs, emoticons, transport, supplemental and extended-A pictographs.
_EMOJI_BLOCKS = (range(0x1F300, 0x1F650), range(0x1F680, 0x1F700), range(0x1F900, 0x1FB00))


class Face(Protocol):
    colour: bool

    def covers(self, text: str) -> bool: ...
    def render_size(self, px: int) -> int: ...
    def font(self, px: int) -> ImageFont.FreeTypeFont: ...


class Run(NamedTuple):
    face: Face | None      # None: Pillow's bundled font
    text: str              # what that font draws (look-alikes already substituted)


def ignorable(ch: str) -> bool:
    """Format characters and variation selectors: invisible, never drawn as a box."""
    cp = ord(ch)
    return (unicodedata.category(ch) == "Cf" and not 0x600 <= cp <= 0x605) or 0xFE00 <= cp <= 0xFE0F \
        or 0xE0100 <= cp <= 0xE01EF


def _extends(prev: str, ch: str, pending_flag: bool) -> bool:
    """Whether `ch` belongs to the cluster ending with `prev`."""
    cp = ord(ch)
    return (unicodedata.category(ch) in ("Mn", "Mc", "Me") or ignorable(ch) or prev == ZWJ
            or cp in _EMOJI_MODIFIERS or (pending_flag and cp in _REGIONAL_INDICATORS))


def clusters(text: str) -> list[str]:
    """The text cut into clusters (a simplified form of Unicode's grapheme clusters)."""
    out: list[str] = []
    pending_flag = False          # a regional indicator waiting for its pair
    for ch in text:
        if out and _extends(out[-1][-1], ch, pending_flag):
            out[-1] += ch
            pending_flag = False
        else:
            out.append(ch)
            pending_flag = ord(ch) in _REGIONAL_INDICATORS
    return out


def presentation(cluster: str) -> str | None:
    """"emoji" when the cluster asks for a colour emoji, "text" when it asks for a plain glyph, else None."""
    if VS_TEXT in cluster:
        return "text"
    if VS_EMOJI in cluster or ZWJ in cluster or "\u20e3" in cluster:
        return "emoji"
    cp = ord(cluster[0])
    if cp in _REGIONAL_INDICATORS or any(cp in block for block in _EMOJI_BLOCKS):
        return "emoji"
    return None


def split_runs(text: str, choose: Callable[[str], Run]) -> tuple[Run, ...]:
    """Runs of the text in logical order; `choose(cluster)` gives each cluster's font and drawn text.

    Spaces between two right-to-left runs of the same fallback font join them when that font has a
    space, so a phrase is laid out as one run (raqm then orders its words right to left as a whole).
    """
    runs: list[Run] = []
    for cluster in clusters(text):
        face, drawn = choose(cluster)
        if runs and runs[-1].face is face:
            runs[-1] = Run(face, runs[-1].text + drawn)
        else:
            runs.append(Run(face, drawn))
    joined: list[Run] = []
    i = 0
    while i < len(runs):
        run = runs[i]
        if (joined and i + 1 < len(runs) and joined[-1].face is not None and runs[i + 1].face is joined[-1].face
                and run.text.isspace() and right_to_left(joined[-1].text) and joined[-1].face.covers(run.text)):
            joined[-1] = Run(joined[-1].face, joined[-1].text + run.text + runs[i + 1].text)
            i += 2
            continue
        joined.append(run)
        i += 1
    return tuple(joined)


def right_to_left(text: str) -> bool:
    """Whether the run's first strongly directional character is right-to-left (Arabic, Hebrew…)."""
    for ch in text:
        kind = unicodedata.bidirectional(ch)
        if kind in ("R", "AL"):
            return True
        if kind == "L":
            return False
    return False
