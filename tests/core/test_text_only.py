"""Models that cannot see: refusal recognition, the switch to text only, memory, settings and prompts."""

from __future__ import annotations

import pytest

from app.core.agent.llm_client import ModelClient, ModelImagesRefused, ModelServerError
from app.core.agent.model_decision import ask_for_action
from app.core.agent.prompts import PromptBuilder, ScreenContext
from app.core.agent.text_only import TextOnlyModels, is_image_refusal
from app.core.config import ImageSettings, ProviderSettings, Settings, load_settings
from tests.support.openai_server import IMAGE_REFUSALS, FakeOpenAIServer, act, has_images, http_error, json_reply

IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
MESSAGES = [{"role": "user", "content": [IMAGE, {"type": "text", "text": "what is this?"}]}]


@pytest.mark.parametrize("server", sorted(IMAGE_REFUSALS))
def test_each_servers_own_refusal_is_recognised(server):
    status, message = IMAGE_REFUSALS[server]
    assert is_image_refusal(status, message)


@pytest.mark.parametrize("status, message", [
    (400, "This model does not support image input."),                      # OpenAI, newer wording
    (500, "Multimodal is not supported by this server"),
    (400, "Image input is not supported for this model"),
])
def test_other_known_wordings_are_recognised(status, message):
    assert is_image_refusal(status, message)


@pytest.mark.parametrize("status, message", [
    (429, "Rate limit reached for gpt-4o"),
    (400, "This model's maximum context length is 8192 tokens"),
    (500, "Failed to load image or audio file"),                            # a broken image, not a blind model
    (401, "Incorrect API key provided"),
    (200, "image input is not supported"),                                  # not an error answer
])
def test_other_errors_are_not_taken_for_a_refusal(status, message):
    assert not is_image_refusal(status, message)


def make_client(server, store, notices, **fields) -> ModelClient:
    provider = ProviderSettings(base_url=server.base_url, model="text-model", timeout_seconds=5, http_retries=3,
                                **fields)
    return ModelClient(provider, "sk-test-text-only-0123456789", backoff_seconds=0.01, on_retry=notices.append,
                       text_only_models=store)


@pytest.mark.asyncio
@pytest.mark.parametrize("server_kind", ["llama.cpp", "openai", "ollama", "lm-studio", "vllm"])
async def test_a_refused_image_switches_to_text_only_once_without_retries(tmp_path, server_kind):
    store = TextOnlyModels(tmp_path / "text_only_models.json")
    notices: list[str] = []
    with FakeOpenAIServer([json_reply({"ok": 1}), json_reply({"ok": 2})], refuse_images=server_kind) as server:
        async with make_client(server, store, notices) as client:
            first = await client.complete(MESSAGES)
            second = await client.complete(MESSAGES)
    assert (first.text, second.text) == ('{"ok": 1}', '{"ok": 2}')
    sent = [has_images(request.body) for request in server.chat_requests]
    assert sent == [True, False, False], "one refused try, then the same request without images; no retries"
    assert client.text_only
    assert len(notices) == 1 and "cannot read images" in notices[0] and "text only" in notices[0]
    assert store.contains(server.base_url, "text-model")


@pytest.mark.asyncio
async def test_a_remembered_model_starts_text_only_and_says_so(tmp_path):
    store = TextOnlyModels(tmp_path / "text_only_models.json")
    notices: list[str] = []
    with FakeOpenAIServer([json_reply({"ok": 1})], refuse_images="llama.cpp") as server:
        store.remember(server.base_url, "text-model", "image input is not supported")
        async with make_client(server, store, notices) as client:
            assert client.text_only
            await client.complete(MESSAGES)
    assert [has_images(request.body) for request in server.chat_requests] == [False]
    assert len(notices) == 1 and "earlier run" in notices[0]


@pytest.mark.asyncio
async def test_the_probe_reports_the_refusal_instead_of_falling_back(tmp_path):
    store = TextOnlyModels(tmp_path / "text_only_models.json")
    with FakeOpenAIServer([], refuse_images="openai") as server:
        async with make_client(server, store, []) as client:
            with pytest.raises(ModelImagesRefused) as caught:
                await client.complete(MESSAGES, fall_back_to_text=False)
    assert caught.value.status_code == 400 and "cannot read images" in str(caught.value)
    assert len(server.chat_requests) == 1


@pytest.mark.asyncio
async def test_a_plain_server_error_on_an_image_request_is_still_retried(tmp_path):
    store = TextOnlyModels(tmp_path / "text_only_models.json")
    with FakeOpenAIServer([http_error(500, "CUDA out of memory")] * 4) as server:
        async with make_client(server, store, []) as client:
            with pytest.raises(ModelServerError):
                await client.complete(MESSAGES)
    assert len(server.chat_requests) == 4 and all(has_images(r.body) for r in server.chat_requests)
    assert not client.text_only and not store.contains(server.base_url, "text-model")


@pytest.mark.asyncio
async def test_the_switch_costs_no_try_and_the_prompt_says_controls_are_all(tmp_path):
    """ask_for_action with one try: the refusal does not use it up, and the resent prompt is text only."""
    store = TextOnlyModels(tmp_path / "text_only_models.json")
    builder = PromptBuilder(Settings())
    screen = ScreenContext(controls=[], screen_size=(1080, 2400), image_size=(540, 1200),
                           image_urls={"clean": "data:image/jpeg;base64,AA", "annotated": "data:image/jpeg;base64,BB"})
    user = builder.user_message("Turn on Wi-Fi", screen)
    with FakeOpenAIServer([json_reply(act("wait", seconds=1))], refuse_images="llama.cpp") as server:
        async with make_client(server, store, []) as client:
            outcome = await ask_for_action(client, builder, [builder.system_message(), user], validate=lambda r: None,
                                           retries=1)
    assert outcome.attempts == 1 and outcome.reply.action.function == "wait"
    resent = server.chat_requests[1].body["messages"][1]["content"]
    assert [part["type"] for part in resent] == ["text"]
    assert "list of controls below is all you get" in resent[0]["text"]
    assert "Images (" not in resent[0]["text"]


def test_the_none_setting_sends_no_image_and_says_so():
    builder = PromptBuilder(Settings(images=ImageSettings(send="none")))
    screen = ScreenContext(controls=[], screen_size=(1080, 2400), image_size=(540, 1200),
                           image_urls={"clean": "data:image/jpeg;base64,AA"})
    content = builder.user_message("Turn on Wi-Fi", screen)["content"]
    assert [part["type"] for part in content] == ["text"]
    assert "all you get of the screen" in content[0]["text"]


def test_image_setting_accepts_none_and_refuses_nonsense_clearly(tmp_path):
    assert ImageSettings(send=" None ").text_only
    with pytest.raises(ValueError, match="must be one of auto, annotated, both, clean, none"):
        ImageSettings(send="text")
    path = tmp_path / "settings.json"
    path.write_text('{"images": {"send": "pictures"}}', encoding="utf-8")
    settings, warnings = load_settings(path)
    assert settings.images.send == "auto"
    assert len(warnings) == 1 and "images.send must be one of" in warnings[0]


def test_the_store_survives_a_damaged_file_and_forgets(tmp_path):
    path = tmp_path / "text_only_models.json"
    path.write_text("{not json", encoding="utf-8")
    store = TextOnlyModels(path)
    assert not store.contains("http://localhost:8080/v1", "m")
    assert store.remember("http://localhost:8080/v1/", "m", "refused")
    assert TextOnlyModels(path).contains("http://localhost:8080/v1", "m")
    assert store.forget("http://localhost:8080/v1", "m") and not store.contains("http://localhost:8080/v1", "m")
