"""Which API key a run uses: one given for the run (the environment, `--api-key-env NAME`) wins over a
stored one, and the source is told in words, never the key."""

from __future__ import annotations

import uuid

import keyring
import pytest

from app.core.config import ProviderSettings, Settings
from app.core.runs.service import MissingApiKey, api_key_for
from app.core.secrets import SecretStore, known_secrets, provider_key_variable, resolve_api_key
from tests.support.memory_keyring import MemoryKeyring


class CountingKeyring(MemoryKeyring):
    """A keyring that counts its reads (a key given in the environment must not need the keyring)."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def get_password(self, service, username):
        self.reads += 1
        return super().get_password(service, username)


@pytest.fixture
def backend():
    previous = keyring.get_keyring()
    counting = CountingKeyring()
    keyring.set_keyring(counting)
    yield counting
    keyring.set_keyring(previous)


@pytest.fixture
def store(backend) -> SecretStore:
    return SecretStore(f"AgentDeskTest-{uuid.uuid4().hex[:8]}")


def new_key() -> str:
    return f"sk-test-{uuid.uuid4().hex}"


def settings(base_url: str = "https://api.openai.com/v1") -> Settings:
    return Settings(provider=ProviderSettings(base_url=base_url))


def test_the_environment_wins_over_the_keyring_without_reading_it(store, backend):
    stored, given = new_key(), new_key()
    store.set("default", stored)
    backend.reads = 0
    assert api_key_for(settings(), store, env={"OPENAI_API_KEY": given}) == (
        given, "the OPENAI_API_KEY environment variable")
    assert backend.reads == 0
    assert api_key_for(settings(), store, env={}) == (stored, store.location())


def test_a_blank_variable_counts_as_unset(store):
    stored = new_key()
    store.set("default", stored)
    assert api_key_for(settings(), store, env={"OPENAI_API_KEY": "  \n"}) == (stored, store.location())


def test_api_key_env_names_the_variable_and_wins_over_everything_stored(store):
    stored, default_env, named = new_key(), new_key(), new_key()
    store.set("default", stored)
    env = {"OPENAI_API_KEY": default_env, "WORK_KEY": f" {named}\n"}
    key, source = api_key_for(settings(), store, api_key_env="WORK_KEY", env=env)
    assert (key, source) == (named, "the WORK_KEY environment variable")
    assert named in known_secrets()          # redacted from logs and trajectories like any key


def test_api_key_env_that_is_not_set_is_refused_with_its_name(store):
    store.set("default", new_key())
    for env in ({}, {"WORK_KEY": "   "}):
        with pytest.raises(MissingApiKey, match="WORK_KEY.*not set or empty"):
            api_key_for(settings(), store, api_key_env="WORK_KEY", env=env)


def test_a_key_given_in_the_request_wins_over_the_environment(store):
    given = new_key()
    assert api_key_for(settings(), store, given, env={"OPENAI_API_KEY": new_key()}) == (given, "given for this run")


@pytest.mark.parametrize("base_url, variable", [
    ("https://api.groq.com/openai/v1", "GROQ_API_KEY"),
    ("https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
    ("https://generativelanguage.googleapis.com/v1beta/openai", "GEMINI_API_KEY"),
    ("https://api.anthropic.com/v1", "ANTHROPIC_API_KEY"),
    ("https://dashscope-intl.aliyuncs.com/compatible-mode/v1", "DASHSCOPE_API_KEY"),
    ("https://api.openai.com/v1", "OPENAI_API_KEY"),
    ("https://llm.example.com:8443/v1", "OPENAI_API_KEY"),
    ("http://127.0.0.1:8080/v1", "OPENAI_API_KEY"),
])
def test_each_provider_has_its_variable(base_url, variable):
    assert provider_key_variable(base_url) == variable


def test_a_declared_variable_wins_over_the_host():
    assert provider_key_variable("https://api.groq.com/openai/v1", "MY_GROQ") == "MY_GROQ"


def test_the_providers_own_variable_wins_and_openai_s_never_goes_to_another_provider(store):
    groq = settings("https://api.groq.com/openai/v1")
    own, stored, openai = new_key(), new_key(), new_key()
    store.set("default", stored)
    both = {"GROQ_API_KEY": own, "OPENAI_API_KEY": openai}
    assert api_key_for(groq, store, env=both) == (own, "the GROQ_API_KEY environment variable")
    # a "Groq" preset with only OPENAI_API_KEY set gets no key: the refusal names Groq's own variable
    store.delete("default")
    with pytest.raises(MissingApiKey, match="GROQ_API_KEY") as refused:
        api_key_for(groq, store, env={"OPENAI_API_KEY": openai})
    assert openai not in str(refused.value)


def test_without_any_key_the_refusal_names_the_providers_variable(store):
    with pytest.raises(MissingApiKey, match="GROQ_API_KEY"):
        api_key_for(settings("https://api.groq.com/openai/v1"), store, env={})
    choice = resolve_api_key("default", {}, store=store, variable="GROQ_API_KEY", goes_to="https://api.groq.com",
                             key_origin="https://api.groq.com")
    assert choice.key is None and "GROQ_API_KEY" in choice.source and "OPENAI_API_KEY" not in choice.source


def test_a_local_server_needs_no_key(store):
    key, source = api_key_for(settings("http://127.0.0.1:8080/v1"), store, env={})
    assert key is None and source.startswith("nowhere")
