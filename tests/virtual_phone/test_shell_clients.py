"""The shell as clients nobody here wrote see it: adbutils (shell, shell2 over v1 and v2) and
Debian's adb (exit codes through shell protocol v2, output order through v1)."""

from __future__ import annotations

import shutil
import subprocess

import adbutils
import pytest

from app.virtual_phone.adb_server import VirtualAdbServer


@pytest.fixture
def device(virtual_adb) -> adbutils.AdbDevice:
    client = adbutils.AdbClient(host="127.0.0.1", port=virtual_adb.port)
    return client.device(virtual_adb.devices[0].serial)


def adb(server: VirtualAdbServer, *args: str) -> subprocess.CompletedProcess:
    serial = server.devices[0].serial
    return subprocess.run(["adb", "-P", str(server.port), "-s", serial, *args], capture_output=True, timeout=60)


def test_shell2_reads_exit_codes_over_v1(device):
    """adbutils appends `; echo X4EXIT:$?` and parses the last marker: stderr must come in order."""
    assert device.shell2("false").returncode == 1
    result = device.shell2("echo out; echo err >&2; ls /nope")
    assert result.returncode == 1
    assert result.output == "out\nerr\nls: /nope: No such file or directory\n"


def test_shell2_over_v2_separates_streams(device):
    result = device.shell2("echo out; echo err >&2; exit 3", v2=True)
    assert (result.returncode, result.stdout, result.stderr) == (3, "out\n", "err\n")


def test_shell_runs_a_small_script(device):
    script = "for f in a b c; do echo $f > /sdcard/$f.txt; done; cd /sdcard && ls *.txt | wc -l"
    assert device.shell(script) == "3"
    assert device.shell(["echo", "it's", "$HOME"]) == "it's $HOME"    # adbutils quotes list arguments


@pytest.mark.skipif(shutil.which("adb") is None, reason="Debian's adb client is not installed (apt-get install adb)")
class TestDebianAdb:
    @pytest.mark.parametrize("command, code", [("false", 1), ("true", 0), ("exit 42", 42), ("nope", 127),
                                               ("/sdcard", 126), ("[ -d /sdcard ]", 0), ("sh -c 'exit 9'", 9)])
    def test_exit_codes_propagate(self, virtual_adb, command, code):
        assert adb(virtual_adb, "shell", command).returncode == code

    def test_streams_and_messages(self, virtual_adb):
        result = adb(virtual_adb, "shell", "echo out; nope; echo $((6*7))")
        assert result.stdout == b"out\n42\n"
        assert result.stderr == b"/system/bin/sh: nope: inaccessible or not found\n"

    def test_v1_keeps_the_order_written(self, virtual_adb):
        result = adb(virtual_adb, "shell", "-x", "echo one; echo two >&2; echo three")
        assert result.stdout == b"one\ntwo\nthree\n"

    def test_arguments_are_joined_like_adb_does(self, virtual_adb):
        result = adb(virtual_adb, "shell", "echo", "a  b", ";", "echo", "'c  d'")
        assert result.stdout == b"a b\nc  d\n"

    def test_an_endless_loop_ends_with_an_error(self, virtual_adb):
        result = adb(virtual_adb, "shell", "while true; do :; done")
        assert (result.returncode, result.stderr) == (152, b"Cputime limit exceeded\n")
