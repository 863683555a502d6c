"""ModelClient against a loopback OpenAI-compatible server, through the real `openai` client."""

from __future__ import annotations

import asyncio
import json
import logging
import socket

import pytest

from app.core.agent.llm_client import (
    ModelAuthError,
    ModelBadRequest,
    ModelClient,
    ModelNotFound,
    ModelRateLimited,
    ModelServerError,
    ModelTimeout,
    ModelUnreachable,
    estimate_cost,
)
from app.core.config import ProviderSettings, Settings
from tests.support.openai_server import (
    FakeOpenAIServer,
    cut_off_reply,
    delayed,
    http_error,
    json_reply,
    text_reply,
    tool_reply,
)

API_KEY = "sk-test-Secret0123456789abcdef"
MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello"}]
ACT_TOOL = {"type": "function", "function": {"name": "act", "parameters": {"type": "object", "properties": {}}}}


def make_client(server: FakeOpenAIServer, notices: list[str] | None = None, **provider_fields) -> ModelClient:
    fields = {"base_url": server.base_url, "model": "fake-model", "timeout_seconds": 5, "http_retries": 2,
              **provider_fields}
    on_retry = notices.append if notices is not None else None
    return ModelClient(ProviderSettings(**fields), API_KEY, backoff_seconds=0.01, on_retry=on_retry)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.asyncio
async def test_plain_text_reply_with_usage_and_request_shape():
    with FakeOpenAIServer([text_reply("hello there", prompt_tokens=321, completion_tokens=12)]) as server:
        async with make_client(server, temperature=0.2, max_output_tokens=777) as client:
            response = await client.complete(MESSAGES)
    assert response.text == "hello there"
    assert response.tool_arguments is None
    assert (response.prompt_tokens, response.completion_tokens) == (321, 12)
    assert response.model == "fake-model"
    assert response.duration_ms > 0
    sent = server.chat_requests[0]
    assert sent.body["messages"] == MESSAGES
    assert sent.body["model"] == "fake-model"
    assert sent.body["max_tokens"] == 777 and sent.body["temperature"] == 0.2
    assert "tools" not in sent.body
    assert sent.headers["authorization"] == f"Bearer {API_KEY}"


@pytest.mark.asyncio
async def test_tool_call_arguments_are_returned_as_json_text():
    reply = {"thought": "t", "action": {"function": "wait", "arguments": {"seconds": 1}, "status": "CONTINUE"}}
    with FakeOpenAIServer([tool_reply(reply)]) as server:
        async with make_client(server) as client:
            response = await client.complete(MESSAGES, tools=[ACT_TOOL])
    assert json.loads(response.tool_arguments) == reply
    assert server.chat_requests[0].body["tools"] == [ACT_TOOL]


@pytest.mark.asyncio
async def test_rate_limit_is_retried_after_the_retry_after_delay_and_the_person_is_told():
    notices: list[str] = []
    with FakeOpenAIServer([http_error(429, "slow down", retry_after=0.3), text_reply("ok")]) as server:
        async with make_client(server, notices) as client:
            response = await client.complete(MESSAGES)
    assert response.text == "ok"
    assert len(server.chat_requests) == 2
    assert len(notices) == 1
    assert "HTTP 429" in notices[0] and "0.3 s" in notices[0] and "try 2 of 3" in notices[0]


@pytest.mark.asyncio
async def test_retry_after_is_capped_at_30_seconds():
    notices: list[str] = []
    told = asyncio.Event()
    with FakeOpenAIServer([http_error(429, "come back tomorrow", retry_after=86400)]) as server:
        async with make_client(server) as client:
            client.on_retry = lambda notice: (notices.append(notice), told.set())
            call = asyncio.ensure_future(client.complete(MESSAGES))
            await asyncio.wait_for(told.wait(), 10)
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
    assert "trying again in 30.0 s" in notices[0]


@pytest.mark.asyncio
async def test_server_errors_exhaust_the_retries():
    notices: list[str] = []
    with FakeOpenAIServer([http_error(500, "boom")] * 3) as server:
        async with make_client(server, notices, http_retries=2) as client:
            with pytest.raises(ModelServerError) as caught:
                await client.complete(MESSAGES)
    message = str(caught.value)
    assert len(server.chat_requests) == 3 and len(notices) == 2
    assert "HTTP 500: boom" in message and "3 tries" in message and server.base_url in message
    assert "try again later" in message


@pytest.mark.asyncio
async def test_refused_key_is_not_retried_and_never_shown(caplog):
    caplog.set_level(logging.DEBUG)
    refusal = http_error(401, f"Incorrect API key provided: {API_KEY}. You can find your key at ...")
    with FakeOpenAIServer([http_error(429, "busy", retry_after=0), refusal]) as server:
        async with make_client(server) as client:
            with pytest.raises(ModelAuthError) as caught:
                await client.complete(MESSAGES)
    assert len(server.chat_requests) == 2     # the 429 was retried, the 401 was not
    message = str(caught.value)
    assert "refused" in message and "agentdesk key set" in message
    for text in (message, repr(caught.value), caplog.text):
        assert API_KEY not in text and API_KEY[:12] not in text
        assert "Bearer" not in text


@pytest.mark.asyncio
async def test_bad_request_shows_the_servers_message_without_the_key():
    masked = API_KEY[:8] + "*" * 10 + API_KEY[-4:]      # how OpenAI quotes a key back
    with FakeOpenAIServer([http_error(400, f"image too large for this model (key {API_KEY}, {masked})")]) as server:
        async with make_client(server) as client:
            with pytest.raises(ModelBadRequest) as caught:
                await client.complete(MESSAGES)
    message = str(caught.value)
    assert "HTTP 400" in message and "image too large for this model" in message
    assert API_KEY not in message and API_KEY[3:15] not in message and masked not in message
    assert len(server.chat_requests) == 1


@pytest.mark.asyncio
async def test_timeout_after_retries():
    slow = delayed(3, text_reply("too late"))
    with FakeOpenAIServer([slow, slow]) as server:
        async with make_client(server, timeout_seconds=0.3, http_retries=1) as client:
            with pytest.raises(ModelTimeout) as caught:
                await client.complete(MESSAGES)
    assert len(server.chat_requests) == 2
    assert "0.3 s" in str(caught.value) and "timeout in Settings" in str(caught.value)


@pytest.mark.asyncio
async def test_unreachable_server_names_the_base_url():
    base_url = f"http://127.0.0.1:{free_port()}/v1"
    notices: list[str] = []
    client = ModelClient(ProviderSettings(base_url=base_url, http_retries=1), API_KEY, backoff_seconds=0.01,
                         on_retry=notices.append)
    async with client:
        with pytest.raises(ModelUnreachable) as caught:
            await client.complete(MESSAGES)
        with pytest.raises(ModelUnreachable):
            await client.list_models()
    assert base_url in str(caught.value) and "base URL in Settings" in str(caught.value)
    assert len(notices) == 2      # one retry for each call


@pytest.mark.asyncio
async def test_tools_unsupported_are_dropped_once_and_remembered():
    script = [http_error(400, "This model does not support tools."), json_reply({"a": 1}), text_reply("second")]
    with FakeOpenAIServer(script) as server:
        async with make_client(server) as client:
            first = await client.complete(MESSAGES, tools=[ACT_TOOL])
            second = await client.complete(MESSAGES, tools=[ACT_TOOL])
    assert json.loads(first.text) == {"a": 1} and second.text == "second"
    assert client.shape.tools_supported is False
    assert ["tools" in request.body for request in server.chat_requests] == [True, False, False]


@pytest.mark.asyncio
async def test_max_completion_tokens_is_used_when_the_server_asks_for_it():
    refusal = http_error(400, "Unsupported parameter: 'max_tokens' is not supported with this model. "
                              "Use 'max_completion_tokens' instead.")
    with FakeOpenAIServer([refusal, text_reply("ok")]) as server:
        async with make_client(server, max_output_tokens=500) as client:
            assert (await client.complete(MESSAGES)).text == "ok"
    retried = server.chat_requests[1].body
    assert retried["max_completion_tokens"] == 500 and "max_tokens" not in retried


@pytest.mark.asyncio
async def test_unknown_model_and_exhausted_quota_are_not_retried():
    script = [http_error(404, "The model `gpt-9` does not exist"),
              http_error(429, "You exceeded your current quota", code="insufficient_quota")]
    with FakeOpenAIServer(script) as server:
        async with make_client(server, model="gpt-9") as client:
            with pytest.raises(ModelNotFound) as not_found:
                await client.complete(MESSAGES)
            with pytest.raises(ModelRateLimited) as no_quota:
                await client.complete(MESSAGES)
    assert "'gpt-9' was not found" in str(not_found.value) and "model name in Settings" in str(not_found.value)
    assert "no quota left" in str(no_quota.value) and "billing" in str(no_quota.value)
    assert len(server.chat_requests) == 2


@pytest.mark.asyncio
async def test_list_models_returns_the_server_models():
    with FakeOpenAIServer(models=["b-model", "a-model"]) as server:
        async with make_client(server) as client:
            assert await client.list_models() == ["a-model", "b-model"]
    assert server.requests[0].path == "/v1/models"


@pytest.mark.asyncio
async def test_test_server_problems_are_clear_server_errors():
    def broken_responder(body):
        raise LookupError("no control named 'Wi-Fi'")

    with FakeOpenAIServer([broken_responder]) as server:
        async with make_client(server, http_retries=0) as client:
            with pytest.raises(ModelServerError, match="scripted responder failed: LookupError: no control named"):
                await client.complete(MESSAGES)
            with pytest.raises(ModelServerError, match="script ran out"):
                await client.complete(MESSAGES)


def test_estimate_cost_uses_the_price_table():
    settings = Settings()
    assert estimate_cost(settings, "gpt-4o-2024-08-06", 1_000_000, 0) == pytest.approx(2.50)
    assert estimate_cost(settings, "gpt-4o-mini", 2_000_000, 1_000_000) == pytest.approx(0.30 + 0.60)
    assert estimate_cost(settings, "local-llava", 5_000, 500) == 0.0
    assert ModelClient.estimate_cost(settings, "gpt-4o", 0, 1_000_000) == pytest.approx(10.0)


@pytest.mark.asyncio
@pytest.mark.parametrize("status", [400, 409, 413, 415, 422])
async def test_client_errors_that_cannot_succeed_on_retry_are_sent_once(status):
    with FakeOpenAIServer([http_error(status, "the request is wrong")] * 4) as server:
        async with make_client(server, http_retries=3) as client:
            with pytest.raises(ModelBadRequest) as caught:
                await client.complete(MESSAGES)
    assert len(server.chat_requests) == 1
    assert caught.value.status_code == status and "gave up" not in str(caught.value)


@pytest.mark.asyncio
@pytest.mark.parametrize("status, error", [(408, ModelTimeout), (429, ModelRateLimited)])
async def test_timeouts_and_rate_limits_are_the_4xx_that_are_retried(status, error):
    with FakeOpenAIServer([http_error(status, "later")] * 3) as server:
        async with make_client(server, http_retries=2) as client:
            with pytest.raises(error):
                await client.complete(MESSAGES)
    assert len(server.chat_requests) == 3


@pytest.mark.asyncio
async def test_an_image_refusal_is_not_retried_even_as_http_500(tmp_path):
    """llama.cpp answers a blind model's image with HTTP 500: no backoff, no second try with the image."""
    from app.core.agent.llm_client import ModelImagesRefused
    from app.core.agent.text_only import TextOnlyModels
    image_messages = [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}, {"type": "text", "text": "hi"}]}]
    with FakeOpenAIServer([], refuse_images="llama.cpp") as server:
        client = ModelClient(ProviderSettings(base_url=server.base_url, model="m", http_retries=3), API_KEY,
                             backoff_seconds=0.01, text_only_models=TextOnlyModels(tmp_path / "t.json"))
        async with client:
            with pytest.raises(ModelImagesRefused):
                await client.complete(image_messages, fall_back_to_text=False)
    assert len(server.chat_requests) == 1


@pytest.mark.asyncio
async def test_every_http_try_is_recorded_with_status_tokens_and_finish_reason():
    script = [http_error(500, "busy", retry_after=0), cut_off_reply("half a rep", completion_tokens=64)]
    replies = []
    with FakeOpenAIServer(script) as server:
        async with make_client(server) as client:
            response = await client.complete(MESSAGES, max_output_tokens=64, replies=replies)
    assert response.cut_off and response.finish_reason == "length" and response.text == "half a rep"
    assert server.chat_requests[1].body["max_tokens"] == 64
    failed, answered = replies
    assert (failed.outcome, failed.http_status, failed.raw_text) == ("error", 500, "busy")
    assert "HTTP 500" in failed.problem and failed.completion_tokens == 0
    assert (answered.http_status, answered.finish_reason, answered.completion_tokens) == (200, "length", 64)
    assert answered.raw_text == "half a rep" and answered.max_output_tokens == 64 and answered.duration_ms > 0
    assert [reply.attempt for reply in replies] == [1, 2]


@pytest.mark.asyncio
async def test_a_refused_image_and_the_text_only_resend_are_both_recorded(tmp_path):
    from app.core.agent.text_only import TextOnlyModels
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    messages = [{"role": "user", "content": [{"type": "text", "text": "look"}, image]}]
    replies = []
    with FakeOpenAIServer([text_reply("ok")], refuse_images="llama.cpp") as server:
        client = ModelClient(ProviderSettings(base_url=server.base_url, model="fake-model", http_retries=2),
                             API_KEY, backoff_seconds=0.01, text_only_models=TextOnlyModels(tmp_path / "t.json"))
        async with client:
            await client.complete(messages, replies=replies)
    assert [(reply.outcome, reply.http_status) for reply in replies] == [("refused", 500), ("accepted", 200)]
    assert "image input is not supported" in replies[0].raw_text
