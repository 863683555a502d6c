"""A screen's stable signature: the same screen gets the same signature however its content changes.

`screen_diff.screen_fingerprint` changes when any text changes (a clock, a new message), which is
right for "did the screen change?" but wrong for "which screen is this?". The screens graph
(`transitions.py`) needs the second: every observed screen is named by its app, its activity and
a hash of its *structure*, so that steps of many runs meet on the same nodes.

The structure keeps what makes a screen what it is, and leaves out what changes while it stays
the same screen:

- kept: each control's type (class tail), resource-id and role (edit field, checkable, scroll
  container, tappable, text), the labels of tappable and checkable controls and of fixed texts
  (titles), and coarse layout (which ninth of the screen, in thirds across and down, the control's
  centre is in);
- left out: texts with digits (clock times, dates, counters, percentages, unread badges; such a
  text that is not tappable is left out altogether), long texts (message bodies), what is typed
  into edit fields, switch states (checked, and "On"/"Off" labels), and how many rows a list has.

A list's rows are recognised by resource-id where they have one: a control whose resource-id is
shared by another control of the same type and role (a row's title, its avatar, the row itself), or
that lies inside a scroll container, is named by its type, resource-id and role alone (the id says
what it is; its label and place are the row's content). Without a resource-id, a control inside a
scroll container counts as a row when another of its type and role lines up with it on the same
left or right edge. Either way a list contributes each kind of row once, with no label and no
position, so a list of 5 or 6 messages (or of 1 or 2) is one screen. The structure is a set: an
entry counts once however often it occurs. A list whose rows have no resource-id and do not line
up (chat bubbles of different widths, say) still changes the signature when a row comes in.

It works on live `Control`s and on the `ControlSummary`s a step record keeps (which say their
boolean attributes as a `flags` list); both give the same signature for the same screen.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass

from app.core.perception.controls import Control
from app.core.perception.locator import ControlSummary

STRUCTURE_DIGEST_BYTES = 16
"""`ScreenSignature.structure` is this many bytes of a BLAKE2b hash, as hex."""

ID_HASH_CHARS = 12
"""Hex digits of the structure shown in `ScreenSignature.id`."""

LABEL_LIMIT = 40
"""A label longer than this is content (a message, a description), not part of the structure."""

EDGE_GRID_PX = 16
"""Row edges are compared rounded to this grid, so a pixel of jitter does not split a list."""

STATE_WORDS = frozenset({"on", "off", "checked", "unchecked", "not checked", "selected", "not selected",
                         "enabled", "disabled"})
"""Labels that only say a switch's state (some phones write a switch's text as "ON"/"OFF")."""

REPEATED = "*"
"""The position of a list's row entry: rows have no place of their own."""

Role = str
"""One of "edit", "check", "scroll", "tap", "text" (the first that applies, in this order)."""


@dataclass(frozen=True)
class ScreenSignature:
    """Which screen this is: the foreground app, its activity ("" when unknown) and a hash of the
    screen's structure (hex; see the module's docstring)."""

    app: str
    activity: str
    structure: str

    @property
    def id(self) -> str:
        """A readable, stable name, e.g. `com.android.settings/.SubSettings#1f3a9c0b7d2e`.

        The activity is shortened to start with "." when it lies in the app's own package.
        """
        return f"{self.app or '?'}/{short_activity(self.app, self.activity) or '?'}#{self.structure[:ID_HASH_CHARS]}"


def short_activity(app: str, activity: str) -> str:
    """`activity` without its app's package prefix (`com.x.app.Main` → `.Main` for app `com.x.app`)."""
    if app and activity.startswith(app + "/"):
        activity = activity[len(app) + 1:]
    if app and activity.startswith(app + "."):
        return activity[len(app):]
    return activity


@dataclass(frozen=True)
class _View:
    """What the signature reads of one control, whether it came live or from a record."""

    type: str
    resource_id: str
    name: str
    rect: tuple[int, int, int, int]
    clickable: bool
    long_clickable: bool
    scrollable: bool
    checkable: bool
    password: bool

    @property
    def center(self) -> tuple[float, float]:
        return (self.rect[0] + self.rect[2]) / 2, (self.rect[1] + self.rect[3]) / 2

    @property
    def area(self) -> int:
        return max(0, self.rect[2] - self.rect[0]) * max(0, self.rect[3] - self.rect[1])


def _rect(value: object) -> tuple[int, int, int, int]:
    """A rect from a Control's tuple or a record's list; (0, 0, 0, 0) when it is not four numbers."""
    if isinstance(value, (list, tuple)) and len(value) == 4 and all(
            isinstance(edge, (int, float)) and not isinstance(edge, bool) for edge in value):
        return int(value[0]), int(value[1]), int(value[2]), int(value[3])
    return 0, 0, 0, 0


def as_view(control: Control | ControlSummary) -> _View:
    """The tiny adapter: a live `Control` (boolean attributes) or a recorded `ControlSummary`
    (a `flags` list) as the same `_View`."""
    if isinstance(control, ControlSummary):
        flags = set(control.flags) if isinstance(control.flags, list) else set()
        return _View(str(control.type or ""), str(control.resource_id or ""), str(control.name or ""),
                     _rect(control.rect), "clickable" in flags, "long_clickable" in flags,
                     "scrollable" in flags, "checkable" in flags, "password" in flags)
    return _View(control.type, control.resource_id, control.name, _rect(control.rect), control.clickable,
                 control.long_clickable, control.scrollable, control.checkable, control.password)


def role_of(view: _View) -> Role:
    """What the control is for: typing, a switch, a scrolling area, a tap target, or a text."""
    if "Edit" in view.type or view.type.endswith("AutoCompleteTextView"):
        return "edit"
    if view.checkable:
        return "check"
    if view.scrollable:
        return "scroll"
    if view.clickable or view.long_clickable:
        return "tap"
    return "text"


def stable_label(view: _View, role: Role) -> str:
    """The control's label when it belongs to the structure, else "".

    Edit fields (their text is what was typed), passwords and scroll containers have none; a row's
    "Title, summary" name counts by its title (the summary — "Off", a network's name — is state); a
    label with a digit, one longer than LABEL_LIMIT, or a checkable control's state word is dropped.
    Kept labels are compared with whitespace collapsed and case folded.
    """
    if role in ("edit", "scroll") or view.password:
        return ""
    label = " ".join(view.name.split(",", 1)[0].split()).casefold()   # a row's title, not its summary
    if not label or len(label) > LABEL_LIMIT or any(character.isdigit() for character in label):
        return ""
    if role == "check" and label in STATE_WORDS:
        return ""
    return label


def _inside(inner: _View, outer: _View) -> bool:
    """`inner`'s centre lies in `outer`, which is the larger of the two (a row of a scroll container)."""
    x, y = inner.center
    left, top, right, bottom = outer.rect
    return inner is not outer and left <= x <= right and top <= y <= bottom and inner.area < outer.area


def structure_entries(controls: Sequence[Control | ControlSummary]) -> list[tuple[str, str, str, str, str]]:
    """The screen's structure as sorted, distinct entries `(type, resource-id, role, label, cell)`.

    `cell` is "r<row>c<column>" of the control's centre in a 3×3 grid over the controls' extent,
    or REPEATED for a list's rows (see the module's docstring for what is kept and why).
    """
    views = [as_view(control) for control in controls]
    roles = [role_of(view) for view in views]
    width = max((view.rect[2] for view in views), default=0) or 1
    height = max((view.rect[3] for view in views), default=0) or 1
    scrollers = [view for view in views if view.scrollable]

    by_id: dict[tuple[str, str, Role], int] = {}
    by_edge: dict[tuple[str, Role, str, int], int] = {}
    scrolled: list[bool] = []
    for view, role in zip(views, roles, strict=True):
        inside = any(_inside(view, scroller) for scroller in scrollers)
        scrolled.append(inside)
        if view.resource_id:
            key = (view.type, view.resource_id, role)
            by_id[key] = by_id.get(key, 0) + 1
        elif inside:
            for edge in _edge_keys(view, role):
                by_edge[edge] = by_edge.get(edge, 0) + 1

    entries: set[tuple[str, str, str, str, str]] = set()
    for view, role, inside in zip(views, roles, scrolled, strict=True):
        if view.resource_id and (inside or by_id[(view.type, view.resource_id, role)] > 1):
            entries.add((view.type, view.resource_id, role, "", REPEATED))
            continue
        if not view.resource_id and inside and any(by_edge[key] > 1 for key in _edge_keys(view, role)):
            entries.add((view.type, "", role, "", REPEATED))
            continue
        label = stable_label(view, role)
        if role == "text" and not label:
            continue            # a changing text (a clock, a counter, a message): not the screen's
        x, y = view.center
        cell = f"r{min(2, int(3 * y / height))}c{min(2, int(3 * x / width))}"
        entries.add((view.type, view.resource_id, role, label, cell))
    return sorted(entries)


def _edge_keys(view: _View, role: Role) -> tuple[tuple[str, Role, str, int], ...]:
    """The keys under which aligned rows meet: the same type and role on the same left or right edge."""
    return ((view.type, role, "left", round(view.rect[0] / EDGE_GRID_PX)),
            (view.type, role, "right", round(view.rect[2] / EDGE_GRID_PX)))


def structure_hash(controls: Sequence[Control | ControlSummary]) -> str:
    """The hex hash of `structure_entries(controls)`."""
    text = json.dumps(structure_entries(controls), ensure_ascii=False, separators=(",", ":"))
    return hashlib.blake2b(text.encode("utf-8"), digest_size=STRUCTURE_DIGEST_BYTES).hexdigest()


def stable_signature(app: str, activity: str, controls: Sequence[Control | ControlSummary]) -> ScreenSignature:
    """The signature of the screen showing `controls` in `app` (its foreground package) and
    `activity` ("" when unknown): the same for the same screen whatever its changing content."""
    return ScreenSignature(app or "", activity or "", structure_hash(controls))
