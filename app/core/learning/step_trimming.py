"""A run's steps without the detours: what a skill keeps of it.

A model that lost its way leaves steps that did nothing for the result — "Open the app" while the app
was already in front, a page opened and left again with "Navigate up", a switch flipped and flipped
back. A skill saved with them repeats them every time (issue 27: a Bluetooth skill had grown to 7 steps
with "Open the app" and "Navigate up" twice each).

A stretch of steps is a detour when the screen after it is exactly the screen before it (the same
`screen_fingerprint`: every control's type, name, on/off state and place), when nothing in it typed text
(typed text may change what the screen does not show) or flipped a switch that was not flipped back as
often, and when it does not open an app for the first time in the run (the first "Open Settings" stays
even when Settings was in front: a skill must start from anywhere). The longest detour starting at each
step is cut, from the first step on; the screen after the last step is the one the run finished on.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Sequence

from app.core.agent.completion_check import normalise

from .recorded_steps import RecordedStep, ReplayScript, recorded_label

TYPING = "type_text"
LAUNCH = "launch_app"


def changes_state(step: RecordedStep) -> bool:
    """Whether the step changed something a screen may not show: it typed text, or flipped a switch."""
    return step.function == TYPING or step.target_checked is not None


def _toggled(step: RecordedStep) -> str:
    return normalise(recorded_label(step.target)) if step.target is not None else ""


def _launched(step: RecordedStep) -> str:
    return str(step.arguments.get("package_name") or "") if step.function == LAUNCH else ""


def _undone(steps: Sequence[RecordedStep], launched: set[str]) -> bool:
    """Whether the stretch may go: no typing, no first opening of an app (it makes a skill start from anywhere),
    and every switch it flipped was flipped back (an even count)."""
    if any(step.function == TYPING or (_launched(step) and _launched(step) not in launched) for step in steps):
        return False
    flips = Counter(_toggled(step) for step in steps if step.target_checked is not None)
    return all(count % 2 == 0 for count in flips.values())


def trimmed_steps(steps: Sequence[RecordedStep], final_screen: str) -> list[RecordedStep]:
    """`steps` without their detours (see the module's docstring); `final_screen` is the fingerprint of the
    screen the run finished on ("" unknown: a detour at the end is then kept)."""
    befores = [step.screen.signature for step in steps] + [final_screen]
    kept: list[RecordedStep] = []
    launched: set[str] = set()
    index = 0
    while index < len(steps):
        here = befores[index]
        end = index
        if here:
            for later in range(len(steps), index, -1):          # the longest detour first
                if befores[later] == here and _undone(steps[index:later], launched):
                    end = later
                    break
        if end > index:
            index = end
            continue
        kept.append(steps[index])
        launched.add(_launched(steps[index]))
        index += 1
    return kept


def trimmed(script: ReplayScript) -> ReplayScript:
    """A copy of `script` with its detours cut."""
    copied = copy.deepcopy(script)
    copied.steps = trimmed_steps(copied.steps, copied.final_screen)
    return copied
