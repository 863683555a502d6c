"""Where Agent Desk keeps its files: settings, run trajectories and logs.

By default the per-user folders of the operating system (platformdirs, app name
"AgentDesk"). When the environment variable AGENTDESK_HOME is set, everything lives
under that one folder instead: `config/`, `data/runs/` and `logs/` (tests and portable
installs use it). Each folder is created the first time it is asked for; one that cannot be
created (a read-only or full disk) is returned all the same, so reading settings still works
and a write there fails with the reason. `app.core.data_folder` checks at start that these
folders can be written to and says plainly when they cannot.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "AgentDesk"
HOME_VARIABLE = "AGENTDESK_HOME"


def _home() -> Path | None:
    """The AGENTDESK_HOME folder, or None when the variable is unset or empty."""
    value = os.environ.get(HOME_VARIABLE, "").strip()
    return Path(value).expanduser() if value else None


def _ensure(folder: Path, create: bool = True) -> Path:
    """`folder`, created first when `create` (a folder that cannot be created is returned as it is)."""
    if create:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            pass        # writing into it says why; app.core.data_folder says it at start
    return folder


def config_dir(create: bool = True) -> Path:
    """The folder holding settings.json."""
    home = _home()
    return _ensure(home / "config" if home else platformdirs.user_config_path(APP_NAME, appauthor=False), create)


def settings_path() -> Path:
    """The settings file (it may not exist yet; its folder does)."""
    return config_dir() / "settings.json"


def api_token_path() -> Path:
    """The task API's token where no keyring exists (mode 0600; it may not exist yet; its folder does)."""
    return config_dir() / "api-token"


def data_dir(create: bool = True) -> Path:
    """The folder for data the app produces (run trajectories)."""
    home = _home()
    return _ensure(home / "data" if home else platformdirs.user_data_path(APP_NAME, appauthor=False), create)


def runs_dir(create: bool = True) -> Path:
    """The folder holding one sub-folder per run."""
    return _ensure(data_dir(create) / "runs", create)


def text_only_models_path() -> Path:
    """The JSON file naming the models found to read text only (it and its folder may not exist yet)."""
    home = _home()
    return (home / "data" if home else platformdirs.user_data_path(APP_NAME, appauthor=False)) / "text_only_models.json"


def log_dir(create: bool = True) -> Path:
    """The folder holding agentdesk.log and its rotated copies."""
    home = _home()
    return _ensure(home / "logs" if home else platformdirs.user_log_path(APP_NAME, appauthor=False), create)
