"""Did the screen change? Control-level fingerprints and diffs, and a pixel-level fallback."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from PIL import Image, ImageChops

from app.core.perception.controls import Control

GRID_PX = 16
"""Rects are compared rounded to this grid, so a 1-2 px layout jitter is usually not a change."""
MATCH_DISTANCE_PX = 96
"""How far a control's centre may move and still be "the same control" by resource-id."""
THUMBNAIL_WIDTH = 64
PIXEL_THRESHOLD = 24
"""Grey-level difference (0-255) above which a thumbnail pixel counts as changed."""

_COMPARED_FIELDS = ("text", "content_desc", "checked", "selected", "enabled", "rect")
_SUMMARY_DETAILS = 3


@dataclass(frozen=True, slots=True)
class ControlChange:
    """One control present on both screens whose state differs; `fields` names what differs."""

    before: Control
    after: Control
    fields: tuple[str, ...]

    def describe(self) -> str:
        """e.g. `Wi-Fi switch: checked false→true`."""
        parts = [
            f"{name} {_show(getattr(self.before, name))}→{_show(getattr(self.after, name))}" for name in self.fields
        ]
        return f"{self.after.name} {self.after.type.lower()}: {', '.join(parts)}"


@dataclass(frozen=True, slots=True)
class ControlDiff:
    added: list[Control] = field(default_factory=list)
    removed: list[Control] = field(default_factory=list)
    changed: list[ControlChange] = field(default_factory=list)

    @property
    def is_empty(self) -> bool:
        return not (self.added or self.removed or self.changed)

    def summary(self) -> str:
        """e.g. `2 added, 1 removed, 1 changed (Wi-Fi switch: checked false→true)`."""
        if self.is_empty:
            return "no change"
        counts = [
            f"{len(items)} {label}"
            for items, label in ((self.added, "added"), (self.removed, "removed"), (self.changed, "changed"))
            if items
        ]
        text = ", ".join(counts)
        if self.changed:
            details = [change.describe() for change in self.changed[:_SUMMARY_DETAILS]]
            if len(self.changed) > _SUMMARY_DETAILS:
                details.append("…")
            text += f" ({'; '.join(details)})"
        return text


def screen_fingerprint(controls: Sequence[Control]) -> str:
    """A stable hash of what is on screen: type, name, checked state and grid-rounded rect.

    Ids, locators and order are ignored, so the same screen always gets the same
    fingerprint and a toggled switch or a new text gets a different one.
    """
    items = sorted((c.type, c.name, c.checked, _grid(c.rect)) for c in controls)
    return hashlib.blake2b(json.dumps(items, ensure_ascii=False).encode("utf-8"), digest_size=16).hexdigest()


def diff_controls(before: Sequence[Control], after: Sequence[Control]) -> ControlDiff:
    """What was added, removed and changed between two control lists of a screen.

    A control matches its counterpart when they are identical (type, name, state, grid
    rect); else by the same resource-id and type with centres within MATCH_DISTANCE_PX;
    else by the same name and type (nearest centre first). Matched controls whose text,
    content-desc, checked, selected, enabled or grid rect differ are "changed".
    """
    remaining = list(after)
    by_state: dict[tuple[object, ...], list[Control]] = {}
    for new in remaining:
        by_state.setdefault(_state(new), []).append(new)
    unchanged: set[int] = set()  # ids of `after` controls matched exactly
    unmatched: list[Control] = []
    for old in before:
        twins = [new for new in by_state.get(_state(old), ()) if new.id not in unchanged]
        if twins:
            unchanged.add(min(twins, key=lambda new: _distance(old, new)).id)
        else:
            unmatched.append(old)
    remaining = [new for new in remaining if new.id not in unchanged]

    removed: list[Control] = []
    changed: list[ControlChange] = []
    for old in unmatched:
        match = None
        if old.resource_id:
            match = _take_nearest(remaining, old, _same_id_nearby)
        if match is None:
            match = _take_nearest(remaining, old, _same_name)
        if match is None:
            removed.append(old)
            continue
        fields = tuple(name for name in _COMPARED_FIELDS if _compared(old, name) != _compared(match, name))
        if fields:
            changed.append(ControlChange(old, match, fields))
    changed.sort(key=lambda change: change.after.id)
    return ControlDiff(added=remaining, removed=removed, changed=changed)


def image_difference(a: Image.Image, b: Image.Image) -> float:
    """Fraction (0..1) of pixels that differ between two screenshots, on small grey thumbnails.

    Both are shrunk to THUMBNAIL_WIDTH pixels wide (b to a's thumbnail size), so it takes
    a few ms and ignores compression noise; a pixel counts when its grey level moved
    more than PIXEL_THRESHOLD.
    """
    height = max(1, round(a.height * THUMBNAIL_WIDTH / max(a.width, 1)))
    size = (THUMBNAIL_WIDTH, height)
    thumb_a = _thumbnail(a, size)
    thumb_b = _thumbnail(b, size)
    histogram = ImageChops.difference(thumb_a, thumb_b).histogram()
    changed = sum(histogram[PIXEL_THRESHOLD + 1 :])
    return changed / (size[0] * size[1])


def _thumbnail(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    if image.mode not in ("RGB", "L"):
        image = image.convert("RGB")
    return image.resize(size, Image.Resampling.BOX).convert("L")


def _grid(rect: tuple[int, int, int, int]) -> tuple[int, ...]:
    return tuple(round(value / GRID_PX) for value in rect)


def _state(control: Control) -> tuple[object, ...]:
    return (control.type, control.name, control.resource_id) + tuple(_compared(control, f) for f in _COMPARED_FIELDS)


def _compared(control: Control, name: str) -> object:
    value = getattr(control, name)
    return _grid(value) if name == "rect" else value


def _distance(a: Control, b: Control) -> float:
    (ax, ay), (bx, by) = a.center, b.center
    return ((ax - bx) ** 2 + (ay - by) ** 2) ** 0.5


def _same_id_nearby(old: Control, new: Control) -> bool:
    return new.resource_id == old.resource_id and new.type == old.type and _distance(old, new) <= MATCH_DISTANCE_PX


def _same_name(old: Control, new: Control) -> bool:
    return new.name == old.name and new.type == old.type


def _take_nearest(candidates: list[Control], reference: Control,
                  accept: Callable[[Control, Control], bool]) -> Control | None:
    """Remove from `candidates` and return the one nearest to `reference` that `accept(reference, it)`, if any."""
    accepted = [index for index, candidate in enumerate(candidates) if accept(reference, candidate)]
    if not accepted:
        return None
    best = min(accepted, key=lambda index: _distance(candidates[index], reference))
    return candidates.pop(best)


def _show(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return "[" + ",".join(str(v) for v in value) + "]"
    text = str(value)
    return json.dumps(text[:30] + ("…" if len(text) > 30 else ""), ensure_ascii=False)
