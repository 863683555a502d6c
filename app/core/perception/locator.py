"""Finding a control again: XPath locators into the dump it came from, and (for a step's
record) a target's locator with nearby labelled anchors and a compact summary of each control."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from app.core.perception.controls import Control, Rect
from app.core.redaction import PASSWORD_MASK

LOCATOR_TEXT_LIMIT = 100
"""Longer values are not used in locators (the index path is shorter and as exact)."""

_KEYS = ("resource-id", "text", "content-desc")


class LocatorIndex:
    """Counts attribute values over a whole dump, so a locator only uses unique ones.

    Rules, first match wins:
    1. `//*[@resource-id="…"]` when that resource-id occurs once in the dump;
    2. `//*[@text="…"]` when the text occurs once (never a password's text);
    3. `//*[@content-desc="…"]` when the content-desc occurs once;
    4. the absolute index path `/hierarchy/node[i]/node[j]…` (1-based, as XPath counts).
    Values longer than LOCATOR_TEXT_LIMIT are skipped. Every locator selects exactly
    one `<node>` when evaluated with lxml on the dump.
    """

    def __init__(self) -> None:
        self._counts: dict[str, dict[str, int]] = {key: {} for key in _KEYS}

    def add(self, attributes: dict[str, str]) -> None:
        """Count one node; call it for every node of the dump."""
        for key, table in self._counts.items():
            value = attributes.get(key)
            if value:
                table[value] = table.get(value, 0) + 1

    def locator(self, path: tuple[int, ...], attributes: dict[str, str], *, password: bool) -> str:
        """The locator of the node at `path` (0-based indexes among `<node>` siblings)."""
        for key in _KEYS:
            value = attributes.get(key, "")
            if key == "text" and password:
                continue
            if value and len(value) <= LOCATOR_TEXT_LIMIT and self._counts[key].get(value) == 1:
                return f"//*[@{key}={xpath_literal(value)}]"
        return "/hierarchy" + "".join(f"/node[{index + 1}]" for index in path)


def xpath_literal(value: str) -> str:
    """`value` as an XPath 1.0 string literal (which has no escapes: concat() when needed)."""
    if '"' not in value:
        return f'"{value}"'
    if "'" not in value:
        return f"'{value}'"
    pieces = ", '\"', ".join(f'"{piece}"' for piece in value.split('"'))
    return f"concat({pieces})"


# ---------------------------------------------------------------- finding a control again on a later screen

ANCHOR_LIMIT = 3
"""Nearby labelled controls kept with a target."""

RELATIONS = ("left_of", "right_of", "above", "below", "inside", "contains")
"""Where an anchor is, seen from its target: `left_of` = the anchor is left of the target;
`inside` = the anchor lies within the target's bounds; `contains` = the anchor encloses the target."""

CONTROL_FLAGS = ("clickable", "long_clickable", "scrollable", "checkable", "checked", "focused", "selected",
                 "password")
"""The boolean flags a control summary lists when true (plus "disabled" for a control that is not enabled)."""


@dataclass
class Anchor:
    """A labelled control near a target, and where it is seen from the target."""

    name: str
    relation: str            # one of RELATIONS
    distance: int = 0        # pixels between the two rectangles' edges (0 when they touch or overlap)


@dataclass
class TargetLocator:
    """What it takes to find a control again on another dump of the same screen (replay, skills).

    `xpath` is the control's locator in the dump it came from (`Control.locator`); `node_path`
    its index path from the top-level window down (`node_path[0]` is the window). A password
    field's text is never kept in clear (PASSWORD_MASK instead).
    """

    name: str = ""
    xpath: str = ""
    resource_id: str = ""
    text: str = ""
    content_desc: str = ""
    class_name: str = ""
    bounds: list[int] = field(default_factory=list)       # [left, top, right, bottom], device pixels
    node_path: list[int] = field(default_factory=list)
    package: str = ""
    checkable: bool = False
    checked: bool = False
    selected: bool = False
    password: bool = False
    anchors: list[Anchor] = field(default_factory=list)


@dataclass
class ControlSummary:
    """One control of a screen in the compact form a step record keeps."""

    id: int
    name: str
    type: str
    resource_id: str = ""
    text: str = ""
    content_desc: str = ""
    rect: list[int] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)        # the CONTROL_FLAGS that are true, and "disabled"

    def to_dict(self) -> dict[str, Any]:
        """The fields that hold something (id, name and type always)."""
        data = asdict(self)
        return {key: value for key, value in data.items() if key in ("id", "name", "type") or value}


def shown_text(control: Control) -> str:
    """The control's text as a record may keep it: a password field's text is masked."""
    return PASSWORD_MASK if control.password and control.text else control.text


def _shown_name(control: Control) -> str:
    return PASSWORD_MASK if control.password and control.text and control.name == control.text else control.name


def summarize_control(control: Control) -> ControlSummary:
    flags = [name for name in CONTROL_FLAGS if getattr(control, name)]
    if not control.enabled:
        flags.append("disabled")
    return ControlSummary(control.id, _shown_name(control), control.type, control.resource_id, shown_text(control),
                          control.content_desc, list(control.rect), flags)


def summarize_controls(controls: Sequence[Control]) -> list[ControlSummary]:
    """Every control of a screen, compact and with password text masked."""
    return [summarize_control(control) for control in controls]


def relation(anchor: Rect, target: Rect) -> str:
    """Where `anchor` is, seen from `target` (one of RELATIONS).

    Separated rectangles: the side they are apart on (the larger gap wins when diagonal).
    Overlapping ones: `inside` / `contains` when one encloses the other, else the side
    the anchor's centre lies towards.
    """
    gaps = {"left_of": target[0] - anchor[2], "right_of": anchor[0] - target[2],
            "above": target[1] - anchor[3], "below": anchor[1] - target[3]}
    side, gap = max(gaps.items(), key=lambda item: item[1])
    if gap >= 0:
        return side
    if target[0] <= anchor[0] and target[1] <= anchor[1] and anchor[2] <= target[2] and anchor[3] <= target[3]:
        return "inside"
    if anchor[0] <= target[0] and anchor[1] <= target[1] and target[2] <= anchor[2] and target[3] <= anchor[3]:
        return "contains"
    dx = (anchor[0] + anchor[2]) - (target[0] + target[2])
    dy = (anchor[1] + anchor[3]) - (target[1] + target[3])
    if abs(dx) > abs(dy):
        return "left_of" if dx < 0 else "right_of"
    return "above" if dy < 0 else "below"


def edge_distance(a: Rect, b: Rect) -> int:
    """Pixels between two rectangles' nearest edges; 0 when they touch or overlap."""
    dx = max(a[0] - b[2], b[0] - a[2], 0)
    dy = max(a[1] - b[3], b[1] - a[3], 0)
    return round((dx * dx + dy * dy) ** 0.5)


def _same_row(a: Rect, b: Rect) -> bool:
    """The rectangles overlap vertically by at least half the lower one's height."""
    overlap = min(a[3], b[3]) - max(a[1], b[1])
    return overlap > 0 and 2 * overlap >= min(a[3] - a[1], b[3] - b[1])


def is_labelled(control: Control) -> bool:
    """Whether the control's name is a label (its text, content-desc, hint or its children's labels),
    not a fallback made from its resource-id or class."""
    id_tail = control.resource_id.split(":id/", 1)[-1]
    return bool(control.name.strip()) and control.name not in (control.type, id_tail, control.resource_id)


def nearby_anchors(target: Control, controls: Sequence[Control], limit: int = ANCHOR_LIMIT) -> list[Anchor]:
    """Up to `limit` labelled controls near `target`: those touching or enclosing it first, then
    those in its row (a row's label says most about a switch or a button in it), then the rest;
    nearest first in each (edge distance, then centre distance).

    A control is labelled when its name is words someone reads (`is_labelled`); password
    fields, and controls named like the target or like an anchor already chosen, are left
    out, so each anchor names one thing.
    """
    def rank(control: Control) -> tuple:
        distance = edge_distance(control.rect, target.rect)
        tier = 0 if distance == 0 else 1 if _same_row(control.rect, target.rect) else 2
        (ax, ay), (bx, by) = control.center, target.center
        return tier, distance, ((ax - bx) ** 2 + (ay - by) ** 2) ** 0.5, control.id

    candidates = [c for c in controls if c.id != target.id and not c.password and is_labelled(c)]
    candidates.sort(key=rank)
    anchors: list[Anchor] = []
    for control in candidates:
        if len(anchors) >= limit:
            break
        if control.name == target.name or any(anchor.name == control.name for anchor in anchors):
            continue
        anchors.append(Anchor(control.name, relation(control.rect, target.rect),
                              edge_distance(control.rect, target.rect)))
    return anchors


def target_locator(target: Control, controls: Sequence[Control], anchors: int = ANCHOR_LIMIT) -> TargetLocator:
    """The locator of `target` among the screen's `controls`, with its nearby labelled anchors."""
    return TargetLocator(
        name=_shown_name(target), xpath=target.locator, resource_id=target.resource_id, text=shown_text(target),
        content_desc=target.content_desc, class_name=target.class_name, bounds=list(target.rect),
        node_path=list(target.node_path), package=target.package, checkable=target.checkable,
        checked=target.checked, selected=target.selected, password=target.password,
        anchors=nearby_anchors(target, controls, anchors))
