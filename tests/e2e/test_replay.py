"""Replaying a recorded run on the virtual phone: without the model, never blindly.

A Wi-Fi run is recorded with the scripted model, the phone is put back, and the recorded
steps run again. Each case where the phone no longer matches the record — the switch already
on, the app missing, another screen first, the target's text changed — must end in the right
hand-over or a clear stop, never a tap on the wrong control. The phone's own state and the
commands that reached it decide, not the agent's opinion.
"""

from __future__ import annotations

import copy

import pytest

from app.core.agent.events import Message
from app.core.agent.supervisor import ReviewAnswer
from app.core.device.adb_transport import AdbTransport
from app.core.device.phone_session import PhoneRegistry
from app.core.learning.recorded_steps import ReplayScript, script_from_run
from app.core.runs.service import RunRequest, RunService
from app.virtual_phone.adb_server import VirtualAdbServer
from app.virtual_phone.phone import VirtualPhone
from tests.e2e.conftest import API_KEY, FIXED_TIME, ScriptedPerson, approve, e2e_settings
from tests.e2e.test_agent_tasks import WIFI_SCRIPT
from tests.support.openai_server import act, click, json_reply

pytestmark = pytest.mark.asyncio

NO_SKILLS = {"use_skills": False}


async def record_wifi(run_agent) -> ReplayScript:
    outcome = await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, mode="auto", request_options=NO_SKILLS)
    assert outcome.result.status == "success" and outcome.state["wifi"] is True
    RECORDED_ACTIONS.append(outcome.phone_actions())
    return script_from_run(outcome.result.run_dir)


def put_back(phone, wifi: bool = False) -> None:
    """The phone as before the recorded run: Wi-Fi off (or on), Settings closed, the home screen shown."""
    phone.set_setting_flag("global", "wifi_on", wifi)
    phone.force_stop("com.android.settings")
    phone.go_home()


def taps(outcome) -> list[list[str]]:
    """The taps that reached the phone during the last run (the recorded run's come first in the log)."""
    actions = outcome.phone_actions()
    return [argv for argv in actions[len(RECORDED_ACTIONS[-1]):] if argv[:2] == ["input", "tap"]]


RECORDED_ACTIONS: list[list] = [[]]


async def test_the_recorded_steps_are_the_actions_that_were_done(run_agent):
    script = await record_wifi(run_agent)
    assert script.request == "Turn on Wi-Fi" and script.ended == "success"
    assert [step.function for step in script.steps] == ["launch_app", "click_control", "click_control",
                                                        "click_control"]
    assert [step.target_checked for step in script.steps] == [None, None, None, False]   # only the switch toggled
    assert script.steps[3].target.resource_id.endswith("main_switch_bar")


async def test_replay_on_a_put_back_phone_turns_wifi_on_with_no_model_call(run_agent, phone_server):
    script = await record_wifi(run_agent)
    put_back(phone_server.devices[0].phone)
    outcome = await run_agent("Turn on Wi-Fi", [], mode="auto",
                              request_options={"replay": script, "model_takes_over": False, **NO_SKILLS})
    assert outcome.result.status == "success", outcome.result
    assert outcome.state["wifi"] is True
    assert outcome.model.chat_requests == []
    assert outcome.result.verification == "screen", outcome.result.verification_note
    assert len(taps(outcome)) == 3
    assert outcome.trajectory_problems() == []


async def test_a_flipped_switch_verifies_the_ending_by_the_screen(run_agent, phone_server):
    """Without the recorded final screen to compare, the switch the last step flipped must show its new state."""
    script = await record_wifi(run_agent)
    script.final_screen = ""
    put_back(phone_server.devices[0].phone)
    outcome = await run_agent("Turn on Wi-Fi", [], mode="auto",
                              request_options={"replay": script, "model_takes_over": False, **NO_SKILLS})
    assert outcome.result.status == "success", outcome.result
    assert outcome.result.verification == "screen", outcome.result.verification_note
    assert "Use Wi" in outcome.result.verification_note


async def test_a_switch_already_on_is_not_tapped_again(run_agent, phone_server):
    script = await record_wifi(run_agent)
    put_back(phone_server.devices[0].phone, wifi=True)
    outcome = await run_agent("Turn on Wi-Fi", [], mode="auto",
                              request_options={"replay": script, "model_takes_over": False, **NO_SKILLS})
    assert outcome.result.status == "success", outcome.result
    assert outcome.state["wifi"] is True, "the replay turned Wi-Fi off: it tapped a switch that was already on"
    assert len(taps(outcome)) == 2


async def test_a_missing_app_stops_the_replay_before_anything_is_tapped(run_agent, phone_server):
    script = await record_wifi(run_agent)
    script.steps[0].action["arguments"]["package_name"] = "com.example.not.installed"
    put_back(phone_server.devices[0].phone)
    outcome = await run_agent("Turn on Wi-Fi", [], mode="auto",
                              request_options={"replay": script, "model_takes_over": False, **NO_SKILLS})
    assert outcome.result.status == "failed"
    assert "com.example.not.installed is not installed" in outcome.result.completion_reason
    assert "No model is set up to take over" in outcome.result.completion_reason
    assert outcome.phone_actions()[len(RECORDED_ACTIONS[-1]):] == [] and outcome.model.chat_requests == []


async def test_a_changed_text_is_never_tapped(run_agent, phone_server):
    """The switch bar keeps its resource-id but is labelled differently now: the replay must not tap it."""
    script = await record_wifi(run_agent)
    target = script.steps[3].target
    assert target is not None and target.resource_id.endswith("main_switch_bar")
    target.name = "Use mobile data"
    put_back(phone_server.devices[0].phone)
    outcome = await run_agent("Turn on Wi-Fi", [], mode="auto",
                              request_options={"replay": script, "model_takes_over": False, **NO_SKILLS})
    assert outcome.result.status == "failed"
    assert "“Use mobile data” is not on the screen" in outcome.result.completion_reason
    assert outcome.state["wifi"] is False
    assert len(taps(outcome)) == 2          # Network & internet, Wi-Fi; never the switch


async def test_a_moved_target_is_found_by_its_resource_id(run_agent, phone_server):
    script = await record_wifi(run_agent)
    target = script.steps[3].target
    target.bounds = [0, 1500, 1080, 1700]                  # recorded somewhere else in an older layout
    target.node_path = [0, 3, 1]
    target.anchors = []
    put_back(phone_server.devices[0].phone)
    outcome = await run_agent("Turn on Wi-Fi", [], mode="auto",
                              request_options={"replay": script, "model_takes_over": False, **NO_SKILLS})
    assert outcome.result.status == "success", outcome.result
    assert outcome.state["wifi"] is True


async def test_another_screen_first_hands_over_to_the_model(run_agent, phone_server):
    """Settings resumes on the Wi-Fi page (as Android does): the recorded tap on “Network & internet”
    no longer fits, and the model carries on from there, told where the replay stopped."""
    script = await record_wifi(run_agent)
    phone = phone_server.devices[0].phone
    phone.set_setting_flag("global", "wifi_on", False)
    phone.go_home()                                         # Settings is left open on the Wi-Fi page
    outcome = await run_agent("Turn on Wi-Fi", [click("Use Wi-Fi"), json_reply(act("", status="FINISH"))], mode="auto",
                              request_options={"replay": script, **NO_SKILLS})
    assert outcome.result.status == "success", outcome.result
    assert outcome.state["wifi"] is True
    assert len(outcome.model.chat_requests) >= 1
    prompt = str(outcome.model.chat_requests[0].body)
    assert "replay" in prompt and "Network & internet" in prompt


async def test_rejecting_a_recorded_step_lets_the_model_decide(run_agent, phone_server):
    script = await record_wifi(run_agent)
    put_back(phone_server.devices[0].phone)

    def reject(_proposal):
        return ReviewAnswer.reject("open it from search instead")

    person = ScriptedPerson([approve, reject, approve])
    outcome = await run_agent("Turn on Wi-Fi", [json_reply(act("", status="FAIL", thought="no search here"))], person,
                              mode="step", request_options={"replay": script, **NO_SKILLS})
    assert [p.action_text.split(" ")[0] for p in person.shown][:2] == ["Open", "Tap"]
    assert outcome.model.chat_requests, "after the rejection the model must be asked"
    assert "open it from search instead" in str(outcome.model.chat_requests[0].body)
    assert outcome.result.status == "failed"
    assert len(taps(outcome)) == 0


async def test_a_replay_is_recorded_as_a_run_of_its_own(run_agent, phone_server):
    script = await record_wifi(run_agent)
    put_back(phone_server.devices[0].phone)
    outcome = await run_agent("Turn on Wi-Fi", [], mode="auto",
                              request_options={"replay": copy.deepcopy(script), "model_takes_over": False,
                                               **NO_SKILLS})
    again = script_from_run(outcome.result.run_dir)
    assert again.request == "Turn on Wi-Fi"
    assert [s.function for s in again.steps] == [s.function for s in script.steps]
    assert all(step.decided_by == "auto" for step in again.steps)


async def replay_on_another_phone(script: ReplayScript, **phone_options) -> tuple:
    """Replay `script` (no model) on a new virtual phone made with `phone_options`; (result, phone, messages)."""
    server = VirtualAdbServer().start()
    phone = VirtualPhone(clock=lambda: FIXED_TIME, **phone_options)
    server.add_phone(phone)
    transport = AdbTransport("127.0.0.1", server.port)
    phones = PhoneRegistry()
    try:
        phones.open(transport, transport.list_devices()[0], virtual=True, timeout=10)
        service = RunService(phones, e2e_settings("http://127.0.0.1:9/v1", "auto"))
        try:
            handle = await service.start(RunRequest(script.request, api_key=API_KEY, replay=script,
                                                    model_takes_over=False, use_skills=False))
            result = await handle.wait()
        finally:
            await service.shutdown()
            await phones.close()
        notes = [event.text for event in handle.events.history if isinstance(event, Message)]
        return result, phone, notes
    finally:
        server.stop()


@pytest.mark.parametrize("phone_options", [{"latency": "realistic@0.15"}, {"profile": "android9"}],
                         ids=["realistic latency", "android 9, 720x1280"])
async def test_a_run_recorded_on_the_quick_phone_replays_on_other_phones(run_agent, phone_options):
    script = await record_wifi(run_agent)
    result, phone, notes = await replay_on_another_phone(script, **phone_options)
    assert result.status == "success", result
    assert phone.state()["wifi"] is True
    if "profile" in phone_options:
        assert any("this one is 720×1280" in note for note in notes), notes
