"""Signals end `agentdesk run` as Stop does: SIGTERM, SIGHUP and Ctrl+C (SIGINT) stop the run, its
record and report are written, nothing more reaches the phone, and the process exits 128 + the
signal's number (130 for Ctrl+C). Real processes, the virtual phone and the scripted model server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from app.core import paths
from app.core.agent.trajectory import load_run
from app.core.config import AgentSettings, Settings, save_settings
from tests.conftest import REPO_ROOT
from tests.e2e.conftest import phone_actions
from tests.support.openai_server import FakeOpenAIServer, act, click, delayed, json_reply

MODEL_DELAY = 8.0
"""How long the model server sits on the reply the signal interrupts: were the run to wait for it, its
tap would reach the phone and the test would see it."""

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


class CliRun:
    """`python -m app.cli run …` as a child process, its output collected line by line."""

    def __init__(self, args: list[str], home: Path, stdin=subprocess.DEVNULL) -> None:
        env = {**os.environ, "AGENTDESK_HOME": str(home), "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
        env.pop("OPENAI_API_KEY", None)             # a local model server needs no key
        self.process = subprocess.Popen([sys.executable, "-m", "app.cli", "run", *args], cwd=REPO_ROOT, env=env,
                                        stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, name="cli-output", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.append(line)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def wait_until(self, condition, what: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.finish(5)
                pytest.fail(f"gave up waiting for {what}; output:\n{self.output}")
            time.sleep(0.05)

    def finish(self, timeout: float) -> int:
        """Wait for the process to exit (kill it if it does not) and for its output."""
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
            code = None
        self._reader.join(10)
        if self.process.stdin:
            self.process.stdin.close()
        self.process.stdout.close()
        return code


@pytest.fixture
def cli_home(phone_server, agent_home):
    save_settings(Settings(agent=AgentSettings(max_steps=5)), paths.settings_path())   # the real settle time
    return agent_home


def the_run(home: Path):
    runs = [p.parent for p in (home).rglob("run.json")]
    assert len(runs) == 1, runs
    return load_run(runs[0])


def assert_stopped_and_recorded(home: Path) -> None:
    record = load_run_checked(home)
    assert record.run.result is not None and record.run.result.status == "stopped", record.run
    assert record.run.report and (record.run_dir / record.run.report).is_file()
    assert record.run.result.report_path and Path(record.run.result.report_path).is_file()


def load_run_checked(home: Path):
    record = the_run(home)
    assert record.run_readable and record.run.finished_at, record.problems
    return record


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=lambda s: s.name)
def test_a_signal_while_the_model_thinks_stops_the_run(cli_home, phone_server, signum):
    script = [json_reply(act("launch_app", package_name="com.android.settings")),
              delayed(MODEL_DELAY, click("Network & internet")), json_reply(act("", status="FINISH"))]
    with FakeOpenAIServer(script) as model:
        run = CliRun(["Open network settings", "--auto", "--base-url", model.base_url], cli_home)
        run.wait_until(lambda: len(model.chat_requests) >= 2, "the second model request")
        before = phone_actions(phone_server.devices[0])
        run.process.send_signal(signum)
        code = run.finish(MODEL_DELAY - 2)
        after = phone_actions(phone_server.devices[0])
    assert code == 128 + signum, run.output
    assert before and after == before, (before, after)      # the launch, then nothing more
    assert "Result: stopped" in run.output
    assert_stopped_and_recorded(cli_home)


def test_ctrl_c_during_a_review_stops_the_run_and_exits_130(cli_home, phone_server):
    """In step mode the console waits for the person's answer; Ctrl+C there must not wait for Enter."""
    script = [json_reply(act("launch_app", package_name="com.android.settings"))]
    with FakeOpenAIServer(script) as model:
        run = CliRun(["Open settings", "--step", "--base-url", model.base_url], cli_home, stdin=subprocess.PIPE)
        run.wait_until(lambda: "the model proposes" in run.output and "[Enter]=approve" in run.output,
                       "the review prompt")
        run.process.send_signal(signal.SIGINT)
        code = run.finish(20)
    assert code == 130, run.output
    assert phone_actions(phone_server.devices[0]) == []          # the proposal was never approved, so never run
    assert "Result: stopped" in run.output
    assert_stopped_and_recorded(cli_home)
