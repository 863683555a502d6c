"""Streamed replies: while someone listens for the model's words (`on_words`), the reply is asked for
streamed and its words are told as they arrive; servers that ignore or refuse streaming still answer."""

from __future__ import annotations

import json

import pytest

from app.core.agent.events import MODEL_WORDS_HISTORY_CHARS, EventStream, ModelWords
from app.core.agent.llm_client import ModelClient, ModelReplyTooLarge, ModelServerError
from app.core.agent.reply_stream import StreamedReply
from app.core.config import ProviderSettings
from tests.support.openai_server import FakeOpenAIServer, ScriptedReply, act, huge_reply, text_reply, tool_reply

MESSAGES = [{"role": "user", "content": "go"}]
TEXT = "I will open the Settings app, then look for Wi‑Fi. ünïcödé ✓"
REPLY = act("launch_app", package_name="com.android.settings")
TOOL = {"type": "function", "function": {"name": "act", "parameters": {"type": "object", "properties": {}}}}


def make_client(server: FakeOpenAIServer, words: list[str] | None, **fields) -> ModelClient:
    provider = ProviderSettings(**{"base_url": server.base_url, "model": "fake-model", "http_retries": 0, **fields})
    listen = None if words is None else lambda text, _tokens: words.append(text)
    client = ModelClient(provider, None, backoff_seconds=0.01, on_words=listen)
    client.words_interval_seconds = 0.0          # every chunk, so the test sees the words grow
    return client


@pytest.mark.asyncio
async def test_the_words_arrive_as_the_server_sends_them_and_the_reply_is_whole():
    words: list[str] = []
    with FakeOpenAIServer([text_reply(TEXT, prompt_tokens=321, completion_tokens=17)]) as server:
        async with make_client(server, words) as client:
            response = await client.complete(MESSAGES)
    body = server.chat_requests[0].body
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert response.text == TEXT and response.finish_reason == "stop"
    assert (response.prompt_tokens, response.completion_tokens) == (321, 17)
    assert len(words) > 3 and words[-1] == TEXT
    assert all(later.startswith(earlier)
               for earlier, later in zip(words, words[1:], strict=False)), "the words only grow"


@pytest.mark.asyncio
async def test_a_streamed_tool_call_is_put_back_together():
    words: list[str] = []
    with FakeOpenAIServer([tool_reply(REPLY)]) as server:
        async with make_client(server, words) as client:
            response = await client.complete(MESSAGES, [TOOL])
    assert json.loads(response.tool_arguments) == REPLY
    assert json.loads(words[-1]) == REPLY


@pytest.mark.asyncio
async def test_nobody_listening_means_no_streaming():
    with FakeOpenAIServer([text_reply(TEXT)]) as server:
        async with make_client(server, None) as client:
            response = await client.complete(MESSAGES)
    assert response.text == TEXT
    assert "stream" not in server.chat_requests[0].body


@pytest.mark.asyncio
async def test_a_server_that_ignores_stream_and_sends_json_is_read_as_before():
    words: list[str] = []
    with FakeOpenAIServer([text_reply(TEXT)], stream_replies=False) as server:
        async with make_client(server, words) as client:
            response = await client.complete(MESSAGES)
    assert response.text == TEXT and response.prompt_tokens == 100


@pytest.mark.asyncio
@pytest.mark.parametrize("refused, left_out", [("stream_options", ("stream_options",)),
                                              ("stream", ("stream", "stream_options"))])
async def test_a_server_that_refuses_streaming_is_asked_again_without_it_and_never_again(refused, left_out):
    words: list[str] = []
    with FakeOpenAIServer([text_reply(TEXT), text_reply(TEXT)], refuse_parameters=(refused,)) as server:
        async with make_client(server, words) as client:
            first = await client.complete(MESSAGES)
            second = await client.complete(MESSAGES)
    assert first.text == second.text == TEXT
    bodies = [request.body for request in server.chat_requests]
    assert len(bodies) == 3 and refused in bodies[0]
    assert all(not set(left_out) & set(body) for body in bodies[1:])


@pytest.mark.asyncio
async def test_a_server_failing_mid_stream_is_a_server_error_with_its_words_and_the_try_is_kept():
    failing = lambda body: ScriptedReply(content=TEXT, stream_error="the slot was cancelled")  # noqa: E731
    replies: list = []
    with FakeOpenAIServer([failing]) as server:
        async with make_client(server, []) as client:
            with pytest.raises(ModelServerError) as caught:
                await client.complete(MESSAGES, replies=replies)
    assert "the slot was cancelled" in str(caught.value)
    assert [record.outcome for record in replies] == ["error"] and "slot was cancelled" in replies[0].raw_text


@pytest.mark.asyncio
async def test_a_streamed_reply_over_the_cap_is_refused():
    with FakeOpenAIServer([huge_reply(2)]) as server:
        async with make_client(server, [], max_reply_mb=1) as client:
            with pytest.raises(ModelReplyTooLarge):
                await client.complete(MESSAGES)


def test_chunks_cut_anywhere_even_inside_a_character_give_the_same_reply():
    events = [{"model": "m", "choices": [{"index": 0, "delta": {"content": part}}]} for part in ("Wi‑", "Fi ✓")]
    events.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}],
                   "usage": {"prompt_tokens": 5, "completion_tokens": 2}})
    data = ("".join(f"data: {json.dumps(event, ensure_ascii=False)}\r\n\r\n" for event in events)
            + ": keep-alive\n\ndata: [DONE]\n\n").encode("utf-8")
    reply = StreamedReply()
    for index in range(len(data)):
        reply.feed(data[index:index + 1])
    reply.finish()
    completion = reply.completion()
    assert completion["choices"][0]["message"]["content"] == "Wi‑Fi ✓"
    assert completion["choices"][0]["finish_reason"] == "length" and completion["usage"]["completion_tokens"] == 2


def test_the_events_history_keeps_only_the_tail_of_the_words():
    stream = EventStream()
    seen: list = []
    stream.subscribe(seen.append)
    stream.emit(ModelWords(1, "x" * 5000))
    assert len(seen[0].text_so_far) == 5000
    assert len(stream.history[0].text_so_far) == MODEL_WORDS_HISTORY_CHARS
