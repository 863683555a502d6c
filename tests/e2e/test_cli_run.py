"""`agentdesk run` in a terminal: step mode from the keyboard, auto mode with --json, and its errors."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from app.cli import main
from app.core import paths
from app.core.config import Settings, save_settings
from tests.e2e.conftest import API_KEY, phone_actions
from tests.support.openai_server import FakeOpenAIServer, act, click, json_reply, type_into

WIFI_SCRIPT = [json_reply(act("launch_app", package_name="com.android.settings")),
               click("Network & internet"), click("Wi-Fi"), click("Use Wi-Fi"),
               json_reply(act("", status="FINISH"))]


def test_step_mode_answered_at_the_keyboard(cli_env, monkeypatch, capsys):
    # approve, reject with feedback (the model proposes again), approve x4
    monkeypatch.setattr("sys.stdin", io.StringIO("\nr\nopen Wi-Fi settings\n\n\n\n\n"))
    script = WIFI_SCRIPT[:2] + [click("Network & internet")] + WIFI_SCRIPT[2:]
    with FakeOpenAIServer(script) as model:
        code = main(["run", "Turn on Wi-Fi", "--base-url", model.base_url, "--model", "gpt-4o"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert cli_env.devices[0].phone.state()["wifi"] is True
    assert "Step 1: Open the app com.android.settings [approved] → ok" in out
    assert "Result: success" in out
    assert "Ending: verified by the model: the screen shows the request is done" in out
    report = Path(out.split("Report:", 1)[1].split()[0])
    assert report.is_file() and "Turn on Wi-Fi" in report.read_text()


def test_auto_mode_with_json_result(cli_env, capsys):
    with FakeOpenAIServer(list(WIFI_SCRIPT)) as model:
        code = main(["run", "Turn on Wi-Fi", "--auto", "--json", "--base-url", model.base_url])
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert code == 0 and result["status"] == "success" and result["steps_taken"] == 5
    assert Path(result["run_dir"], "steps.jsonl").read_text().count("\n") == 5


def test_stop_when_input_ends(cli_env, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    with FakeOpenAIServer(list(WIFI_SCRIPT)) as model:
        code = main(["run", "Turn on Wi-Fi", "--base-url", model.base_url])
    out = capsys.readouterr().out
    assert code == 1 and "Result: stopped" in out
    assert phone_actions(cli_env.devices[0]) == [], "the unanswered proposal never reached the phone"
    assert len(model.chat_requests) == 1, "nothing more was asked after the stop"


def test_missing_key_says_how_to_add_one(cli_env, monkeypatch, capsys):
    monkeypatch.delenv("OPENAI_API_KEY")
    assert main(["run", "anything", "--base-url", "https://api.example.com/v1"]) == 2
    assert "agentdesk key set" in capsys.readouterr().err
    assert phone_actions(cli_env.devices[0]) == []


def test_key_set_status_delete(monkeypatch, capsys):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setattr("sys.stdin", io.StringIO("sk-test-cli-0123456789abcdef\n"))
    assert main(["key", "set"]) == 0
    assert main(["key", "status"]) == 0
    out = capsys.readouterr().out
    assert "stored in" in out and "found in" in out and "sk-test-cli" not in out
    assert main(["key", "delete"]) == 0
    assert main(["key", "status"]) == 1


def test_doctor_reports_each_check(cli_env, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    with FakeOpenAIServer([json_reply({"ok": True})]) as model:
        save_settings(Settings(provider={"base_url": model.base_url, "model": "gpt-4o"}), paths.settings_path())
        code = main(["doctor"])
    out = capsys.readouterr().out
    assert "ok   ADB server" in out and "ok   Phone emulator-5554" in out
    assert "FIX  ADB Keyboard on emulator-5554" in out and "ADBKeyBoard" in out
    assert "ok   Model answers" in out
    assert code == 1   # ADB Keyboard is missing on the virtual phone by default


def _digits(position: int, text: str):
    def respond(body):
        from tests.support.openai_server import controls_in_request
        fields = [cid for cid, name in controls_in_request(body).items() if name.isdigit()]
        return json_reply(act("type_text", control_id=fields[position], text=text, clear_current_text=True))(body)
    return respond


TASKS = {
    "note": ("Create a note called Groceries with milk, eggs",
             [json_reply(act("launch_app", package_name="com.agentdesk.notes")), click("New note"),
              type_into("Title", "Groceries"), type_into("Note", "milk, eggs"), click("Save"),
              json_reply(act("", status="FINISH"))],
             lambda state: any(n["title"] == "Groceries" and n["body"] == "milk, eggs" for n in state["notes"])),
    "message": ("Text Ben Carter that I am running late",
                [json_reply(act("launch_app", package_name="com.android.messaging")), click("Start chat"),
                 click("Ben Carter"), type_into("Text message", "Running late"), click("Send SMS"),
                 json_reply(act("", status="FINISH"))],
                lambda state: {"to": "Ben Carter", "body": "Running late"} in state["messages_sent"]),
    "alarm": ("Set an alarm for 7:30 AM",
              [json_reply(act("launch_app", package_name="com.android.deskclock")), click("Add alarm"),
               _digits(0, "7"), _digits(1, "30"), click("AM"), click("OK"), json_reply(act("", status="FINISH"))],
              lambda state: any(a["hour"] == 7 and a["minute"] == 30 for a in state["alarms"])),
}


@pytest.mark.parametrize("mode", ["--step", "--auto"])
@pytest.mark.parametrize("task", sorted(TASKS))
def test_cli_completes_the_tasks(cli_env, monkeypatch, capsys, task, mode):
    request, script, done = TASKS[task]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n" * 10))    # approve whatever is asked
    with FakeOpenAIServer(list(script)) as model:
        code = main(["run", request, mode, "--base-url", model.base_url])
    out = capsys.readouterr().out
    assert code == 0, out
    assert done(cli_env.devices[0].phone.state())
    reviewed = out.count("the model proposes")
    assert reviewed == (len(script) if mode == "--step" else (1 if task == "message" else 0))


# ---------------------------------------------------------------------------- which key a run uses

STORED_KEY = "sk-test-stored-in-keyring-0123456789"
def authorizations(model: FakeOpenAIServer) -> set[str | None]:
    """The Authorization header of every chat request the model server received."""
    return {next((v for k, v in r.headers.items() if k.lower() == "authorization"), None)
            for r in model.chat_requests}


def test_a_key_in_the_environment_wins_over_the_stored_one(cli_env, capsys):
    from app.core.secrets import SecretStore
    SecretStore().set("default", STORED_KEY)
    with FakeOpenAIServer(list(WIFI_SCRIPT)) as model:
        code = main(["run", "Turn on Wi-Fi", "--auto", "--base-url", model.base_url])
        sent = authorizations(model)
    out = capsys.readouterr().out
    assert code == 0 and cli_env.devices[0].phone.state()["wifi"] is True
    assert sent == {f"Bearer {API_KEY}"}
    assert "API key: from the OPENAI_API_KEY environment variable" in out
    assert API_KEY not in out and STORED_KEY not in out


def test_api_key_env_reads_the_named_variable(cli_env, monkeypatch, capsys):
    from app.core.secrets import SecretStore
    SecretStore().set("default", STORED_KEY)
    monkeypatch.setenv("WORK_MODEL_KEY", "sk-test-work-key-0123456789abcdef")
    with FakeOpenAIServer(list(WIFI_SCRIPT)) as model:
        code = main(["run", "Turn on Wi-Fi", "--auto", "--json", "--api-key-env", "WORK_MODEL_KEY",
                     "--base-url", model.base_url])
        sent = authorizations(model)
    captured = capsys.readouterr()
    assert code == 0 and sent == {"Bearer sk-test-work-key-0123456789abcdef"}
    assert "API key: from the WORK_MODEL_KEY environment variable" in captured.err
    run_file = Path(json.loads(captured.out)["run_dir"], "run.json").read_text()
    assert "WORK_MODEL_KEY" in run_file and "sk-test-work-key" not in run_file


def test_api_key_env_naming_an_unset_variable_is_refused_before_the_phone_is_touched(cli_env, capsys):
    with FakeOpenAIServer(list(WIFI_SCRIPT)) as model:
        code = main(["run", "Turn on Wi-Fi", "--auto", "--api-key-env", "NO_SUCH_KEY_VARIABLE",
                     "--base-url", model.base_url])
        asked = len(model.chat_requests)
    assert code == 2 and asked == 0
    assert "NO_SUCH_KEY_VARIABLE" in capsys.readouterr().err
    assert phone_actions(cli_env.devices[0]) == [] and cli_env.devices[0].phone.state()["wifi"] is False


@pytest.mark.parametrize("backend", ["none", "broken"])
def test_key_set_without_a_keyring_fails_and_names_what_to_install(monkeypatch, capsys, backend):
    import keyring
    from keyring.backends import fail
    from keyring.errors import PasswordSetError

    from tests.support.memory_keyring import MemoryKeyring

    class Refusing(MemoryKeyring):
        def set_password(self, service, username, password):
            raise PasswordSetError("the keyring is locked")

    keyring.set_keyring(fail.Keyring() if backend == "none" else Refusing())   # agent_home restores it
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setattr("sys.stdin", io.StringIO("sk-test-cli-0123456789abcdef\n"))
    assert main(["key", "set"]) == 1
    captured = capsys.readouterr()
    assert "could not store the API key" in captured.err
    assert "gnome-keyring" in captured.err and "keyrings.alt" in captured.err
    assert "stored in" not in captured.out and "sk-test-cli" not in captured.out + captured.err
    assert main(["key", "status"]) == 1
    assert "not stored" in capsys.readouterr().out


def test_key_status_says_the_environment_wins(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(STORED_KEY + "\n"))
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    assert main(["key", "set"]) == 0
    assert main(["key", "status"]) == 0
    out = capsys.readouterr().out
    assert "found in the system keyring" in out
    assert "Runs use the key from the OPENAI_API_KEY environment variable, not the stored one." in out
    assert STORED_KEY not in out and API_KEY not in out
