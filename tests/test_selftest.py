"""`agentdesk --self-test`: the report and its exit status, and a real run from source."""

from __future__ import annotations

import os
import subprocess
import sys

import keyring
import pytest
from keyring.errors import KeyringError

from app import selftest
from app.selftest import CheckFailed, CheckResult, render, run_checks
from tests.support.memory_keyring import MemoryKeyring


def test_a_failing_check_is_reported_and_the_others_still_run(monkeypatch):
    def broken() -> str:
        raise CheckFailed("the prompt template system.txt is missing")

    def crashing() -> str:
        raise ImportError("No module named 'PySide6.QtSvg'")

    monkeypatch.setattr(selftest, "CHECKS", (("resources", broken), ("Qt", crashing), ("keyring", lambda: "fine")))
    results = run_checks()
    assert [(r.name, r.ok) for r in results] == [("resources", False), ("Qt", False), ("keyring", True)]
    report = render(results)
    assert "FAIL  resources" in report and "system.txt is missing" in report
    assert "ImportError: No module named 'PySide6.QtSvg'" in report
    assert report.rstrip().endswith("Failed: resources, Qt.")


def test_exit_status_follows_the_checks(monkeypatch, capsys):
    monkeypatch.setattr(selftest, "run_checks", lambda: [CheckResult("resources", True, "5 files", 1.0)])
    assert selftest.main() == 0
    assert "All checks passed." in capsys.readouterr().out
    monkeypatch.setattr(selftest, "run_checks", lambda: [CheckResult("virtual phone", False, "no screenshot", 1.0)])
    assert selftest.main() == 1
    assert "Failed: virtual phone." in capsys.readouterr().out


def test_self_test_from_source_passes(tmp_path):
    """The real thing, in its own process as a user would start it: Qt offscreen, the resources,
    the virtual phone's screenshot and dump, the keyring."""
    env = {**os.environ, "AGENTDESK_HOME": str(tmp_path)}
    env.pop("QT_QPA_PLATFORM", None)          # the self-test chooses offscreen itself
    done = subprocess.run([sys.executable, "-m", "app.cli", "--self-test"], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    for name in ("resources", "Qt, main window, icon", "virtual phone", "scrcpy server and decoder", "keyring"):
        assert f"ok    {name}" in done.stdout
    assert "screenshot 1080x2400" in done.stdout and "All checks passed." in done.stdout
    assert not any(tmp_path.joinpath("config").glob("*"))   # nothing written to the user's settings


class _WritesFail(MemoryKeyring):
    def set_password(self, service, username, password):
        raise KeyringError("the collection is locked")


def test_keyring_check_round_trips_a_secret_and_leaves_nothing(monkeypatch):
    backend = MemoryKeyring()
    seen: list[str] = []
    original_set = backend.set_password
    backend.set_password = lambda s, u, p: (seen.append(s), original_set(s, u, p))[1]
    monkeypatch.setattr(keyring, "get_keyring", lambda: backend)
    detail = selftest.check_keyring()
    assert "stored, read back and deleted" in detail
    assert seen == [selftest.SELF_TEST_SERVICE] and backend.passwords == {}


def test_keyring_check_fails_when_the_keyring_refuses_to_store(monkeypatch):
    monkeypatch.setattr(keyring, "get_keyring", lambda: _WritesFail())
    with pytest.raises(CheckFailed, match="keyring failed while storing"):
        selftest.check_keyring()


def test_scrcpy_server_check_passes_on_the_shipped_file():
    detail = selftest.check_scrcpy_server()
    assert "server 3.3.4" in detail and "SHA-256 ok" in detail and "decodes H.264 and AV1" in detail


def test_scrcpy_server_check_fails_on_an_altered_server(tmp_path, monkeypatch):
    from app.core import scrcpy_server_file

    planted = tmp_path / scrcpy_server_file.SERVER_FILE_NAME
    planted.write_bytes(scrcpy_server_file.server_file().read_bytes()[:-1])
    monkeypatch.setattr(scrcpy_server_file, "server_resource", lambda: planted)
    with pytest.raises(CheckFailed, match="is not scrcpy's 3.3.4 release"):
        selftest.check_scrcpy_server()
