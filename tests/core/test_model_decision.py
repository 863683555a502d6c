"""ask_for_action: seed 002's retry — a bad reply goes back to the model with the reason, never to the phone."""

from __future__ import annotations

import json

import pytest

from app.core.agent.actions import ModelReply, check_against_screen
from app.core.agent.coordinates import CoordinateMapper
from app.core.agent.llm_client import ModelAuthError, ModelClient
from app.core.agent.model_decision import ReplyUnusable, ask_for_action
from app.core.agent.prompts import PromptBuilder, ScreenContext
from app.core.config import ProviderSettings, Settings
from app.core.perception.controls import Control
from tests.support.openai_server import FakeOpenAIServer, act, click, http_error, json_reply, text_reply, tool_reply

SCREEN_SIZE = (1080, 2400)
IMAGE_SIZE = (540, 1200)
CONTROLS = [Control(id=index, name=name, type="Button", class_name="android.widget.Button", resource_id="",
                    text=name, content_desc="", rect=(0, 200 * index, 1080, 200 * index + 150), clickable=True)
            for index, name in enumerate(["Network & internet", "Wi-Fi", "Bluetooth"], 1)]


def on_this_screen(reply: ModelReply) -> None:
    """What the agent's validate callback does: map the model's coordinates, then check them and the ids."""
    mapper = CoordinateMapper(SCREEN_SIZE, IMAGE_SIZE, "image")
    check_against_screen(mapper.action_to_device(reply.action), CONTROLS, SCREEN_SIZE)


def conversation(builder: PromptBuilder) -> list[dict]:
    screen = ScreenContext(controls=CONTROLS, screen_size=SCREEN_SIZE, image_size=IMAGE_SIZE,
                           foreground_package="com.android.settings", installed_apps=["com.android.settings"],
                           image_urls={"annotated": "data:image/jpeg;base64,AAAA"})
    return [builder.system_message(), builder.user_message("Turn on Wi-Fi", screen)]


async def decide(server: FakeOpenAIServer, *, retries: int = 3, use_tools: bool = False, validate=on_this_screen):
    builder = PromptBuilder(Settings())
    provider = ProviderSettings(base_url=server.base_url, model="fake-model", http_retries=0, timeout_seconds=5,
                                use_tools=use_tools)
    async with ModelClient(provider, "sk-test", backoff_seconds=0.01) as client:
        return await ask_for_action(client, builder, conversation(builder), validate=validate, retries=retries)


def last_user_text(request) -> str:
    content = request.body["messages"][-1]["content"]
    return content if isinstance(content, str) else json.dumps(content)


@pytest.mark.asyncio
async def test_a_good_reply_is_taken_at_once():
    with FakeOpenAIServer([click("Wi-Fi")]) as server:
        outcome = await decide(server)
    assert outcome.attempts == 1 and outcome.errors == []
    assert outcome.reply.action.function == "click_control" and outcome.reply.action.args.control_id == 2
    assert (outcome.prompt_tokens, outcome.completion_tokens) == (100, 20)


@pytest.mark.asyncio
async def test_bad_json_then_a_good_reply_takes_two_attempts():
    with FakeOpenAIServer([text_reply("I would tap Wi-Fi."), click("Wi-Fi")]) as server:
        outcome = await decide(server)
    assert outcome.attempts == 2 and len(outcome.errors) == 1
    assert (outcome.prompt_tokens, outcome.completion_tokens) == (200, 40)
    assert json.loads(outcome.raw_text)["action"]["arguments"]["control_id"] == 2
    second = server.chat_requests[1].body["messages"]
    assert second[-2] == {"role": "assistant", "content": "I would tap Wi-Fi."}
    assert "had no JSON object" in second[-1]["content"]


@pytest.mark.parametrize("bad_reply, reason", [
    (act("fly_to", destination="moon"), "unknown function 'fly_to'"),
    (act("click_control", control_name="Wi-Fi"), "control_id"),
    (act("click_control", control_id=99, control_name="Buy"), "control_id 99 does not exist on this screen"),
    (act("tap", x=600, y=100), "outside the screen"),                      # 600 px of a 540-px image
], ids=["unknown-function", "missing-argument", "hallucinated-control", "off-screen-point"])
@pytest.mark.asyncio
async def test_the_reason_for_a_rejected_reply_is_sent_back_to_the_model(bad_reply, reason):
    with FakeOpenAIServer([json_reply(bad_reply), click("Wi-Fi")]) as server:
        outcome = await decide(server)
    assert outcome.attempts == 2
    assert reason in outcome.errors[0]
    retry = server.chat_requests[1]
    assert reason in last_user_text(retry)
    assert json.loads(retry.body["messages"][-2]["content"]) == bad_reply   # the model sees what it said
    assert len(server.chat_requests[0].body["messages"]) == 2                  # the first request was not touched


@pytest.mark.asyncio
async def test_exhausted_tries_raise_reply_unusable_with_the_last_error():
    script = [text_reply("no idea"), json_reply(act("click_control", control_id=42)), text_reply("{broken")]
    with FakeOpenAIServer(script) as server:
        with pytest.raises(ReplyUnusable) as caught:
            await decide(server, retries=3)
    error = caught.value
    assert str(error).startswith("The model gave no usable action after 3 tries: ")
    assert "could not be read" in str(error)
    assert len(error.errors) == 3 and "control_id 42" in error.errors[1]
    assert (error.prompt_tokens, error.completion_tokens, error.raw_text) == (300, 60, "{broken")
    assert len(server.chat_requests) == 3


@pytest.mark.asyncio
async def test_tool_calls_are_used_when_tools_are_on():
    reply = act("click_control", control_id=2, control_name="Wi-Fi")
    with FakeOpenAIServer([tool_reply(reply)]) as server:
        outcome = await decide(server, use_tools=True)
    assert outcome.reply.action.args.control_id == 2
    assert [tool["function"]["name"] for tool in server.chat_requests[0].body["tools"]] == ["act"]


@pytest.mark.asyncio
async def test_finish_needs_no_function():
    with FakeOpenAIServer([json_reply(act("", status="FINISH", thought="Wi-Fi is on"), fenced=True)]) as server:
        outcome = await decide(server)
    assert outcome.reply.action.status == "FINISH" and not outcome.reply.action.does_something


@pytest.mark.asyncio
async def test_model_errors_propagate_unchanged():
    with FakeOpenAIServer([http_error(401, "bad key")]) as server:
        with pytest.raises(ModelAuthError):
            await decide(server)
    assert len(server.chat_requests) == 1
