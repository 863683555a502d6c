"""Every fault ends in a defined state, with a reason a person can read and a complete trajectory."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import ScriptedPerson, approve
from tests.support.openai_server import act, click, delayed, http_error, json_reply, text_reply

pytestmark = pytest.mark.asyncio

FINISH = json_reply(act("", status="FINISH"))


KEY_NAMES = {"3": "HOME", "4": "BACK", "66": "ENTER"}


def keys(argv: list[str]) -> str:
    """The key of an `input keyevent` command ("HOME", by code or name); other commands as they are."""
    if argv[:2] != ["input", "keyevent"]:
        return " ".join(argv)
    return KEY_NAMES.get(argv[-1], argv[-1].removeprefix("KEYCODE_"))


def sent_back(outcome, request_index: int) -> str:
    """What the app told the model in a given request (its last user message)."""
    return str(outcome.model.chat_requests[request_index].body["messages"][-1])


@pytest.mark.parametrize("bad_reply, complaint", [
    (text_reply("I will open the settings app now."), "no JSON"),
    (text_reply('{"thought": "x", "action": {"function": "launch_app", "arguments": {'), "JSON could not be read"),
    (json_reply(act("teleport", destination="home")), "unknown function 'teleport'"),
    (json_reply(act("launch_app")), "package_name"),
    (json_reply(act("click_control", control_id=999)), "control_id 999 does not exist"),
    (json_reply(act("tap", x=5000, y=-3)), "outside the screen"),
])
async def test_bad_reply_is_sent_back_then_corrected(run_agent, bad_reply, complaint):
    script = [bad_reply, json_reply(act("press_key", key_code="HOME")), FINISH]
    outcome = await run_agent("Go home", script, ScriptedPerson([approve, approve]))
    assert outcome.result.status == "success", outcome.result
    assert complaint.lower() in sent_back(outcome, 1).lower()
    assert outcome.steps()[0].model_attempts == 2
    assert [keys(argv) for argv in outcome.phone_actions()] == ["HOME"], "only the corrected action reached the phone"
    assert outcome.trajectory_problems() == []


async def test_model_that_never_gives_a_valid_reply_fails_the_run(run_agent):
    script = [text_reply("sorry")] * 3
    outcome = await run_agent("Go home", script, reply_retries=3)
    assert outcome.result.status == "failed"
    assert "no usable action after 3 tries" in outcome.result.completion_reason
    assert len(outcome.model.chat_requests) == 3
    assert outcome.phone_actions() == [], "no refused reply reached the phone"
    assert outcome.trajectory_problems() == []


@pytest.mark.parametrize("status", [429, 500])
async def test_rate_limit_and_server_error_are_retried(run_agent, status):
    script = [http_error(status, "busy", retry_after=0), json_reply(act("press_key", key_code="HOME")), FINISH]
    outcome = await run_agent("Go home", script, ScriptedPerson([approve, approve]))
    assert outcome.result.status == "success", outcome.result
    assert [keys(argv) for argv in outcome.phone_actions()] == ["HOME"], "the retried reply acted once"


async def test_server_errors_that_persist_fail_with_a_readable_reason(run_agent):
    script = [http_error(500, "the model crashed")] * 3
    outcome = await run_agent("Go home", script)
    assert outcome.result.status == "failed"
    assert "HTTP 500" in outcome.result.completion_reason and "the model crashed" in outcome.result.completion_reason
    assert outcome.phone_actions() == []
    assert outcome.trajectory_problems() == []


async def test_model_timeout(run_agent):
    script = [delayed(2, json_reply(act("press_key", key_code="HOME")))] * 3
    outcome = await run_agent("Go home", script, provider={"timeout_seconds": 0.5, "http_retries": 1})
    assert outcome.result.status == "failed"
    assert "0.5" in outcome.result.completion_reason or "in time" in outcome.result.completion_reason
    assert outcome.phone_actions() == [], "a reply that came too late never acts"
    assert outcome.trajectory_problems() == []


async def test_phone_unplugged_mid_step(run_agent, phone_server):
    attached = phone_server.devices[0]

    def unplug_then_act(body):
        phone_server.unplug(attached.serial)
        return json_reply(act("press_key", key_code="HOME"))(body)

    outcome = await run_agent("Go home", [unplug_then_act, FINISH], ScriptedPerson([approve, approve]))
    assert outcome.result.status == "failed"
    assert "not connected" in outcome.result.completion_reason
    steps = outcome.steps()
    assert steps[0].result.success is False and "not connected" in steps[0].result.message
    assert "not connected" in steps[-1].error
    assert outcome.phone_actions() == [], "nothing reached a phone that was gone"
    assert outcome.state["foreground"] == "com.android.launcher3"
    assert outcome.trajectory_problems() == []


async def test_failing_dumps_give_a_screenshot_only_step(run_agent, phone_server):
    phone_server.devices[0].faults.failing_dumps = 3    # the device layer tries 3 times
    script = [json_reply(act("tap", x=270, y=600)), FINISH]     # pixels of the sent 540x1200 image
    outcome = await run_agent("Look at the screen", script, ScriptedPerson([approve, approve]))
    assert outcome.result.status == "success", outcome.result
    steps = outcome.steps()
    assert steps[0].screen_only is True and steps[0].controls_count == 0
    assert "screenshot only" in sent_back(outcome, 0).lower() or "screenshot-only" in sent_back(outcome, 0).lower()
    assert steps[1].screen_only is False
    assert [argv[:2] for argv in outcome.phone_actions()] == [["input", "tap"]]
    assert outcome.trajectory_problems() == []


async def test_action_failure_is_recorded_and_the_run_goes_on(run_agent):
    script = [json_reply(act("launch_app", package_name="com.example.missing")),
              json_reply(act("launch_app", package_name="com.android.settings")), FINISH]
    outcome = await run_agent("Open settings", script, ScriptedPerson([approve] * 3))
    assert outcome.result.status == "success"
    first = outcome.steps()[0].result
    assert first.success is False and "com.example.missing" in first.message
    assert "failed" in sent_back(outcome, 1) and "com.example.missing" in sent_back(outcome, 1)
    assert outcome.state["foreground"] == "com.android.settings", "the second launch reached the phone"


async def test_stuck_model_is_warned_then_failed(run_agent):
    same = json_reply(act("tap", x=5, y=700))     # taps an empty spot of the home screen
    outcome = await run_agent("Do something", [same] * 6, mode="auto", stuck_threshold=3)
    assert outcome.result.status == "failed"
    assert "stuck" in outcome.result.completion_reason.lower()
    assert any("did not change" in sent_back(outcome, i) for i in range(len(outcome.model.chat_requests)))
    taps = [argv for argv in outcome.phone_actions() if argv[:2] == ["input", "tap"]]
    assert len(taps) == len(outcome.result.actions_executed) < 6, "the repeated tap stopped reaching the phone"
    assert outcome.trajectory_problems() == []


async def test_step_limit(run_agent):
    script = [json_reply(act("press_key", key_code="HOME")), click("Settings"), click("Navigate up")]
    outcome = await run_agent("Wander", script, mode="auto", max_steps=2)
    assert outcome.result.status == "failed", "seed 004: reaching max steps is a failure, not a timeout"
    assert outcome.result.completion_reason.startswith("Max steps reached")
    assert "2 steps" in outcome.result.completion_reason
    assert outcome.result.steps_taken == 2 and outcome.trajectory_problems() == []
    assert len(outcome.phone_actions()) == 2, "the third proposal never reached the phone"
    assert outcome.state["foreground"] == "com.android.settings"
