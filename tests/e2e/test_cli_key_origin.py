"""Which server the key goes to, at the terminal (issue 25 §1): `agentdesk run` says which key goes to which
origin; a stored key is refused to a server it was not stored for until `agentdesk key allow ORIGIN`, which
`agentdesk key status` then shows; a bad origin is one line."""

from __future__ import annotations

import io

import pytest

from app.cli import main
from app.core import paths
from app.core.config import AgentSettings, ProviderSettings, Settings, load_settings, save_settings
from app.core.key_origins import origin_of
from app.core.secrets import SecretStore
from tests.e2e.conftest import API_KEY, phone_actions
from tests.support.openai_server import FakeOpenAIServer, act, json_reply

STORED_KEY = "sk-test-stored-at-the-terminal-0123456789"
FINISH = json_reply(act("", status="FINISH", thought="Done"))


@pytest.fixture
def terminal(phone_server, monkeypatch):
    """Saved settings for OpenAI; a key stored for it; nothing in the environment."""
    save_settings(Settings(agent=AgentSettings()), paths.settings_path())
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    SecretStore().set("default", STORED_KEY)
    return phone_server


def authorizations(model: FakeOpenAIServer) -> set[str | None]:
    return {next((v for k, v in r.headers.items() if k.lower() == "authorization"), None)
            for r in model.chat_requests}


def test_the_console_says_which_key_goes_to_which_origin(terminal, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    with FakeOpenAIServer([FINISH]) as model:
        code = main(["run", "Open Settings", "--auto", "--base-url", model.base_url])
        sent = authorizations(model)
    out = capsys.readouterr().out
    assert code == 0 and sent == {f"Bearer {API_KEY}"}           # the person named the server: their key goes
    assert (f"API key: from the OPENAI_API_KEY environment variable; it goes to {origin_of(model.base_url)} "
            "and nowhere else") in out
    assert API_KEY not in out and STORED_KEY not in out


def test_a_stored_key_is_refused_to_another_server_until_allowed(terminal, capsys):
    with FakeOpenAIServer([FINISH]) as model:
        far = model.base_url.replace("127.0.0.1", "127.0.0.2")     # another loopback address: needs a key
        code = main(["run", "Open Settings", "--auto", "--base-url", far])
        err = capsys.readouterr().err
        assert code == 2 and model.requests == []
        assert f"agentdesk key allow {origin_of(far)}" in err and STORED_KEY not in err
        assert phone_actions(terminal.devices[0]) == []

        assert main(["key", "allow", model.base_url]) == 0
        assert load_settings(paths.settings_path())[0].provider.key_also_for == [origin_of(model.base_url)]
        assert main(["key", "status"]) == 0
        status = capsys.readouterr().out
        assert "It goes to https://api.openai.com" in status and f"Also sent to: {origin_of(model.base_url)}" in status
        assert main(["run", "Open Settings", "--auto", "--base-url", model.base_url]) == 0
        assert authorizations(model) == {f"Bearer {STORED_KEY}"}
    assert main(["key", "disallow", model.base_url]) == 0
    assert load_settings(paths.settings_path())[0].provider.key_also_for == []


def test_key_set_pins_the_key_to_the_saved_base_url_and_a_bad_origin_is_one_line(terminal, monkeypatch, capsys):
    save_settings(Settings(provider=ProviderSettings(base_url="https://llm.example.com:8443/v1")),
                  paths.settings_path())
    monkeypatch.setattr("sys.stdin", io.StringIO("sk-test-a-new-key-0123456789abcdef\n"))
    assert main(["key", "set"]) == 0
    assert "It goes only to https://llm.example.com:8443" in capsys.readouterr().out
    assert load_settings(paths.settings_path())[0].provider.key_origin == "https://llm.example.com:8443"
    assert main(["key", "allow", "ftp://example.com"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and "http://" in err
