"""Storage faults (issue 12, item 6): a record that cannot be written stops the run, says what and
where, and leaves what was written readable; the data folder is checked at start."""

from __future__ import annotations

import asyncio
import errno
import json
import os
import types
from pathlib import Path

import pytest
from PIL import Image

from app.core import paths
from app.core.agent import trajectory
from app.core.agent.events import EventStream, Message, ObservationReady, StepFinished, StepRecorded
from app.core.agent.memory import RunResult
from app.core.agent.pipeline import ComposedStrategy, ProcessingPhase, StepContext, Strategy
from app.core.agent.records import StepRecord
from app.core.agent.supervisor import RunControl, RunStopped
from app.core.agent.trajectory import RUN_FILE, STEPS_FILE, TrajectoryWriter, load_run
from app.core.config import Settings
from app.core.data_folder import check_writable, data_folder_problem, storage_problem
from app.core.device.phone_session import PhoneRegistry
from app.core.runs.recorder import RecordingGate, RunRecorder, guard_pipeline
from app.core.runs.service import RunRefused, RunRequest, RunService
from tests.support.small_disk import fill_up, small_disk


def os_error(code: int, path: Path | str = "") -> OSError:
    return OSError(code, os.strerror(code), str(path))


def new_writer(root: Path) -> TrajectoryWriter:
    return TrajectoryWriter.create("Open settings", {"serial": "x"}, {"model": "m"}, {}, root=root)


def patched_os(monkeypatch, **overrides) -> None:
    """Replace functions of `os` as trajectory.py sees them (only there: the test runner keeps the real ones)."""
    fake = types.SimpleNamespace(**{name: getattr(os, name) for name in dir(os) if not name.startswith("__")})
    for name, value in overrides.items():
        setattr(fake, name, value)
    monkeypatch.setattr(trajectory, "os", fake)


# ---------------------------------------------------------------------------- writing stays whole


def test_a_step_line_that_fails_halfway_is_cut_back(tmp_path, monkeypatch):
    writer = new_writer(tmp_path)
    writer.append_step(StepRecord(step=1, request="Open settings"))
    real_write = os.write

    def half_then_full(fd, data):
        real_write(fd, bytes(data[: len(data) // 2]))
        raise os_error(errno.ENOSPC)

    patched_os(monkeypatch, write=half_then_full)
    with pytest.raises(OSError) as raised:
        writer.append_step(StepRecord(step=2, request="Open settings"))
    assert raised.value.errno == errno.ENOSPC
    text = (writer.run_dir / STEPS_FILE).read_text()
    assert text.endswith("\n") and text.count("\n") == 1          # only step 1's complete line
    loaded = load_run(writer.run_dir)
    assert [step.step for step in loaded.steps] == [1] and loaded.problems == []


def test_run_json_that_cannot_be_written_stays_as_it_was(tmp_path, monkeypatch):
    writer = new_writer(tmp_path)
    before = (writer.run_dir / RUN_FILE).read_text()

    def no_space(_fd):
        raise os_error(errno.ENOSPC)

    patched_os(monkeypatch, fsync=no_space)
    with pytest.raises(OSError):
        writer.finish(RunResult("success", 1, [], 1.0))
    assert (writer.run_dir / RUN_FILE).read_text() == before
    json.loads(before)
    assert not [path for path in writer.run_dir.iterdir() if path.name.endswith(trajectory.TEMP_SUFFIX)]


def test_a_run_folder_that_cannot_be_made_complete_is_not_left_behind(tmp_path, monkeypatch):
    def no_space(_fd):
        raise os_error(errno.ENOSPC)

    patched_os(monkeypatch, fsync=no_space)
    with pytest.raises(OSError):
        new_writer(tmp_path / "runs")
    assert list((tmp_path / "runs").iterdir()) == []


# ---------------------------------------------------------------------------- the recorder


class FailingWriter(TrajectoryWriter):
    """A real writer whose step lines (from `fail_line`) or pictures fail with an OSError."""

    def __init__(self, writer: TrajectoryWriter, *, fail_line: int | None = None, line_error: int = errno.EACCES,
                 fail_pictures: int | None = None) -> None:
        super().__init__(writer.run_dir, writer._run)
        self.fail_line, self.line_error, self.fail_pictures = fail_line, line_error, fail_pictures

    def append_step(self, item):
        if self.fail_line is not None and item.step >= self.fail_line:
            raise os_error(self.line_error, self.run_dir / STEPS_FILE)
        super().append_step(item)

    def save_screens(self, step, clean, annotated):
        if self.fail_pictures is not None and step >= self.fail_pictures:
            raise os_error(errno.EROFS, self.run_dir / f"step_{step:03d}.png")
        return super().save_screens(step, clean, annotated)


def finish_step(events: EventStream, step: int) -> None:
    events.emit(ObservationReady(step, Image.new("RGB", (8, 8)), None))
    events.emit(StepFinished(step, StepRecord(step=step, request="Open settings")))


@pytest.mark.asyncio
@pytest.mark.parametrize("code, words", [(errno.EACCES, "permission denied"), (errno.EPERM, "operation not permitted"),
                                         (errno.ENOSPC, "no space left on device"),
                                         (errno.EROFS, "read-only file system")])
async def test_a_step_that_cannot_be_recorded_stops_the_run_and_fails_it(tmp_path, code, words):
    writer = FailingWriter(new_writer(tmp_path), fail_line=2, line_error=code)
    events, stops, seen = EventStream(), [], []
    events.subscribe(seen.append)
    recorder = RunRecorder(writer, events, on_fault=stops.append)
    finish_step(events, 1)
    finish_step(events, 2)
    fault = await recorder.settled()
    await asyncio.sleep(0)                       # the fault is told on the loop
    expected = f"could not record step 2 in {writer.run_dir}: {words}"
    assert fault == expected and stops == [expected]
    assert any(isinstance(e, Message) and expected in e.text for e in seen)
    assert [e.step for e in seen if isinstance(e, StepRecorded)] == [1]
    finish_step(events, 3)                        # the step in progress: not written after a gap
    result = await recorder.close(RunResult("stopped", 3, [], 1.0, completion_reason=expected))
    assert result.status == "failed" and result.completion_reason == expected and result.error == expected
    loaded = load_run(writer.run_dir)
    assert loaded.run_readable and [step.step for step in loaded.steps] == [1]
    assert loaded.run.result.status == "failed"


@pytest.mark.asyncio
async def test_pictures_that_cannot_be_saved_stop_the_run_and_the_step_is_kept_without_them(tmp_path):
    writer = FailingWriter(new_writer(tmp_path), fail_pictures=1)
    stops: list[str] = []
    recorder = RunRecorder(writer, EventStream(), on_fault=stops.append)
    finish_step(recorder.events, 1)
    fault = await recorder.settled()
    assert fault == f"could not save the screenshots of step 1 in {writer.run_dir}: read-only file system"
    await recorder.close(RunResult("stopped", 1, [], 1.0))
    steps = load_run(writer.run_dir).steps
    assert [(s.step, s.screenshot) for s in steps] == [(1, "")]
    assert trajectory.check_run(writer.run_dir) == []


@pytest.mark.asyncio
async def test_the_result_reaches_the_person_when_run_json_cannot_be_written(tmp_path, monkeypatch):
    writer = new_writer(tmp_path)
    events, seen = EventStream(), []
    events.subscribe(seen.append)
    recorder = RunRecorder(writer, events)

    def no_space(result):
        raise os_error(errno.ENOSPC, writer.run_dir / RUN_FILE)

    monkeypatch.setattr(writer, "finish", no_space)
    result = await recorder.close(RunResult("success", 0, [], 1.0, completion_reason="done"))
    assert result is not None and result.status == "failed"
    assert result.completion_reason.startswith(f"could not write the run's result (run.json) and report in "
                                               f"{writer.run_dir}: no space left on device")
    assert "the run had ended success: done" in result.completion_reason
    assert any(isinstance(e, Message) and "shown here only" in e.text for e in seen)


# ---------------------------------------------------------------------------- the gate before the action


class Acts(Strategy):
    provides = ("outcome",)

    def __init__(self, log: list[str]) -> None:
        super().__init__(fail_fast=False)
        self.log = log

    async def run(self, ctx: StepContext) -> None:
        self.log.append("acted")
        ctx.set("outcome", None)


class Reviews(Strategy):
    provides = ("approved_action",)

    def __init__(self, log: list[str]) -> None:
        super().__init__(fail_fast=True)
        self.log = log

    async def run(self, ctx: StepContext) -> None:
        self.log.append("reviewed")


@pytest.mark.asyncio
async def test_the_gate_stands_right_before_the_action_and_stops_it_after_a_failed_record(tmp_path):
    writer = FailingWriter(new_writer(tmp_path), fail_line=1, line_error=errno.ENOSPC)
    recorder = RunRecorder(writer, EventStream())
    log: list[str] = []
    control = RunControl()
    factory = guard_pipeline(lambda rc: [(ProcessingPhase.ACTION_EXECUTION, ComposedStrategy(
        [Reviews(log), Acts(log)], name="ActionExecution", fail_fast=False))], recorder)
    [(_, phase)] = factory(types.SimpleNamespace(control=control))
    assert [type(s) for s in phase.strategies] == [Reviews, RecordingGate, Acts]
    await phase.run(StepContext(1))                            # nothing failed yet: the action runs
    assert log == ["reviewed", "acted"]
    recorder.events.emit(StepFinished(1, StepRecord(step=1, request="x")))   # its line will fail
    with pytest.raises(RunStopped, match="could not record step 1"):
        await phase.run(StepContext(2))
    assert log == ["reviewed", "acted", "reviewed"] and control.stop_requested
    await recorder.close(None)


# ---------------------------------------------------------------------------- the data folder at start


def test_words_for_what_could_not_be_written():
    assert storage_problem("record step 4", "/data/runs/x", os_error(errno.ENOSPC)) == \
        "could not record step 4 in /data/runs/x: no space left on device"


def test_an_unwritable_data_folder_is_said_plainly(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path / "home"))
    assert data_folder_problem() == ""

    def refuse(_fd):
        raise os_error(errno.EACCES)

    import app.core.data_folder as data_folder
    monkeypatch.setattr(data_folder, "os", types.SimpleNamespace(fsync=refuse, strerror=os.strerror))
    runs = tmp_path / "home" / "data" / "runs"
    assert data_folder_problem() == (f"Agent Desk cannot write to {runs} (permission denied). "
                                     "Set AGENTDESK_HOME to a writable folder.")
    assert not [p for p in runs.iterdir()]          # the probe file is gone


def test_a_read_only_home_is_found_and_the_paths_still_answer(tmp_path, monkeypatch):
    with small_disk(tmp_path / "ro", 64, read_only=True) as home:
        monkeypatch.setenv("AGENTDESK_HOME", str(home))
        assert paths.runs_dir() == home / "data" / "runs"           # no OSError: reading settings still works
        assert paths.settings_path() == home / "config" / "settings.json"
        assert check_writable(home / "data" / "runs").errno == errno.EROFS
        assert data_folder_problem() == (f"Agent Desk cannot write to {home / 'data' / 'runs'} "
                                         "(read-only file system). Set AGENTDESK_HOME to a writable folder.")


def test_a_full_data_folder_is_found(tmp_path, monkeypatch):
    with small_disk(tmp_path / "full", 64) as disk:
        fill_up(disk)
        assert "(no space left on device)" in data_folder_problem([disk / "runs"])


@pytest.mark.asyncio
async def test_a_run_is_refused_when_its_folder_cannot_be_written(tmp_path):
    with small_disk(tmp_path / "ro", 64, read_only=True) as disk:
        service = RunService(PhoneRegistry(), Settings(), runs_root=disk / "runs")
        with pytest.raises(RunRefused, match=r"cannot write to .*read-only file system"):
            await service.start(RunRequest("Open settings"))
        assert service.handles() == []
