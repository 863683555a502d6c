"""Choose the controls worth showing an LLM from a parsed UI hierarchy (seed 000, sub-strategy 1.3)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from app.core.perception.controls import Control, Rect
from app.core.perception.locator import LocatorIndex

if TYPE_CHECKING:
    from app.core.perception.hierarchy import UiHierarchy, UiNode

MAX_ABSORBED_LABELS = 4
"""An unlabelled tappable node is named after at most this many text-only descendants."""

_PRIVATE_USE = re.compile("[\ue000-\uf8ff\U000f0000-\U0010ffff]")


@dataclass(slots=True, eq=False)
class _Candidate:
    node: UiNode
    rect: Rect
    label: str
    clickable: bool
    long_clickable: bool
    scrollable: bool
    checkable: bool
    checked: bool
    absorbed: list[_Candidate] = field(default_factory=list)

    def absorbs_texts(self) -> bool:
        """A tappable node that is not a scroll container takes in the texts under it."""
        return (self.clickable or self.long_clickable) and not self.scrollable

    def rank(self) -> tuple[bool, bool, bool, int]:
        """Which of two same-rect candidates to keep: tappable, labelled, checkable, deepest."""
        return (self.clickable or self.long_clickable, bool(self.label), self.checkable, len(self.node.path))


def select_controls(hierarchy: UiHierarchy, screen_size: tuple[int, int] | None = None) -> list[Control]:
    """The controls worth showing an LLM, numbered 1..n in reading order.

    Selection (seed 000): clickable, long-clickable, scrollable or checkable nodes, nodes
    with a text or content-desc, and nodes whose class tail contains "Edit" or "Button".
    Dropped: `visible-to-user="false"`, malformed, absurd or empty bounds (right <= left or
    bottom <= top), nodes wholly outside the window that holds them (a hostile or stale dump:
    nothing there can be tapped), and, when `screen_size` is given (the size in the dump's
    rotation), nodes with nothing left after clipping to the screen (the kept rect is the
    clipped one).

    Merging, so that one thing on screen is one control:
    - a tappable (clickable or long-clickable, not scrollable) node takes in the
      text-only descendants that no nearer actionable node takes. Unlabelled, it is
      named by their labels joined with ", ", as TalkBack reads such a container (more
      than MAX_ABSORBED_LABELS stay separate); labelled, it drops those whose label it
      already contains;
    - of several candidates with the same rect, the tappable, then labelled, then
      checkable, then deepest one is kept; it takes the others' label if it has none
      and their clickable/long-clickable/scrollable/checkable flags (one target on screen).

    Names: text (never a password's), else content-desc, else hint, else the resource-id
    after ":id/" (the whole id when it has no ":id/"), else the class tail; whitespace
    collapsed, icon-font (private-use) characters removed. Reading order: see
    `_reading_order`. Locators: see `LocatorIndex`.
    """
    locators = LocatorIndex()
    candidates: list[_Candidate] = []
    absorbers: list[_Candidate] = []
    window_rects = [w.bounds for w in hierarchy.windows]
    stack: list[tuple[UiNode, _Candidate | None]] = [(w, None) for w in reversed(hierarchy.windows)]
    while stack:
        node, absorber = stack.pop()
        locators.add(node.attributes)
        actionable, candidate = _candidate(node, screen_size, window_rects[node.window])
        if candidate is not None:
            if actionable or absorber is None:
                candidates.append(candidate)
            else:  # text only, inside a tappable node
                absorber.absorbed.append(candidate)
        if actionable:  # descendants report to the nearest actionable node, if it absorbs
            absorber = candidate if candidate is not None and candidate.absorbs_texts() else None
            if absorber is not None:
                absorbers.append(absorber)
        stack.extend((child, absorber) for child in reversed(node.children))

    for absorber in absorbers:
        absorbed = absorber.absorbed
        if absorber.label:
            candidates.extend(c for c in absorbed if c.label not in absorber.label)
        elif len(absorbed) <= MAX_ABSORBED_LABELS:
            absorber.label = _join_labels(c.label for c in absorbed)
        else:
            candidates.extend(absorbed)

    unique: dict[Rect, _Candidate] = {}
    for candidate in candidates:
        kept = unique.get(candidate.rect)
        unique[candidate.rect] = candidate if kept is None else _merge(kept, candidate)
    ordered = _reading_order(list(unique.values()))
    return [_to_control(index, c, locators) for index, c in enumerate(ordered, start=1)]


def _candidate(node: UiNode, screen_size: tuple[int, int] | None,
               window: Rect | None = None) -> tuple[bool, _Candidate | None]:
    """Whether the node is actionable, and its candidate (None: not selected or not visible)."""
    get = node.attributes.get
    clickable = get("clickable") == "true"
    long_clickable = get("long-clickable") == "true"
    scrollable = get("scrollable") == "true"
    checkable = get("checkable") == "true"
    tail = _class_tail(node.class_name)
    actionable = clickable or long_clickable or scrollable or checkable or "Edit" in tail or "Button" in tail
    text = "" if get("password") == "true" else get("text")
    label = _clean_label(text) or _clean_label(get("content-desc"))
    if not (actionable or label):
        return False, None
    rect = _visible_rect(node, screen_size, window)
    if rect is None:
        return actionable, None
    checked = get("checked") == "true"
    return actionable, _Candidate(node, rect, label, clickable, long_clickable, scrollable, checkable, checked)


def _visible_rect(node: UiNode, screen_size: tuple[int, int] | None, window: Rect | None = None) -> Rect | None:
    """The node's rect clipped to the screen; None when it is hidden, malformed, empty, wholly
    outside its window (`window`: the window root's valid bounds) or wholly off the screen."""
    if node.bounds is None or node.attributes.get("visible-to-user") == "false":
        return None
    left, top, right, bottom = node.bounds
    if window is not None and window[2] > window[0] and window[3] > window[1] and not (
            left < window[2] and right > window[0] and top < window[3] and bottom > window[1]):
        return None
    if screen_size is not None:
        width, height = screen_size
        left, top, right, bottom = max(left, 0), max(top, 0), min(right, width), min(bottom, height)
    if right <= left or bottom <= top:
        return None
    return left, top, right, bottom


def _merge(kept: _Candidate, other: _Candidate) -> _Candidate:
    winner, loser = (other, kept) if other.rank() > kept.rank() else (kept, other)
    winner.label = winner.label or loser.label
    winner.clickable |= loser.clickable
    winner.long_clickable |= loser.long_clickable
    winner.scrollable |= loser.scrollable
    if loser.checkable and not winner.checkable:
        winner.checkable, winner.checked = True, loser.checked
    return winner


def _reading_order(candidates: list[_Candidate]) -> list[_Candidate]:
    """Top-to-bottom rows, left-to-right inside a row.

    Sorted by top edge, controls are grouped greedily: a control joins the current row
    when its vertical centre is within half the smaller height of the row's first
    control's centre and neither is more than 3x taller than the other (so a toolbar's
    title and icons share a row, but a list never shares one with its items).
    """
    candidates.sort(key=lambda c: (c.rect[1], c.rect[0]))
    rows: list[list[_Candidate]] = []
    for candidate in candidates:
        if rows and _same_row(rows[-1][0].rect, candidate.rect):
            rows[-1].append(candidate)
        else:
            rows.append([candidate])
    return [c for row in rows for c in sorted(row, key=lambda c: (c.rect[0], c.rect[1]))]


def _same_row(a: Rect, b: Rect) -> bool:
    height_a, height_b = a[3] - a[1], b[3] - b[1]
    shorter, taller = sorted((height_a, height_b))
    if taller > 3 * shorter:
        return False
    return abs((a[1] + a[3]) - (b[1] + b[3])) <= shorter  # centres within shorter/2


def _to_control(control_id: int, candidate: _Candidate, locators: LocatorIndex) -> Control:
    node = candidate.node
    attributes = node.attributes
    password = attributes.get("password") == "true"
    text = "" if password else attributes.get("text", "")
    resource_id = attributes.get("resource-id", "")
    type_name = _class_tail(node.class_name) or "View"
    name = candidate.label or _clean_label(attributes.get("hint", "")) or _id_tail(resource_id) or type_name
    return Control(
        id=control_id,
        name=name,
        type=type_name,
        class_name=node.class_name,
        resource_id=resource_id,
        text=text,
        content_desc=attributes.get("content-desc", ""),
        rect=candidate.rect,
        clickable=candidate.clickable,
        long_clickable=candidate.long_clickable,
        scrollable=candidate.scrollable,
        checkable=candidate.checkable,
        checked=candidate.checked,
        enabled=attributes.get("enabled", "true") != "false",
        focused=attributes.get("focused") == "true",
        focusable=attributes.get("focusable") == "true",
        selected=attributes.get("selected") == "true",
        password=password,
        package=attributes.get("package", ""),
        locator=locators.locator(node.path, attributes, password=password),
        node_path=node.path,
        window=node.window,
    )


def _class_tail(class_name: str) -> str:
    return class_name.rsplit(".", 1)[-1].rsplit("$", 1)[-1]


def _id_tail(resource_id: str) -> str:
    return resource_id.split(":id/", 1)[1] if ":id/" in resource_id else resource_id


def _clean_label(value: str | None) -> str:
    if not value:
        return ""
    return " ".join(_PRIVATE_USE.sub("", value).split())


def _join_labels(labels: Iterable[str]) -> str:
    unique: list[str] = []
    for label in labels:
        if label not in unique:
            unique.append(label)
    return ", ".join(unique)
