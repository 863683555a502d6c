"""The record of a run: one folder per run under `runs_dir()` (GUIDE §2 "Trajectory").

Layout of `YYYYmmdd-HHMMSS-<request-slug>/`:
    run.json                  request, device, model, settings, started_at, result, finished_at, version
    steps.jsonl               one MemoryItem per line, appended and fsynced as each step ends
    step_NNN.png              the screen the model saw at step NNN
    step_NNN_annotated.png    the same with the numbered controls drawn on it
    report.html               written by `app.core.agent.report`

Everything written here goes through `redact_data` first, so no API key or
Authorization header lands in the folder. A crash loses at most the step in progress;
`load_run` skips a half-written last line and says so.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import threading
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from PIL import Image

from app.core.agent.memory import MemoryItem, RunResult, now_iso
from app.core.paths import runs_dir
from app.core.redaction import redact, redact_data

RUN_FILE = "run.json"
STEPS_FILE = "steps.jsonl"
FORMAT_VERSION = 1
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


def _write_atomically(path: Path, text: str) -> None:
    """Write to a temporary file, fsync, then rename over `path`: never half a file."""
    temp = path.with_name(path.name + ".tmp")
    with temp.open("w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temp, path)


class TrajectoryWriter:
    """Writes one run's folder as the run goes. Safe to call from a worker thread."""

    def __init__(self, run_dir: Path, run: dict[str, Any]) -> None:
        self.run_dir = run_dir
        self._run = run
        self._lock = threading.Lock()

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
        run = {"request": request, "device": device, "model": model, "settings": settings,
               "started_at": now_iso(), "result": None, "version": FORMAT_VERSION}
        writer = cls(run_dir, run)
        _write_atomically(run_dir / RUN_FILE, _to_json(run, indent=2))
        (run_dir / STEPS_FILE).touch()
        return writer

    def save_screens(self, step: int, clean: Image.Image,
                     annotated: Image.Image | None) -> tuple[str, str]:
        """Write the step's screenshots; returns their file names ("" for no annotated image)."""
        clean_name, annotated_name = step_image_names(step)
        clean.save(self.run_dir / clean_name, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
        if annotated is None:
            return clean_name, ""
        annotated.save(self.run_dir / annotated_name, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
        return clean_name, annotated_name

    def append_step(self, item: MemoryItem) -> None:
        """Append the step as one JSON line and force it to disk before returning."""
        line = _to_json(item.to_dict()) + "\n"
        with self._lock, (self.run_dir / STEPS_FILE).open("a", encoding="utf-8") as handle:
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())

    def finish(self, result: RunResult) -> None:
        """Record the result and the finishing time in run.json (atomically)."""
        with self._lock:
            self._run = {**self._run, "result": result.to_dict(), "finished_at": now_iso()}
            _write_atomically(self.run_dir / RUN_FILE, _to_json(self._run, indent=2))


@dataclass
class RunRecord:
    """A run folder as read back: run.json, the step records, and what was wrong reading them."""

    run_dir: Path
    run: dict[str, Any]
    steps: list[dict[str, Any]]
    problems: list[str] = field(default_factory=list)


@dataclass
class RunSummary:
    """One line of the past-runs list."""

    dir: Path
    request: str
    started_at: str
    status: str          # a RunResult status, or "unfinished" / "unreadable"
    steps: int


def _read_run_file(run_dir: Path) -> tuple[dict[str, Any], list[str]]:
    path = run_dir / RUN_FILE
    if not path.is_file():
        return {}, [f"{RUN_FILE} is missing"]
    try:
        run = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return {}, [f"{RUN_FILE} could not be read ({exc})"]
    if not isinstance(run, dict):
        return {}, [f"{RUN_FILE} does not hold a JSON object"]
    return run, []


def _parse_step_line(line: bytes) -> dict[str, Any] | None:
    try:
        step = json.loads(line)
    except ValueError:
        return None
    return step if isinstance(step, dict) else None


def _read_steps(run_dir: Path) -> tuple[list[dict[str, Any]], list[str]]:
    path = run_dir / STEPS_FILE
    if not path.is_file():
        return [], [f"{STEPS_FILE} is missing"]
    *complete, tail = path.read_bytes().split(b"\n")
    steps, problems = [], []
    for number, line in enumerate(complete, 1):
        if not line.strip():
            continue
        step = _parse_step_line(line)
        if step is None:
            problems.append(f"line {number} of {STEPS_FILE} is not a valid step record; it was skipped")
        else:
            steps.append(step)
    if tail.strip():
        step = _parse_step_line(tail)
        if step is None:
            problems.append(f"the last line of {STEPS_FILE} is incomplete (the run stopped while writing it); "
                            "it was skipped")
        else:
            steps.append(step)
    return steps, problems


def load_run(run_dir: Path | str) -> RunRecord:
    """Read a run folder; damaged parts are skipped and described in `problems`."""
    run_dir = Path(run_dir)
    run, problems = _read_run_file(run_dir)
    steps, step_problems = _read_steps(run_dir)
    return RunRecord(run_dir, run, steps, problems + step_problems)


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


def list_runs(root: Path | None = None) -> list[RunSummary]:
    """The runs under `root` (default `runs_dir()`), newest first."""
    root = root or runs_dir()
    if not root.is_dir():
        return []
    summaries = []
    for run_dir in (path for path in root.iterdir() if (path / RUN_FILE).is_file()):
        run, problems = _read_run_file(run_dir)
        result = run.get("result")
        if problems:
            status = "unreadable"
        elif isinstance(result, dict):
            status = str(result.get("status", "unfinished"))
        else:
            status = "unfinished"
        summaries.append(RunSummary(run_dir, str(run.get("request", "")), str(run.get("started_at", "")),
                                    status, _count_step_lines(run_dir)))
    return sorted(summaries, key=lambda summary: (summary.started_at, summary.dir.name), reverse=True)


def check_run(run_dir: Path | str) -> list[str]:
    """Everything wrong with a run folder, in words; an empty list means complete and valid."""
    record = load_run(run_dir)
    problems = list(record.problems)
    run = record.run
    if run:
        problems += [f"{RUN_FILE} has no '{key}'" for key in ("request", "started_at", "version") if key not in run]
        result = run.get("result")
        if not isinstance(result, dict):
            problems.append(f"the run did not finish: {RUN_FILE} has no result")
        elif result.get("steps_taken") != len(record.steps):
            problems.append(f"{RUN_FILE} says {result.get('steps_taken')} steps were taken, "
                            f"but {STEPS_FILE} holds {len(record.steps)}")
    expected = 1
    for index, step in enumerate(record.steps, 1):
        number = step.get("step")
        if number != expected:
            problems.append(f"step record {index} is numbered {number!r}; expected {expected}")
        expected = number + 1 if isinstance(number, int) else expected + 1
        for key in ("screenshot", "annotated_screenshot"):
            name = step.get(key)
            if not name:
                continue
            path = step_file(record.run_dir, name)
            if path is None:
                problems.append(f"step {number}: {key} {name!r} is not a file name inside the run folder")
            elif not path.is_file():
                problems.append(f"step {number}: {name} is referenced but missing")
    return problems
