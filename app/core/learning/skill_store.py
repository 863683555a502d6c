"""The skill files of one folder: found by name, read afresh (an unchanged file is not parsed again), written
atomically; a new file never takes the place of another skill's file, and an imported file is marked
imported (it asks before its first step until a person has approved a run of it)."""

from __future__ import annotations

import copy
import os
import re
import threading
import unicodedata
import uuid
from pathlib import Path

from app.core.agent.records import now_iso
from app.core.agent.trajectory import write_text_atomically
from app.core.learning.skill_matching import normalise_request
from app.core.paths import data_dir

from .skills import (
    FORMAT_SUFFIX,
    SUFFIXES,
    TEMP_PREFIX,
    Skill,
    SkillError,
    SkillExists,
    SkillFileError,
    SkillNotFound,
    read_skill_file,
    skill_from_text,
    skill_to_text,
)


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
        skills: list[Skill] = []
        problems: list[str] = []
        by_name: dict[str, tuple[Skill, Path]] = {}
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
