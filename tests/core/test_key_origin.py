"""A key belongs to the origin (scheme, host, port) it was stored for (issue 25 §1): the rule itself.

`origin_of` normalises as browsers do (case, default ports; `localhost` is not `127.0.0.1`); a stored key goes
only to its origin and the allowed ones, whatever base URL a run's overrides name; a key stored before
origins were kept belongs to the base URL saved with it; an environment key belongs to its provider's host,
and OPENAI_API_KEY never goes to another provider; the person at the terminal may send it where they name.
"""

from __future__ import annotations

import uuid

import keyring
import pytest

from app.api.schemas import MobileTaskRequest, TaskParameters
from app.core.config import ProviderSettings, Settings, load_settings
from app.core.key_origins import origin_of
from app.core.runs.service import KeyForAnotherOrigin, MissingApiKey, RunRequest, api_key_for, settings_for
from app.core.secrets import SecretStore
from tests.support.memory_keyring import MemoryKeyring

OPENAI_URL = "https://api.openai.com/v1"


@pytest.fixture
def store():
    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    yield SecretStore(f"AgentDeskTest-{uuid.uuid4().hex[:8]}")
    keyring.set_keyring(previous)


def new_key() -> str:
    return f"sk-test-{uuid.uuid4().hex}"


def saved(base_url: str = OPENAI_URL, **provider) -> Settings:
    return Settings(provider=ProviderSettings(base_url=base_url, **provider))


def run_to(base: Settings, base_url: str, **provider) -> Settings:
    """The settings of a run whose overrides (a task's, a preset's) name another base URL."""
    return settings_for(base, RunRequest("x", provider={"base_url": base_url, **provider}))


@pytest.mark.parametrize("url, origin", [
    ("https://API.OpenAI.com/v1", "https://api.openai.com"),
    ("https://api.openai.com:443/v1/", "https://api.openai.com"),
    ("http://127.0.0.1:80/v1", "http://127.0.0.1"),
    ("http://user:secret@127.0.0.1:8080/v1", "http://127.0.0.1:8080"),
    ("http://[::1]:11434/v1", "http://[::1]:11434"),
    ("https://llm.example.com.:8443", "https://llm.example.com:8443"),
])
def test_origins_are_normalised(url, origin):
    assert origin_of(url) == origin


@pytest.mark.parametrize("first, second", [
    ("http://localhost:8080", "http://127.0.0.1:8080"),
    ("http://api.openai.com/v1", "https://api.openai.com/v1"),
    ("https://api.openai.com", "https://api.openai.com:8443"),
    ("http://127.0.0.1:8080", "http://127.0.0.2:8080"),
])
def test_these_are_different_origins(first, second):
    assert origin_of(first) != origin_of(second)


@pytest.mark.parametrize("bad", ["ftp://example.com", "example.com:99999", "https://", ""])
def test_a_bad_origin_is_one_sentence(bad):
    with pytest.raises(ValueError, match="http|host|web address"):
        origin_of(bad)


def test_a_stored_key_goes_only_to_its_origin_not_to_one_a_run_names(store):
    key = new_key()
    store.set("default", key)
    base = saved()
    assert api_key_for(base, store, env={}) == (key, store.location())
    for elsewhere in ("http://api.openai.com/v1",            # http where the key's origin is https
                      "https://api.openai.com:8443/v1", "https://attacker.example/v1"):
        with pytest.raises(KeyForAnotherOrigin) as refused:
            api_key_for(run_to(base, elsewhere), store, env={})
        sentence = str(refused.value)
        assert f"not sent to {origin_of(elsewhere)}" in sentence and "belongs to https://api.openai.com" in sentence
        assert f"agentdesk key allow {origin_of(elsewhere)}" in sentence and "Settings" in sentence
        assert key not in sentence


def test_a_local_server_of_another_origin_runs_without_the_key(store):
    store.set("default", new_key())
    local = run_to(saved("http://127.0.0.1:8080/v1"), "http://127.0.0.1:9090/v1")
    key, source = api_key_for(local, store, env={})
    assert key is None and "no key may go to http://127.0.0.1:9090" in source


def test_a_key_stored_before_origins_were_kept_belongs_to_the_base_url_saved_with_it(store, tmp_path):
    path = tmp_path / "settings.json"
    path.write_text('{"provider": {"base_url": "https://llm.example.com:8443/v1", "key_name": "default"}}')
    base, warnings = load_settings(path)
    assert warnings == [] and base.provider.key_origin == "https://llm.example.com:8443"
    key = new_key()
    store.set("default", key)
    assert api_key_for(base, store, env={})[0] == key                      # keeps working as before
    with pytest.raises(KeyForAnotherOrigin):                              # a task's URL does not take it along
        api_key_for(run_to(base, "https://llm.example.com:9443/v1"), store, env={})


def test_a_run_s_overrides_cannot_move_the_key_or_allow_origins(store):
    key = new_key()
    store.set("default", key)
    evil = "https://attacker.example/v1"
    run = run_to(saved(), evil, key_origin=evil, key_also_for=[evil], key_name="other")
    assert run.provider.key_origin == "https://api.openai.com" and run.provider.key_also_for == []
    with pytest.raises(KeyForAnotherOrigin):
        api_key_for(run, store, env={})


def test_an_allowed_origin_gets_the_stored_key_and_the_environment_s(store):
    key, env_key = new_key(), new_key()
    store.set("default", key)
    base = saved(key_also_for=["http://127.0.0.2:8000"])
    run = run_to(base, "http://127.0.0.2:8000/v1")
    assert api_key_for(run, store, env={}) == (key, store.location())
    assert api_key_for(run, store, env={"OPENAI_API_KEY": env_key}) == (
        env_key, "the OPENAI_API_KEY environment variable")


def test_openai_api_key_belongs_to_openai_s_host_only(store):
    env_key = new_key()
    env = {"OPENAI_API_KEY": env_key}
    assert api_key_for(saved(), store, env=env)[0] == env_key
    with pytest.raises(KeyForAnotherOrigin, match="The key in OPENAI_API_KEY belongs to https://api.openai.com"):
        api_key_for(saved("https://llm.example.com/v1"), store, env=env)
    with pytest.raises(MissingApiKey, match="GROQ_API_KEY"):           # a "Groq" preset with only OpenAI's key
        api_key_for(run_to(saved(), "https://api.groq.com/openai/v1"), store, env=env)
    # the person at the terminal named the server (`agentdesk run --base-url`): their key goes there
    assert api_key_for(saved("https://llm.example.com/v1"), store, env=env, env_goes_anywhere=True)[0] == env_key


def test_a_provider_s_own_variable_goes_to_its_host_over_https_only(store):
    groq_key = new_key()
    env = {"GROQ_API_KEY": groq_key}
    assert api_key_for(saved("https://api.groq.com/openai/v1"), store, env=env)[0] == groq_key
    with pytest.raises(KeyForAnotherOrigin, match="GROQ_API_KEY"):
        api_key_for(saved("http://api.groq.com/openai/v1"), store, env=env)


def test_a_stored_key_for_openai_does_not_go_to_a_groq_preset(store):
    store.set("default", new_key())
    with pytest.raises(KeyForAnotherOrigin, match="https://api.groq.com"):
        api_key_for(run_to(saved(), "https://api.groq.com/openai/v1"), store, env={})


def test_no_task_field_names_an_environment_variable_and_the_task_s_key_is_write_only():
    fields = {*MobileTaskRequest.model_fields, *TaskParameters.model_fields}
    assert not [name for name in fields if "env" in name.lower()]
    schema = TaskParameters.model_json_schema()["properties"]["api_key"]
    assert any(option.get("writeOnly") for option in schema.get("anyOf", [schema]))
    given = TaskParameters(api_key="sk-test-task-key-0123456789")
    assert "sk-test-task-key" not in repr(given) and "sk-test-task-key" not in given.model_dump_json()
