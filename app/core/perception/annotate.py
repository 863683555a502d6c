"""Set-of-mark annotation: a coloured box and a numbered badge per control, drawn with Pillow."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from app.core.perception.controls import Control

Colour = tuple[int, int, int]
Box = tuple[int, int, int, int]

PALETTE: tuple[Colour, ...] = (
    (230, 25, 75),  # red
    (0, 130, 200),  # blue
    (60, 180, 75),  # green
    (245, 130, 48),  # orange
    (145, 30, 180),  # purple
    (0, 170, 170),  # teal
    (240, 50, 230),  # magenta
    (128, 128, 0),  # olive
    (255, 200, 0),  # amber
    (0, 0, 128),  # navy
    (170, 110, 40),  # brown
    (128, 0, 0),  # maroon
)
"""Saturated colours that stay visible on light and dark screens; shared with the GUI."""

MIN_FONT_PX = 10


def control_colour(control_id: int) -> Colour:
    """The box/badge colour of a control; the same id always gets the same colour."""
    return PALETTE[(control_id - 1) % len(PALETTE)]


def annotate(image: Image.Image, controls: Iterable[Control], *, scale: float | None = None) -> Image.Image:
    """A new RGB copy of `image` with each control's box and id badge drawn on it.

    `scale` maps device pixels to image pixels (image width / device width); None means
    1.0. Controls entirely off the image are skipped. Boxes are drawn first, badges on
    top. A badge goes at the first of these spots that is inside the image and clear of
    badges already placed: top-left inside the box, above the box, below it, top-right
    inside, bottom-left inside; failing all, the first spot pushed inside the image.
    Font size and line width follow the image size (font at least MIN_FONT_PX).
    """
    factor = 1.0 if scale is None else scale
    canvas = image.convert("RGB") if image.mode != "RGB" else image.copy()
    draw = ImageDraw.Draw(canvas)
    size = canvas.size
    line = max(1, round(min(size) / 400))
    font = _font(max(MIN_FONT_PX, round(min(size) / 45)))
    boxes = [(control.id, box) for control in controls if (box := _image_box(control.rect, factor, size))]
    for control_id, box in boxes:
        _draw_box(draw, box, control_colour(control_id), line)
    placed: list[Box] = []
    for control_id, box in boxes:
        _draw_badge(draw, font, str(control_id), box, control_colour(control_id), size, placed)
    return canvas


@lru_cache(maxsize=16)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's bundled scalable font (Pillow >= 10.1): no system font paths."""
    return ImageFont.load_default(size=size)


def _image_box(rect: tuple[int, int, int, int], factor: float, size: tuple[int, int]) -> Box | None:
    """The control's rect in image pixels (inclusive corners), clipped; None if off the image."""
    width, height = size
    left, top, right, bottom = (round(value * factor) for value in rect)
    if right <= 0 or bottom <= 0 or left >= width or top >= height:
        return None
    left, top = max(left, 0), max(top, 0)
    return left, top, max(min(right, width) - 1, left), max(min(bottom, height) - 1, top)


def _contrast(colour: Colour) -> Colour:
    """Black or white, whichever reads better on `colour` (relative luminance)."""
    red, green, blue = colour
    return (0, 0, 0) if 0.2126 * red + 0.7152 * green + 0.0722 * blue > 140 else (255, 255, 255)


def _draw_box(draw: ImageDraw.ImageDraw, box: Box, colour: Colour, line: int) -> None:
    left, top, right, bottom = box
    outline = _contrast(colour)
    draw.rectangle(box, outline=outline, width=1)
    if right - left > 2 * line and bottom - top > 2 * line:
        draw.rectangle((left + 1, top + 1, right - 1, bottom - 1), outline=colour, width=line)
        inner = (left + 1 + line, top + 1 + line, right - 1 - line, bottom - 1 - line)
        if inner[2] > inner[0] and inner[3] > inner[1]:
            draw.rectangle(inner, outline=outline, width=1)


def _draw_badge(
    draw: ImageDraw.ImageDraw,
    font: ImageFont.FreeTypeFont | ImageFont.ImageFont,
    label: str,
    box: Box,
    colour: Colour,
    size: tuple[int, int],
    placed: list[Box],
) -> None:
    text_left, text_top, text_right, text_bottom = font.getbbox(label)
    pad = max(2, (text_bottom - text_top) // 4)
    badge_width = text_right - text_left + 2 * pad
    badge_height = text_bottom - text_top + 2 * pad
    badge = _place_badge(box, badge_width, badge_height, size, placed)
    placed.append(badge)
    draw.rectangle(badge, fill=colour, outline=_contrast(colour))
    draw.text((badge[0] + pad - text_left, badge[1] + pad - text_top), label, fill=_contrast(colour), font=font)


def _place_badge(box: Box, width: int, height: int, size: tuple[int, int], placed: list[Box]) -> Box:
    left, top, right, bottom = box
    spots = (
        (left, top),  # top-left, inside
        (left, top - height),  # above
        (left, bottom + 1),  # below
        (right - width + 1, top),  # top-right, inside
        (left, bottom - height + 1),  # bottom-left, inside
    )
    image_width, image_height = size
    for x, y in spots:
        badge = (x, y, x + width - 1, y + height - 1)
        inside = x >= 0 and y >= 0 and badge[2] < image_width and badge[3] < image_height
        if inside and not any(_overlaps(badge, other) for other in placed):
            return badge
    x = min(max(spots[0][0], 0), max(image_width - width, 0))
    y = min(max(spots[0][1], 0), max(image_height - height, 0))
    return x, y, x + width - 1, y + height - 1


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]
