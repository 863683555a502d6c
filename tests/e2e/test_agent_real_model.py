"""The agent loop against a real OpenAI-compatible server: llama.cpp's llama-server with SmolLM2-135M.

A 135M model cannot do phone tasks; what these tests check is that a run against a real server
(text only, no tool calls, slow, replies cut off at max_tokens) ends in a defined, honestly
reported state with everything recorded, and that the phone saw only what the run says it did.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.agent.llm_client import ModelClient, ModelTimeout
from app.core.agent.model_decision import cut_off_problem
from app.core.agent.reply_parsing import decode_reply
from app.core.agent.text_only import TextOnlyModels
from app.core.agent.trajectory import load_run
from app.core.config import ProviderSettings
from app.core.device.adb_transport import AdbTransport
from app.core.device.phone_session import PhoneRegistry
from app.core.runs.service import RunRequest, RunService
from tests.conftest import SHARED_DIR
from tests.e2e.conftest import e2e_settings
from tests.support.real_model import RealModelUnavailable, start_real_model_server, stop_real_model_server

pytestmark = pytest.mark.asyncio

DEFINED_ENDINGS = {"success", "failed", "stopped", "timeout"}


@pytest.fixture(scope="module")
def real_model():
    try:
        server = start_real_model_server(SHARED_DIR)
    except RealModelUnavailable as exc:
        pytest.skip(str(exc))
    yield server
    stop_real_model_server(server)


async def run_on_real_model(phone_server, real_model, request: str, **agent):
    transport = AdbTransport("127.0.0.1", phone_server.port)
    phones = PhoneRegistry()
    phones.open(transport, transport.list_devices()[0], virtual=True, timeout=10)
    settings = e2e_settings(real_model.base_url, "auto",
                            {"model": real_model.model, "timeout_seconds": 120, "max_output_tokens": 200}, **agent)
    service = RunService(phones, settings)
    try:
        handle = await service.start(RunRequest(request))
        result = await handle.wait()
    finally:
        await service.shutdown()
        await phones.close()
    return result


async def test_a_run_on_a_real_text_only_server_ends_in_a_defined_recorded_state(phone_server, real_model):
    phone = phone_server.devices[0].phone
    before = phone.state()
    result = await run_on_real_model(phone_server, real_model, "Turn on Wi-Fi", max_steps=2)

    assert result.status in DEFINED_ENDINGS, result
    assert result.completion_reason
    # The server cannot read images: the run goes on text only instead of failing on the refusal.
    assert "image input is not supported" not in result.completion_reason, result.completion_reason
    record = json.loads((Path(result.run_dir) / "run.json").read_text())
    assert record["result"]["status"] == result.status and record["report"]
    loaded = load_run(result.run_dir)
    assert len(loaded.steps) == result.steps_taken
    # The phone saw no more actions than the run reports having executed.
    if not result.actions_executed:
        assert phone.state()["foreground"] == before["foreground"]


# ------------------------------------------------------------------ the client against the real server

def real_provider(real_model, **overrides) -> ProviderSettings:
    values = {"base_url": real_model.base_url, "model": real_model.model, "timeout_seconds": 120,
              "http_retries": 1, "max_output_tokens": 200, **overrides}
    return ProviderSettings(**values)


async def test_a_real_reply_cut_off_at_max_tokens_is_reported_as_cut_off(real_model, tmp_path):
    messages = [{"role": "user", "content": "Write a very long story about a phone, at least 500 words."}]
    async with ModelClient(real_provider(real_model, max_output_tokens=64), None,
                           text_only_models=TextOnlyModels(tmp_path / "t.json")) as client:
        response = await client.complete(messages)
    assert response.finish_reason == "length" and response.cut_off
    assert response.completion_tokens == 64
    assert cut_off_problem(response, 64) == "the reply was cut off at 64 tokens (the output budget)"


async def test_the_real_server_is_held_to_the_reply_schema_when_tools_are_off(real_model, tmp_path):
    """With tools off, the client sends the tool's parameters as a `response_format` JSON schema, and
    llama.cpp enforces it by grammar: even a 135M model's reply decodes to exactly that shape."""
    answer_tool = {"type": "function", "function": {"name": "answer", "parameters": {
        "type": "object", "properties": {"done": {"type": "boolean"}, "reason": {"type": "string", "maxLength": 60}},
        "required": ["done", "reason"]}}}
    messages = [{"role": "user", "content": "Is the sky green? Answer as JSON."}]
    replies: list = []
    async with ModelClient(real_provider(real_model, use_tools=False), None,
                           text_only_models=TextOnlyModels(tmp_path / "t.json")) as client:
        response = await client.complete(messages, [answer_tool], replies=replies)
    assert replies[-1].http_status == 200 and not response.cut_off
    reply = decode_reply(response)
    assert set(reply) == {"done", "reason"} and isinstance(reply["done"], bool), response.text


async def test_the_real_server_streams_its_words_and_counts_its_tokens(real_model, tmp_path):
    seen: list[str] = []
    async with ModelClient(real_provider(real_model, max_output_tokens=64), None,
                           on_words=lambda text, _tokens: seen.append(text),
                           text_only_models=TextOnlyModels(tmp_path / "t.json")) as client:
        client.words_interval_seconds = 0
        response = await client.complete([{"role": "user", "content": "Name three colours."}])
    assert seen and seen[-1] == response.text, "the last words told are the whole reply"
    assert len(seen) > 1, "the words came in pieces, as they were written"
    assert response.completion_tokens > 0 and response.prompt_tokens > 0, "stream_options gave the usage"


async def test_a_real_server_slower_than_the_timeout_is_asked_again_only_once(real_model, tmp_path):
    """A local server that timed out is still busy with the first request: one more try, then a clear error."""
    replies: list = []
    messages = [{"role": "user", "content": "Write a very long story about a phone, at least 500 words."}]
    async with ModelClient(real_provider(real_model, timeout_seconds=0.3, http_retries=5, max_output_tokens=400),
                           None, backoff_seconds=0.01, text_only_models=TextOnlyModels(tmp_path / "t.json")) as client:
        with pytest.raises(ModelTimeout) as raised:
            await client.complete(messages, replies=replies)
    assert len(replies) == 2, [reply.outcome for reply in replies]
    assert "0.3" in str(raised.value) or "in time" in str(raised.value)
