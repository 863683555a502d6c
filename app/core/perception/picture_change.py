"""Did anything visible change between two frames of one screen? At the frame's own resolution.

The cached UI tree (app/core/device/screen_tree.py) answers from its last dump while this says
"no change", so it must see one changed digit: the frames are compared in BLOCK_PX blocks, and a
block counts when its mean grey difference passes CODEC_NOISE. A 64-px thumbnail averaged
"3 new messages" → "4 new messages" away.
"""

from __future__ import annotations

from typing import cast

from PIL import Image, ImageChops

Rect = tuple[int, int, int, int]

BLOCK_PX = 8
"""Side of a compared block, in frame pixels. One digit of a 14-sp text covers 4-10 blocks (576×1280
stream of a 1080×2400 screen: the block means of "3"→"4" reach 56)."""
CODEC_NOISE = 12
"""Largest mean grey difference (0-255) of a block between two frames of a still screen. Measured with
the virtual phone's H.264 encoder and PyAV's decoder (what the mirror decodes): a key frame against the
refined frames scrcpy repeats after it, 8 Mbit/s (the default), Notes and Settings: 3-5 at 576×1280,
8 at full 1080×2400. Repeated frames of a refined still screen differ by 0-2. Below ~2 Mbit/s the
refinement itself can pass this (up to 33 at 1 Mbit/s): a read then dumps once more - never a stale
tree. A changed digit gives 56-80."""
CURSOR_PIXEL = 64
"""Grey difference of a pixel that a blinking text cursor (a solid bar on the field) surely passes."""
CURSOR_WIDTH_DP = 4
"""A change in the focused field no wider than this (2-dp cursor plus codec ringing) is its cursor blinking."""
SCREEN_WIDTH_DP = 411
"""A phone screen's width in dp, to turn dp into frame pixels without knowing the density."""


def grey_picture(image: Image.Image) -> Image.Image:
    """The grey picture `visible_change` compares; made once per frame (a few ms at 1080×2400)."""
    return image if image.mode == "L" else image.convert("L")


def visible_change(before: Image.Image, after: Image.Image, *, ignore_top: int = 0,
                   focused_field: Rect | None = None) -> bool:
    """True when a block below `ignore_top` (the status bar, in frame pixels) differs beyond codec
    noise, unless the only change is a thin vertical bar inside `focused_field` (its blinking
    cursor). Grey pictures of the same size; another size is a change."""
    if before.size != after.size:
        return True
    width, height = before.size
    top = max(0, min(ignore_top, height))
    if top >= height:
        return False
    box = (0, top, width, height)
    difference = ImageChops.difference(before.crop(box), after.crop(box))
    grid_size = (-(-width // BLOCK_PX), -(-(height - top) // BLOCK_PX))
    blocks = difference.resize(grid_size, Image.Resampling.BOX)
    if cast(tuple[int, int], blocks.getextrema())[1] <= CODEC_NOISE:      # a grey picture: (lowest, highest)
        return False
    changed = blocks.point(lambda value: 255 if value > CODEC_NOISE else 0).getbbox()
    if changed is None or focused_field is None:
        return changed is not None
    left, upper, right, lower = (min(changed[0] * BLOCK_PX, width), changed[1] * BLOCK_PX + top,
                                 min(changed[2] * BLOCK_PX, width), min(changed[3] * BLOCK_PX + top, height))
    f_left, f_top, f_right, f_bottom = focused_field
    slack = BLOCK_PX
    if left < f_left - slack or right > f_right + slack or upper < f_top - slack or lower > f_bottom + slack:
        return True
    bar = difference.crop((left, upper - top, right, lower - top)).point(
        lambda value: 255 if value > CURSOR_PIXEL else 0).getbbox()
    if bar is None:
        return True          # blocks changed beyond noise, no pixel like a cursor's: a real change
    bar_width, bar_height = bar[2] - bar[0], bar[3] - bar[1]
    return not (bar_width <= CURSOR_WIDTH_DP * width / SCREEN_WIDTH_DP and bar_height >= 2 * bar_width)
