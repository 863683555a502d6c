"""The four tasks on the virtual phone, driven by scripted model replies, in step and auto mode.

The phone's own state (not the agent's opinion) decides whether each task was done.
"""

from __future__ import annotations

import asyncio

import pytest

from app.core.agent.actions import Action
from app.core.agent.events import Message
from app.core.agent.supervisor import ReviewAnswer
from tests.e2e.conftest import ScriptedPerson, approve
from tests.support.openai_server import act, click, json_reply, type_into

pytestmark = pytest.mark.asyncio

WIFI_SCRIPT = [json_reply(act("launch_app", package_name="com.android.settings")),
               click("Network & internet"), click("Wi-Fi"), click("Use Wi-Fi"),
               json_reply(act("", status="FINISH", thought="Wi-Fi is on"))]


def finish(comment: str = "done"):
    reply = act("", status="FINISH")
    reply["comment"] = comment
    return json_reply(reply)


async def test_wifi_in_step_mode_with_approvals(run_agent):
    person = ScriptedPerson([approve] * 5)
    outcome = await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, person)
    assert outcome.result.status == "success", outcome.result
    assert outcome.state["wifi"] is True
    assert [p.action_text.split(" ")[0] for p in person.shown] == ["Open", "Tap", "Tap", "Tap", "Finish:"]
    assert outcome.result.steps_taken == 5 and len(outcome.result.actions_executed) == 4
    assert outcome.trajectory_problems() == []


@pytest.mark.phone_latency("realistic@0.15")   # some latency is all it needs
async def test_wifi_on_a_phone_as_slow_as_a_real_one(run_agent):
    """Dumps that wait for idle, screens that move after each tap: the run still ends right."""
    outcome = await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, ScriptedPerson([]), mode="auto")
    assert outcome.result.status == "success", outcome.result
    assert outcome.state["wifi"] is True
    assert outcome.trajectory_problems() == []


@pytest.mark.phone_latency("realistic@0.15")
@pytest.mark.parametrize("request_text, script, answers", [
    ("Turn on Wi-Fi", "WIFI", []), ("Text Ben Carter that I am running 10 minutes late", "MESSAGE", [approve])])
async def test_runs_read_the_screen_through_uiautomator2s_server_on_a_realistic_phone(
        run_agent, phone_server, monkeypatch, request_text, script, answers):
    """The app's default on the virtual phone: every tree from the server on the phone, never `uiautomator dump`;
    the run ends right, and the server is not left listening once the run's desk has closed."""
    monkeypatch.setenv("AGENTDESK_TREE_SERVER", "auto")
    outcome = await run_agent(request_text, {"WIFI": WIFI_SCRIPT, "MESSAGE": MESSAGE_SCRIPT}[script],
                              ScriptedPerson(list(answers)), mode="auto")
    assert outcome.result.status == "success", outcome.result
    commands = [" ".join(argv) for argv in phone_server.devices[0].command_lines()]
    assert not any(command.startswith("uiautomator dump") for command in commands), commands
    for _ in range(40):            # the phone notices the closed shell as a phone does: a moment later
        if not phone_server.devices[0].sockets.listening():
            break
        await asyncio.sleep(0.05)
    assert phone_server.devices[0].sockets.listening() == []


async def test_when_the_server_cannot_start_the_run_says_why_once_and_reads_the_tree_by_uiautomator_dump(
        run_agent, phone_server, monkeypatch):
    monkeypatch.setenv("AGENTDESK_TREE_SERVER", "auto")
    monkeypatch.setattr("app.core.device.tree_server.U2_JAR_SHA256", "0" * 64)     # a jar it will not start
    outcome = await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, ScriptedPerson([]), mode="auto")
    told = [event.text for event in outcome.run.events.history if isinstance(event, Message)]
    assert outcome.result.status == "success", outcome.result
    said = [text for text in told if "uiautomator dump" in text]
    assert len(said) == 1 and "SHA-256 differs" in said[0], told          # once, for five steps
    commands = [" ".join(argv) for argv in phone_server.devices[0].command_lines()]
    assert any(command.startswith("uiautomator dump") for command in commands)


async def test_wifi_in_auto_mode_asks_nobody(run_agent):
    outcome = await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, ScriptedPerson([]), mode="auto")
    assert outcome.result.status == "success"
    assert outcome.state["wifi"] is True
    assert [s.decision.kind for s in outcome.steps()] == ["auto"] * 5


async def test_note_with_an_edit_and_an_override(run_agent):
    def fix_typo(proposal):
        assert proposal.action.arguments["text"] == "Grocries"
        return ReviewAnswer.edit(Action(function="type_text",
                                        arguments={**proposal.action.arguments, "text": "Groceries"}))

    def save_instead_of_back(proposal):
        assert proposal.action.function == "press_key"
        save = next(c for c in proposal.controls if c.name == "Save")
        return ReviewAnswer.override(Action(function="click_control", arguments={"control_id": save.id}))

    script = [json_reply(act("launch_app", package_name="com.agentdesk.notes")), click("New note"),
              type_into("Title", "Grocries"), type_into("Note", "milk, eggs"),
              json_reply(act("press_key", key_code="BACK")), finish("note saved")]
    person = ScriptedPerson([approve, approve, fix_typo, approve, save_instead_of_back, approve])
    outcome = await run_agent("Create a note called Groceries with milk, eggs", script, person)
    assert outcome.result.status == "success", outcome.result
    assert {"title": "Groceries", "body": "milk, eggs"} in [
        {"title": n["title"], "body": n["body"]} for n in outcome.state["notes"]]
    steps = outcome.steps()
    assert steps[2].decision.kind == "edit" and steps[2].proposed_action["arguments"]["text"] == "Grocries"
    assert steps[4].decision.kind == "override" and steps[4].action["function"] == "click_control"
    assert outcome.trajectory_problems() == []


async def test_alarm_with_a_rejection_that_reaches_the_model(run_agent):
    def pick_digits(position: int, text: str):
        def respond(body):
            from tests.support.openai_server import controls_in_request
            fields = [cid for cid, name in controls_in_request(body).items() if name.isdigit()]
            return json_reply(act("type_text", control_id=fields[position], text=text, clear_current_text=True))(body)
        return respond

    script = [json_reply(act("launch_app", package_name="com.android.deskclock")), click("Add alarm"),
              pick_digits(0, "7"), pick_digits(1, "30"), click("AM"), click("Cancel"), click("OK"),
              finish("alarm set for 7:30")]
    reject = lambda proposal: ReviewAnswer.reject("Tap OK, not Cancel")   # noqa: E731
    person = ScriptedPerson([approve] * 5 + [reject, approve, approve])
    outcome = await run_agent("Set an alarm for 7:30 AM", script, person)
    assert outcome.result.status == "success", outcome.result
    assert any(a["hour"] == 7 and a["minute"] == 30 and a["enabled"] for a in outcome.state["alarms"])
    last_texts = "\n".join(str(m) for m in outcome.model.chat_requests[6].body["messages"])
    assert "Tap OK, not Cancel" in last_texts
    steps = outcome.steps()
    assert steps[5].decision.kind == "approve" and "Tap OK, not Cancel" in steps[5].decision.feedback
    assert outcome.trajectory_problems() == []


MESSAGE_SCRIPT = [json_reply(act("launch_app", package_name="com.android.messaging")), click("Start chat"),
                  click("Ben Carter"), type_into("Text message", "Running 10 minutes late"), click("Send SMS"),
                  finish("message sent")]


async def test_message_in_step_mode(run_agent):
    outcome = await run_agent("Text Ben Carter that I am running 10 minutes late", MESSAGE_SCRIPT,
                              ScriptedPerson([approve] * 6))
    assert outcome.result.status == "success", outcome.result
    assert {"to": "Ben Carter", "body": "Running 10 minutes late"} in outcome.state["messages_sent"]


@pytest.mark.phone_latency("realistic@0.15")   # some latency is all it needs
async def test_message_on_a_phone_as_slow_as_a_real_one(run_agent):
    outcome = await run_agent("Text Ben Carter that I am running 10 minutes late", MESSAGE_SCRIPT,
                              ScriptedPerson([approve]), mode="auto")
    assert outcome.result.status == "success", outcome.result
    assert {"to": "Ben Carter", "body": "Running 10 minutes late"} in outcome.state["messages_sent"]


async def test_message_in_auto_mode_confirms_only_the_send(run_agent):
    person = ScriptedPerson([approve])
    outcome = await run_agent("Text Ben Carter that I am running 10 minutes late", MESSAGE_SCRIPT, person, mode="auto")
    assert outcome.result.status == "success", outcome.result
    assert [p.action_text for p in person.shown] == [person.shown[0].action_text]
    assert "Send SMS" in person.shown[0].action_text and "send" in person.shown[0].sensitive_reason
    assert {"to": "Ben Carter", "body": "Running 10 minutes late"} in outcome.state["messages_sent"]


async def test_stop_at_approval_keeps_the_record(run_agent):
    person = ScriptedPerson([approve, lambda p: ReviewAnswer.stop()])
    outcome = await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, person)
    assert outcome.result.status == "stopped"
    assert outcome.result.steps_taken == 2 and len(outcome.steps()) == 2
    assert outcome.state["wifi"] is False
    assert outcome.trajectory_problems() == []


async def test_ask_user_answer_reaches_the_next_prompt(run_agent):
    script = [json_reply(act("ask_user", question="Which network should I join?")),
              finish("joined")]
    person = ScriptedPerson([approve, approve], replies=["GuestNet"])
    outcome = await run_agent("Join the right Wi-Fi", script, person)
    assert person.questions == ["Which network should I join?"]
    assert "GuestNet" in str(outcome.model.chat_requests[1].body["messages"][-1])
    assert outcome.result.status == "success"
