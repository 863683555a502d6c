"""Whether a screen is still loading: a progress indicator on it (Android's ProgressBar, Material's
CircularProgressIndicator / LinearProgressIndicator, AndroidX's ContentLoadingProgressBar).

uiautomator does not say whether a ProgressBar is indeterminate (a spinner) or a determinate bar (a
storage gauge), so the indicator alone does not make a screen "loading": the agent also needs the
screen to keep moving (`app/core/agent/loading_wait.py`). SeekBar and RatingBar are ProgressBars in
Java but are named for what they are, and are not counted.
"""

from __future__ import annotations

from .hierarchy import UiHierarchy, UiNode

_INDICATOR_ENDINGS = ("ProgressBar", "ProgressIndicator")


def loading_indicator(hierarchy: UiHierarchy) -> UiNode | None:
    """The first progress indicator a person could see on the screen, or None."""
    for node in hierarchy.iter_nodes():
        if not node.class_name.endswith(_INDICATOR_ENDINGS):
            continue
        if node.attributes.get("visible-to-user") == "false" or node.bounds is None:
            continue
        left, top, right, bottom = node.bounds
        if right > left and bottom > top:
            return node
    return None
