"""How the inspector hangs together with the window: hover both ways with the mirror, and the
Hierarchy tab kept live during a run from the tree the run itself read (no dump of its own)."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from app.core.perception.controls import Control
from app.core.perception.hierarchy import UiHierarchy

KEPT_SNAPSHOTS = 4
"""Recent snapshots of the phone panel kept to find a run step's tree in (a run's first step often
reuses the dump the mirror's overlay read a moment before)."""


def connect_inspector(window) -> RunTrees:
    """The control under the mouse on the mirror is tinted in the inspector's table and tree; the
    row or node under the mouse in the inspector is outlined on the mirror. (Selection is wired
    by the window: mirror.control_selected ↔ inspector.show_control / control_selected.) Returns
    the `RunTrees` that finds a run step's tree, kept as `window.run_trees`."""
    window.mirror.control_hovered.connect(window.inspector.show_hovered)
    window.inspector.highlight_requested.connect(window.mirror.show_highlight)
    window.run_trees = RunTrees(window.phone)
    window.phone.controls_ready.connect(window.run_trees.remember)
    return window.run_trees


class RunTrees:
    """Finds the UI tree a run's step read its controls from, without reading the phone.

    A run reads the screen through its phone session's shared `ScreenTree`, which keeps its latest
    reading; when that reading came from the device's cached dump (the one the phone panel read a
    moment before, or the one prefetched right after the last action), the tree does not keep it,
    but the device's cache still holds it. The step's controls are one of those snapshots' lists
    (or equal to it): its hierarchy is the tree. Only attributes are read here, on the GUI thread:
    nothing waits for the phone, nothing dumps. A run on another phone (a task another program
    posted) finds nothing, and its tree stays empty.
    """

    def __init__(self, phone) -> None:
        self.phone = phone
        self._seen: deque = deque(maxlen=KEPT_SNAPSHOTS)

    def remember(self, snapshot) -> None:
        """A snapshot the phone panel read (its `controls_ready` signal)."""
        self._seen.append(snapshot)

    def hierarchy_for(self, controls: Sequence[Control]) -> UiHierarchy | None:
        candidates = list(self._seen)
        session = getattr(self.phone, "session", None)
        # The device's cached dump: AndroidDevice has no public read-only accessor for it (its
        # `controls()` may dump), so its attribute is read as it is; a missing one finds nothing.
        cached = getattr(getattr(session, "device", None), "cached_controls", None)
        if cached is not None:
            candidates.append(cached)
        reading = getattr(getattr(session, "screen_tree", None), "latest", None)
        if reading is not None:
            candidates.append(reading.snapshot)
        for snapshot in reversed(candidates):
            if snapshot.controls is controls:
                return snapshot.hierarchy
        for snapshot in reversed(candidates):
            if len(snapshot.controls) == len(controls) and snapshot.controls == list(controls):
                return snapshot.hierarchy
        return None


def run_hierarchy(phone, controls: Sequence[Control]) -> UiHierarchy | None:
    """`RunTrees(phone).hierarchy_for(controls)`: the phone session's latest reading only."""
    return RunTrees(phone).hierarchy_for(controls)
