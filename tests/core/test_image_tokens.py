"""What an image costs in tokens by each model's own rule, and that a reported usage always wins over it."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

from app.core.agent.llm_client import ModelClient
from app.core.agent.usage_estimate import estimate_prompt_tokens
from app.core.config import ProviderSettings
from app.core.image_tokens import ESTIMATED, image_size_of_data_url, openai_rule, rule_for_model
from app.core.providers import PRESETS, image_detail_for, image_rule_for
from tests.support.openai_server import FakeOpenAIServer, ScriptedReply, text_reply


def data_url(width: int, height: int, kind: str = "JPEG") -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "white").save(buffer, kind)
    return f"data:image/{kind.lower()};base64,{base64.b64encode(buffer.getvalue()).decode()}"


# Known values from OpenAI's "Calculating costs" (images-vision guide) and Anthropic's and Google's docs.
@pytest.mark.parametrize("model, detail, size, tokens", [
    ("gpt-4o", "high", (1024, 1024), 765),            # shrunk to 768×768: 4 tiles × 170 + 85
    ("gpt-4o", "high", (2048, 4096), 1105),           # to 1024×2048, then 768×1536: 6 tiles
    ("gpt-4o", "low", (4096, 8192), 85),              # low detail: the base, whatever the size
    ("gpt-4o", "high", (128, 64), 255),               # a small image is not enlarged: one tile
    ("gpt-4o-2024-11-20", "high", (576, 1280), 1105),  # a dated name has its family's rule
    ("gpt-4o-mini", "high", (1024, 1024), 25501),     # 2,833 + 4 × 5,667
    ("gpt-4.1", "high", (1800, 2400), 765),           # tiles, as gpt-4o
    ("gpt-4.1-mini", "high", (1024, 1024), 1659),     # 1,024 patches × 1.62
    ("gpt-4.1-mini", "low", (1024, 1024), 1659),      # detail does not change patches
    ("gpt-4.1-mini", "high", (1800, 2400), 2352),     # shrunk to 1,452 patches (the docs' example) × 1.62
    ("gpt-4.1-nano", "high", (1024, 1024), 2519),     # × 2.46
    ("o4-mini", "high", (1024, 1024), 1761),          # × 1.72
    ("openai/gpt-4o", "high", (1024, 1024), 765),     # OpenRouter's name for it
])
def test_openai_rules_give_the_documented_counts(model, detail, size, tokens):
    rule = openai_rule(model, detail)
    assert rule is not None and not rule.estimated
    assert rule.tokens(*size) == tokens


def test_anthropic_gemini_and_unknown_models():
    claude = rule_for_model("claude-sonnet-4-5", "anthropic")
    assert claude.tokens(1000, 1000) == 1333                      # 1,000,000 / 750
    assert claude.tokens(3000, 3000) == claude.tokens(1072, 1072)  # shrunk first (about 1.15 MP)
    gemini = rule_for_model("gemini-2.5-flash", "gemini")
    assert gemini.tokens(384, 384) == 258 and gemini.tokens(1000, 1000) == 4 * 258
    assert rule_for_model("qwen2.5vl:7b") is ESTIMATED and ESTIMATED.estimated
    assert "estimated" in ESTIMATED.name and ESTIMATED.tokens(1024, 1024) == 765
    assert openai_rule("llama-4") is None
    assert ESTIMATED.tokens(0, 100) == 0


def test_every_preset_says_its_rule_or_that_it_estimates():
    own_rule = {"OpenAI", "Anthropic", "Gemini", "OpenRouter"}       # OpenRouter's default is openai/gpt-4o
    for preset in PRESETS:
        provider = ProviderSettings(preset=preset.name, base_url=preset.base_url or "http://localhost:1/v1",
                                    model=preset.model or "some-model")
        rule = image_rule_for(provider)
        assert rule.name and rule.estimated == (preset.name not in own_rule), preset.name
    openai = ProviderSettings()
    assert image_rule_for(openai).name.startswith("OpenAI gpt-4o, detail high") and image_detail_for(openai) == "high"
    anthropic = next(p for p in PRESETS if p.name == "Anthropic")
    assert image_detail_for(ProviderSettings(preset="Anthropic", base_url=anthropic.base_url)) == ""


def test_image_size_is_read_from_a_data_url_and_junk_is_none():
    assert image_size_of_data_url(data_url(300, 200)) == (300, 200)
    assert image_size_of_data_url(data_url(31, 17, "PNG")) == (31, 17)
    for junk in ("https://example.com/a.png", "data:image/png;base64,!!!!", "data:image/png;base64,AAAA",
                 "data:text/plain;base64,aGk=", ""):
        assert image_size_of_data_url(junk) is None


def test_the_estimate_counts_text_tools_and_each_image():
    image = {"type": "image_url", "image_url": {"url": data_url(1024, 1024)}}
    messages = [{"role": "system", "content": "x" * 400},
                {"role": "user", "content": [image, image, {"type": "text", "text": "y" * 40}]}]
    tools = [{"type": "function", "function": {"name": "act"}}]
    text, images = estimate_prompt_tokens(messages, tools, openai_rule("gpt-4o"))
    assert images == 2 * 765
    assert text == -(-(440 + len('[{"type":"function","function":{"name":"act"}}]')) // 4)


@pytest.mark.asyncio
async def test_a_reported_usage_is_the_figure_and_none_is_estimated_with_the_images():
    image = {"type": "image_url", "image_url": {"url": data_url(1024, 1024)}}
    messages = [{"role": "system", "content": "s" * 400}, {"role": "user", "content": [image, {"type": "text",
                                                                                              "text": "u" * 400}]}]
    script = [text_reply("ok", prompt_tokens=321), lambda body: ScriptedReply(content="ok", usage=False)]
    with FakeOpenAIServer(script) as server:
        provider = ProviderSettings(preset="Custom", base_url=server.base_url, model="openai/gpt-4o",
                                    timeout_seconds=5, http_retries=0, stream=False)
        async with ModelClient(provider, None) as client:
            reported = await client.complete(messages)
            unreported = await client.complete(messages)
    assert (reported.prompt_tokens, reported.prompt_estimated) == (321, False)     # nothing added to it
    assert unreported.prompt_estimated and unreported.prompt_tokens == 200 + 765    # 800 characters / 4 + the image


@pytest.mark.asyncio
async def test_the_scripted_server_counts_images_as_a_provider_would():
    image = {"type": "image_url", "image_url": {"url": data_url(1024, 1024)}}
    messages = [{"role": "user", "content": [image, {"type": "text", "text": "u" * 40}]}]
    with FakeOpenAIServer([lambda body: ScriptedReply(content="ok", prompt_tokens=None)]) as server:
        provider = ProviderSettings(preset="Custom", base_url=server.base_url, model="openai/gpt-4.1-mini",
                                    timeout_seconds=5, http_retries=0, stream=False)
        async with ModelClient(provider, None) as client:
            response = await client.complete(messages)
    assert (response.prompt_tokens, response.prompt_estimated) == (10 + 1659, False)


def test_the_prompt_sends_the_presets_detail_with_every_image():
    from app.core.agent.prompts import PromptBuilder, ScreenContext
    from app.core.config import Settings

    screen = ScreenContext(controls=[], screen_size=(1080, 2400), image_size=(540, 1200),
                           image_urls={"clean": "data:image/jpeg;base64,AA"}, screen_only=True)
    openai = Settings()                                          # the OpenAI preset, api.openai.com
    parts = [part for part in PromptBuilder(openai).user_message("r", screen)["content"] if part["type"] == "image_url"]
    assert [part["image_url"]["detail"] for part in parts] == ["high"]
    local = Settings()
    local.provider.preset, local.provider.base_url = "Ollama", "http://localhost:11434/v1"
    parts = [part for part in PromptBuilder(local).user_message("r", screen)["content"] if part["type"] == "image_url"]
    assert parts and all("detail" not in part["image_url"] for part in parts)
    checks = PromptBuilder(openai).reflection_messages("Tap", "data:before", "data:after")[1]["content"]
    assert [part["image_url"]["detail"] for part in checks if part["type"] == "image_url"] == ["high", "high"]
