"""Render only what changed: repaint the part of the screen whose views changed, keep the rest of the last picture.

Android redraws only the views that were invalidated (the damage region); the virtual phone did a whole picture
for every change, a running stopwatch's digits included (2.5-7 ms a 1080x2400 picture on this machine, 60 times
a second). `DamageRenderer` compares what each view paints (its bounds, text, style, state) with the last
picture's, in painting order. Where only some views changed, their old and new places (with a margin for what a
painter draws past a view's bounds: a thumb, a glyph's overhang) make the damaged box; the views that reach into
it are painted again, shifted, on a canvas of that box's size, and the box is pasted into a copy of the last
picture. The result is the picture a whole render gives, pixel for pixel (tests compare the two on many screens).

A whole render instead: the first picture, a new size or background, a different set of windows or views, a
dialog's dim layer (it darkens everything under it), a box over half the screen, or a view reaching into the box
whose painting depends on lying inside the picture (a shadow, a translucent image)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from PIL import Image

from . import render, theme
from .views import Rect, View, Window, intersect

MARGIN_DP = 12                  # what a painter may draw past its view's bounds (a slider's thumb, glyph overhang)
MAX_SHARE = 0.5                 # a damaged box larger than this share of the screen: a whole render is as quick

Painted = tuple                 # what one view paints: see `_painted`


def _painted(view: View) -> Painted:
    """Everything of `view` that its painter reads (render.py), the children's count included."""
    return (view.bounds, view.kind, view.text, view.clip, len(view.children), view.focused, view.password,
            view.checked, view.enabled, dict(view.style))


def _same(a: Painted, b: Painted) -> bool:
    if a[:9] != b[:9]:
        return False
    style_a, style_b = a[9], b[9]
    if style_a.keys() != style_b.keys():
        return False
    for key, value in style_a.items():
        other = style_b[key]
        if value is other:
            continue
        if isinstance(value, Image.Image) or isinstance(other, Image.Image) or value != other:
            return False                # an image is the same only when it is the same object
    return True


def _in_painting_order(windows: list[Window]) -> list[View]:
    return [view for window in windows for view in window.root.walk()]


def _grow(box: Rect, by: int) -> Rect:
    return (box[0] - by, box[1] - by, box[2] + by, box[3] + by)


def _union(a: Rect | None, b: Rect) -> Rect:
    return b if a is None else (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _inside(inner: Rect, outer: Rect) -> bool:
    return outer[0] <= inner[0] and outer[1] <= inner[1] and inner[2] <= outer[2] and inner[3] <= outer[3]


def _needs_whole_picture(view: View) -> bool:
    """Painters whose result depends on the view lying wholly inside the picture (render.py skips a shadow that
    would cross its edge; an RGBA image is composited differently when it does)."""
    image = view.style.get("image")
    return bool(view.style.get("shadow")) or (isinstance(image, Image.Image) and image.mode == "RGBA")


@dataclass
class _Last:
    size: tuple[int, int]
    base: Image.Image | None
    roles: list[str]
    painted: list[Painted]
    picture: Image.Image


class DamageRenderer:
    """`render(windows, size, base)` as render.render does, repainting only the changed part when it can.
    `whole` and `partial` count the two kinds of pictures made (for tests and the bench)."""

    def __init__(self) -> None:
        self._last: _Last | None = None
        self.whole = 0
        self.partial = 0
        self.last_box: Rect | None = None       # what the last picture repainted (None: the whole picture)

    def forget(self) -> None:
        self._last = None

    def render(self, windows: list[Window], size: tuple[int, int], base: Image.Image | None,
               margin: int = 24) -> Image.Image:
        views = _in_painting_order(windows)
        painted = [_painted(view) for view in views]
        roles = [window.role for window in windows]
        box = self._damaged_box(windows, views, painted, roles, size, base, margin)
        last = self._last
        self.last_box = box if last is not None else None
        if box is None or last is None:
            picture = render.render(windows, size, base)
            self.whole += 1
        elif box == (0, 0, 0, 0):
            picture = last.picture.copy()
            self.partial += 1
        else:
            picture = last.picture.copy()
            picture.paste(_paint_box(windows, box, base, size), box[:2])
            self.partial += 1
        self._last = _Last(size, base, roles, painted, picture)
        return picture

    def _damaged_box(self, windows: list[Window], views: list[View], painted: list[Painted], roles: list[str],
                     size: tuple[int, int], base: Image.Image | None, margin: int) -> Rect | None:
        """The box to repaint ((0, 0, 0, 0): nothing changed), or None for a whole render."""
        last = self._last
        if (last is None or last.size != size or last.base is not base or last.roles != roles
                or len(last.painted) != len(painted)
                or any(window.role == "dialog" and window.dim for window in windows)):
            return None
        box: Rect | None = None
        for old, new in zip(last.painted, painted, strict=True):
            if not _same(old, new):
                box = _union(_union(box, _grow(old[0], margin)), _grow(new[0], margin))
        if box is None:
            return (0, 0, 0, 0)
        box = intersect(box, (0, 0, size[0], size[1]))
        if box is None:
            return (0, 0, 0, 0)
        if (box[2] - box[0]) * (box[3] - box[1]) > MAX_SHARE * size[0] * size[1]:
            return None
        for view in views:
            if _needs_whole_picture(view) and intersect(view.bounds, box) and not _inside(view.bounds, box):
                return None
        return box


def _paint_box(windows: list[Window], box: Rect, base: Image.Image | None, size: tuple[int, int]) -> Image.Image:
    """The picture's `box` painted alone: the background, then every view that reaches into it, moved so that
    the box's corner is the canvas's."""
    if base is not None:
        canvas = base.crop(box)
    else:
        canvas = Image.new("RGBA", (box[2] - box[0], box[3] - box[1]), theme.BACKGROUND + (255,))
    for window in windows:
        _paint_moved(canvas, window.root, box)
    return canvas


class _Moved:
    """What render.paint reads of a view, at its place on the box's canvas (a copy; the view is left as it is)."""

    __slots__ = ("bounds", "kind", "text", "style", "clip", "children", "focused", "password", "checked", "enabled")

    def __init__(self, view: View, dx: int, dy: int, children: list) -> None:
        left, top, right, bottom = view.bounds
        self.bounds = (left - dx, top - dy, right - dx, bottom - dy)
        self.kind, self.text, self.style, self.clip = view.kind, view.text, view.style, view.clip
        self.focused, self.password, self.checked, self.enabled = (view.focused, view.password, view.checked,
                                                                   view.enabled)
        self.children = children


def _paint_moved(canvas: Image.Image, view: View, box: Rect) -> None:
    """render.paint for one view and its children, on the box's canvas; a view entirely away from the box is not
    painted (its children may still reach into it), a clipping view still restores what its children overflow."""
    dx, dy = box[0], box[1]
    if intersect(view.bounds, box) is not None:
        render.paint(canvas, cast(View, _Moved(view, dx, dy, [])))
    if not view.children:
        return
    saved = []
    if view.clip:
        moved = _Moved(view, dx, dy, [_Moved(child, dx, dy, []) for child in view.children])
        saved = render.save_overflow(canvas, cast(View, moved))
    for child in view.children:
        _paint_moved(canvas, child, box)
    for where, strip in saved:
        canvas.paste(strip, where)
