"""Set-of-mark annotation: a coloured box and a numbered badge per control, drawn with Pillow."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from app.core.perception.badge_layout import place_badges
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
    """`annotate_measured`'s picture (the docstring there says how it is drawn)."""
    return annotate_measured(image, controls, scale=scale)[0]


def annotate_measured(image: Image.Image, controls: Iterable[Control], *,
                      scale: float | None = None) -> tuple[Image.Image, float]:
    """A new RGB copy of `image` with each control's box and id badge drawn on it.

    `scale` maps device pixels to image pixels (image width / device width); None means
    1.0. Controls entirely off the image are skipped. Boxes are drawn first, badges on
    top. A badge goes beside its box, not over the label it numbers: above the box's
    top-left corner, else left of it, else at another spot clear of other labels and
    badges, inside the box only when there is no room outside (`badge_layout.py`, shared
    with the mirror). Font size and line width follow the image size (font at least MIN_FONT_PX).
    Also returns the share of the labelled controls drawn that badges hide (`hidden_share`).
    """
    factor = 1.0 if scale is None else scale
    canvas = image.convert("RGB") if image.mode != "RGB" else image.copy()
    draw = ImageDraw.Draw(canvas)
    size = canvas.size
    line = max(1, round(min(size) / 400))
    font_px = max(MIN_FONT_PX, round(min(size) / 45))
    shown = [(control, box) for control in controls if (box := _image_box(control.rect, factor, size))]
    for control, box in shown:
        _draw_box(draw, box, control_colour(control.id), line)
    badges = [_badge_shape(font_px, str(control.id)) for control, _ in shown]
    boxes = [(box[0], box[1], box[2] + 1, box[3] + 1) for _, box in shown]
    labelled = [is_labelled_box(control) for control, _ in shown]
    corners = place_badges(boxes, [(width, height) for width, height, _, _ in badges], labelled,
                           (0, 0, size[0], size[1]))
    for (control, _), (x, y) in zip(shown, corners, strict=True):
        canvas.paste(_badge_tile(font_px, str(control.id), control_colour(control.id)), (int(x), int(y)))
    drawn = [(x, y, x + width, y + height) for (x, y), (width, height, _, _) in zip(corners, badges, strict=True)]
    return canvas, hidden_share(boxes, drawn, labelled)


HIDDEN_AREA = 0.2
"""A labelled box with at least this share of its area under badges counts as hidden."""


def hidden_share(boxes: Sequence[Box | tuple[float, float, float, float]],
                 badges: Sequence[tuple[float, float, float, float]], labelled: Sequence[bool]) -> float:
    """The share of the labelled boxes that badges hide: at least `HIDDEN_AREA` of the box under badges
    (its own or others'). A badge in the corner of a wide row hides little of it; on a keyboard's key
    it hides the letter. 0 when no box is labelled."""
    rows: dict[int, list[tuple[float, float, float, float]]] = {}
    for badge in badges:                              # badges by 64-px band, so each box meets only its own
        for band in range(int(badge[1]) // 64, int(badge[3]) // 64 + 1):
            rows.setdefault(band, []).append(badge)
    hidden = 0
    for box, has_label in zip(boxes, labelled, strict=True):
        if not has_label:
            continue
        left, top, right, bottom = box
        area = max(1.0, (right - left) * (bottom - top))
        near = {badge for band in range(int(top) // 64, int(bottom) // 64 + 1) for badge in rows.get(band, ())}
        under = sum(max(0.0, min(right, x1) - max(left, x0)) * max(0.0, min(bottom, y1) - max(top, y0))
                    for x0, y0, x1, y1 in near)
        hidden += under >= HIDDEN_AREA * area
    return hidden / max(1, sum(labelled))


def is_labelled_box(control: Control) -> bool:
    """Whether the control shows words inside its box (its text, a content-description, a field, or a list
    row named after the text it holds): a badge over it would hide them."""
    if control.text or control.content_desc or "Edit" in control.type:
        return True
    fallbacks = (control.resource_id.rpartition("/")[2], control.type, control.class_name)
    return bool(control.name) and control.name not in fallbacks    # named after its descendants' text


@lru_cache(maxsize=4096)
def _badge_shape(font_px: int, label: str) -> tuple[float, float, float, float]:
    """Width and height of a badge, and where its text starts inside it."""
    text_left, text_top, text_right, text_bottom = _font(font_px).getbbox(label)
    pad = max(2, (text_bottom - text_top) // 4)
    return (text_right - text_left + 2 * pad, text_bottom - text_top + 2 * pad, pad - text_left, pad - text_top)


@lru_cache(maxsize=1024)
def _badge_tile(font_px: int, label: str, colour: Colour) -> Image.Image:
    """A badge as drawn on the screenshot: filled with `colour`, outlined and numbered in its contrast colour.
    Drawn once per size, number and colour and pasted after (the glyphs' ink lies inside the badge, so
    pasting gives the same pixels as drawing on the screenshot, at a fraction of the cost of rendering
    the text again on every step)."""
    width, height, text_x, text_y = _badge_shape(font_px, label)
    tile = Image.new("RGB", (int(width), int(height)), colour)
    draw = ImageDraw.Draw(tile)
    draw.rectangle((0, 0, int(width) - 1, int(height) - 1), fill=colour, outline=_contrast(colour))
    draw.text((text_x, text_y), label, fill=_contrast(colour), font=_font(font_px))
    return tile


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
