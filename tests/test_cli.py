"""agentdesk controls / devices / virtual-phone, as a person runs them."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys

import pytest
from PIL import Image

from app.cli import main
from tests.conftest import REPO_ROOT

DUMP = "CodingArthur__HKSmartCompanionAndroid/nav_transit.xml"
CONTROL_FIELDS = {"id", "name", "type", "resource_id", "text", "content_desc", "rect", "clickable",
                  "long_clickable", "scrollable", "checkable", "checked", "enabled", "focused", "selected",
                  "password", "package", "locator"}


def test_controls_offline_table(corpus_dir, capsys):
    assert main(["controls", "--xml", str(corpus_dir / DUMP)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split()[:3] == ["id", "type", "name"]
    count = int(out.strip().splitlines()[-1].split()[0])
    assert count > 5
    rows = out.strip().splitlines()[2:-1]
    assert [int(row.split()[0]) for row in rows] == list(range(1, count + 1))


def test_controls_offline_json(corpus_dir, capsys):
    assert main(["controls", "--xml", str(corpus_dir / DUMP), "--json"]) == 0
    controls = json.loads(capsys.readouterr().out)
    assert [c["id"] for c in controls] == list(range(1, len(controls) + 1))
    assert CONTROL_FIELDS <= set(controls[0])
    left, top, right, bottom = controls[0]["rect"]
    assert left < right and top < bottom


def test_controls_offline_annotate(corpus_dir, tmp_path, capsys):
    out_png = tmp_path / "marked.png"
    shot = corpus_dir / DUMP.replace(".xml", ".png")
    assert main(["controls", "--xml", str(corpus_dir / DUMP), "--screenshot", str(shot),
                 "--annotate", str(out_png)]) == 0
    assert Image.open(out_png).size == Image.open(shot).size


def test_controls_offline_annotate_needs_a_screenshot(corpus_dir, tmp_path, capsys):
    assert main(["controls", "--xml", str(corpus_dir / DUMP), "--annotate", str(tmp_path / "x.png")]) == 2
    assert "--screenshot" in capsys.readouterr().err


@pytest.mark.parametrize("content, message", [(b"", "not a usable uiautomator dump"),
                                              (b"ERROR: could not get idle state.", "not a usable")])
def test_controls_offline_bad_input(tmp_path, capsys, content, message):
    bad = tmp_path / "bad.xml"
    bad.write_bytes(content)
    assert main(["controls", "--xml", str(bad)]) == 2
    assert message in capsys.readouterr().err


def test_controls_missing_file(capsys):
    assert main(["controls", "--xml", "/nonexistent/dump.xml"]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_controls_live_from_attached_phone(virtual_adb, tmp_path, capsys):
    out_png = tmp_path / "live.png"
    assert main(["controls", "--device", "emulator-5554", "--json", "--annotate", str(out_png)]) == 0
    controls = json.loads(capsys.readouterr().out)
    assert any(c["name"] == "Settings" for c in controls)       # the launcher's icons
    assert Image.open(out_png).size == (1080, 2400)


def test_controls_live_unknown_serial(virtual_adb, capsys):
    assert main(["controls", "--device", "R58M00000"]) == 3
    assert "not connected" in capsys.readouterr().err


def test_controls_on_the_built_in_virtual_phone(capsys):
    assert main(["controls", "--virtual"]) == 0
    captured = capsys.readouterr()
    assert "virtual phone" in captured.err
    assert "Settings" in captured.out


def test_devices_lists_state(virtual_adb, capsys):
    virtual_adb.set_state("emulator-5554", "unauthorized")
    assert main(["devices"]) == 0
    assert "Allow USB debugging on the phone" in capsys.readouterr().out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.skipif(shutil.which("adb") is None, reason="Debian's adb client is not installed")
def test_virtual_phone_command_serves_the_adb_client():
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "app.cli", "virtual-phone", "--port", str(port), "--devices", "2"],
                              cwd=REPO_ROOT, stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    try:
        assert "Virtual phone ADB server" in server.stdout.readline()
        listing = subprocess.run(["adb", "-P", str(port), "devices"], capture_output=True, text=True, timeout=20)
        assert "emulator-5554\tdevice" in listing.stdout and "emulator-5556\tdevice" in listing.stdout
    finally:
        server.terminate()
        server.wait(10)
    assert server.returncode == 0


def test_without_a_command_the_desktop_app_starts(monkeypatch):
    import app.__main__ as desktop

    started: list[bool] = []
    monkeypatch.setattr(desktop, "main", lambda: started.append(True) or 7)
    assert main([]) == 7 and started == [True]


def test_self_test_flag_runs_the_self_test(monkeypatch):
    import app.selftest as selftest

    monkeypatch.setattr(selftest, "main", lambda: 1)
    assert main(["--self-test"]) == 1


def test_log_lines_reach_the_terminal_only_with_verbose(tmp_path):
    """A command's warnings go to the log, not between its output lines; -v shows them."""
    import subprocess
    import sys
    script = ("import logging, sys\nimport app.cli_map as m\n"
              "def noisy(args):\n    logging.getLogger('app.x').warning('something odd')\n    print('the output')\n"
              "    return 0\nm.cmd_map = noisy\nfrom app.cli import main\nsys.exit(main(sys.argv[1:]))\n")
    env = {**__import__("os").environ, "AGENTDESK_HOME": str(tmp_path)}
    quiet = subprocess.run([sys.executable, "-c", script, "map"], capture_output=True, text=True, env=env, timeout=60)
    assert quiet.returncode == 0 and quiet.stdout == "the output\n" and "something odd" not in quiet.stderr
    loud = subprocess.run([sys.executable, "-c", script, "-v", "map"], capture_output=True, text=True, env=env,
                          timeout=60)
    assert "WARNING app.x: something odd" in loud.stderr
