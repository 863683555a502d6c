"""`agentdesk replay`, `agentdesk skills` and `agentdesk export` at the terminal."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from app.cli import main
from tests.e2e.test_cli_run import WIFI_SCRIPT
from tests.e2e.test_replay import put_back
from tests.support.openai_server import FakeOpenAIServer


def record(capsys) -> str:
    with FakeOpenAIServer(list(WIFI_SCRIPT)) as model:
        assert main(["run", "Turn on Wi-Fi", "--auto", "--json", "--base-url", model.base_url]) == 0
    return json.loads(capsys.readouterr().out)["run_dir"]


def test_replay_without_a_key_or_a_model(cli_env, capsys, monkeypatch):
    run_dir = record(capsys)
    put_back(cli_env.devices[0].phone)
    monkeypatch.delenv("OPENAI_API_KEY")
    code = main(["replay", run_dir, "--auto", "--json", "--no-model", "--base-url", "https://api.openai.com/v1"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    result = json.loads(captured.out)
    assert result["status"] == "success" and result["verification"] == "screen"
    assert cli_env.devices[0].phone.state()["wifi"] is True
    assert "Replaying “Turn on Wi-Fi” (4 recorded steps)" in captured.err


def test_replay_of_a_folder_that_is_no_run(cli_env, tmp_path, capsys):
    assert main(["replay", str(tmp_path)]) == 2
    assert "is not a recorded run" in capsys.readouterr().err


def test_skills_list_show_rename_export_and_delete(cli_env, capsys, tmp_path):
    assert main(["skills"]) == 0
    assert "No skills yet" in capsys.readouterr().out
    run_dir = record(capsys)                      # a successful run is saved as a skill by itself
    assert main(["skills", "list"]) == 0
    listing = capsys.readouterr().out
    assert "Turn on Wi-Fi" in listing and "0/0" in listing and "{item}" not in listing    # one run: exact
    assert f"learned from 1 run: {Path(run_dir).name}" in listing               # its source run, by folder
    assert main(["skills", "generalise", "Turn on Wi-Fi"]) == 0                  # the values it could take
    assert "item (now Wi‑Fi)" in capsys.readouterr().out
    assert main(["skills", "generalise", "Turn on Wi-Fi", "item"]) == 0          # the person says so
    assert "“Turn on {item}”" in capsys.readouterr().out
    assert main(["skills", "show", "Turn on Wi-Fi"]) == 0
    shown = yaml.safe_load(capsys.readouterr().out)
    assert shown["trigger"] == "Turn on {item}" and len(shown["steps"]) == 4
    assert main(["skills", "rename", "Turn on Wi-Fi", "Wi-Fi on"]) == 0
    assert main(["skills", "show", "Turn on Wi-Fi"]) == 2
    capsys.readouterr()
    out_file = tmp_path / "wifi.py"
    assert main(["export", "--skill", "Wi-Fi on", "-o", str(out_file)]) == 0
    compile(out_file.read_text(), str(out_file), "exec")
    assert main(["export", run_dir, "--format", "yaml"]) == 0
    flow = yaml.safe_load(capsys.readouterr().out)
    assert [step["action"] for step in flow["steps"]] == ["launch_app", "click_control", "click_control",
                                                          "click_control"]
    assert main(["skills", "delete", "Wi-Fi on"]) == 0
    assert main(["skills", "delete", "Wi-Fi on"]) == 2
    assert "Wi-Fi on" in capsys.readouterr().err
