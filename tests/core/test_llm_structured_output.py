"""Structured output: `tool_choice` when tools are sent, a `response_format` JSON schema (or JSON
object) when the reply tool is given but tools are not sent, and one fallback without either when
the server refuses it. Against the scripted loopback server, through the real `openai` client."""

from __future__ import annotations

import json

import pytest

from app.core.agent.llm_client import ModelClient
from app.core.config import ProviderSettings
from app.core.providers import structured_output_for
from tests.support.openai_server import FakeOpenAIServer, act, http_error, json_reply, tool_reply

MESSAGES = [{"role": "system", "content": "Answer with one JSON object."}, {"role": "user", "content": "go"}]
SCHEMA = {"type": "object", "properties": {"thought": {"type": "string"}}, "required": ["thought"]}
REPLY_TOOL = {"type": "function", "function": {"name": "act", "description": "the reply", "parameters": SCHEMA}}
REPLY = act("wait", seconds=1)


def make_client(server: FakeOpenAIServer, **fields) -> ModelClient:
    provider = ProviderSettings(**{"base_url": server.base_url, "model": "fake-model", "http_retries": 0, **fields})
    return ModelClient(provider, None, backoff_seconds=0.01)


@pytest.mark.asyncio
async def test_tools_are_sent_with_tool_choice_required_and_no_response_format():
    with FakeOpenAIServer([tool_reply(REPLY)]) as server:
        async with make_client(server) as client:
            response = await client.complete(MESSAGES, [REPLY_TOOL])
    assert json.loads(response.tool_arguments) == REPLY
    body = server.chat_requests[0].body
    assert body["tools"] == [REPLY_TOOL] and body["tool_choice"] == "required"
    assert "response_format" not in body


@pytest.mark.asyncio
async def test_a_server_that_refuses_tool_choice_is_asked_again_without_it_and_never_again():
    with FakeOpenAIServer([tool_reply(REPLY), tool_reply(REPLY)], refuse_parameters=("tool_choice",)) as server:
        async with make_client(server) as client:
            first = await client.complete(MESSAGES, [REPLY_TOOL])
            second = await client.complete(MESSAGES, [REPLY_TOOL])
    assert json.loads(first.tool_arguments) == json.loads(second.tool_arguments) == REPLY
    bodies = [request.body for request in server.chat_requests]
    assert len(bodies) == 3, "one refusal, then two requests without tool_choice"
    assert "tool_choice" in bodies[0] and all("tool_choice" not in body and body["tools"] for body in bodies[1:])


@pytest.mark.asyncio
async def test_without_tools_the_reply_tools_schema_is_sent_as_response_format():
    with FakeOpenAIServer([json_reply(REPLY)]) as server:
        async with make_client(server, use_tools=False) as client:
            response = await client.complete(MESSAGES, [REPLY_TOOL])
    assert json.loads(response.text) == REPLY
    body = server.chat_requests[0].body
    assert "tools" not in body and "tool_choice" not in body
    assert body["response_format"] == {"type": "json_schema", "json_schema": {"name": "act", "schema": SCHEMA}}


@pytest.mark.asyncio
async def test_a_server_that_refused_tools_gets_the_schema_as_response_format_instead():
    script = [http_error(400, "tools are not supported by this model"), json_reply(REPLY)]
    with FakeOpenAIServer(script) as server:
        async with make_client(server) as client:
            response = await client.complete(MESSAGES, [REPLY_TOOL])
    assert json.loads(response.text) == REPLY
    first, second = (request.body for request in server.chat_requests)
    assert "tools" in first and "response_format" not in first
    assert "tools" not in second and second["response_format"]["json_schema"]["schema"] == SCHEMA


@pytest.mark.asyncio
async def test_a_server_that_refuses_response_format_is_asked_once_more_without_it_and_never_again():
    replies: list = []
    with FakeOpenAIServer([json_reply(REPLY), json_reply(REPLY)], refuse_parameters=("response_format",)) as server:
        async with make_client(server, use_tools=False) as client:
            first = await client.complete(MESSAGES, [REPLY_TOOL], replies=replies)
            await client.complete(MESSAGES, [REPLY_TOOL])
    assert json.loads(first.text) == REPLY
    bodies = [request.body for request in server.chat_requests]
    assert len(bodies) == 3 and "response_format" in bodies[0]
    assert all("response_format" not in body for body in bodies[1:])
    assert [record.outcome for record in replies] == ["refused", "accepted"], "the refusal is kept"
    assert "response_format" in replies[0].raw_text


@pytest.mark.asyncio
async def test_a_refusal_that_names_something_else_is_not_taken_for_a_response_format_refusal():
    with FakeOpenAIServer([http_error(400, "messages: too many images")]) as server:
        async with make_client(server, use_tools=False) as client:
            with pytest.raises(Exception) as caught:
                await client.complete(MESSAGES, [REPLY_TOOL])
    assert "too many images" in str(caught.value)
    assert len(server.chat_requests) == 1, "not sent again"


@pytest.mark.asyncio
@pytest.mark.parametrize("setting, expected", [("json_object", {"type": "json_object"}), ("off", None)])
async def test_the_setting_chooses_a_json_object_or_no_response_format(setting, expected):
    with FakeOpenAIServer([json_reply(REPLY)]) as server:
        async with make_client(server, use_tools=False, structured_output=setting) as client:
            await client.complete(MESSAGES, [REPLY_TOOL])
    assert server.chat_requests[0].body.get("response_format") == expected


@pytest.mark.asyncio
async def test_a_call_without_the_reply_tool_asks_for_no_format():
    """The connection test, the doctor's probe and the reflection ask in plain words."""
    with FakeOpenAIServer([json_reply({"ok": True})]) as server:
        async with make_client(server, use_tools=False) as client:
            await client.complete(MESSAGES)
    body = server.chat_requests[0].body
    assert not {"response_format", "tool_choice", "tools"} & set(body)


def test_auto_follows_what_the_preset_says_the_server_accepts():
    def kind(preset: str, base_url: str) -> str:
        return structured_output_for(ProviderSettings(preset=preset, base_url=base_url))

    assert kind("OpenAI", "https://api.openai.com/v1") == "json_schema"
    assert kind("Groq", "https://api.groq.com/openai/v1") == "json_object"
    assert kind("Anthropic", "https://api.anthropic.com/v1") == "none"
    assert kind("llama.cpp", "http://localhost:8080/v1") == "json_schema"
    assert kind("Custom", "http://127.0.0.1:5000/v1") == "json_schema", "any local server takes a JSON schema"
    assert kind("Custom", "https://models.example.com/v1") == "none", "an unknown remote server: nothing assumed"
