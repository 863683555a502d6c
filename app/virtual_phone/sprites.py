"""Anti-aliased shapes and icon masks, drawn once at 4× and cached.

Shapes (circles, rounded rectangles, pills) are painted by pasting a colour through cached corner
masks, which keeps edges smooth and costs almost nothing per frame.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

from .glyphs import GLYPHS

SS = 4  # supersampling factor


@lru_cache(maxsize=1024)
def glyph_mask(name: str, size: int) -> Image.Image:
    """An 'L' mask of the named icon, size×size pixels."""
    big = size * SS
    img = Image.new("L", (big, big), 0)
    d = ImageDraw.Draw(img)
    u = big / 24.0
    GLYPHS.get(name, GLYPHS["apps"])(d, lambda x, y: (x * u, y * u), u)
    return img.resize((size, size), Image.Resampling.LANCZOS)


@lru_cache(maxsize=512)
def circle_mask(diameter: int) -> Image.Image:
    big = diameter * SS
    img = Image.new("L", (big, big), 0)
    ImageDraw.Draw(img).ellipse((0, 0, big - 1, big - 1), fill=255)
    return img.resize((diameter, diameter), Image.Resampling.LANCZOS)


@lru_cache(maxsize=512)
def _corners(radius: int) -> tuple[Image.Image, Image.Image, Image.Image, Image.Image]:
    full = circle_mask(2 * radius)
    return (full.crop((0, 0, radius, radius)), full.crop((radius, 0, 2 * radius, radius)),
            full.crop((0, radius, radius, 2 * radius)), full.crop((radius, radius, 2 * radius, 2 * radius)))


def fill_round_rect(im: Image.Image, box, radius: int, color) -> None:
    """Paint a smooth-cornered rectangle (radius ≥ half the height makes a pill)."""
    left, t, r, b = (int(v) for v in box)
    if r <= left or b <= t:
        return
    radius = int(max(0, min(radius, (r - left) // 2, (b - t) // 2)))
    if radius < 2:
        im.paste(color, (left, t, r, b))
        return
    im.paste(color, (left + radius, t, r - radius, b))
    im.paste(color, (left, t + radius, left + radius, b - radius))
    im.paste(color, (r - radius, t + radius, r, b - radius))
    tl, tr, bl, br = _corners(radius)
    im.paste(color, (left, t, left + radius, t + radius), tl)
    im.paste(color, (r - radius, t, r, t + radius), tr)
    im.paste(color, (left, b - radius, left + radius, b), bl)
    im.paste(color, (r - radius, b - radius, r, b), br)


def fill_circle(im: Image.Image, cx: int, cy: int, radius: int, color) -> None:
    d = max(1, int(radius * 2))
    left, t = int(cx - d // 2), int(cy - d // 2)
    im.paste(color, (left, t, left + d, t + d), circle_mask(d))


def paste_glyph(im: Image.Image, name: str, cx: int, cy: int, size: int, color) -> None:
    m = glyph_mask(name, int(size))
    left, t = int(cx - size // 2), int(cy - size // 2)
    im.paste(color, (left, t, left + m.width, t + m.height), m)
