"""Just before acting on what a person approved, check that the screen still shows it (GUIDE §6).

A review can take minutes; meanwhile a dialog may open, a list may scroll, a notification may
push a row down. The approved action's target (the control it names, or the one under its point)
must still be where the person saw it, with the same words; otherwise the step does nothing and
says so, and the next step looks again. The check dumps the screen afresh: the mirror's pictures
can prove a change but not its absence (a change from a moment ago may not have been streamed yet).
"""

from __future__ import annotations

from app.core.device.errors import DeviceError
from app.core.device.screen_tree import ScreenTree
from app.core.perception.controls import Control

from .actions import Action, TypeText
from .sensitive import action_point, action_target, controls_under


def rechecked_after(decision: str, action: Action) -> bool:
    """Whether the screen is read again before acting: after a person approved or edited the proposal (it
    showed the step's screen), and after an override that names a control of that screen by id. A point
    the person gave in an override is on the screen they see now (the live mirror): not checked."""
    if decision in ("approve", "edit"):
        return True
    return decision == "override" and action_point(action) is None


def approved_target(action: Action, controls: list[Control]) -> Control | None:
    """The control the approved action acts on: named by id, else the smallest one under its point."""
    target = action_target(action, controls)
    if target is None and (point := action_point(action)) is not None:
        target = next(iter(controls_under(*point, controls)), None)
    return target


def same_control(seen: Control, now: Control, *, typing: bool) -> bool:
    """`now` is the control the person saw: same kind, id, place and (unless typed into) words."""
    same = (seen.class_name, seen.resource_id, seen.rect, seen.content_desc) == (
        now.class_name, now.resource_id, now.rect, now.content_desc)
    return same and (typing or (seen.text, seen.name) == (now.text, now.name))


async def screen_moved_since_review(tree: ScreenTree, action: Action, controls: list[Control]) -> str:
    """Why the approved action must not run now ("" when the screen still shows its target as it was)."""
    target = approved_target(action, controls)
    if target is None:      # a key, a launch, a tap on nothing: no control to compare
        return ""
    try:
        now = (await tree.read_now()).controls
    except DeviceError as exc:
        return (f"Nothing was done: the screen could not be read again to check that it still shows "
                f"“{target.name}” as you approved it ({exc}).")
    typing = isinstance(action.args, TypeText)
    if any(same_control(target, control, typing=typing) for control in now):
        return ""
    return (f"Nothing was done: the screen changed while you decided — “{target.name}” is no longer where it "
            "was. The next step looks at the screen again.")
