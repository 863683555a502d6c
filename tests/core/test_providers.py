"""Provider presets in the core, honest prices ("free (local)", "cost unknown"), a local server's
timeouts (minutes, retried at most once) and `agentdesk run --preset`."""

from __future__ import annotations

import argparse

import pytest

from app.core.agent import llm_client
from app.core.agent.llm_client import ModelClient, ModelTimeout, estimate_cost
from app.core.agent.memory import MemoryItem, RunResult
from app.core.agent.report import write_report
from app.core.agent.trajectory import TrajectoryWriter
from app.core.config import ProviderSettings, Settings
from app.core.providers import (
    LOCAL_TIMEOUT_SECONDS,
    PRESETS,
    UnknownPreset,
    connection_defaults_for_url,
    find_preset,
    is_local_url,
    preset_for,
    pricing_for,
)
from app.core.runs.service import RunRefused
from tests.support.openai_server import FakeOpenAIServer, delayed, text_reply

ISSUE_PRESETS = {"OpenAI": "https://api.openai.com/v1", "Anthropic": "https://api.anthropic.com/v1",
                 "Gemini": "https://generativelanguage.googleapis.com/v1beta/openai",
                 "OpenRouter": "https://openrouter.ai/api/v1", "Groq": "https://api.groq.com/openai/v1",
                 "DashScope (Qwen)": "https://dashscope-intl.aliyuncs.com/compatible-mode/v1",
                 "Ollama": "http://localhost:11434/v1", "LM Studio": "http://localhost:1234/v1",
                 "vLLM": "http://localhost:8000/v1", "llama.cpp": "http://localhost:8080/v1"}


def settings_at(base_url: str, model: str, preset: str = "Custom") -> Settings:
    return Settings(provider=ProviderSettings(preset=preset, base_url=base_url, model=model))


# ----------------------------------------------------------------------------- the presets


def test_every_provider_the_issue_names_has_a_preset_with_its_endpoint():
    by_name = {preset.name: preset for preset in PRESETS}
    for name, base_url in ISSUE_PRESETS.items():
        assert by_name[name].base_url == base_url, name
    assert {"Azure OpenAI", "Custom"} <= set(by_name)


def test_local_presets_wait_minutes_and_retry_at_most_once_cloud_ones_wait_a_minute_or_two():
    for preset in PRESETS:
        values = ProviderSettings.model_validate({**ProviderSettings().model_dump(), **preset.settings_values()})
        if preset.local:
            assert values.timeout_seconds >= 300 and values.http_retries <= 1, preset.name
            assert is_local_url(preset.base_url) and not preset.needs_key, preset.name
        elif preset.name != "Custom":
            assert 60 <= values.timeout_seconds <= 120, preset.name
            assert not is_local_url(preset.base_url) and preset.needs_key, preset.name
    assert {preset.name for preset in PRESETS if preset.local} == {"Ollama", "LM Studio", "vLLM", "llama.cpp"}


def test_a_timeout_of_minutes_is_a_valid_setting_and_an_hour_is_the_limit():
    assert ProviderSettings(timeout_seconds=LOCAL_TIMEOUT_SECONDS).timeout_seconds == 600
    assert ProviderSettings(timeout_seconds=3600).timeout_seconds == 3600
    with pytest.raises(ValueError):
        ProviderSettings(timeout_seconds=3601)


def test_presets_are_found_by_name_in_any_case_and_an_unknown_name_lists_them_all():
    assert find_preset("LLAMA.CPP").name == "llama.cpp"
    assert find_preset("lm-studio").name == "LM Studio"
    assert find_preset("dashscope").name == "DashScope (Qwen)"
    with pytest.raises(UnknownPreset) as caught:
        find_preset("llamafile")
    for preset in PRESETS:
        assert preset.name in str(caught.value)


def test_the_preset_of_a_provider_follows_its_url_when_the_url_left_the_named_preset():
    assert preset_for(ProviderSettings(preset="OpenAI", base_url="http://127.0.0.1:8080/v1")).name == "llama.cpp"
    assert preset_for(ProviderSettings(preset="Ollama", base_url="http://box.lan:11434/v1")).name == "Ollama"
    assert preset_for(ProviderSettings(preset="Azure OpenAI", base_url="https://me.openai.azure.com/openai/v1")
                      ).name == "Azure OpenAI"
    assert preset_for(ProviderSettings(preset="Groq", base_url="https://models.example.com/v1")).name == "Custom"


def test_a_base_url_without_a_preset_brings_a_local_servers_timeout_or_keeps_the_settings():
    assert connection_defaults_for_url("http://localhost:8080/v1") == {"timeout_seconds": 600, "http_retries": 1}
    assert connection_defaults_for_url("http://192.168.1.20:5000/v1") == {"timeout_seconds": 600, "http_retries": 1}
    assert connection_defaults_for_url("https://models.example.com/v1") == {}


# ----------------------------------------------------------------------------- prices


def test_a_local_server_is_free_even_when_its_model_is_called_gpt_4o():
    settings = settings_at("http://localhost:8080/v1", "gpt-4o")
    assert pricing_for(settings).words(0.0) == "free (local)"
    assert estimate_cost(settings, "gpt-4o", 1_000_000, 1_000_000) == 0.0


def test_a_model_without_a_known_price_has_an_unknown_cost_not_zero_dollars():
    settings = settings_at("https://models.example.com/v1", "my-model")
    assert pricing_for(settings).words(0.0) == "cost unknown"
    assert not pricing_for(settings).known


def test_openai_prices_apply_only_at_openai_not_to_a_model_named_gpt_4o_elsewhere():
    assert pricing_for(settings_at("https://models.example.com/v1", "gpt-4o")).words(0.0) == "cost unknown"
    openai = settings_at("https://api.openai.com/v1", "gpt-4o-2024-08-06", "OpenAI")
    assert pricing_for(openai).words(estimate_cost(openai, "gpt-4o-2024-08-06", 1_000_000, 0)) == "$2.5000"


def test_a_price_the_person_set_applies_anywhere_and_presets_price_their_own_models():
    settings = settings_at("https://models.example.com/v1", "my-model")
    settings.prices = {**settings.prices, "my-model": (1.0, 2.0)}
    assert estimate_cost(settings, "my-model", 1_000_000, 1_000_000) == pytest.approx(3.0)
    router = settings_at("https://openrouter.ai/api/v1", "openai/gpt-4o-mini", "OpenRouter")
    assert pricing_for(router).price == (0.15, 0.60)
    gemini = settings_at("https://generativelanguage.googleapis.com/v1beta/openai", "gemini-2.5-flash", "Gemini")
    assert pricing_for(gemini).known


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path))


@pytest.mark.parametrize("base_url, model, words", [
    ("http://localhost:8080/v1", "gpt-4o", "free (local)"),
    ("https://models.example.com/v1", "my-model", "cost unknown"),
    ("https://api.openai.com/v1", "gpt-4o", "$0.0045")])
def test_the_report_says_what_the_cost_is_known_to_be(home, base_url, model, words):
    settings = settings_at(base_url, model)
    writer = TrajectoryWriter.create("r", {"serial": "emulator-5554"}, {"base_url": base_url, "model": model},
                                     settings.model_dump(mode="json"))
    cost = estimate_cost(settings, model, 1500, 75)
    writer.append_step(MemoryItem(step=1, request="r", tokens={"prompt": 1500, "completion": 75}, cost_usd=cost))
    writer.finish(RunResult("success", 1, [], 1.0, tokens={"prompt": 1500, "completion": 75}, cost_usd=cost))
    page = write_report(writer.run_dir).read_text(encoding="utf-8")
    assert page.count(words) == 2, "in the run's facts and in the step's row"
    if words != "$0.0045":
        assert "$0.0" not in page


# ----------------------------------------------------------------------------- a local server's timeouts


@pytest.mark.asyncio
async def test_a_local_server_that_times_out_is_asked_again_at_most_once():
    slow = delayed(3, text_reply("too late"))
    notices: list[str] = []
    with FakeOpenAIServer([slow] * 4) as server:
        provider = ProviderSettings(base_url=server.base_url, model="m", timeout_seconds=0.3, http_retries=3)
        async with ModelClient(provider, None, backoff_seconds=0.01, on_retry=notices.append) as client:
            with pytest.raises(ModelTimeout) as caught:
                await client.complete([{"role": "user", "content": "hi"}])
    assert len(server.chat_requests) == 2
    assert "gave up after 2 tries" in str(caught.value) and "timeout in Settings" in str(caught.value)
    assert len(notices) == 1


@pytest.mark.asyncio
async def test_a_remote_server_that_times_out_gets_every_retry(monkeypatch):
    monkeypatch.setattr(llm_client, "is_local", lambda provider: False)   # the loopback server as if remote
    slow = delayed(3, text_reply("too late"))
    with FakeOpenAIServer([slow] * 4) as server:
        provider = ProviderSettings(base_url=server.base_url, model="m", timeout_seconds=0.3, http_retries=2)
        async with ModelClient(provider, None, backoff_seconds=0.01) as client:
            with pytest.raises(ModelTimeout):
                await client.complete([{"role": "user", "content": "hi"}])
    assert len(server.chat_requests) == 3


# ----------------------------------------------------------------------------- agentdesk run --preset


def run_args(*extra: str):
    from app.cli import build_parser

    return build_parser().parse_args(["run", "open settings", *extra])


def test_run_preset_sets_url_model_timeout_and_retries_and_options_win():
    from app.cli_agent import run_request_from_args

    request = run_request_from_args(run_args("--preset", "LLAMA.CPP"))
    assert request.provider == {"preset": "llama.cpp", "base_url": "http://localhost:8080/v1", "model": "local",
                                "timeout_seconds": 600.0, "http_retries": 1}
    request = run_request_from_args(run_args("--preset", "ollama", "--model", "llava:13b"))
    assert request.provider["model"] == "llava:13b" and request.provider["timeout_seconds"] == 600.0
    request = run_request_from_args(run_args("--base-url", "http://127.0.0.1:8080/v1"))
    assert request.provider["timeout_seconds"] == 600.0 and request.provider["http_retries"] == 1


@pytest.mark.parametrize("options, words", [
    (("--preset", "llamafile"), "The presets are: OpenAI, Anthropic"),
    (("--preset", "LM Studio"), "give the identifier of the loaded model with --model"),
    (("--preset", "azure openai", "--model", "my-deployment"), "needs your resource's URL")])
def test_run_preset_refuses_what_cannot_work_with_a_clear_sentence(options, words):
    from app.cli_agent import run_request_from_args

    with pytest.raises(RunRefused) as caught:
        run_request_from_args(run_args(*options))
    assert words in str(caught.value)


def test_parser_knows_the_preset_option():
    assert isinstance(run_args("--preset", "Groq"), argparse.Namespace)
