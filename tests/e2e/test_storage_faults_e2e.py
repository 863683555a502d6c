"""A run that cannot record itself stops before its next action reaches the phone (issue 12, item 6).

Real faults where the machine allows it: the run folder lives on a small tmpfs that fills up or
turns read-only in the middle of a run. Each test checks the phone (the commands it received and
its screen) as well as the run's result and what stays readable on disk.
"""

from __future__ import annotations

import asyncio
import errno
import functools
import json
import os
import time
from pathlib import Path

import pytest

from app.core.agent import trajectory
from app.core.agent.llm_client import ModelClient
from app.core.agent.supervisor import ReviewAnswer
from app.core.agent.trajectory import RUN_FILE, STEPS_FILE, TEMP_SUFFIX, load_run
from app.core.config import AgentSettings, ProviderSettings, Settings
from app.core.device.adb_transport import AdbTransport
from app.core.device.phone_session import PhoneRegistry
from app.core.runs.service import RunRefused, RunRequest, RunService
from tests.e2e.conftest import API_KEY, ScriptedPerson, approve, phone_actions
from tests.support.openai_server import FakeOpenAIServer, act, json_reply
from tests.support.small_disk import fill_up, make_read_only, small_disk

pytestmark = pytest.mark.asyncio

SETTINGS = "com.android.settings"
SCRIPT = [json_reply(act("launch_app", package_name=SETTINGS)),       # step 1: reaches the phone
          json_reply(act("press_key", key_code="HOME")),              # step 2: must not
          json_reply(act("press_key", key_code="BACK"))]


def wait_for_file(path: Path, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.01)


async def run_on(phone_server, runs_root: Path, person: ScriptedPerson, script=SCRIPT, record_screen: bool = True):
    """One step-mode run with the app's real settle time, its folder under `runs_root`; (result, handle)."""
    transport = AdbTransport("127.0.0.1", phone_server.port)
    phones = PhoneRegistry()
    phones.open(transport, transport.list_devices()[0], virtual=True, timeout=10)
    with FakeOpenAIServer(script) as model:
        settings = Settings(provider=ProviderSettings(base_url=model.base_url, model="gpt-4o", timeout_seconds=10,
                                                      http_retries=1),
                            agent=AgentSettings(mode="step"))
        settings.mirror.record_runs = record_screen
        service = RunService(phones, settings, runs_root=runs_root,
                             client_factory=functools.partial(ModelClient, backoff_seconds=0.01))
        try:
            handle = await service.start(RunRequest("Open settings", api_key=API_KEY))
            person.attach(handle)
            result = await handle.wait()
        finally:
            await service.shutdown()
            await phones.close()
            await settle_phone_work()
    return result, handle


async def settle_phone_work(timeout: float = 5.0) -> None:
    """A stop in the middle of reading the screen leaves the phone's shared controls dump to finish
    on its own (other readers may be waiting for it); let it, so the test leaves nothing running."""
    others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task() and not task.done()]
    if others:
        await asyncio.wait(others, timeout=timeout)


def break_disk_after_step_1_pictures(disk: Path, runs: Path, breaking) -> callable:
    """The person's answer to step 1: once the step's pictures are on disk, the disk breaks; then approve."""
    def answer(proposal) -> ReviewAnswer:
        [run_dir] = list(runs.iterdir())
        wait_for_file(run_dir / "step_001_annotated.png")
        breaking(disk)
        return ReviewAnswer.approve()
    return answer


def assert_readable(run_dir: Path) -> None:
    """What was recorded before the fault stays readable: run.json is JSON, steps.jsonl whole lines, no temp files."""
    json.loads((run_dir / RUN_FILE).read_text())
    assert (run_dir / STEPS_FILE).read_bytes().count(b"\n") == len((run_dir / STEPS_FILE).read_bytes().splitlines())
    loaded = load_run(run_dir)
    assert loaded.run_readable and not [p for p in loaded.problems if "incomplete" in p or "not a valid" in p]
    assert not [path.name for path in run_dir.iterdir() if path.name.endswith(TEMP_SUFFIX)]


@pytest.mark.parametrize("breaking, words", [(fill_up, "no space left on device"),
                                             (make_read_only, "read-only file system")])
async def test_a_disk_that_breaks_mid_run_stops_it_before_the_next_action(phone_server, tmp_path, breaking, words):
    with small_disk(tmp_path / "disk", 2048) as disk:
        runs = disk / "runs"
        person = ScriptedPerson([break_disk_after_step_1_pictures(disk, disk / "runs", breaking), approve, approve])
        # Linux refuses to remount a disk read-only while a file on it is open for writing, as the
        # run's screen recording is; a disk that fails on its own does not ask (the full disk does
        # test the recording).
        result, handle = await run_on(phone_server, runs, person, record_screen=breaking is not make_read_only)
        run_dir = Path(result.run_dir)
        assert result.status == "failed", result
        assert result.completion_reason.startswith(f"could not record step 1 in {run_dir}: {words}")
        assert handle.result is result                             # the faces get the result all the same
        # the phone: step 1's launch arrived, step 2's HOME never did
        actions = phone_actions(phone_server.devices[0])
        assert actions and actions[-1][0] in ("am", "monkey") and SETTINGS in " ".join(actions[-1])
        assert not any(argv[:2] == ["input", "keyevent"] for argv in actions)
        assert phone_server.devices[0].phone.state()["foreground"] == SETTINGS
        assert_readable(run_dir)
        assert load_run(run_dir).steps == []                       # step 1's line could not be written


async def test_a_step_line_refused_by_permission_stops_the_run(phone_server, tmp_path, monkeypatch):
    real_append = trajectory.append_atomically

    def refuse_second_line(path, data):
        if b'"step": 2' in data:
            raise OSError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        real_append(path, data)

    monkeypatch.setattr(trajectory, "append_atomically", refuse_second_line)
    script = [json_reply(act("launch_app", package_name=SETTINGS)), json_reply(act("press_key", key_code="BACK")),
              json_reply(act("press_key", key_code="HOME")), json_reply(act("press_key", key_code="HOME"))]
    result, _ = await run_on(phone_server, tmp_path / "runs", ScriptedPerson([approve] * 4), script)
    run_dir = Path(result.run_dir)
    assert result.status == "failed"
    assert result.completion_reason.startswith(f"could not record step 2 in {run_dir}: permission denied")
    keys = [argv for argv in phone_actions(phone_server.devices[0]) if argv[:2] == ["input", "keyevent"]]
    assert [argv[-1] for argv in keys] in (["4"], ["KEYCODE_BACK"])     # step 2's BACK; step 3's HOME never
    assert [step.step for step in load_run(run_dir).steps] == [1]
    assert_readable(run_dir)
    assert json.loads((run_dir / RUN_FILE).read_text())["result"]["status"] == "failed"


async def test_a_read_only_runs_folder_refuses_the_run_and_leaves_the_phone_alone(phone_server, tmp_path):
    with small_disk(tmp_path / "ro", 64, read_only=True) as disk:
        before = phone_server.devices[0].phone.state()
        with pytest.raises(RunRefused, match=rf"Agent Desk cannot write to {disk / 'runs'} \(read-only file system\)"):
            await run_on(phone_server, disk / "runs", ScriptedPerson())
        assert phone_actions(phone_server.devices[0]) == []
        assert phone_server.devices[0].phone.state() == before
