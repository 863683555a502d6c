"""What the window can do with a past run besides reopening it: replay it, re-run its request with the model,
save it as a skill, export it, delete it.

The disk work (reading the run folder, writing a skill or a script) is plain blocking functions that
the dialogs call through `asyncio.to_thread`, so the GUI thread never waits on the disk. Each one
says in words why it cannot do what was asked (`NotReplayable`, the store's `SkillError`s), so a
dialog shows a sentence, never a traceback. `connect_learning` wires the window: a replay asked for
in the past runs list becomes a run on the window's phone, in the request panel's mode, and so does a
re-run (a new model run of the same request, with or without the stored skills).

Deleting is only ever done to a folder directly inside the runs folder that holds a recorded run; it
goes to the desktop's trash where there is one, else it is removed (the person confirmed either way).
"""

from __future__ import annotations

import asyncio
import logging
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QFile

from app.core.agent.trajectory import RUN_FILE, STEPS_FILE, write_text_atomically
from app.core.device.phone_id import PhoneId
from app.core.learning.export import export_script
from app.core.learning.recorded_steps import ReplayScript, script_from_run
from app.core.learning.skill_store import SkillStore
from app.core.learning.skills import Skill, SkillExists, skill_from_script
from app.core.paths import runs_dir
from app.core.runs.service import RunRequest

if TYPE_CHECKING:
    from app.gui.main_window import MainWindow

log = logging.getLogger(__name__)

EXPORT_FILTERS = {"uiautomator2 Python (*.py)": ("uiautomator2", ".py"), "YAML flow (*.yaml)": ("yaml", ".yaml")}
"""The export dialog's choices: name filter → (export_script's format, the file's suffix)."""
EXPORT_SUFFIXES = {".py": "uiautomator2", ".yaml": "yaml", ".yml": "yaml"}


class NotReplayable(Exception):
    """A run folder whose steps cannot be done again (gone, unreadable, or no step that worked); the
    message says why in a sentence."""


def read_script(run_dir: Path) -> ReplayScript:
    """The replayable steps of a run folder (blocking: call it in a worker thread).

    Raises NotReplayable when the folder holds no run, cannot be read, or has no step to do again."""
    run_dir = Path(run_dir)
    try:
        script = script_from_run(run_dir)
    except FileNotFoundError:
        raise NotReplayable(f"The run folder {run_dir.name} is gone or holds no recorded run "
                            "(no run.json, no steps.jsonl).") from None
    except (OSError, ValueError) as exc:
        raise NotReplayable(f"The run folder {run_dir.name} could not be read: {exc}") from None
    if not script.steps:
        why = f" (what could not be read: {'; '.join(script.problems)})" if script.problems else ""
        raise NotReplayable("It has no step that can be done again: none of its actions was carried "
                            f"out successfully{why}.")
    return script


def save_as_skill(run_dir: Path, name: str, store: SkillStore | None = None) -> tuple[Skill, Path]:
    """Save a run's steps as a new skill named `name` (blocking). Returns the skill and its file.

    Raises NotReplayable, SkillExists when the name is taken, SkillError, OSError."""
    store = store or SkillStore()
    skill = skill_from_script(read_script(run_dir), " ".join(name.split()))
    if (taken := store.find(skill.name)) is not None:    # the store would take a skill of the same run, saved
        raise SkillExists(f"a skill named {taken.name!r} already exists")   # within a second, for an edit
    return skill, store.save(skill)


def export_target(chosen: str, name_filter: str) -> tuple[Path, str]:
    """The file and format for what the save dialog returned: the typed suffix decides when it is one
    we know (.py, .yaml, .yml), else the chosen filter's suffix is added."""
    path = Path(chosen)
    fmt = EXPORT_SUFFIXES.get(path.suffix.lower())
    if fmt is not None:
        return path, fmt
    fmt, suffix = EXPORT_FILTERS.get(name_filter, next(iter(EXPORT_FILTERS.values())))
    return path.with_name(path.name + suffix), fmt


def export_run(run_dir: Path, path: Path, fmt: str) -> Path:
    """Write a run's steps as a script in `fmt` ("uiautomator2" or "yaml") to `path` (blocking).

    Raises NotReplayable, ValueError for an unknown format, OSError when the disk refuses."""
    text = export_script(read_script(run_dir), fmt)
    write_text_atomically(Path(path), text)
    return Path(path)


class NotDeletable(Exception):
    """A folder that is not a recorded run inside the runs folder (or is gone): nothing was deleted."""


def move_to_trash(path: Path) -> bool:
    """Move `path` to the desktop's trash (False where there is none or it refused)."""
    moved = QFile.moveToTrash(str(path))
    return bool(moved[0] if isinstance(moved, tuple) else moved)


def delete_run(run_dir: Path, root: Path | None = None, trash: Callable[[Path], bool] | None = None) -> str:
    """Delete a run's folder (blocking): to the trash when `trash` (e.g. `move_to_trash`) can, else for
    good. Returns what was done ("moved to the trash" or "deleted"). Raises NotDeletable for anything but a
    run folder directly inside `root` (default: the data folder's runs), and OSError when the disk refuses."""
    root = Path(root) if root is not None else runs_dir(create=False)
    run_dir = Path(run_dir)
    try:
        resolved_root, resolved = root.resolve(strict=True), run_dir.resolve(strict=True)
    except (OSError, RuntimeError):
        raise NotDeletable(f"The run folder {run_dir.name} is gone already.") from None
    if run_dir.is_symlink() or resolved.parent != resolved_root or not resolved.is_dir():
        raise NotDeletable(f"{run_dir} is not a run folder inside {root}: it was left alone.")
    if not ((resolved / RUN_FILE).is_file() or (resolved / STEPS_FILE).is_file()):
        raise NotDeletable(f"{run_dir.name} holds no recorded run (no {RUN_FILE}): it was left alone.")
    if trash is not None and trash(resolved):
        return "moved to the trash"
    shutil.rmtree(resolved)
    return "deleted"


def rerun_request(request: str, phone: str | PhoneId, mode: str, max_steps: int | None, use_skills: bool) -> RunRequest:
    """A new model run of a past run's request on `phone` (the model decides afresh; a stored skill that
    fits may be replayed only when `use_skills`)."""
    return RunRequest(request, phone=phone, mode=mode, max_steps=max_steps, use_skills=use_skills)


def replay_request(script: ReplayScript, phone: str | PhoneId, mode: str, max_steps: int | None = None) -> RunRequest:
    """The run that does `script` again on `phone` in `mode`; stored skills stay out of it (the person
    asked for this very run, not for whatever skill fits its request)."""
    return RunRequest(script.request, phone=phone, mode=mode, max_steps=max_steps, replay=script, use_skills=False)


def _can_start(window: MainWindow, what: str) -> bool:
    """Whether a run can start in the window now (a phone is ready and no run is going); if not, the status
    bar says so, and when to `what` ("replay the past run")."""
    if window.phone.session is None:
        window.show_status(f"No phone is ready yet: {what} when one is.")
        return False
    if window.starting_run or window.controller.running:
        window.show_status(f"A run is going: {what} when it has ended.")
        return False
    return True


async def replay_run(window: MainWindow, run_dir: Path) -> None:
    """Start a replay of `run_dir` in the window, as its Run button starts a run (no API key needed)."""
    if not _can_start(window, "replay the past run"):
        return
    window.starting_run = True
    try:
        script = await asyncio.to_thread(read_script, run_dir)
        session = window.phone.session
        problem = "" if session is not None else "The phone went away: the run cannot be replayed."
    except NotReplayable as exc:
        session, problem = None, f"The run cannot be replayed. {exc}"
    finally:
        window.starting_run = False
    if problem or session is None:
        window.show_status(problem)
        return
    window.starting_run = True
    window.request.set_running(True)
    request = replay_request(script, session.id, window.request.mode.currentData(),
                             window.request.max_steps.value())
    await window.ask_for_run(request)     # shows a refusal and clears starting_run, as for any run


async def rerun(window: MainWindow, request: str, use_skills: bool) -> None:
    """Start a new model run of `request` in the window, as its Run button does (the request panel shows it)."""
    session = window.phone.session
    if not _can_start(window, "run the request again") or session is None:
        return
    window.request.request.setPlainText(request)
    window.starting_run = True
    window.request.set_running(True)
    await window.ask_for_run(rerun_request(request, session.id, window.request.mode.currentData(),
                                           window.request.max_steps.value(), use_skills))


def connect_learning(window: MainWindow) -> None:
    """Wire the past runs list's Replay and Run again to the window, and keep both disabled while a run is going."""
    window.timeline.replay_requested.connect(lambda run_dir: window.spawn(replay_run(window, Path(run_dir))))
    window.timeline.rerun_requested.connect(
        lambda request, use_skills: window.spawn(rerun(window, request, bool(use_skills))))
    window.timeline.use_skills_default = lambda: window.settings.learning.use_skills
    window.controller.run_started.connect(lambda *_: window.timeline.set_run_going(True))
    window.controller.run_finished.connect(lambda *_: window.timeline.set_run_going(False))
