"""The oracle's reading of a chat request: the screen's controls as the prompt lists them, finding a script step's
control among them, and whether the screen already shows a task's expected end (`oracle_model` answers from it)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from app.core.agent.completion_check import normalise
from app.core.perception.controls import prompt_role

from .task_suite import ScriptStep, Target

ROW_SLACK_PX = 60               # a switch counts as a row's when their centres are this close vertically

# `12 button "Send" tap,checked @540,2200` (`Control.to_prompt_line`): a role word (none for plain text or a
# container), the JSON-quoted name (left out when it is only the class: the role or class stands for it),
# the states, the centre.
_CONTROL_LINE = re.compile(r'^(\d+)(?: ([^\s"]+))?(?: ("(?:[^"\\]|\\.)*"))?(?: ([a-z,]+))? @(-?\d+),(-?\d+)$')


@dataclass(frozen=True)
class ScreenControl:
    """One control as the prompt lists it."""

    id: int
    type: str
    name: str
    flags: frozenset[str]
    x: int
    y: int

    @property
    def parts(self) -> list[str]:
        """A row's "Title, summary" name in its parts, normalised."""
        return [normalise(part) for part in self.name.split(",") if part.strip()]


def message_texts(body: dict[str, Any], role: str = "user") -> list[str]:
    """The text of each message of `role` in a chat-completions request, last first."""
    texts = []
    for message in reversed(body.get("messages", [])):
        if message.get("role") != role:
            continue
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        else:
            texts.append("\n".join(part.get("text", "") for part in content or [] if part.get("type") == "text"))
    return texts


def screen_controls(body: dict[str, Any]) -> list[ScreenControl]:
    """The controls of the last user message that lists any (a retry message lists none)."""
    for text in message_texts(body):
        controls = []
        for line in text.splitlines():
            match = _CONTROL_LINE.match(line.strip())
            if match:
                number, kind, quoted, flags, x, y = match.groups()
                name = json.loads(quoted) if quoted else kind or ""
                states = frozenset(filter(None, (flags or "").split(",")))
                controls.append(ScreenControl(int(number), kind or "", name, states, int(x), int(y)))
        if controls:
            return controls
    return []


def find_control(controls: list[ScreenControl], target: Target, clickable_only: bool = False) -> ScreenControl | None:
    """The control `target` names on this screen, or None (see `Target` for the order of the tests); with
    `clickable_only`, only a control the prompt marks clickable (a tap's target, not a page's title)."""
    candidates = [c for c in controls if (not target.kind or c.type in (target.kind, prompt_role(target.kind)))
                  and (not clickable_only or "tap" in c.flags)]
    if target.above:
        label = find_control(controls, Target(target.above))
        if label is None:
            return None
        over = [c for c in candidates if c.y < label.y and c is not label]
        return min(over, key=lambda c: (label.y - c.y) + abs(label.x - c.x), default=None)
    wanted = normalise(target.name)
    tests = (lambda c: c.name == target.name, lambda c: normalise(c.name) == wanted,
             lambda c: c.parts[:1] == [wanted], lambda c: wanted in c.parts,
             lambda c: normalise(c.name).startswith(wanted), lambda c: wanted in normalise(c.name))
    for test in tests:
        for control in candidates:
            if test(control):
                return control
    return None


def target_shown(step: ScriptStep, controls: list[ScreenControl]) -> bool:
    """Whether the control `step` acts on is on this screen (a tap's target only among clickable ones)."""
    return step.target is not None and find_control(controls, step.target, step.function == "click_control") is not None


def find_control_id(body: dict[str, Any], name: str) -> int:
    """The id of the control called `name` on the request's screen. LookupError names the controls shown."""
    controls = screen_controls(body)
    control = find_control(controls, Target(name))
    if control is None:
        raise LookupError(f"no control named {name!r} on the screen; it shows: {sorted({c.name for c in controls})}")
    return control.id


def expectation_shown(expect: dict[str, Any], controls: list[ScreenControl]) -> bool:
    """Whether the screen already shows a FINISH `expect` ({"control", "checked"} or {"control", "text"})."""
    wanted = normalise(str(expect.get("control") or ""))
    named = [c for c in controls if not wanted or normalise(c.name) == wanted or wanted in c.parts[:1]]
    if expect.get("text"):
        text = normalise(str(expect["text"]))
        return any(text in normalise(c.name) for c in named)
    if "checked" not in expect or not named:
        return False
    return any(switched(control, controls, bool(expect["checked"])) for control in named)


def switched(control: ScreenControl, controls: list[ScreenControl], on: bool) -> bool:
    """Whether `control` (a switch, or a row with its switch beside it) shows the switch `on` (or off)."""
    flag = "checked" if on else "unchecked"
    switches = [control] if control.flags & {"checked", "unchecked"} else [
        c for c in controls if c.flags & {"checked", "unchecked"} and abs(c.y - control.y) <= ROW_SLACK_PX]
    return bool(switches) and all(flag in s.flags for s in switches)
