"""The task API's edges: a phone that goes away mid-task, the token's sources, and `agentdesk serve`
as a user starts it (a real process: it prints where it listens, answers, and stops cleanly)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import httpx2
import pytest

from app.api.server import exposure_warning, is_loopback
from app.api.token import TOKEN_VARIABLE, TokenProblem, api_token
from app.core.secrets import SecretStore
from tests.conftest import REPO_ROOT
from tests.support.openai_server import act, json_reply


@pytest.mark.asyncio
async def test_a_task_whose_phone_goes_away_ends_failed_with_the_reason(make_desk):
    desk = await make_desk()
    server = desk.servers[0]

    def unplug_then_act(body):
        server.unplug("emulator-5554")
        return json_reply(act("press_key", key_code="HOME"))(body)
    desk.model.add(unplug_then_act, json_reply(act("", status="FINISH")))
    task_id = (await desk.post_task("Go home")).json()["task_id"]
    result = await desk.wait_for(task_id)
    assert result["status"] == "failed", result
    assert "emulator-5554" in result["completion_reason"] or "phone" in result["completion_reason"].lower()
    assert result["report_url"]


def test_the_token_comes_from_the_environment_else_the_keyring_else_a_new_one(agent_home):
    # (a token is registered as a secret for the whole process: a distinctive one, so no other test's text
    # is redacted)
    assert api_token({TOKEN_VARIABLE: "env-token-for-edges-0123"}).value == "env-token-for-edges-0123"
    with pytest.raises(TokenProblem, match="too short"):
        api_token({TOKEN_VARIABLE: "short"})
    store = SecretStore("AgentDesk API test")
    first = api_token({}, store)
    assert first.kept and len(first.value) >= 32 and first.value not in repr(first)
    assert api_token({}, store).value == first.value          # kept in the keyring: the same next time
    assert api_token({}, SecretStore("another service"), create=False) is None


def test_listening_beyond_loopback_is_warned_about():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert exposure_warning("127.0.0.1") == ""
    assert "other machines can reach it" in exposure_warning("0.0.0.0")


def test_agentdesk_serve_starts_answers_and_stops_cleanly(tmp_path):
    env = {**os.environ, "AGENTDESK_HOME": str(tmp_path), TOKEN_VARIABLE: "serve-test-token-0123456789",
           "PYTHONPATH": str(REPO_ROOT)}
    env.pop("ANDROID_ADB_SERVER_PORT", None)
    process = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", "--virtual", "--port", "0"], cwd=REPO_ROOT,
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = process.stdout.readline()
        assert first.startswith("Agent Desk task API on http://127.0.0.1:"), first + process.stderr.read()
        url = first.split()[5]
        headers = {"Authorization": "Bearer serve-test-token-0123456789"}
        devices = httpx2.get(f"{url}/v1/devices", headers=headers, timeout=10).json()["devices"]
        assert [d["virtual"] for d in devices] == [True]
        assert httpx2.get(f"{url}/v1/devices", timeout=10).status_code == 401
        assert (tmp_path / "data" / "api.json").is_file()          # agentdesk mcp finds it here
        process.send_signal(signal.SIGINT)
        assert process.wait(20) == 0
        assert not (tmp_path / "data" / "api.json").exists()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(5)
        process.stdout.close()
        process.stderr.close()


def test_serve_print_token_prints_the_kept_token(tmp_path):
    env = {**os.environ, "AGENTDESK_HOME": str(tmp_path), TOKEN_VARIABLE: "printed-token-0123456789"}
    done = subprocess.run([sys.executable, "-m", "app.cli", "serve", "--print-token"], cwd=REPO_ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "printed-token-0123456789"
