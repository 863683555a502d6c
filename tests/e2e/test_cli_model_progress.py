"""`agentdesk run` is never silent while the model answers, and its model errors name the flags the person passed.

The run goes against the loopback OpenAI-compatible server: on a (fake) terminal the model's words are written
as they stream in; piped, a ticker line says the model is thinking; a cut-off reply is said when it is asked
again; a server that is not there, a refused key and a missing key are explained with `--preset`, `--base-url`
and `--api-key-env` before Settings.
"""

from __future__ import annotations

import argparse
import io
import socket

import pytest

from app.cli import main
from app.cli_model_server import unreachable_words
from app.core.config import Settings
from tests.e2e.conftest import phone_actions
from tests.support.openai_server import FakeOpenAIServer, act, cut_off_reply, http_error, json_reply

GO_HOME = [json_reply(act("press_key", key_code="HOME", thought="The home key takes me to the launcher")),
           json_reply(act("", status="FINISH", thought="The launcher is shown"))]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class SteppingClock:
    """Ten seconds pass each time the progress looks at the clock: the ticker's 15 s come within one reply."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 10.0
        return self.now


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_on_a_terminal_the_model_s_words_are_written_as_they_come(cli_env, monkeypatch):
    terminal = Terminal()
    monkeypatch.setattr("sys.stdout", terminal)
    with FakeOpenAIServer(list(GO_HOME)) as model:
        code = main(["run", "Go home", "--auto", "--base-url", model.base_url])
    out = terminal.getvalue()
    assert code == 0, out
    assert "  step 1, the model writes: The home key takes me to the launcher\n" in out
    assert "  step 2, the model writes: The launcher is shown\n" in out
    assert '{"thought"' not in out, "the thought is shown, not the reply's JSON"


def test_piped_the_run_prints_a_ticker_line_while_the_model_thinks(cli_env, monkeypatch, capsys):
    monkeypatch.setattr("app.console_progress.CLOCK", SteppingClock())
    with FakeOpenAIServer(list(GO_HOME)) as model:
        code = main(["run", "Go home", "--auto", "--base-url", model.base_url])
    out = capsys.readouterr().out
    assert code == 0, out
    ticks = [line for line in out.splitlines() if "the model is thinking… " in line]
    assert ticks and ticks[0].startswith("  step 1: the model is thinking… ") and ticks[0].endswith(" tokens"), out
    assert "the model writes" not in out and "\r" not in out, "a pipe gets no live line"


def test_a_cut_off_reply_is_said_and_asked_again(cli_env, capsys):
    script = [cut_off_reply('{"thought": "There is a lot to consider here, first'), *GO_HOME]
    with FakeOpenAIServer(script) as model:
        code = main(["run", "Go home", "--auto", "--base-url", model.base_url])
    out = capsys.readouterr().out
    assert code == 0, out
    assert ("  step 1: the reply was cut off at 1024 tokens (the output budget); asking the model again with room "
            "for 2,048 tokens") in out
    assert out.index("cut off at 1024 tokens") < out.index("Step 1: ")


def test_a_server_that_is_not_there_is_named_by_the_flags_given(cli_env, capsys):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    code = main(["run", "Go home", "--auto", "--preset", "llama.cpp", "--base-url", url])
    captured = capsys.readouterr()
    assert code == 1, captured
    warning = next(line for line in captured.err.splitlines() if line.startswith("warning:"))
    assert warning.startswith(f"warning: --base-url {url} (with --preset llama.cpp) did not answer (")
    assert "start llama-server there, or pass --base-url" in warning
    failure = next(line for line in captured.out.splitlines() if line.startswith("  ✗"))
    assert failure.startswith(f"  ✗ --base-url {url} (with --preset llama.cpp) did not answer: start llama-server")
    assert failure.index("--base-url") < failure.index("Settings"), "the flags first, Settings after"
    assert captured.out.index(failure) < captured.out.index("Result: failed")
    assert phone_actions(cli_env.devices[0]) == []


def test_a_preset_alone_is_named_with_its_base_url():
    args = argparse.Namespace(preset="llama.cpp", base_url=None)
    settings = Settings(provider={"base_url": "http://localhost:8080/v1", "preset": "llama.cpp"})
    words = unreachable_words(args, settings, "connection refused")
    assert words.startswith("--preset llama.cpp (base URL http://localhost:8080/v1) did not answer (connection "
                            "refused): start llama-server there, or pass --base-url")
    assert words.index("--base-url") < words.index("Settings")


def test_a_refused_key_names_where_it_came_from_and_the_flag_for_another(cli_env, capsys):
    with FakeOpenAIServer([http_error(401, "Incorrect API key provided")]) as model:
        code = main(["run", "Go home", "--auto", "--base-url", model.base_url])
    out = capsys.readouterr().out
    assert code == 1, out
    assert (f"  ✗ --base-url {model.base_url} refused the API key (from the OPENAI_API_KEY environment variable): "
            "pass the right one with --api-key-env NAME, or store it with `agentdesk key set`, or check the key in "
            "Settings.") in out


@pytest.mark.parametrize("flags, server", [
    ([], "the base URL in Settings (https://api.openai.com/v1)"),
    (["--preset", "OpenAI"], "--preset OpenAI (base URL https://api.openai.com/v1)"),
])
def test_no_key_on_a_fresh_set_up_names_the_flags_that_give_one_or_need_none(monkeypatch, capsys, flags, server):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setattr("app.desk.preflight.model_server_problem", lambda base_url: "")   # no network here
    assert main(["run", "anything", *flags]) == 2
    err = capsys.readouterr().err
    assert f"error: {server} needs an API key, and none was found: set OPENAI_API_KEY or pass --api-key-env NAME" \
           in err
    assert "`agentdesk key set` (or in Settings)" in err
    assert "--preset llama.cpp, --preset Ollama or --base-url http://localhost:PORT/v1" in err


def test_an_unset_api_key_env_is_named_by_its_flag(cli_env, capsys):
    assert main(["run", "anything", "--api-key-env", "NO_SUCH_MODEL_KEY", "--base-url",
                 "https://llm.invalid/v1"]) == 2
    err = capsys.readouterr().err
    assert "error: --api-key-env NO_SUCH_MODEL_KEY: the environment variable NO_SUCH_MODEL_KEY is not set" in err


def test_doctor_names_the_flags_it_was_given_before_settings(cli_env, capsys):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    assert main(["doctor", "--preset", "llama.cpp", "--base-url", url]) == 1
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if "Model endpoint" in line)
    assert line.split("Model endpoint", 1)[1].strip().startswith(
        f"--base-url {url} (with --preset llama.cpp) did not answer: start llama-server there")
    assert line.index("--base-url") < line.index("Settings")
    assert "ok   API key" in out, "a local server needs no key"
