"""The OS's own fonts, for the characters Pillow's bundled font lacks (CJK, Arabic, emoji, accents…).

Fonts are found on the machine at run time and never shipped: fontconfig's fallback order for
sans-serif where `fc-match` exists (Linux, BSD), else the usual font folders (macOS, Windows, Linux
without fontconfig). What a font covers is its cmap, read with fontTools the first time a
character needs that font; the answer for each cluster of characters is cached.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import sys
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from PIL import ImageFont, features

from .text_runs import ignorable, presentation

_SUFFIXES = (".ttf", ".otf", ".ttc", ".otc")
# Styles other than the plain one go after every plain font (bold text is drawn with a stroke).
_STYLED = re.compile(r"bold|italic|oblique|black|heavy|semi|demi|medium|light|thin|condensed|narrow|expanded",
                     re.IGNORECASE)
_EMOJI_NAME = re.compile(r"emoji|seguiemj", re.IGNORECASE)
# Without fontconfig: the system's own UI and fallback fonts first, in this order, then the rest.
_PREFERRED = ("dejavusans.", "notosans-regular", "notosanscjk-regular", "notosanscjksc-regular",
              "notosansarabic-regular", "notocoloremoji", "helvetica.", "arial unicode", "pingfang",
              "hiragino sans gb", "applesdgothicneo", "geezapro", "apple color emoji", "segoeui.", "arial.",
              "msyh.", "yugothr", "malgun.", "tahoma.", "seguiemj", "seguisym")
# Without raqm, Pillow lays text out character by character: Arabic letters keep their isolated
# forms (unjoined) and the run is only reversed to read right to left; with raqm it is shaped.
LAYOUT = ImageFont.Layout.RAQM if features.check("raqm") else ImageFont.Layout.BASIC


class Candidate(NamedTuple):
    path: str
    face_index: int         # the face inside a .ttc collection
    colour_hint: bool       # likely a colour emoji font (tried first for emoji)


class Face:
    """One usable font file: what it covers and how to get Pillow fonts from it."""

    def __init__(self, path: str, index: int, coverage: frozenset[int], colour: bool, strike: int | None):
        self.path, self.index, self.coverage = path, index, coverage
        self.colour = colour        # colour glyphs (CBDT/sbix bitmaps, COLR layers): drawn as RGBA
        self.strike = strike        # a bitmap font's one pixel size: drawn there, then scaled

    def covers(self, text: str) -> bool:
        return all(ord(ch) in self.coverage or ignorable(ch) for ch in text)

    def render_size(self, px: int) -> int:
        return self.strike or px

    def font(self, px: int) -> ImageFont.FreeTypeFont:
        return _pillow_font(self.path, self.index, self.render_size(px))

    def __repr__(self) -> str:
        return f"Face({Path(self.path).name}#{self.index})"


@lru_cache(maxsize=256)
def _pillow_font(path: str, index: int, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size=max(4, size), index=index, layout_engine=LAYOUT)


def _fontconfig_candidates() -> list[Candidate] | None:
    """fontconfig's sorted list for sans-serif, or None where fontconfig cannot be asked."""
    exe = shutil.which("fc-match")
    if exe is None:
        return None
    try:
        done = subprocess.run([exe, "-s", "-f", "%{file}\t%{index}\t%{style[0]}\t%{color}\n", "sans-serif"],
                              capture_output=True, text=True, timeout=20, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    found = []
    for line in done.stdout.splitlines():
        parts = line.split("\t")
        if len(parts) == 4 and parts[0].lower().endswith(_SUFFIXES) and parts[1].isdigit():
            styled = bool(_STYLED.search(parts[2]) or _STYLED.search(Path(parts[0]).stem))
            found.append((styled, Candidate(parts[0], int(parts[1]), parts[3] == "True")))
    return [c for styled, c in found if not styled] + [c for styled, c in found if styled]


def font_folders() -> list[Path]:
    """Where this OS keeps fonts."""
    home = Path.home()
    if sys.platform == "win32":
        windir = Path(os.environ.get("WINDIR", r"C:\Windows"))
        local = Path(os.environ.get("LOCALAPPDATA", home / "AppData" / "Local"))
        return [windir / "Fonts", local / "Microsoft" / "Windows" / "Fonts"]
    if sys.platform == "darwin":
        return [Path("/System/Library/Fonts"), Path("/Library/Fonts"), home / "Library" / "Fonts"]
    return [Path("/usr/share/fonts"), Path("/usr/local/share/fonts"), home / ".local" / "share" / "fonts",
            home / ".fonts"]


def _folder_candidates(folders: list[Path]) -> list[Candidate]:
    """Every font file under the folders (first face of a collection), best fallbacks first."""
    files = []
    for folder in folders:
        for root, _dirs, names in os.walk(folder):
            files += [Path(root) / n for n in names if n.lower().endswith(_SUFFIXES)]

    def rank(path: Path) -> tuple:
        name = path.name.lower()
        preferred = next((i for i, p in enumerate(_PREFERRED) if name.startswith(p)), len(_PREFERRED))
        return (bool(_STYLED.search(path.stem)), preferred, name)

    return [Candidate(str(p), 0, bool(_EMOJI_NAME.search(p.name))) for p in sorted(set(files), key=rank)]


@lru_cache(maxsize=1)
def candidates() -> tuple[Candidate, ...]:
    """The machine's fonts in the order to try them."""
    found = _fontconfig_candidates()
    return tuple(found if found is not None else _folder_candidates(font_folders()))


def _table_head(font, tag: str, size: int) -> bytes:
    """The first bytes of a table, read without decoding it (an emoji font's table can be 100 MB)."""
    entry = font.reader.tables[tag]
    font.reader.file.seek(entry.offset)
    return font.reader.file.read(min(size, entry.length))


def _strikes(font) -> list[int]:
    """The pixel sizes of a bitmap colour font (CBLC or sbix), which FreeType can load only at these."""
    if "CBLC" in font:
        count = struct.unpack(">I", _table_head(font, "CBLC", 8)[4:8])[0]
        head = _table_head(font, "CBLC", 8 + 48 * count)
        return [head[8 + 48 * i + 45] for i in range(count)]
    count = struct.unpack(">I", _table_head(font, "sbix", 8)[4:8])[0]
    head = _table_head(font, "sbix", 8 + 4 * count)
    offsets = struct.unpack(f">{count}I", head[8:8 + 4 * count])
    strikes = []
    for offset in offsets:
        font.reader.file.seek(font.reader.tables["sbix"].offset + offset)
        strikes.append(struct.unpack(">H", font.reader.file.read(2))[0])
    return strikes


def load_face(candidate: Candidate) -> Face | None:
    """The candidate as a Face, or None when it cannot be read or drawn."""
    from fontTools.ttLib import TTFont  # imported on first need: ASCII-only text never loads it

    try:
        with TTFont(candidate.path, fontNumber=candidate.face_index, lazy=True) as font:
            cmap = font.getBestCmap() or {}
            bitmap = "CBLC" in font or "sbix" in font
            colour = bitmap or "COLR" in font
            strike = None
            if bitmap:
                sizes = _strikes(font)
                strike = max((s for s in sizes if s <= 160), default=min(sizes, default=0)) or None
        face = Face(candidate.path, candidate.face_index, frozenset(cmap), colour, strike)
        face.font(40)                     # Pillow must be able to open it too
        return face
    except Exception:  # noqa: BLE001 - a damaged or unusual font file is skipped, never fatal to drawing
        return None


_lock = threading.Lock()
_faces: dict[Candidate, Face | None] = {}


def _face(candidate: Candidate) -> Face | None:
    with _lock:
        if candidate not in _faces:
            _faces[candidate] = load_face(candidate)
        return _faces[candidate]


@lru_cache(maxsize=8192)
def face_for(cluster: str) -> Face | None:
    """The first font on the machine with every glyph of the cluster (else of its first character)."""
    order: Sequence[Candidate] = candidates()
    wanted = presentation(cluster)
    if wanted is not None:          # emoji presentation: colour fonts first; text presentation: last
        order = sorted(order, key=lambda c: c.colour_hint != (wanted == "emoji"))
    fallback = None
    for candidate in order:
        face = _face(candidate)
        if face is None:
            continue
        if face.covers(cluster):
            return face
        if fallback is None and face.covers(cluster[0]):
            fallback = face
    return fallback
