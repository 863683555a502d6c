"""Security: model text never runs a second command on the phone; the API key never reaches disk."""

from __future__ import annotations

import logging

import pytest

from app.core.redaction import setup_logging
from tests.e2e.conftest import API_KEY, ScriptedPerson
from tests.support.openai_server import act, click, json_reply, type_into

pytestmark = pytest.mark.asyncio

PAYLOADS = [
    "a; touch /sdcard/pwned1",
    "b && touch /sdcard/pwned2",
    "$(touch /sdcard/pwned3)",
    "`touch /sdcard/pwned4`",
    "it's \"quoted\" 'twice'",
    "line one\nline two; touch /sdcard/pwned5",
    "| touch /sdcard/pwned6 & touch /sdcard/pwned7 > /sdcard/pwned8",
]
# What the device layer itself runs on the phone; anything else would have come from a payload.
EXPECTED_PROGRAMS = {"input", "monkey", "uiautomator", "rm", "cat", "screencap", "wm", "dumpsys", "grep", "pm",
                     "getprop", "settings", "ime", "am", "sleep", "true",
                     "app_process"}     # scrcpy's server, started with a fixed command line (app.android.scrcpy.launch)


@pytest.mark.parametrize("payload", PAYLOADS)
async def test_typed_payload_runs_no_second_command(run_agent, phone_server, payload):
    script = [json_reply(act("launch_app", package_name="com.agentdesk.notes")), click("New note"),
              type_into("Title", payload), json_reply(act("", status="FINISH"))]
    outcome = await run_agent("Make a note", script, ScriptedPerson([], replies=[]), mode="auto")
    assert outcome.result.status == "success", outcome.result
    attached = phone_server.devices[0]
    programs = {argv[0] for argv in attached.command_lines()}
    assert programs <= EXPECTED_PROGRAMS, programs - EXPECTED_PROGRAMS
    assert "touch" not in programs
    assert not any(attached.storage.read(f"/sdcard/pwned{i}") is not None for i in range(1, 9))
    typed = outcome.state["focused_text"]
    assert typed == payload.split("\n")[-1] or typed == payload, typed   # a newline acts as Enter (next line)


async def test_api_key_is_in_no_file_and_no_log(run_agent, agent_home):
    log_file = setup_logging(verbose=True)
    logging.getLogger("app.test").info("the key is %s", API_KEY)          # even if code tried to log it
    script = [json_reply(act("press_key", key_code="HOME", thought=f"my key is {API_KEY}")),
              json_reply(act("", status="FINISH"))]
    outcome = await run_agent("Go home", script, mode="auto")
    assert outcome.result.status == "success"
    assert any(API_KEY in str(r.headers) for r in outcome.model.requests)   # it was really used
    for handler in logging.getLogger().handlers:
        handler.flush()
    files = [p for p in agent_home.rglob("*") if p.is_file()]
    assert log_file in files and any(p.name == "report.html" for p in files)
    for path in files:
        data = path.read_bytes()
        assert API_KEY.encode() not in data, f"the API key leaked into {path}"
        assert b"Bearer sk-" not in data, f"an Authorization header leaked into {path}"
