"""A run whose process was killed (kill -9) is marked "interrupted" the next time the runs are listed;
a run still going (in this process or another) is not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from app.core.agent.memory import ActionOutcome, MemoryItem
from app.core.agent.run_words import run_status_word
from app.core.agent.trajectory import INTERRUPTED_REASON, TrajectoryWriter, check_run, list_runs, load_run
from app.core.paths import runs_dir

KILLED_RUN = textwrap.dedent("""
    import os, signal
    from app.core.agent.memory import ActionOutcome, MemoryItem
    from app.core.agent.trajectory import TrajectoryWriter
    writer = TrajectoryWriter.create("Turn on Wi-Fi", {"serial": "emulator-5554"}, {}, {})
    writer.append_step(MemoryItem(step=1, request="Turn on Wi-Fi", result=ActionOutcome(True, "tapped")))
    (writer.run_dir / "step_002.png.1a2b3c4d.tmp").write_bytes(b"half a picture")
    print(writer.run_dir, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
""")


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path))
    return tmp_path


@pytest.mark.skipif(os.name == "nt", reason="kill -9 is POSIX")
def test_a_run_whose_process_was_killed_is_marked_interrupted_and_its_temporary_files_go(home):
    child = subprocess.run([sys.executable, "-c", KILLED_RUN], capture_output=True, text=True, timeout=60,
                           env={**os.environ, "AGENTDESK_HOME": str(home)})
    assert child.returncode == -9, child.stderr
    run_dir = runs_dir() / os.path.basename(child.stdout.strip())
    assert json.loads((run_dir / "run.json").read_text(encoding="utf-8"))["result"] is None

    [summary] = list_runs()
    assert summary.dir == run_dir and summary.status == "interrupted" and summary.steps == 1
    assert run_status_word(summary.status).text == "interrupted"
    result = load_run(run_dir).run.result
    assert result.status == "interrupted" and result.completion_reason == INTERRUPTED_REASON
    assert result.steps_taken == 1 and load_run(run_dir).run.finished_at
    assert not [path.name for path in run_dir.iterdir() if path.name.endswith((".tmp", ".lock"))]
    assert check_run(run_dir) == [], "the folder is complete as it was left: one step, its result, no leftovers"


def test_a_run_still_going_in_this_process_is_not_interrupted():
    writer = TrajectoryWriter.create("Open Notes", {"serial": "emulator-5554"}, {}, {})
    writer.append_step(MemoryItem(step=1, request="Open Notes", result=ActionOutcome(True, "tapped")))
    [summary] = list_runs()
    assert summary.status == "unfinished"
    assert load_run(writer.run_dir).run.result is None
