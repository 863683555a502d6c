"""The sensitive check end to end (issue 25 §3, §6): scripted model, virtual phone, scripted person.

What reached the phone is read from the virtual phone's own command record, never from the agent.
"""

from __future__ import annotations

import json

import pytest

from app.core.agent.actions import Action
from app.core.agent.supervisor import ReviewAnswer
from tests.e2e.conftest import API_KEY, ScriptedPerson, approve
from tests.support.openai_server import act, click, control_centre, json_reply, type_into, user_texts

pytestmark = pytest.mark.asyncio

MESSAGE_START = [json_reply(act("launch_app", package_name="com.android.messaging")), click("Start chat"),
                 click("Ben Carter"), type_into("Text message", "Running 10 minutes late")]
REQUEST = "Text Ben Carter that I am running 10 minutes late"


def finish(comment: str = "done"):
    reply = act("", status="FINISH")
    reply["comment"] = comment
    return json_reply(reply)


def tap_on(name: str):
    """A tap by coordinates on the centre the request gives for the control called `name` (no control id)."""
    def respond(body):
        x, y = control_centre(body, name)
        return json_reply(act("tap", x=x, y=y))(body)
    return respond


def taps(outcome) -> list[list[str]]:
    return [argv for argv in outcome.phone_actions() if argv[:2] == ["input", "tap"]]


async def test_auto_mode_stops_a_tap_by_coordinates_on_a_sensitive_control(run_agent):
    person = ScriptedPerson([approve])
    outcome = await run_agent(REQUEST, [*MESSAGE_START, tap_on("Send SMS"), finish("message sent")], person,
                              mode="auto")
    assert outcome.result.status == "success", outcome.result
    assert [p.action_text.split(" ")[0] for p in person.shown] == ["Tap"]
    assert "“Send SMS”" in person.shown[0].sensitive_reason and "send" in person.shown[0].sensitive_reason
    assert {"to": "Ben Carter", "body": "Running 10 minutes late"} in outcome.state["messages_sent"]


async def test_a_refused_tap_by_coordinates_never_reaches_the_phone(run_agent):
    person = ScriptedPerson([lambda p: ReviewAnswer.stop()])
    outcome = await run_agent(REQUEST, [*MESSAGE_START, tap_on("Send SMS")], person, mode="auto")
    assert outcome.result.status == "stopped"
    assert outcome.state["messages_sent"] == [] and len(taps(outcome)) == 3   # Start chat, Ben Carter, the field


async def test_a_confirm_reply_stops_for_the_person_in_auto_mode_then_runs_as_continue(run_agent):
    def confirm_network(body):
        reply = click("Network & internet")(body).content
        reply = json.loads(reply)
        reply["action"]["status"], reply["comment"] = "CONFIRM", "Open the network settings?"
        return json_reply(reply)(body)
    person = ScriptedPerson([approve])
    script = [json_reply(act("launch_app", package_name="com.android.settings")), confirm_network, click("Wi-Fi"),
              click("Use Wi-Fi"), finish("Wi-Fi is on")]
    outcome = await run_agent("Turn on Wi-Fi", script, person, mode="auto")
    assert outcome.result.status == "success", outcome.result
    assert len(person.shown) == 1
    assert person.shown[0].sensitive_reason.startswith("the model asks you to confirm: Open the network settings?")
    steps = outcome.steps()
    assert steps[1].decision.kind == "approve" and steps[1].status == "CONTINUE"
    assert steps[1].proposed_action is None          # confirmed as proposed: not "executed instead"
    assert outcome.state["wifi"] is True


async def test_the_replys_questions_reach_the_person_and_the_answers_the_model(run_agent):
    def ask_then_open(body):
        reply = act("launch_app", package_name="com.android.messaging")
        reply["questions"] = ["Which Ben: Carter or Miller?"]
        return json_reply(reply)(body)
    person = ScriptedPerson([], replies=["Ben Carter"])
    outcome = await run_agent(REQUEST, [ask_then_open, finish()], person, mode="auto")
    assert person.questions == ["Which Ben: Carter or Miller?"]
    second_prompt = "\n".join(user_texts(outcome.model.requests[1].body))
    assert "Which Ben: Carter or Miller?" in second_prompt and "Ben Carter" in second_prompt


async def test_the_stored_key_is_never_typed_even_by_the_persons_override(run_agent):
    def override_with_the_key(proposal):
        return ReviewAnswer.override(Action(function="type_text", arguments={"text": f"key {API_KEY}"}))
    person = ScriptedPerson([approve, approve, override_with_the_key, approve])
    script = [json_reply(act("launch_app", package_name="com.agentdesk.notes")), click("New note"),
              type_into("Title", "Groceries"), finish()]
    outcome = await run_agent("Make a note", script, person)
    typed = [argv for argv in outcome.phone_actions() if argv[:2] == ["input", "text"]]
    assert typed == [] and API_KEY not in str(outcome.device.command_lines())
    third = outcome.steps()[2]
    assert not third.result.success and "never typed" in third.result.message
    assert API_KEY not in outcome.state["focused_text"]


async def test_a_model_that_types_the_stored_key_in_auto_mode_is_refused(run_agent):
    script = [json_reply(act("launch_app", package_name="com.agentdesk.notes")), click("New note"),
              type_into("Title", API_KEY), finish()]
    outcome = await run_agent("Make a note", script, ScriptedPerson([]), mode="auto")
    assert API_KEY not in str(outcome.device.command_lines())
    assert "never typed" in outcome.steps()[2].result.message
    assert "never typed" in "\n".join(user_texts(outcome.model.requests[3].body))    # the model is told why


async def test_a_screen_that_changed_during_the_review_gets_no_tap(run_agent, phone_server):
    phone = phone_server.devices[0].phone

    def approve_after_the_screen_moved(proposal):
        phone.go_home()                 # while the person looked, the phone went elsewhere
        return ReviewAnswer.approve()
    person = ScriptedPerson([approve, approve_after_the_screen_moved, approve])
    script = [json_reply(act("launch_app", package_name="com.android.settings")), click("Network & internet"),
              finish()]
    outcome = await run_agent("Open the network settings", script, person)
    step = outcome.steps()[1]
    assert not step.result.success and "screen changed" in step.result.message
    assert taps(outcome) == []


async def test_a_step_without_controls_asks_in_auto_mode_when_the_request_is_sensitive(run_agent, phone_server):
    phone_server.devices[0].faults.failing_dumps = 3    # the device layer tries 3 times: a screenshot-only step
    person = ScriptedPerson([lambda p: ReviewAnswer.stop()])
    script = [json_reply(act("tap", x=270, y=600))]       # pixels of the sent 540x1200 image
    outcome = await run_agent("Delete all my photos", script, person, mode="auto")
    assert outcome.result.status == "stopped"
    assert "could not be read" in person.shown[0].sensitive_reason and "delete" in person.shown[0].sensitive_reason
    assert taps(outcome) == []
