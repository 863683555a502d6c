"""Skills: finished runs saved under a name, as plain files a person can read and edit.

A skill holds its trigger (the request with the values its steps used pulled out as
placeholders: "Turn on {item}"), the values as recorded, its steps (`RecordedStep`s: locators,
actions and the screen expected before each), where it was recorded (phone model, Android
version, screen size, app versions: whatever the run has) and how it has done since.

Skills live one per file in `data_dir()/skills`, as YAML (the default) or JSON (the folder is
`skill_store.SkillStore`'s: read afresh on every call, an unchanged file not parsed again). A file that is not
YAML/JSON, or whose fields are wrong (each problem names the file and the field), is reported and skipped;
the other skills load as usual. Writes are atomic, and a new file never takes the place of
another skill's file. A password is never a parameter and never stored (it stays PASSWORD_MASK).
"""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from app.core.agent.completion_check import normalise
from app.core.agent.records import REQUIRED, now_iso, read_record
from app.core.learning.recorded_steps import RecordedStep, ReplayScript
from app.core.learning.skill_matching import (
    SkillMatch,
    TriggerError,
    differences,
    dump_text,
    escape_literal,
    fill_trigger,
    mask_password,
    match_request,
    narrow_trigger,
    parse_text,
    pull_parameters,
    trigger_problems,
)
from app.core.learning.step_trimming import trimmed_steps
from app.core.redaction import redact_data

__all__ = ["Skill", "SkillHistory", "SkillMatch", "SkillError", "SkillNotFound", "SkillExists",
           "SkillFileError", "skill_from_script", "match_request", "differences", "skill_to_text", "skill_from_text"]

SKILL_VERSION = 1
"""The skill file format's version (`Skill.version`)."""
SUFFIXES = {".yaml": "yaml", ".yml": "yaml", ".json": "json"}
FORMAT_SUFFIX = {"yaml": ".yaml", "json": ".json"}
MAX_FILE_BYTES = 5_000_000
"""A larger file is not a skill anyone wrote; it is reported, not parsed."""
TEMP_PREFIX = "."


class SkillError(Exception):
    """A skill could not be made, found, read or written; the message says why."""


class SkillNotFound(SkillError):
    """No skill has that name."""


class SkillExists(SkillError):
    """Another skill already has that name."""


class SkillFileError(SkillError):
    """A skill file (or a skill about to be written) has problems, each naming the file and field."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass
class SkillHistory:
    """How the skill has done since it was saved."""

    successes: int = 0
    failures: int = 0
    last_used: str = ""          # ISO time of the last run with it
    last_outcome: str = ""       # "success" / "failure"


@dataclass
class Skill:
    """A saved run that can be done again, with other values for its parameters."""

    name: str = field(default="", metadata=REQUIRED)
    trigger: str = ""                                            # "Turn on {item}"; empty: the request only
    parameters: dict[str, str] = field(default_factory=dict)     # placeholder name → value as recorded
    request: str = ""                                            # the recorded request
    enabled: bool = True
    imported: bool = False        # its steps came from outside this desk's own runs: a file, an edited run folder
    approved_runs: int = 0        # runs of it that a person approved (its first step) and that succeeded
    history: SkillHistory = field(default_factory=SkillHistory)
    recorded_on: dict[str, Any] = field(default_factory=dict)   # model, android, screen size, app versions…
    source_run: str = ""                                         # the run folder it was made from
    source_runs: list[str] = field(default_factory=list)         # every run folder it was learned from, oldest first
    created_at: str = field(default_factory=lambda: now_iso("milliseconds"))   # also the skill's identity
    version: int = SKILL_VERSION
    steps: list[RecordedStep] = field(default_factory=list, metadata=REQUIRED)
    final_screen: str = ""                                       # the screen signature the recorded run ended on
    finish_comment: str = ""                                     # what the recorded run said when it finished
    problems: list[str] = field(default_factory=list, compare=False, repr=False)   # from reading; never written

    def script(self, values: dict[str, str] | None = None) -> ReplayScript:
        """The steps to do, with `values` (placeholder name → new value) in place of the recorded ones.

        Raises SkillError for a name the skill has no parameter for."""
        values = {name: str(value) for name, value in (values or {}).items() if value is not None}
        unknown = sorted(set(values) - set(self.parameters))
        if unknown:
            have = ", ".join(self.parameters) or "none"
            raise SkillError(f"the skill {self.name!r} has no parameter {', '.join(unknown)} (it has: {have})")
        chosen = {name: value for name, value in values.items() if value.strip()}
        same_values = all(normalise(value) == normalise(self.parameters.get(name, ""))
                          for name, value in chosen.items())
        script = ReplayScript(request=self.request, steps=copy.deepcopy(self.steps), source=self.name,
                              recorded_on=copy.deepcopy(self.recorded_on), ended="success",
                              finish_comment=self.finish_comment,
                              final_screen=self.final_screen if same_values else "")   # other values: other end
        script = script.with_parameters(chosen, self.parameters)
        script.approval_needed = self.approval_needed(same_values)
        if chosen and self.trigger:
            try:
                script.request = fill_trigger(self.trigger, {**self.parameters, **chosen})
            except TriggerError:
                pass                         # a loaded skill's trigger was checked; the swapped request stands
        return script

    def candidates(self) -> tuple[str, dict[str, str]]:
        """The trigger with every value that could be a parameter pulled out, and those values as recorded:
        the values the steps used (a typed text, the label a tapped control was recorded by) that the request
        names as whole words. A skill uses only those a person chose or two verified runs differed in."""
        return pull_parameters(self.request, self.steps)

    def generalised(self, names: set[str] | list[str] | tuple[str, ...]) -> Skill:
        """A copy whose trigger has a placeholder for each candidate value named in `names` (see `candidates`),
        the other values written out; no names: an exact trigger. Raises SkillError for a name that is no
        candidate."""
        trigger, values = self.candidates()
        unknown = sorted(set(names) - set(values))
        if unknown:
            have = ", ".join(f"{name} = {value}" for name, value in values.items()) or "none"
            raise SkillError(f"the skill {self.name!r} has no value {', '.join(unknown)} to generalise "
                             f"(it has: {have})")
        skill = copy.deepcopy(self)
        keep = set(names)
        skill.trigger = narrow_trigger(trigger, values, keep) if keep else escape_literal(self.request)
        skill.parameters = {name: value for name, value in values.items() if name in keep}
        return skill

    @property
    def runs(self) -> list[str]:
        """The run folders it was learned from (older files name one, in `source_run`)."""
        return self.source_runs or ([self.source_run] if self.source_run else [])

    def approval_needed(self, same_values: bool = True) -> str:
        """Why a person approves its first step even in auto mode ("": no need): until a person has approved
        a run of it once, an imported skill always, and one used with other values than it was recorded with."""
        if self.approved_runs > 0:
            return ""
        if self.imported:
            return f"the skill “{self.name}” was imported and has not been approved by you yet"
        if not same_values:
            return (f"the skill “{self.name}” is used with new values for the first time and has not been "
                    "approved by you yet")
        return ""

    def to_dict(self) -> dict[str, Any]:
        """The skill as written to its file: empty parts of a step's locator and screen left out."""
        data = asdict(self)
        del data["problems"]
        data["steps"] = [_compact_step(step) for step in data["steps"]]
        return data

    @classmethod
    def from_dict(cls, data: Any, where: str = "skill") -> Skill:
        """Read a skill tolerantly (`read_record`), then check what the types cannot say; every problem
        names `where` and the field, and is in `problems` (the store skips a skill that has any)."""
        if isinstance(data, dict) and isinstance(raw_steps := data.get("steps"), list):
            data = {**data, "steps": [{"step": index, **item} if isinstance(item, dict) and "step" not in item
                                      else item for index, item in enumerate(raw_steps, 1)]}   # hand-written: no number
        skill = read_record(cls, data, where)
        skill.problems += _check(skill, data if isinstance(data, dict) else {}, where, skill.problems)
        return skill


def _compact_step(step: dict[str, Any]) -> dict[str, Any]:
    """A step's dict without the empty fields of its target and screen (reading gives them back)."""
    for part in ("target", "screen"):
        if isinstance(step.get(part), dict):
            step[part] = {key: value for key, value in step[part].items() if value not in ("", [], {}, None, False)}
    return {key: value for key, value in step.items() if value not in ("", None)}


def _check(skill: Skill, data: dict, where: str, found: list[str]) -> list[str]:
    """What makes a well-typed skill unusable: no name, no steps, an action without a function,
    a trigger that cannot be read or names a parameter the skill does not have."""
    problems = []
    if "name" in data and not skill.name.strip():
        problems.append(f"{where}: 'name' is empty")
    if not skill.steps and not any("'steps" in problem for problem in found):
        problems.append(f"{where}: 'steps' is empty; a skill needs at least one step")
    for index, item in enumerate(raw if isinstance(raw := data.get("steps"), list) else []):
        action = item.get("action") if isinstance(item, dict) else None
        if isinstance(action, dict):
            if not isinstance(action.get("function"), str) or not action["function"].strip():
                problems.append(f"{where}: 'steps[{index}].action.function' is missing or empty")
            if "arguments" in action and not isinstance(action["arguments"], dict):
                problems.append(f"{where}: 'steps[{index}].action.arguments' should be an object")
        elif isinstance(item, dict) and "action" not in item:
            problems.append(f"{where} has no 'steps[{index}].action'")
    return problems + trigger_problems(skill.trigger, skill.parameters, where)


# ---------------------------------------------------------------- making a skill from a run

def skill_from_script(script: ReplayScript, name: str | None = None) -> Skill:
    """A skill from a run's replayable steps, their detours cut (`step_trimming`), with an exact trigger: the
    request itself. One run does not say which of its values may change; a value becomes a parameter when two
    verified runs differ in it, or a person says so (`Skill.generalised`; `candidates` lists the values:
    `text` for typed text, else the tail of the control's resource-id, else `item`, then `_2`, `_3`…).
    Raises SkillError when the script has no steps (or none left once its detours are cut)."""
    steps = trimmed_steps(copy.deepcopy(script.steps), script.final_screen)
    if not steps:
        where = script.source or "the run"
        why = "none was executed successfully" if not script.steps else "each came back to where it started"
        raise SkillError(f"{where} has no steps that can be done again ({why}), so it cannot be saved as a skill")
    for step in steps:
        mask_password(step)
    request = " ".join(script.request.split())
    fallback = f"skill from {Path(script.source).name}" if script.source else "skill"
    return Skill(name=(name or "").strip() or request or fallback, trigger=escape_literal(request), parameters={},
                 request=request, imported=bool(script.approval_needed), steps=steps,
                 recorded_on=copy.deepcopy(script.recorded_on), source_run=script.source,
                 source_runs=[script.source] if script.source else [], final_screen=script.final_screen,
                 finish_comment=script.finish_comment)


# ---------------------------------------------------------------- files

def skill_to_text(skill: Skill, fmt: str = "yaml") -> str:
    """The skill as a file's text, in "yaml" or "json" (redacted, like everything the app writes)."""
    return dump_text(redact_data(skill.to_dict()), fmt)


def skill_from_text(text: str, fmt: str, where: str) -> tuple[Skill | None, list[str]]:
    """A skill from a file's text, or None with the problems (each starting with `where`)."""
    try:
        data = parse_text(text, fmt)
    except ValueError as exc:
        return None, [f"{where} {exc}; it was skipped"]
    if not isinstance(data, dict):
        kind = "empty" if data is None else f"a {type(data).__name__}"
        return None, [f"{where} does not hold a skill: its top level is {kind}, not a mapping of fields; "
                      "it was skipped"]
    skill = Skill.from_dict(data, where)
    if skill.problems:
        return None, skill.problems + [f"{where}: the skill was skipped until this is fixed"]
    return skill, []


def read_skill_file(path: Path) -> tuple[Skill | None, list[str]]:
    """A skill from a file (format by its suffix; YAML unless .json), or None with the problems."""
    where = path.name
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return None, [f"{where} is larger than {MAX_FILE_BYTES // 1_000_000} MB, too large for a skill; "
                          "it was skipped"]
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        return None, [f"{where} is not a text file (not UTF-8); it was skipped"]
    except OSError as exc:
        return None, [f"{where} could not be read ({exc.strerror or exc}); it was skipped"]
    return skill_from_text(text, SUFFIXES.get(path.suffix.lower(), "yaml"), where)
