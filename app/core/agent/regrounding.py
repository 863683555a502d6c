"""Finding a recorded target again on the current screen, by its locator — never by its old numeric id.

A candidate must agree with everything the record says about the control that is not
content that changes by itself: its resource-id, its label (the first part of its name:
"Wi‑Fi, Off" and "Wi‑Fi, On" are one row), its content-desc and its class. A candidate whose
label, description or class differs is not the target, whatever its position: a replay
that cannot tell must stop rather than tap the wrong control. Among candidates that agree,
the nearby labelled anchors, the position in the tree and the place on the screen decide;
when two remain equally likely, the target is ambiguous and not found.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.core.perception.controls import Control, normalise
from app.core.perception.locator import TargetLocator, edge_distance, relation
from app.core.redaction import PASSWORD_MASK

EDITABLE_HINTS = ("EditText", "AutoCompleteTextView")
"""Classes whose text is what was typed into them, not a label."""

NEAR_PX = 48
"""A candidate whose centre is this close to the recorded one is "in the same place"."""


@dataclass
class Grounding:
    """The control a recorded target is now, or why it could not be found."""

    control: Control | None
    reason: str            # how it was found, or why not (a sentence)

    @property
    def found(self) -> bool:
        return self.control is not None


def label(name: str) -> str:
    """The part of a control's name that labels it: a row's first part ("Wi‑Fi, Off" → "wi-fi")."""
    return normalise(name.split(",", 1)[0])


def _editable(class_name: str) -> bool:
    return any(hint in class_name for hint in EDITABLE_HINTS)


def _conflict(locator: TargetLocator, control: Control) -> str:
    """Why `control` cannot be the recorded target ("" when nothing the record says contradicts it)."""
    if locator.resource_id and control.resource_id != locator.resource_id:
        return "another resource-id"
    if locator.class_name and control.class_name and control.class_name != locator.class_name:
        return "another class"
    if locator.content_desc and normalise(control.content_desc) != normalise(locator.content_desc):
        return "another description"
    text_is_label = not (_editable(locator.class_name) or locator.checkable or locator.password
                         or locator.text == PASSWORD_MASK)
    if text_is_label and locator.text and normalise(control.text) != normalise(locator.text):
        return "another text"
    if locator.name and locator.name != PASSWORD_MASK and text_is_label and label(control.name) != label(locator.name):
        return "another label"
    return ""


def _identified(locator: TargetLocator) -> bool:
    """Whether the record names the control by something other than its place."""
    return bool(locator.resource_id or locator.content_desc or (locator.name and locator.name != PASSWORD_MASK)
                or (locator.text and locator.text != PASSWORD_MASK))


def _anchors_seen(locator: TargetLocator, control: Control, controls: Sequence[Control]) -> int:
    """How many of the recorded anchors are on the screen in the same relation to `control`."""
    seen = 0
    for anchor in locator.anchors:
        wanted = label(anchor.name)
        if any(label(other.name) == wanted and other.id != control.id
               and relation(other.rect, control.rect) == anchor.relation for other in controls):
            seen += 1
    return seen


def _near(locator: TargetLocator, control: Control) -> bool:
    if len(locator.bounds) != 4:
        return False
    x, y = (locator.bounds[0] + locator.bounds[2]) / 2, (locator.bounds[1] + locator.bounds[3]) / 2
    cx, cy = control.center
    return abs(cx - x) <= NEAR_PX and abs(cy - y) <= NEAR_PX


def _score(locator: TargetLocator, control: Control, controls: Sequence[Control]) -> tuple[int, int, int, int]:
    """Higher is likelier: anchors seen, same tree position, same place, nearness (negative distance)."""
    same_path = int(bool(locator.node_path) and list(control.node_path) == list(locator.node_path))
    left, top, right, bottom = locator.bounds if len(locator.bounds) == 4 else (0, 0, 0, 0)
    distance = edge_distance(control.rect, (left, top, right, bottom)) if len(locator.bounds) == 4 else 0
    return _anchors_seen(locator, control, controls), same_path, int(_near(locator, control)), -distance


def find_target(locator: TargetLocator, controls: Sequence[Control]) -> Grounding:
    """The control of `controls` that `locator` recorded, or a Grounding saying why there is none."""
    what = f"“{locator.name or locator.resource_id or locator.class_name}”"
    if not _identified(locator):     # nothing but a place: only the same place in the same tree will do
        same = [c for c in controls if list(c.node_path) == list(locator.node_path) and _near(locator, c)
                and not _conflict(locator, c)]
        if len(same) == 1:
            return Grounding(same[0], "found at its recorded place (it has no label or id)")
        return Grounding(None, f"the unlabelled control {what} is not at its recorded place any more")
    candidates = [c for c in controls if not _conflict(locator, c)]
    if not candidates:
        reasons = {_conflict(locator, c) for c in controls if c.resource_id == locator.resource_id and c.resource_id}
        changed = f" (a control with its id is there, with {', '.join(sorted(reasons))})" if reasons else ""
        return Grounding(None, f"{what} is not on the screen{changed}")
    if len(candidates) == 1:
        return Grounding(candidates[0], f"found {what}")
    ranked = sorted(candidates, key=lambda c: _score(locator, c, controls), reverse=True)
    best, second = ranked[0], ranked[1]
    if _score(locator, best, controls)[:3] == _score(locator, second, controls)[:3]:
        return Grounding(None, f"{len(candidates)} controls on the screen fit {what} equally well")
    return Grounding(best, f"found {what} among {len(candidates)} alike by its neighbours and place")


def switch_is_on(control: Control, controls: Sequence[Control]) -> bool | None:
    """The on/off state of `control` (when checkable) or of the one checkable control inside it."""
    if control.checkable:
        return control.checked
    left, top, right, bottom = control.rect
    inside = [c for c in controls if c.checkable and c.id != control.id
              and left <= c.center[0] <= right and top <= c.center[1] <= bottom]
    return inside[0].checked if len(inside) == 1 else None
