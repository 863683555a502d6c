"""Skills: finished runs saved under a name, as plain files a person can read and edit.

A skill holds its trigger (the request with the values its steps used pulled out as
placeholders: "Turn on {item}"), the values as recorded, its steps (`RecordedStep`s: locators,
actions and the screen expected before each), where it was recorded (phone model, Android
version, screen size, app versions: whatever the run has) and how it has done since.

Skills live one per file in `data_dir()/skills`, as YAML (the default) or JSON. The files are
read afresh on every call (an unchanged file is not parsed again). A file that is not YAML/JSON,
or whose fields are wrong (each problem names the file and the field), is reported and skipped;
the other skills load as usual. Writes are atomic, and a new file never takes the place of
another skill's file. A password is never a parameter and never stored (it stays PASSWORD_MASK).
"""

from __future__ import annotations

import copy
import os
import re
import threading
import unicodedata
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from app.core.agent.completion_check import normalise
from app.core.agent.records import REQUIRED, now_iso, read_record
from app.core.agent.trajectory import write_text_atomically
from app.core.learning.recorded_steps import RecordedStep, ReplayScript
from app.core.learning.skill_matching import (SkillMatch, TriggerError, differences, dump_text, fill_trigger,
                                              mask_password, match_request, normalise_request, parse_text,
                                              pull_parameters, trigger_problems)
from app.core.paths import data_dir
from app.core.redaction import redact_data

__all__ = ["Skill", "SkillHistory", "SkillStore", "SkillMatch", "SkillError", "SkillNotFound", "SkillExists",
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
    for index, item in enumerate(data.get("steps") if isinstance(data.get("steps"), list) else []):
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
    """A skill from a run's replayable steps; its trigger and parameters are pulled out of the request.

    Each value the steps used (a typed text, a tapped control's text, description or name) that
    appears in the request as whole words, ignoring case, becomes a parameter named after its role:
    `text` for typed text, else the tail of the control's resource-id, else `item` (then `_2`, `_3`…).
    Raises SkillError when the script has no steps."""
    if not script.steps:
        where = script.source or "the run"
        raise SkillError(f"{where} has no steps that can be done again (none was executed successfully), "
                         "so it cannot be saved as a skill")
    steps = copy.deepcopy(script.steps)
    for step in steps:
        mask_password(step)
    request = " ".join(script.request.split())
    trigger, parameters = pull_parameters(request, steps)
    fallback = f"skill from {Path(script.source).name}" if script.source else "skill"
    return Skill(name=(name or "").strip() or request or fallback, trigger=trigger, parameters=parameters,
                 request=request, imported=bool(script.approval_needed), steps=steps,
                 recorded_on=copy.deepcopy(script.recorded_on),
                 source_run=script.source, final_screen=script.final_screen,
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


def _file_stem(name: str) -> str:
    """A file name for a skill's name: lower-case ASCII words joined by '-'."""
    ascii_text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    stem = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")[:60].rstrip("-") or "skill"
    reserved = {"con", "prn", "aux", "nul", *(f"com{n}" for n in range(1, 10)), *(f"lpt{n}" for n in range(1, 10))}
    return f"{stem}-skill" if stem in reserved else stem        # names Windows keeps for devices


def _write_new(path: Path, text: str) -> bool:
    """Write `text` as `path` only if no file has that name (False when one has); atomic."""
    temp = path.with_name(f"{TEMP_PREFIX}{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    write_text_atomically(temp, text)
    try:
        os.link(temp, path)                   # fails when the name is taken, even by a racing writer
        return True
    except FileExistsError:
        return False
    except OSError:                           # no hard links on this file system: check, then rename
        if path.exists():
            return False
        os.replace(temp, path)
        return True
    finally:
        temp.unlink(missing_ok=True)


# ---------------------------------------------------------------- the store

def name_key(name: str) -> str:
    """How skill names are compared: "Turn on  Wi-Fi" and "turn on wi-fi" are one name."""
    return normalise_request(name) or name.strip().casefold()


class SkillStore:
    """The skill files of one folder (default `data_dir()/skills`): read afresh on every call, written atomically.

    Not thread-safe across processes beyond this: a new file never replaces another (hard-link
    publish), and an existing skill's file is replaced whole."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = Path(root) if root is not None else data_dir() / "skills"
        self._parsed: dict[Path, tuple[tuple[int, int, int], Skill | None, list[str]]] = {}
        self._lock = threading.RLock()

    def load(self) -> tuple[list[Skill], list[str]]:
        """Every readable skill (in file-name order) and the problems of the files that were skipped."""
        skills, problems, _ = self._scan()
        return skills, problems

    def find(self, name: str) -> Skill | None:
        """The skill with this name (compared as `name_key` does), read afresh, or None."""
        found = self._scan()[2].get(name_key(name))
        return found[0] if found else None

    def path_of(self, name: str) -> Path | None:
        found = self._scan()[2].get(name_key(name))
        return found[1] if found else None

    def save(self, skill: Skill, fmt: str = "yaml", *, replace: bool = False) -> Path:
        """Write the skill (fmt "yaml" or "json"); returns its file.

        A stored skill of the same name is replaced when it is the same skill (same `created_at` and
        `source_run`: an edit) or when `replace`; else SkillExists. A new skill's file is named after its
        name; a file name already taken gets a suffix (-2, -3…). Raises SkillFileError when the skill
        would not read back (no name, no steps, a broken trigger), OSError when the disk refuses."""
        fmt = _format(fmt)
        text = skill_to_text(skill, fmt)
        checked, problems = skill_from_text(text, fmt, f"skill {skill.name!r}")
        if checked is None:
            raise SkillFileError(problems)
        with self._lock:
            found = self._scan()[2].get(name_key(skill.name))
            if found is not None and not replace and (found[0].created_at, found[0].source_run) != \
                    (skill.created_at, skill.source_run):
                raise _taken(found)
            return self._place(text, FORMAT_SUFFIX[fmt], skill.name, found[1] if found else None)

    def rename(self, old: str, new: str) -> Skill:
        """Give a skill another name (and a file named after it). Raises SkillNotFound / SkillExists."""
        new = " ".join(new.split())
        if not new:
            raise SkillError("a skill's name cannot be empty")
        with self._lock:
            skill, path = self._get(old)
            other = self._scan()[2].get(name_key(new))
            if other is not None and other[1] != path:
                raise _taken(other)
            skill.name = new
            self._place(skill_to_text(skill, SUFFIXES[path.suffix.lower()]), path.suffix.lower(), new, path, False)
            return skill

    def delete(self, name: str) -> None:
        """Remove a skill's file. Raises SkillNotFound."""
        with self._lock:
            _, path = self._get(name)
            path.unlink(missing_ok=True)
            self._parsed.pop(path, None)

    def import_file(self, path: Path | str, *, replace: bool = False) -> Skill:
        """Check a skill file and copy it into the store as it is (comments kept); YAML unless .json.

        Raises SkillFileError with its problems, SkillExists when the name is taken (unless `replace`)."""
        path = Path(path)
        skill, problems = read_skill_file(path)
        if skill is None:
            raise SkillFileError(problems)
        fmt = SUFFIXES.get(path.suffix.lower(), "yaml")
        text = _marked_imported(skill, path.read_bytes().decode("utf-8-sig"), fmt)
        suffix = FORMAT_SUFFIX[fmt]
        with self._lock:
            found = self._scan()[2].get(name_key(skill.name))
            if found is not None and not replace:
                raise _taken(found)
            self._place(text, suffix, skill.name, found[1] if found else None)
        return skill

    def export(self, name: str, path: Path | str) -> Path:
        """Write a skill to `path`, as JSON for .json and YAML for .yaml/.yml. Raises SkillNotFound,
        SkillError for another suffix, OSError when the disk refuses."""
        path = Path(path)
        fmt = SUFFIXES.get(path.suffix.lower())
        if fmt is None:
            raise SkillError(f"{path.name}: a skill is exported as .yaml, .yml or .json")
        skill, _ = self._get(name)
        write_text_atomically(path, skill_to_text(skill, fmt))
        return path

    def record_outcome(self, name: str, success: bool, approved: bool = False) -> Skill:
        """Count one more run with the skill, and how it went (written to its file at once); a success whose
        first step a person `approved` counts in `approved_runs`."""
        with self._lock:
            skill, path = self._get(name)
            skill.approved_runs += bool(success and approved)
            history = skill.history
            history.successes += bool(success)
            history.failures += not success
            history.last_used, history.last_outcome = now_iso(), "success" if success else "failure"
            write_text_atomically(path, skill_to_text(skill, SUFFIXES[path.suffix.lower()]))
            return skill

    # ------------------------------------------------------------ inside

    def _get(self, name: str) -> tuple[Skill, Path]:
        found = self._scan()[2].get(name_key(name))
        if found is None:
            raise SkillNotFound(f"there is no skill named {name!r} in {self.root}")
        return found

    def _scan(self) -> tuple[list[Skill], list[str], dict[str, tuple[Skill, Path]]]:
        """Read the folder; an unchanged file (same time, size and inode) is not parsed again."""
        try:
            paths = sorted(path for path in self.root.iterdir()
                           if path.suffix.lower() in SUFFIXES and not path.name.startswith(TEMP_PREFIX))
        except FileNotFoundError:
            return [], [], {}
        except OSError as exc:
            return [], [f"the skills folder {self.root} could not be read ({exc.strerror or exc})"], {}
        skills, problems, by_name = [], [], {}
        with self._lock:
            for path in paths:
                skill, file_problems = self._read(path)
                problems += file_problems
                if skill is None:
                    continue
                other = by_name.get(name_key(skill.name))
                if other is not None:
                    problems.append(f"{path.name}: the name {skill.name!r} is already used by {other[1].name}; "
                                    "this file was skipped (rename one of them)")
                    continue
                skills.append(skill)
                by_name[name_key(skill.name)] = (skill, path)
            for gone in set(self._parsed) - set(paths):
                del self._parsed[gone]
        return skills, problems, by_name

    def _read(self, path: Path) -> tuple[Skill | None, list[str]]:
        try:
            stat = path.stat()
        except OSError:
            return None, []                               # removed since the folder was listed
        if not path.is_file():
            return None, []
        key = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
        cached = self._parsed.get(path)
        if cached is None or cached[0] != key:
            cached = (key, *read_skill_file(path))
            self._parsed[path] = cached
        return copy.deepcopy(cached[1]), list(cached[2])

    def _place(self, text: str, suffix: str, name: str, mine: Path | None, keep: bool = True) -> Path:
        """Write `text` as a skill's file: over `mine` (its current file) when `keep` and the format is the
        same, else under the first free name made from `name` (then `mine` is removed)."""
        self.root.mkdir(parents=True, exist_ok=True)
        if keep and mine is not None and mine.suffix.lower() == suffix:
            write_text_atomically(mine, text)
            return mine
        base, number = _file_stem(name), 1
        while True:
            stem = base if number == 1 else f"{base}-{number}"
            number += 1
            if any((other := self.root / (stem + ext)).exists() and other != mine for ext in SUFFIXES):
                continue
            target = self.root / (stem + suffix)
            if target == mine:
                write_text_atomically(target, text)
                return target
            if _write_new(target, text):
                if mine is not None:
                    mine.unlink(missing_ok=True)
                return target


def _marked_imported(skill: Skill, text: str, fmt: str) -> str:
    """An imported file's text with `skill` (as read from it) marked imported and not approved: YAML keeps its
    comments (the two lines replaced or added), unless that would read back otherwise; JSON is rewritten."""
    skill.imported, skill.approved_runs = True, 0
    if fmt == "yaml":
        kept = re.sub(r"(?m)^(imported|approved_runs)[ \t]*:.*(\n|$)", "", text).rstrip("\n")
        marked = f"{kept}\nimported: true\napproved_runs: 0\n"
        checked, _ = skill_from_text(marked, fmt, "the imported file")
        if checked == skill:
            return marked
    return skill_to_text(skill, fmt)


def _taken(found: tuple[Skill, Path]) -> SkillExists:
    return SkillExists(f"a skill named {found[0].name!r} already exists ({found[1].name}); "
                       "rename one of them, or replace it")


def _format(fmt: str) -> str:
    fmt = fmt.lower().lstrip(".")
    if fmt not in ("yaml", "yml", "json"):
        raise SkillError(f"a skill is saved as yaml or json, not {fmt!r}")
    return "json" if fmt == "json" else "yaml"
