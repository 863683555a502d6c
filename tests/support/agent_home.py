"""A temporary home for the app in a test: runs, settings and logs under tmp_path, an in-memory keyring.

The conftests that want it for every test of their folder wrap it in an autouse fixture of their own.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest

from tests.support.memory_keyring import MemoryKeyring


def temporary_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """AGENTDESK_HOME under `tmp_path` and an in-memory keyring while the generator is suspended."""
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path / "home"))
    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    yield tmp_path / "home"
    keyring.set_keyring(previous)
