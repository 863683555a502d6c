"""What a finished run may teach the skills (issue 27: skills that learn the right thing).

- A skill is saved only from a run whose ending was **verified** — by the screen or by the model's
  check, not claimed only — and whose steps **made progress** (steps are left once their detours are
  cut: `step_trimming`).
- One run makes an **exact** trigger (the request itself). A value becomes a parameter only when two
  verified runs **differ in it** and nothing else — the same request with one value changed, and the
  same steps with that value in the same places — or when a person says so (`Skill.generalised`).
  "Turn on Wi-Fi" and "Turn on Bluetooth" take different ways, so each stays its own skill.
- A stored skill is **replaced** (renewed) only by a run that did **at least as much from a comparable
  start**: it began in the same app, it has at least as many steps, and it typed and flipped at least as
  much. A run that found the task already done, or part of it, never replaces it.

`keep_run` applies them to one run, with the skills folder; it returns what to tell on the run's stream.
"""

from __future__ import annotations

import copy

from app.core.agent.action_kinds import kind_of
from app.core.agent.completion_check import normalise

from .recorded_steps import RecordedStep, ReplayScript, recorded_label
from .skill_matching import match_request
from .skill_store import SkillStore, name_key
from .skills import Skill, SkillError, skill_from_script
from .step_trimming import changes_state

VERIFIED = ("screen", "model")


def _effects(steps: list[RecordedStep]) -> int:
    return sum(changes_state(step) for step in steps)


def _start(steps: list[RecordedStep]) -> tuple[str, str]:
    screen = steps[0].screen if steps else None
    return (screen.package, screen.activity) if screen is not None else ("", "")


def comparable_start(old: list[RecordedStep], new: list[RecordedStep]) -> bool:
    """Whether two step lists began on a comparable screen: the same app (and activity, where both know it)."""
    (old_app, old_activity), (new_app, new_activity) = _start(old), _start(new)
    if old_app and new_app and old_app != new_app:
        return False
    return not (old_activity and new_activity and old_activity != new_activity)


def why_not_replace(old: Skill, new: Skill) -> str:
    """Why the run's skill `new` may not take the place of the stored `old` ("": it may)."""
    if not comparable_start(old.steps, new.steps):
        app, _ = _start(new.steps)
        return f"started somewhere else ({app or 'an unknown screen'}) than the skill's steps begin"
    if _effects(new.steps) < _effects(old.steps):
        return "found the task (or part of it) already done: it typed or switched less than the skill does"
    if len(new.steps) < len(old.steps):
        return f"did less ({len(new.steps)} steps) than the skill's {len(old.steps)} steps"
    return ""


def _arguments(step: RecordedStep) -> dict:
    kind = kind_of(step.function)
    skip = set(kind.control_arguments) if kind is not None else set()
    return {key: value for key, value in step.arguments.items() if key not in skip | {"control_name", "text"}}


def same_steps(left: list[RecordedStep], right: list[RecordedStep]) -> bool:
    """Whether two step lists do the same: each step the same function with the same arguments, on a control
    recorded by the same label and resource-id, typing the same text (compared as a person reads)."""
    if len(left) != len(right):
        return False
    for one, other in zip(left, right, strict=True):
        if one.function != other.function or _arguments(one) != _arguments(other):
            return False
        if normalise(str(one.arguments.get("text") or "")) != normalise(str(other.arguments.get("text") or "")):
            return False
        if (one.target is None) != (other.target is None):
            return False
        if one.target is not None and other.target is not None and (
                normalise(recorded_label(one.target)) != normalise(recorded_label(other.target))
                or one.target.resource_id != other.target.resource_id):
            return False
    return True


def generalised_by(old: Skill, new: Skill) -> Skill | None:
    """`old` with a parameter for each value the run's `new` differs in, when that is all they differ in (the
    request with those values changed, the steps with them in the same places); else None."""
    if old.imported or not old.enabled:
        return None
    old_trigger, old_values = old.candidates()
    new_trigger, new_values = new.candidates()
    if old_trigger != new_trigger or set(old_values) != set(new_values):
        return None
    differing = {name for name in old_values if normalise(old_values[name]) != normalise(new_values[name])}
    if not differing:
        return None
    swapped = ReplayScript(old.request, copy.deepcopy(old.steps)).with_parameters(
        {name: new_values[name] for name in differing}, old_values)
    if not same_steps(swapped.steps, new.steps):
        return None
    skill = old.generalised(set(old.parameters) | differing)
    skill.source_runs = [*old.runs, *new.runs]
    return skill


def _renewed(old: Skill, new: Skill) -> Skill:
    """`new`'s steps under `old`'s name and identity, keeping its history, trust and trigger's parameters."""
    renewed = copy.deepcopy(new)
    renewed.name, renewed.created_at, renewed.history = old.name, old.created_at, old.history
    renewed.imported, renewed.approved_runs, renewed.enabled = old.imported, old.approved_runs, old.enabled
    renewed.source_run = new.source_run
    renewed.source_runs = [*old.runs, *new.runs]
    if old.parameters:
        try:
            general = renewed.generalised(set(old.parameters))
        except SkillError:
            return renewed                 # the new steps do not use those values: an exact trigger
        renewed.trigger, renewed.parameters = general.trigger, general.parameters
    return renewed


def keep_run(store: SkillStore, script: ReplayScript, request: str, verification: str,
             used: Skill | None = None) -> list[str]:
    """Learn from a successful run's `script` (see the module's docstring); `used` is the stored skill that was
    played for this very request and stopped fitting (the model finished the job). Returns what to tell."""
    if verification not in VERIFIED:
        return ["This run was not saved as a skill: its ending was not verified by the screen or the model."]
    try:
        new = skill_from_script(script)
    except SkillError:
        return ["This run was not saved as a skill: its steps made no progress (each came back to where it "
                "started)."]
    skills, _ = store.load()
    old = used or next((skill for skill in skills if name_key(skill.name) == name_key(new.name)), None)
    match = match_request(request, skills)
    if old is None and match is not None and match.exact:
        old = match.skill
    if old is not None:
        stored = store.find(old.name) or old
        why = why_not_replace(stored, new)
        if why:
            return [f"Skill “{stored.name}” was kept as it is: this run {why}."]
        store.save(_renewed(stored, new), replace=True)
        return [f"Skill “{stored.name}” was renewed from this run ({len(new.steps)} steps)."]
    for other in skills:
        general = generalised_by(other, new)
        if general is not None:
            store.save(general, replace=True)
            return [f"Skill “{other.name}” now takes other values: this run differed from it only in "
                    f"{', '.join(f'{name} ({value})' for name, value in general.parameters.items())}; "
                    f"trigger “{general.trigger}”."]
    path = store.save(new)
    return [f"Saved as the skill “{new.name}” ({path.name} in the skills folder), for this request exactly."]
