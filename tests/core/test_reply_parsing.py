"""decode_reply: the reply object from tool arguments or from JSON anywhere in the model's text."""

from __future__ import annotations

import json

import pytest

from app.core.agent.actions import ReplyInvalid, parse_reply_dict
from app.core.agent.llm_client import ModelResponse
from app.core.agent.reply_parsing import decode_reply

REPLY = {"thought": "Wi-Fi is control 4", "action": {"function": "click_control",
                                                    "arguments": {"control_id": 4, "control_name": "Wi-Fi"},
                                                    "status": "CONTINUE"}, "comment": "Open Wi-Fi"}
REPLY_TEXT = json.dumps(REPLY)


def response(text: str = "", tool_arguments: str | None = None) -> ModelResponse:
    return ModelResponse(text=text, tool_arguments=tool_arguments, prompt_tokens=0, completion_tokens=0,
                         model="m", duration_ms=0.0)


@pytest.mark.parametrize("text", [
    REPLY_TEXT,
    f"```json\n{REPLY_TEXT}\n```",
    f"```\n{REPLY_TEXT}\n```",
    f"Here is my answer:\n```JSON\n{REPLY_TEXT}\n```\nI hope this helps.",
    f"I'll tap Wi-Fi now. {REPLY_TEXT} That's all.",
    f"json\n{REPLY_TEXT}",
    f"JSON: {REPLY_TEXT}",
], ids=["bare", "json-fence", "plain-fence", "fence-in-prose", "prose-around", "json-word", "json-colon"])
def test_reply_found_in_text(text):
    assert decode_reply(response(text)) == REPLY


def test_braces_and_quotes_inside_strings_do_not_confuse_the_scanner():
    reply = {"thought": 'The label says "{not json}" and } {', "action": {"function": "wait", "arguments": {},
                                                                          "status": "CONTINUE"}}
    text = f"Prose with a {{stray brace and then: {json.dumps(reply)} done"
    assert decode_reply(response(text)) == reply


def test_a_quoted_brace_in_prose_does_not_hide_the_object():
    text = 'The button says "Save {draft" so: {"thought": "a", "comment": "b"}'
    assert decode_reply(response(text)) == {"thought": "a", "comment": "b"}


def test_the_first_object_that_decodes_wins_over_placeholders_in_prose():
    text = 'Use the format {thought, action}. {"thought": "a", "action": {"function": "wait"}}'
    assert decode_reply(response(text))["thought"] == "a"


def test_trailing_commas_are_tolerated():
    text = '{"thought": "x", "action": {"function": "wait", "arguments": {"seconds": 2,}, "status": "CONTINUE",},}'
    assert decode_reply(response(text))["action"]["arguments"] == {"seconds": 2}


def test_a_comma_inside_a_string_before_a_brace_is_kept():
    text = '{"thought": "a ,}", "comment": "b",}'
    assert decode_reply(response(text)) == {"thought": "a ,}", "comment": "b"}


def test_python_literals_are_repaired_only_as_a_last_resort():
    python_style = "{'thought': 'x', 'action': {'function': '', 'arguments': {}, 'status': 'FINISH'}, 'done': True}"
    assert decode_reply(response(python_style))["done"] is True
    mixed = '{"thought": "None of True matters", "ok": True, "value": None}'
    assert decode_reply(response(mixed)) == {"thought": "None of True matters", "ok": True, "value": None}


def test_tool_arguments_are_preferred_over_the_text():
    other = json.dumps({"thought": "from the text"})
    assert decode_reply(response(other, tool_arguments=REPLY_TEXT)) == REPLY


def test_broken_tool_arguments_fall_back_to_the_text():
    assert decode_reply(response(REPLY_TEXT, tool_arguments='{"thought": ')) == REPLY


def test_decoded_reply_validates():
    assert parse_reply_dict(decode_reply(response(f"```json\n{REPLY_TEXT}\n```"))).action.args.control_id == 4


@pytest.mark.parametrize("text, expected", [
    ("I will tap the Wi-Fi switch.", "had no JSON object"),
    ("", "was empty"),
    ('{"thought": "cut off here', "could not be read"),
    ('{"thought" "missing colon"}', "could not be read"),
    ("[1, 2, 3]", "had no JSON object"),
])
def test_nothing_decodable_raises_a_message_for_the_model(text, expected):
    with pytest.raises(ReplyInvalid) as caught:
        decode_reply(response(text))
    message = str(caught.value)
    assert expected in message
    assert "exactly one" in message and '"action"' in message   # tells the model the expected shape
