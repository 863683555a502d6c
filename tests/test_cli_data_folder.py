"""`agentdesk run` at start (issue 12, item 6): an unwritable data folder is one plain line and a
non-zero exit, and a signal that comes while it is still connecting ends it with 128 + the signal's
number, with no traceback. Real child processes; the phone is an ADB server that never answers."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.support.small_disk import small_disk


def agentdesk_run(home: Path, adb_port: int, *args: str) -> subprocess.Popen:
    env = {**os.environ, "AGENTDESK_HOME": str(home), "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
           "ANDROID_ADB_SERVER_HOST": "127.0.0.1", "ANDROID_ADB_SERVER_PORT": str(adb_port),
           "ADBUTILS_ADB_PATH": "/bin/false"}
    env.pop("OPENAI_API_KEY", None)
    return subprocess.Popen([sys.executable, "-m", "app.cli", "run", "Open settings",
                             "--base-url", "http://127.0.0.1:9/v1", *args], cwd=REPO_ROOT, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


class SilentAdbServer:
    """Accepts ADB connections and never answers: `agentdesk run` sits connecting to the phone."""

    def __init__(self) -> None:
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        self.connected = threading.Event()
        self._closing = threading.Event()
        self._clients: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, name="silent-adb", daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        self.socket.settimeout(0.1)
        while not self._closing.is_set():
            try:
                client, _ = self.socket.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self._clients.append(client)
            self.connected.set()

    def close(self) -> None:
        self._closing.set()
        self._thread.join(5)
        self.socket.close()
        for client in self._clients:
            client.close()


@pytest.fixture
def silent_adb():
    server = SilentAdbServer()
    yield server
    server.close()


def test_a_read_only_data_folder_is_one_plain_line_and_a_non_zero_exit(tmp_path, silent_adb):
    with small_disk(tmp_path / "ro", 64, read_only=True) as home:
        process = agentdesk_run(home, silent_adb.port)
        out, err = process.communicate(timeout=60)
    assert process.returncode != 0
    assert err.strip() == (f"error: Agent Desk cannot write to {home / 'data' / 'runs'} (read-only file system). "
                           "Set AGENTDESK_HOME to a writable folder.")
    assert "Traceback" not in out + err
    assert not silent_adb.connected.is_set()           # it never went on to the phone


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_while_connecting_ends_the_command_cleanly(tmp_path, silent_adb, signum):
    process = agentdesk_run(tmp_path / "home", silent_adb.port)
    try:
        assert silent_adb.connected.wait(60), "agentdesk run never tried to reach the phone"
        process.send_signal(signum)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 128 + signum, (out, err)
    assert "Traceback" not in out + err
    assert "quitting before the run began" in out
    assert not list((tmp_path / "home" / "data" / "runs").glob("*"))     # no run was started


def test_doctor_names_an_unwritable_data_folder(tmp_path, monkeypatch, capsys):
    from app.cli import main
    from app.virtual_phone.adb_server import VirtualAdbServer
    from app.virtual_phone.phone import VirtualPhone
    from tests.support.openai_server import FakeOpenAIServer, json_reply

    server = VirtualAdbServer().start()
    server.add_phone(VirtualPhone())
    monkeypatch.setenv("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(server.port))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-doctor-0123456789")
    try:
        with small_disk(tmp_path / "ro", 64, read_only=True) as home, \
                FakeOpenAIServer([json_reply({"ok": True})] * 2) as model:
            monkeypatch.setenv("AGENTDESK_HOME", str(home))
            code = main(["doctor", "--base-url", model.base_url, "--model", "fake-vision"])
    finally:
        server.stop()
    lines = {line[5:].split("  ", 1)[0].strip(): line for line in capsys.readouterr().out.splitlines()}
    assert code == 1
    assert lines["Data folder"].startswith("FIX")
    assert f"cannot write to {home / 'data' / 'runs'} (read-only file system)" in lines["Data folder"]
    assert lines["Model answers"].startswith("ok ")
