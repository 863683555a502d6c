"""Typing that is checked, end to end: what the field shows after typing decides whether the action
worked, the model hears about a mismatch in its next prompt, and clearing empties a field of any length.

The phone's own state (`outcome.state`) says what really got typed.
"""

from __future__ import annotations

import re

import pytest

from tests.support.openai_server import act, click, json_reply, user_texts

pytestmark = pytest.mark.asyncio

_EDIT_LINE = re.compile(r"^(\d+) edit\b")             # `8 edit "Message" tap,focused @540,2200`


def type_into_field(text: str, clear: bool = False):
    """type_text into the last EditText of the screen the request shows (the chat's message field),
    whatever it is called now."""
    def respond(body):
        field = [int(match.group(1)) for line in user_texts(body)[0].splitlines()
                 if (match := _EDIT_LINE.match(line.strip()))][-1]
        return json_reply(act("type_text", text=text, control_id=field, clear_current_text=clear))(body)
    return respond


def finish():
    return json_reply(act("", status="FINISH"))


OPEN_CHAT = [json_reply(act("launch_app", package_name="com.android.messaging")), click("Start chat"),
             click("Ben Carter")]


def prompt_after(outcome, step: int) -> str:
    """The text of the user message the model got at step `step + 1` (steps count from 1)."""
    return user_texts(outcome.model.chat_requests[step].body)[0]


async def test_text_left_in_the_field_fails_the_action_and_the_model_hears_it(run_agent):
    script = OPEN_CHAT + [type_into_field("Hi "), type_into_field("Running 10 minutes late"), finish()]
    outcome = await run_agent("Text Ben that I am late", script, mode="auto")
    assert outcome.state["focused_text"] == "Hi Running 10 minutes late"       # what the phone really holds
    typed_twice = outcome.steps()[4].result
    assert typed_twice.success is False
    assert typed_twice.message.startswith('Typed "Running 10 minutes late" but the field shows')
    assert 'shows "Hi Running 10 minutes late"' in typed_twice.message
    assert outcome.steps()[3].result.success is True                            # the first typing was right
    assert 'shows "Hi Running 10 minutes late"' in prompt_after(outcome, 5)
    assert outcome.trajectory_problems() == []


async def test_clearing_removes_a_500_character_field(run_agent):
    script = OPEN_CHAT + [type_into_field("x" * 500), type_into_field("Running 10 minutes late", clear=True),
                          finish()]
    outcome = await run_agent("Text Ben that I am late", script, mode="auto")
    assert outcome.state["focused_text"] == "Running 10 minutes late"
    assert [step.result.success for step in outcome.steps()[3:5]] == [True, True]
    assert "read back" in outcome.steps()[4].result.message
    assert outcome.trajectory_problems() == []


async def test_clearing_to_an_empty_field(run_agent):
    script = OPEN_CHAT + [type_into_field("y" * 500), type_into_field("", clear=True), finish()]
    outcome = await run_agent("Empty the message", script, mode="auto")
    assert outcome.state["focused_text"] == ""
    assert outcome.steps()[4].result.success is True, outcome.steps()[4].result


async def test_dropped_characters_fail_the_action(run_agent, phone_server):
    phone_server.devices[0].faults.dropped_typed_characters = 1
    script = OPEN_CHAT + [type_into_field("Running 10 minutes late"), finish()]
    outcome = await run_agent("Text Ben that I am late", script, mode="auto")
    assert outcome.state["focused_text"] == "Running 10 minutes lat"          # the phone lost the last "e"
    typed = outcome.steps()[3].result
    assert typed.success is False
    assert typed.message.startswith('Typed "Running 10 minutes late" but')
    assert 'shows "Running 10 minutes lat" (1 character was dropped)' in typed.message
    assert "1 character was dropped" in prompt_after(outcome, 4)
    assert outcome.state["messages_sent"] == [] or all(
        m["body"] != "Running 10 minutes late" for m in outcome.state["messages_sent"])
