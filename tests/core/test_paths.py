"""Where files live: AGENTDESK_HOME overrides everything; otherwise the OS's per-user folders."""

from __future__ import annotations

import sys

import pytest

from app.core import paths


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def test_everything_lives_under_agentdesk_home(home):
    assert paths.config_dir() == home / "config"
    assert paths.settings_path() == home / "config" / "settings.json"
    assert paths.data_dir() == home / "data"
    assert paths.runs_dir() == home / "data" / "runs"
    assert paths.log_dir() == home / "logs"


def test_folders_are_created_only_when_asked_for(home):
    assert not home.exists()
    runs = paths.runs_dir()
    assert runs.is_dir()
    assert not (home / "logs").exists() and not (home / "config").exists()
    settings = paths.settings_path()
    assert settings.parent.is_dir()
    assert not settings.exists()   # the file itself is written by the settings code, not here
    assert paths.log_dir().is_dir()


def test_the_home_folder_follows_the_variable_when_it_changes(home, tmp_path, monkeypatch):
    assert paths.runs_dir() == home / "data" / "runs"
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path / "other"))
    assert paths.runs_dir() == tmp_path / "other" / "data" / "runs"


@pytest.mark.skipif(sys.platform != "linux", reason="the XDG variables decide the folders on Linux only")
@pytest.mark.parametrize("home_value", [None, "", "   "])
def test_without_agentdesk_home_the_per_user_folders_are_used(tmp_path, monkeypatch, home_value):
    if home_value is None:
        monkeypatch.delenv("AGENTDESK_HOME", raising=False)
    else:
        monkeypatch.setenv("AGENTDESK_HOME", home_value)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    assert paths.settings_path() == tmp_path / "xdg-config" / "AgentDesk" / "settings.json"
    assert paths.runs_dir() == tmp_path / "xdg-data" / "AgentDesk" / "runs"
    assert paths.log_dir().is_relative_to(tmp_path / "xdg-state" / "AgentDesk")
    assert paths.log_dir().is_dir()
