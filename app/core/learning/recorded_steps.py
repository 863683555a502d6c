"""What a past run did, as steps that can be done again: the shared form of replay, skills and export.

A `ReplayScript` is the actions of a finished run as finally decided — approved, edited or
replaced by the person; proposals the person rejected were never executed and are not in
the steps file; actions that failed, and steps that did nothing, are left out. Each step
keeps the target's locator (resource-id, text, content-desc, class, position in the tree,
nearby labels), never relying on its old numeric id, and the screen it was taken on (app,
activity, signature), so a replay can check that the phone shows the same thing first.
"""

from __future__ import annotations

import copy
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from app.core.agent.action_kinds import kind_of
from app.core.agent.completion_check import normalise
from app.core.agent.records import StepRecord, read_record
from app.core.agent.steps_seal import is_sealed
from app.core.agent.trajectory import RUN_FILE, STEPS_FILE, load_run
from app.core.perception.locator import TargetLocator

QUESTION_FUNCTION = "ask_user"

UNSEALED_RUN = ("this run folder's steps are not as this desk recorded them (edited, copied from elsewhere, "
                "or never finished), so you approve its first step")
"""Why an edited run folder's replay asks before its first step, even in auto mode."""

OLD_CONTROL_NUMBER = re.compile(r"\s*\(#\d+\)")
"""The "(#3)" a recorded step's words carry: a number that held on the recorded screen only."""


@dataclass
class ExpectedScreen:
    """The screen an action was recorded on."""

    package: str = ""
    activity: str = ""
    signature: str = ""          # the step's screen_signature (screen_diff.screen_fingerprint of its controls)
    controls_count: int = 0


@dataclass
class RecordedStep:
    """One action to do again: the action as executed, the control it acted on, the screen before it."""

    step: int                                                    # its number in the recorded run
    action: dict[str, Any] = field(default_factory=dict)         # {"function", "arguments", "status"}
    action_text: str = ""
    target: TargetLocator | None = None
    screen: ExpectedScreen = field(default_factory=ExpectedScreen)
    decided_by: str = ""                                         # approve / edit / override / auto
    target_checked: bool | None = None    # a step that flipped a switch: its state before (None: not a toggle)


    @property
    def function(self) -> str:
        return str(self.action.get("function") or "")

    @property
    def arguments(self) -> dict[str, Any]:
        arguments = self.action.get("arguments")
        return arguments if isinstance(arguments, dict) else {}

    @property
    def status(self) -> str:
        return str(self.action.get("status") or "CONTINUE").upper()

    @property
    def words(self) -> str:
        """The step in words without the old screen's control number ("Tap “Wi‑Fi”", not "… (#3)")."""
        return OLD_CONTROL_NUMBER.sub("", self.action_text) or self.function

    @property
    def target_argument(self) -> str | None:
        """The argument that names the action's target control (its kind's), if the action has one."""
        kind = kind_of(self.function)
        return kind.target_argument if kind is not None else None

    @property
    def needs_target(self) -> bool:
        """Whether the action names a control (found again by `target`, not by its old id)."""
        argument = self.target_argument
        return argument is not None and self.arguments.get(argument) is not None


@dataclass
class ReplayScript:
    """The steps of a past run (or a skill), and where and how they were recorded."""

    request: str
    steps: list[RecordedStep] = field(default_factory=list)
    source: str = ""                                  # the run folder or the skill's name
    recorded_on: dict[str, Any] = field(default_factory=dict)   # phone: model, serial, virtual, android, screen size
    ended: str = ""                                   # the recorded run's status (success, failed…)
    finish_comment: str = ""                          # what the run said when it finished
    final_screen: str = ""                            # the screen_signature the recorded run finished on
    problems: list[str] = field(default_factory=list)   # what could not be read from the run
    approval_needed: str = ""     # why a person approves its first step even in auto mode ("": no need),
                                  # e.g. the steps were imported or edited, or take new values

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any, where: str = "replay script") -> ReplayScript:
        return read_record(cls, data, where)

    def with_parameters(self, values: dict[str, str], recorded: dict[str, str]) -> ReplayScript:
        """A copy in which each recorded parameter value (`recorded[name]`, e.g. "Wi‑Fi") is replaced by the
        new one (`values[name]`, e.g. "Bluetooth") only where a step used exactly that value: a typed text
        that is the value, a target whose `recorded_label` is the value. Never inside another label: "Network
        & internet, Mobile, Wi‑Fi, hotspot" and "Use Wi‑Fi" stay as recorded."""
        script = copy.deepcopy(self)
        swaps = [(recorded[name], values[name]) for name in values if recorded.get(name) and values[name]]
        for old, new in swaps:
            script.request = script.request.replace(old, new)
        for step in script.steps:
            for old, new in swaps:
                if _swap_value(step, old, new):
                    break
        return script


def recorded_label(target: TargetLocator) -> str:
    """The words a control was recorded by: its text, else its description, else its name's first part (the
    row "Wi‑Fi, Off" is "Wi‑Fi"; the row "Network & internet, Mobile, Wi‑Fi, hotspot" is "Network & internet")."""
    return target.text or target.content_desc or target.name.split(",", 1)[0].strip()


def _same(text: str, value: str) -> bool:
    """Whether `text` is exactly `value` as a person reads it (case, dashes and spaces aside)."""
    return bool(text) and normalise(text) == normalise(value)


def _swap_value(step: RecordedStep, old: str, new: str) -> bool:
    """Put `new` in place of `old` in the step where it used exactly `old` (see `with_parameters`);
    whether it did."""
    arguments = step.arguments
    if step.function == "type_text":
        typed = arguments.get("text")
        if not isinstance(typed, str) or not _same(typed, old):
            return False
        arguments["text"] = new
        step.action_text = step.action_text.replace(typed, new, 1)
        return True
    target = step.target
    shown = recorded_label(target) if target is not None else ""
    if target is None or not _same(shown, old):
        return False
    label, comma, rest = target.name.partition(",")
    if _same(label, old):                  # the row's label, its state after the comma kept: "Wi‑Fi, Off"
        target.name = new + comma + rest
    if isinstance(arguments.get("control_name"), str) and _same(arguments["control_name"].partition(",")[0], old):
        arguments["control_name"] = new + "".join(arguments["control_name"].partition(",")[1:])
    step.action_text = step.action_text.replace(shown, new, 1)
    target.text = new if target.text else ""
    target.content_desc = new if _same(target.content_desc, old) else target.content_desc
    target.xpath, target.node_path, target.bounds, target.anchors = "", [], [], []   # they described the old one
    return True


def _inside(inner: list[int], outer: list[int]) -> bool:
    if len(inner) != 4 or len(outer) != 4:
        return False
    x, y = (inner[0] + inner[2]) / 2, (inner[1] + inner[3]) / 2
    return outer[0] <= x <= outer[2] and outer[1] <= y <= outer[3]


def switch_state(controls: list, bounds: list[int]) -> bool | None:
    """The on/off state of the one checkable control whose centre lies within `bounds` (the target itself, or
    the switch in its row), from a step's recorded controls; None when there is not exactly one."""
    inside = [control for control in controls if "checkable" in control.flags and _inside(control.rect, bounds)]
    return ("checked" in inside[0].flags) if len(inside) == 1 else None


def toggled_from(record: StepRecord, after: StepRecord | None) -> bool | None:
    """When the step's action flipped a switch — the next recorded screen shows the switch at the target's
    place in the other state — the state it had before; else None (tapping a row that opens a page is
    not a toggle, even when the row holds a switch)."""
    if record.target is None or after is None or not record.target.bounds:
        return None
    before = switch_state(record.controls, record.target.bounds)
    later = switch_state(after.controls, record.target.bounds)
    return before if before is not None and later is not None and later != before else None


def _kept(record: StepRecord) -> bool:
    """Whether a recorded step is done again: an executed action that worked (FINISH/FAIL's own ending
    is kept separately), not one the person stopped at."""
    function = str(record.action.get("function") or "")
    if not function or (record.decision is not None and record.decision.kind in ("reject", "stop")):
        return False
    if record.result is None:
        return False
    return record.result.success


def script_from_steps(request: str, steps: list[StepRecord], *, source: str = "",
                      recorded_on: dict[str, Any] | None = None, ended: str = "") -> ReplayScript:
    """The replayable steps of a run's step records."""
    script = ReplayScript(request=request, source=source, recorded_on=dict(recorded_on or {}), ended=ended)
    for index, record in enumerate(steps):
        if record.status == "FINISH":
            script.finish_comment = record.comment or record.thought
            script.final_screen = record.screen_signature
        if not _kept(record):
            continue
        action = copy.deepcopy(record.action)
        action["status"] = "CONTINUE"
        kind = kind_of(str(action.get("function") or ""))
        if kind is not None and isinstance(action.get("arguments"), dict):
            action["arguments"] = kind.recorded(action["arguments"], record.controls)
        script.steps.append(RecordedStep(
            step=record.step, action=action, action_text=record.action_text, target=record.target,
            screen=ExpectedScreen(record.foreground, record.activity, record.screen_signature,
                                  record.controls_count),
            decided_by=record.decision.kind if record.decision else "",
            target_checked=toggled_from(record, steps[index + 1] if index + 1 < len(steps) else None)))
    return script


def script_from_run(run_dir: Path | str) -> ReplayScript:
    """The replayable steps of a recorded run folder; what could not be read is in `problems`.

    Raises FileNotFoundError when the folder holds no run at all."""
    run_dir = Path(run_dir)
    if not (run_dir / "run.json").is_file() and not (run_dir / "steps.jsonl").is_file():
        raise FileNotFoundError(f"{run_dir} is not a recorded run (it has no run.json or steps.jsonl)")
    loaded = load_run(run_dir)
    request = loaded.run.request or next((step.request for step in loaded.steps if step.request), "")
    ended = loaded.run.result.status if loaded.run.result is not None else "unfinished"
    script = script_from_steps(request, loaded.steps, source=str(run_dir),
                               recorded_on={**loaded.run.device, "started_at": loaded.run.started_at}, ended=ended)
    script.problems = list(loaded.problems)
    if not is_sealed(run_dir, RUN_FILE, STEPS_FILE):
        script.approval_needed = UNSEALED_RUN
    return script
