"""The run folder: written as the run goes, readable after a crash, and free of secrets."""

from __future__ import annotations

import itertools
import json
import re
import uuid
from datetime import datetime

import pytest
from PIL import Image

from app.core.agent import trajectory
from app.core.agent.memory import ActionOutcome, Decision, MemoryItem, RunResult
from app.core.agent.report import write_report
from app.core.agent.trajectory import TrajectoryWriter, check_run, list_runs, load_run, slugify
from app.core.paths import runs_dir
from app.core.secrets import register_secret

REQUEST = "Open Notes and write a shopping list: milk, eggs"


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path))
    return tmp_path


def new_writer(request: str = REQUEST) -> TrajectoryWriter:
    return TrajectoryWriter.create(request, {"serial": "emulator-5554"}, {"name": "gpt-4o"},
                                   {"agent": {"mode": "step"}})


def step_item(step: int, writer: TrajectoryWriter | None = None, **fields) -> MemoryItem:
    """A finished step; with a writer, its screenshots are saved and referenced."""
    if writer is not None:
        clean, annotated = writer.save_screens(step, Image.new("RGB", (108, 240), "white"),
                                               Image.new("RGB", (108, 240), "red"))
        fields.setdefault("screenshot", clean)
        fields.setdefault("annotated_screenshot", annotated)
    fields.setdefault("result", ActionOutcome(True, "tapped"))
    fields.setdefault("thought", f"thinking at step {step}")
    return MemoryItem(step=step, request=REQUEST, **fields)


def finished_run(steps: int = 2) -> TrajectoryWriter:
    writer = new_writer()
    for number in range(1, steps + 1):
        writer.append_step(step_item(number, writer))
    writer.finish(RunResult("success", steps, ["click"] * steps, 12.5, completion_reason="done"))
    return writer


def test_create_makes_a_named_folder_and_writes_run_json_at_once():
    writer = new_writer()
    assert writer.run_dir.parent == runs_dir()
    assert re.fullmatch(r"\d{8}-\d{6}-open-notes-and-write-a-shopping-list-mil", writer.run_dir.name)
    run = json.loads((writer.run_dir / "run.json").read_text(encoding="utf-8"))
    assert set(run) == {"request", "device", "model", "settings", "started_at", "finished_at", "result", "report",
                        "version"}
    assert run["request"] == REQUEST and run["result"] is None and run["version"] == 2 and run["finished_at"] == ""
    assert run["device"] == {"serial": "emulator-5554"}
    assert (writer.run_dir / "steps.jsonl").read_bytes() == b""


def test_two_runs_in_the_same_second_get_their_own_folders(monkeypatch):
    class FrozenClock(datetime):
        @classmethod
        def now(cls, tz=None):
            return datetime(2024, 5, 1, 14, 3, 22)

    monkeypatch.setattr(trajectory, "datetime", FrozenClock)
    first, second, third = new_writer("same"), new_writer("same"), new_writer("same")
    assert [w.run_dir.name for w in (first, second, third)] == [
        "20240501-140322-same", "20240501-140322-same-2", "20240501-140322-same-3"]


@pytest.mark.parametrize("text, slug", [
    ("Öffne die Einstellungen!", "offne-die-einstellungen"),
    ("打开设置", "run"),
    ("", "run"),
    ("a" * 39 + " b c", "a" * 39),
    ("x" * 60, "x" * 40),
])
def test_slugs_are_short_plain_ascii(text, slug):
    assert slugify(text) == slug


def test_save_screens_writes_pngs_and_returns_their_names():
    writer = new_writer()
    names = writer.save_screens(7, Image.new("RGB", (50, 80), "blue"), Image.new("RGB", (50, 80), "red"))
    assert names == ("step_007.png", "step_007_annotated.png")
    with Image.open(writer.run_dir / "step_007_annotated.png") as image:
        assert image.format == "PNG" and image.getpixel((1, 1)) == (255, 0, 0)
    assert writer.save_screens(8, Image.new("RGB", (50, 80)), None) == ("step_008.png", "")
    assert not (writer.run_dir / "step_008_annotated.png").exists()


class BreaksWhileSaving:
    """An image whose PNG encoding writes part of the file, then fails (a full disk, a crash)."""

    def __init__(self, final_path):
        self.final_path = final_path
        self.seen_while_writing: list[bool] = []

    def save(self, handle, **options):
        handle.write(b"\x89PNG\r\n\x1a\n half an image")
        handle.flush()
        self.seen_while_writing.append(self.final_path.exists())
        raise OSError("No space left on device")


def test_save_screens_never_leaves_a_partial_image_under_its_final_name():
    writer = new_writer()
    broken = BreaksWhileSaving(writer.run_dir / "step_001.png")
    with pytest.raises(OSError, match="No space"):
        writer.save_screens(1, broken, None)
    assert broken.seen_while_writing == [False]           # it was being written under another name
    assert not (writer.run_dir / "step_001.png").exists()
    assert not list(writer.run_dir.glob("*.tmp"))          # and that temporary file is gone again
    broken = BreaksWhileSaving(writer.run_dir / "step_002_annotated.png")
    with pytest.raises(OSError):
        writer.save_screens(2, Image.new("RGB", (50, 80), "blue"), broken)
    assert not (writer.run_dir / "step_002_annotated.png").exists()
    with Image.open(writer.run_dir / "step_002.png") as clean:   # the clean one was complete: it stays
        assert clean.getpixel((1, 1)) == (0, 0, 255)


def test_check_run_reports_a_temporary_file_left_by_an_interrupted_write():
    writer = finished_run()
    (writer.run_dir / "step_003.png.k2j4.tmp").write_bytes(b"\x89PNG half")
    (writer.run_dir / "run.json.tmp").write_text("{", encoding="utf-8")
    assert check_run(writer.run_dir) == ["run.json.tmp is a leftover temporary file: a write was interrupted",
                                         "step_003.png.k2j4.tmp is a leftover temporary file: a write was interrupted"]


def test_each_step_is_on_disk_and_fsynced_as_soon_as_it_is_appended(monkeypatch):
    writer = new_writer()
    synced = []
    real_fsync = trajectory.os.fsync
    monkeypatch.setattr(trajectory.os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    for number in (1, 2, 3):
        writer.append_step(step_item(number))
        lines = (writer.run_dir / "steps.jsonl").read_text(encoding="utf-8").splitlines()
        assert len(lines) == number
        assert json.loads(lines[-1])["step"] == number
        assert len(synced) == number


def test_finish_records_the_result_atomically():
    writer = finished_run()
    run = json.loads((writer.run_dir / "run.json").read_text(encoding="utf-8"))
    assert run["result"]["status"] == "success" and run["result"]["completion_reason"] == "done"
    assert run["finished_at"] and run["report"] == "report.html"
    assert not list(writer.run_dir.glob("*.tmp"))
    assert check_run(writer.run_dir) == []


def test_a_half_written_last_step_is_skipped_and_reported():
    writer = new_writer()
    writer.append_step(step_item(1))
    writer.append_step(step_item(2))
    with (writer.run_dir / "steps.jsonl").open("ab") as handle:
        handle.write(b'{"step": 3, "thought": "cut sho')
    record = load_run(writer.run_dir)
    assert [step.step for step in record.steps] == [1, 2]
    assert len(record.problems) == 1 and "incomplete" in record.problems[0]
    assert any("incomplete" in problem for problem in check_run(writer.run_dir))


def test_check_run_reports_a_run_that_did_not_finish():
    writer = new_writer()
    writer.append_step(step_item(1, writer))
    assert check_run(writer.run_dir) == ["the run did not finish: run.json has no result"]


def test_check_run_reports_missing_files():
    writer = finished_run()
    (writer.run_dir / "step_002_annotated.png").unlink()
    (writer.run_dir / "steps.jsonl").unlink()
    assert any("steps.jsonl is missing" in p for p in check_run(writer.run_dir))
    (writer.run_dir / "run.json").unlink()
    assert "run.json is missing" in check_run(writer.run_dir)


def test_check_run_reports_a_referenced_image_that_is_missing():
    writer = finished_run()
    (writer.run_dir / "step_002_annotated.png").unlink()
    assert check_run(writer.run_dir) == ["step 2: step_002_annotated.png is referenced but missing"]


def test_check_run_reports_an_image_name_outside_the_folder():
    writer = new_writer()
    writer.append_step(step_item(1, screenshot="../../etc/passwd"))
    writer.finish(RunResult("success", 1, [], 1.0))
    assert any("not a file name inside the run folder" in p for p in check_run(writer.run_dir))


def test_check_run_reports_steps_out_of_order():
    writer = new_writer()
    for number in (1, 3, 2):
        writer.append_step(step_item(number))
    writer.finish(RunResult("success", 3, [], 1.0))
    assert check_run(writer.run_dir) == ["step record 2 is numbered 3; expected 2",
                                         "step record 3 is numbered 2; expected 4"]


def test_check_run_reports_a_step_count_that_does_not_match():
    writer = new_writer()
    writer.append_step(step_item(1))
    writer.finish(RunResult("failed", 2, [], 1.0))
    assert check_run(writer.run_dir) == ["run.json says 2 steps were taken, but steps.jsonl holds 1"]


def test_check_run_reports_a_damaged_line_in_the_middle():
    writer = finished_run()
    path = writer.run_dir / "steps.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("not json\n" + "".join(lines), encoding="utf-8")
    assert check_run(writer.run_dir) == ["line 1 of steps.jsonl is not a valid step record; it was skipped"]


def test_list_runs_is_newest_first_with_status_and_step_count(monkeypatch):
    days = itertools.count(1)   # every timestamp a day later than the one before
    monkeypatch.setattr(trajectory, "now_iso", lambda: datetime(2024, 5, next(days), 9, 0, 0).isoformat())
    older = finished_run(steps=2)
    newer = new_writer("check the weather")
    newer.append_step(step_item(1))
    (runs_dir() / "not-a-run").mkdir()
    summaries = list_runs()
    assert [s.dir for s in summaries] == [newer.run_dir, older.run_dir]
    assert [(s.request, s.status, s.steps) for s in summaries] == [
        ("check the weather", "unfinished", 1), (REQUEST, "success", 2)]


def test_list_runs_of_a_missing_folder_is_empty(tmp_path):
    assert list_runs(tmp_path / "nothing-here") == []


def test_the_key_never_lands_in_any_file_of_the_run(home):
    key = f"zq{uuid.uuid4().hex}{uuid.uuid4().hex}"     # caught only by the registry
    register_secret(key)
    openai_like = "sk-proj-" + uuid.uuid4().hex           # caught by its shape, never registered
    writer = TrajectoryWriter.create(f"use {key} please", {"serial": key}, {"name": "gpt-4o", "api_key": key},
                                     {"note": openai_like})
    writer.append_step(step_item(
        1, writer, prompt_text=f"Authorization: Bearer {key}\n{openai_like}",
        raw_reply=f'{{"thought": "the key is {key}"}}', thought=key, comment=openai_like,
        decision=Decision("reject", feedback=f"do not type {key}"), error=f"401 for {openai_like}",
        action={"function": "type_text", "arguments": {"text": key}, "status": "CONTINUE"}))
    writer.finish(RunResult("failed", 1, [f"typed {key}"], 3.0, error=f"bad key {key}"))
    write_report(writer.run_dir)
    files = [path for path in home.rglob("*") if path.is_file()]
    assert {p.name for p in files} >= {"run.json", "steps.jsonl", "step_001.png", "report.html"}
    for path in files:
        data = path.read_bytes()
        assert key.encode() not in data, path
        assert openai_like.encode() not in data, path
    assert key not in str(writer.run_dir)
    assert b"[redacted]" in (writer.run_dir / "steps.jsonl").read_bytes()
