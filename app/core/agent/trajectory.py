"""The record of a run: one folder per run under `runs_dir()` (GUIDE §2 "Trajectory").

Layout of `YYYYmmdd-HHMMSS-<request-slug>/`:
    run.json                  a `RunRecord`: request, device, model, settings, started_at, finished_at,
                              result, report, version
    steps.jsonl               one `StepRecord` per line, appended and fsynced as each step ends
    step_NNN.png              the screen the model saw at step NNN
    step_NNN_annotated.png    the same with the numbered controls drawn on it
    report.html               written by `app.core.agent.report`
    screen.mp4                the run's screen as the phone streamed it (screen-2.mp4… after the phone
                              turned), when the mirror streams; named in run.json's "screen_recordings"

`TrajectoryWriter` is the one writer and `load_run` the one reader (records.py holds the
types and their tolerant reading). Everything written here goes through `redact_data`
first, so no API key or Authorization header lands in the folder. Every file is written
under a temporary name and renamed into place when complete (steps.jsonl is appended to),
so a crash loses at most the step in progress and never leaves half an image under its
final name; `load_run` skips a half-written last line and says so, `check_run` reports
temporary leftovers.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import threading
import unicodedata
import uuid
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from PIL import Image

from app.core.agent.records import RECORD_VERSION, RunRecord, RunResult, StepRecord, now_iso
from app.core.agent.run_liveness import RunningMark
from app.core.agent.steps_seal import STEPS_SEAL_KEY, seal
from app.core.paths import runs_dir
from app.core.redaction import redact, redact_data

RUN_FILE = "run.json"
STEPS_FILE = "steps.jsonl"
REPORT_FILE = "report.html"
SCREEN_RECORDINGS_KEY = "screen_recordings"
"""run.json's list of the run's screen video files (app.core.runs.screen_recording), in order."""
TEMP_SUFFIX = ".tmp"
"""Files being written carry this ending until they are complete and renamed into place."""
FORMAT_VERSION = RECORD_VERSION
SLUG_MAX_LENGTH = 40
PNG_COMPRESS_LEVEL = 1  # fast: a step's screenshots are written while the run goes on


def slugify(text: str, max_length: int = SLUG_MAX_LENGTH) -> str:
    """Lower-case ASCII letters and digits joined by '-', at most `max_length` long; "run" if empty."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return slug[:max_length].rstrip("-") or "run"


def step_image_names(step: int) -> tuple[str, str]:
    """The file names of a step's clean and annotated screenshots."""
    return f"step_{step:03d}.png", f"step_{step:03d}_annotated.png"


def _to_json(data: Any, **options: Any) -> str:
    """JSON text of `data`, redacted (values JSON cannot hold become strings first, then are redacted too)."""
    plain = json.loads(json.dumps(data, default=str))
    return json.dumps(redact_data(plain), ensure_ascii=False, **options)


def write_text_atomically(path: Path, text: str) -> None:
    """Write to a temporary file, fsync, then rename over `path`: never half a file."""
    temp = path.with_name(path.name + TEMP_SUFFIX)
    try:
        with temp.open("w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)      # a full or read-only disk leaves the old file as it was
        raise


def append_atomically(path: Path, data: bytes) -> None:
    """Append `data` to `path` and fsync; if the write fails (disk full…), cut the file back to
    where it was, so it never ends in part of a line."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        start = os.fstat(fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        except BaseException:
            try:
                os.ftruncate(fd, start)
            except OSError:
                pass          # the read side skips a half-written last line and says so
            raise
    finally:
        os.close(fd)


def _save_png_atomically(image: Image.Image, path: Path) -> None:
    """Encode `image` to a temporary file beside `path`, fsync, then rename it to `path`.

    Until the rename nothing exists under `path`; if encoding fails the temporary file is removed.
    """
    temp = path.with_name(f"{path.name}.{uuid.uuid4().hex[:8]}{TEMP_SUFFIX}")   # unique: writers may overlap
    try:
        with temp.open("xb") as handle:
            image.save(handle, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


class TrajectoryWriter:
    """Writes one run's folder as the run goes. Safe to call from a worker thread."""

    def __init__(self, run_dir: Path, run: RunRecord, running: RunningMark | None = None) -> None:
        self.run_dir = run_dir
        self._run = run
        self._lock = threading.Lock()
        self._running = running                   # held until run.json has the result (see run_liveness)
        self.screen_recordings: list[str] = []    # the run's screen video files, written into run.json

    def __repr__(self) -> str:
        return f"TrajectoryWriter({str(self.run_dir)!r})"

    @classmethod
    def create(cls, request: str, device: dict, model: dict, settings: dict,
               root: Path | None = None) -> TrajectoryWriter:
        """Make a new run folder (under `root`, default `runs_dir()`) and write run.json at once."""
        root = root or runs_dir()
        base = f"{datetime.now():%Y%m%d-%H%M%S}-{slugify(redact(request))}"
        for attempt in itertools.count(1):
            run_dir = root / (base if attempt == 1 else f"{base}-{attempt}")
            try:
                run_dir.mkdir(parents=True)
                break
            except FileExistsError:
                continue
        run = RunRecord(request=request, device=device, model=model, settings=settings, started_at=now_iso(),
                        version=FORMAT_VERSION)
        writer = cls(run_dir, run)
        try:
            writer._running = RunningMark.take(run_dir)      # before run.json: a going run is never seen unmarked
            write_text_atomically(run_dir / RUN_FILE, _to_json(run.to_dict(), indent=2))
            (run_dir / STEPS_FILE).touch()
        except OSError:
            if writer._running is not None:
                writer._running.release()
            try:                                   # leave no half-made run behind (a full disk)
                for name in (STEPS_FILE, RUN_FILE):
                    (run_dir / name).unlink(missing_ok=True)
                run_dir.rmdir()
            except OSError:
                pass
            raise
        return writer

    def save_screens(self, step: int, clean: Image.Image,
                     annotated: Image.Image | None) -> tuple[str, str]:
        """Write the step's screenshots; returns their file names ("" for no annotated image).

        Each image appears under its name only once it is completely on disk (see `_save_png_atomically`).
        """
        clean_name, annotated_name = step_image_names(step)
        _save_png_atomically(clean, self.run_dir / clean_name)
        if annotated is None:
            return clean_name, ""
        _save_png_atomically(annotated, self.run_dir / annotated_name)
        return clean_name, annotated_name

    def append_step(self, item: StepRecord) -> None:
        """Append the step as one JSON line and force it to disk before returning (all of it or none)."""
        line = _to_json(item.to_dict()) + "\n"
        with self._lock:
            append_atomically(self.run_dir / STEPS_FILE, line.encode("utf-8"))

    def finish(self, result: RunResult) -> None:
        """Record the result, the finishing time and the report's name in run.json (atomically).

        The report itself (`REPORT_FILE`) is written from the finished folder just after.
        """
        with self._lock:
            self._run = replace(self._run, result=result, finished_at=now_iso(), report=REPORT_FILE)
            data = self._run.to_dict()
            if self.screen_recordings:
                data[SCREEN_RECORDINGS_KEY] = list(self.screen_recordings)
            data[STEPS_SEAL_KEY] = self._steps_seal()
            write_text_atomically(self.run_dir / RUN_FILE, _to_json(data, indent=2))
            if self._running is not None:
                self._running.release()

    def _steps_seal(self) -> str:
        """The seal of steps.jsonl as written ("" when it cannot be read): a replay checks it (steps_seal)."""
        try:
            return seal(self.run_dir, (self.run_dir / STEPS_FILE).read_bytes())
        except OSError:
            return ""


@dataclass
class LoadedRun:
    """A run folder as read back: run.json, the step records, and everything wrong reading them.

    `problems` holds the folder's (a missing file, a line that is not a record) and each record's
    (a missing or wrongly typed field). `run_readable` is False when run.json is missing or not
    JSON at all; `run` is then an empty record.
    """

    run_dir: Path
    run: RunRecord
    steps: list[StepRecord]
    problems: list[str] = field(default_factory=list)
    run_readable: bool = True
    screen_recordings: list[str] = field(default_factory=list)    # video files that are in the folder


@dataclass
class RunSummary:
    """One line of the past-runs list."""

    dir: Path
    request: str
    started_at: str
    status: str          # a RunResult status ("interrupted": its process died), or "unfinished" / "unreadable"
    steps: int
    phone: dict[str, Any] = field(default_factory=dict)   # run.json's "device": id, serial, server, model, virtual


def read_run_file(run_dir: Path) -> tuple[RunRecord, bool]:
    """run.json as a record, and whether the file could be read at all (its problems are in the record)."""
    path = run_dir / RUN_FILE
    if not path.is_file():
        return RunRecord(problems=[f"{RUN_FILE} is missing"]), False
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return RunRecord(problems=[f"{RUN_FILE} could not be read ({exc})"]), False
    if not isinstance(data, dict):
        return RunRecord(problems=[f"{RUN_FILE} does not hold a JSON object"]), False
    return RunRecord.from_dict(data, RUN_FILE), True


def _parse_step_line(line: bytes, where: str) -> StepRecord | None:
    try:
        data = json.loads(line)
    except ValueError:
        return None
    return StepRecord.from_dict(data, where) if isinstance(data, dict) else None


def _read_steps(run_dir: Path) -> tuple[list[StepRecord], list[str]]:
    path = run_dir / STEPS_FILE
    if not path.is_file():
        return [], [f"{STEPS_FILE} is missing"]
    *complete, tail = path.read_bytes().split(b"\n")
    steps, problems = [], []
    for number, line in enumerate(complete, 1):
        if not line.strip():
            continue
        step = _parse_step_line(line, f"line {number} of {STEPS_FILE}")
        if step is None:
            problems.append(f"line {number} of {STEPS_FILE} is not a valid step record; it was skipped")
        else:
            steps.append(step)
            problems += step.problems
    if tail.strip():
        step = _parse_step_line(tail, f"the last line of {STEPS_FILE}")
        if step is None:
            problems.append(f"the last line of {STEPS_FILE} is incomplete (the run stopped while writing it); "
                            "it was skipped")
        else:
            steps.append(step)
            problems += step.problems
    return steps, problems


def load_run(run_dir: Path | str) -> LoadedRun:
    """Read a run folder into typed records; damaged parts are skipped or defaulted and described in `problems`."""
    run_dir = Path(run_dir)
    run, readable = read_run_file(run_dir)
    steps, step_problems = _read_steps(run_dir)
    videos = read_screen_recordings(run_dir) if readable else []
    return LoadedRun(run_dir, run, steps, run.problems + step_problems, readable, videos)


def read_screen_recordings(run_dir: Path) -> list[str]:
    """The screen video files run.json names that are plain file names present in the folder."""
    try:
        data = json.loads((run_dir / RUN_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    names = data.get(SCREEN_RECORDINGS_KEY) if isinstance(data, dict) else None
    if not isinstance(names, list):
        return []
    return [name for name in names if (path := step_file(run_dir, name)) is not None and path.is_file()]


def step_file(run_dir: Path, name: Any) -> Path | None:
    """The path of a file a step names, or None if the name is empty or not a plain file name."""
    if not isinstance(name, str) or not name or Path(name).name != name or name in (".", ".."):
        return None
    return run_dir / name


def _count_step_lines(run_dir: Path) -> int:
    try:
        return (run_dir / STEPS_FILE).read_bytes().count(b"\n")
    except OSError:
        return 0


INTERRUPTED_REASON = ("the run was interrupted: Agent Desk ended (killed, crashed or the computer stopped) "
                      "before the run had a result; its steps up to then are kept")


def mark_interrupted_runs(root: Path | None = None) -> list[Path]:
    """Give every run under `root` left without a result by a process that is gone (its folder's lock is free)
    the result "interrupted", and remove its leftover temporary files; returns the folders marked.
    A folder that cannot be written is left as it is (it is listed as unfinished)."""
    root = root or runs_dir()
    marked = []
    for run_dir in sorted(path for path in root.iterdir() if (path / RUN_FILE).is_file()):
        run, readable = read_run_file(run_dir)
        if not readable or run.result is not None:
            continue
        try:
            running = RunningMark.take(run_dir)
        except OSError:
            continue
        if running is None:                       # its process is alive and writing it
            continue
        try:
            _mark_interrupted(run_dir)
            marked.append(run_dir)
        except OSError:
            pass
        finally:
            running.release()
    return marked


def _mark_interrupted(run_dir: Path) -> None:
    """Under the folder's lock: run.json gets the "interrupted" result (unless it has one by now), the `.tmp`
    files go. The rest of run.json is kept as it was."""
    data = json.loads((run_dir / RUN_FILE).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("result") is not None:
        return
    steps, _ = _read_steps(run_dir)
    try:
        last_write = datetime.fromtimestamp((run_dir / STEPS_FILE).stat().st_mtime).isoformat(timespec="seconds")
    except OSError:
        last_write = ""
    for path in _temporary_files(run_dir):
        path.unlink(missing_ok=True)
    data["result"] = RunResult(status="interrupted", steps_taken=len(steps), actions_executed=[], time_seconds=0.0,
                               error=INTERRUPTED_REASON, completion_reason=INTERRUPTED_REASON).to_dict()
    data["finished_at"] = data.get("finished_at") or last_write
    write_text_atomically(run_dir / RUN_FILE, _to_json(data, indent=2))


def list_runs(root: Path | None = None) -> list[RunSummary]:
    """The runs under `root` (default `runs_dir()`), newest first; runs a dead process left are marked first."""
    root = root or runs_dir()
    if not root.is_dir():
        return []
    mark_interrupted_runs(root)
    summaries = []
    for run_dir in (path for path in root.iterdir() if (path / RUN_FILE).is_file()):
        run, readable = read_run_file(run_dir)
        if not readable:
            status = "unreadable"
        elif run.result is not None:
            status = run.result.status or "unfinished"
        else:
            status = "unfinished"
        summaries.append(RunSummary(run_dir, run.request, run.started_at, status, _count_step_lines(run_dir),
                                    dict(run.device)))
    return sorted(summaries, key=lambda summary: (summary.started_at, summary.dir.name), reverse=True)


def check_run(run_dir: Path | str) -> list[str]:
    """Everything wrong with a run folder, in words; an empty list means complete and valid."""
    record = load_run(run_dir)
    problems = list(record.problems)
    result = record.run.result
    if record.run_readable:
        if result is None:
            problems.append(f"the run did not finish: {RUN_FILE} has no result")
        elif result.steps_taken != len(record.steps):
            problems.append(f"{RUN_FILE} says {result.steps_taken} steps were taken, "
                            f"but {STEPS_FILE} holds {len(record.steps)}")
    expected = 1
    for index, step in enumerate(record.steps, 1):
        if step.step != expected:
            problems.append(f"step record {index} is numbered {step.step}; expected {expected}")
        expected = step.step + 1
        for key, name in (("screenshot", step.screenshot), ("annotated_screenshot", step.annotated_screenshot)):
            if not name:
                continue
            path = step_file(record.run_dir, name)
            if path is None:
                problems.append(f"step {step.step}: {key} {name!r} is not a file name inside the run folder")
            elif not path.is_file():
                problems.append(f"step {step.step}: {name} is referenced but missing")
    problems += [f"{path.name} is a leftover temporary file: a write was interrupted"
                 for path in _temporary_files(record.run_dir)]
    return problems


def _temporary_files(run_dir: Path) -> list[Path]:
    try:
        return sorted(path for path in run_dir.iterdir() if path.name.endswith(TEMP_SUFFIX))
    except OSError:
        return []
