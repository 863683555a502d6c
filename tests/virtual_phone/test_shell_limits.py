"""Payload text stays data, and no input can run forever or eat the host's memory.

Whatever a client sends, only the phone's own in-memory storage and programs are reached; loops,
recursion, output and files are bounded, and going past a bound gives a phone-like error.
"""

from __future__ import annotations

import socket
import time

import pytest

from app.virtual_phone.attached_device import AttachedDevice
from app.virtual_phone.shell import ShellLimits
from app.virtual_phone.storage import PhoneStorage
from tests.virtual_phone.conftest import new_phone

SMALL = ShellLimits(max_commands=5_000, max_seconds=2.0, max_output=1 << 20, max_depth=40)


@pytest.fixture
def device() -> AttachedDevice:
    return AttachedDevice(phone=new_phone(), transport_id=1)


def run(device: AttachedDevice, line: str, limits: ShellLimits | None = SMALL):
    shell = device.new_shell(f"shell:{line}")
    if limits is not None:
        shell.limits = limits
    return shell.run_line(line)


def test_host_files_are_out_of_reach(device, tmp_path):
    host_name = socket.gethostname().encode()
    result = run(device, "cat /etc/hostname; cat ../../../../etc/passwd; ls /home /usr; cat /proc/self/environ")
    assert result.code == 1
    assert b"No such file or directory" in result.stderr
    assert host_name not in result.output and b"root:x:0" not in result.output
    assert run(device, "cd ../../../..; pwd; ls").stdout == run(device, "echo /; ls /").stdout


def test_host_commands_are_not_run(device, tmp_path):
    marker = tmp_path / "pwned"
    result = run(device,
                 f"$(touch {marker}); `python3 -c 'print(1)'`; /bin/ls /; echo \"$(hostname) $(whoami) $(uname -n)\"")
    assert not marker.exists()
    assert b"python3: inaccessible or not found" in result.stderr
    assert b"/bin/ls: inaccessible or not found" in result.stderr
    assert result.stdout == b"localhost shell localhost\n"


def test_writes_stay_on_the_phone(device, tmp_path):
    outside = tmp_path / "x"
    result = run(device, f"echo data > {outside}; echo data > /sdcard/../../sdcard/in.txt")
    assert f"can't create {outside}".encode() in result.stderr
    assert not outside.exists()
    assert device.storage.read("/sdcard/in.txt") == b"data\n"


def test_a_loop_that_never_ends_is_killed():
    device = AttachedDevice(phone=new_phone(), transport_id=1)
    for line in ("while true; do :; done; echo never", "while :; do echo x >/dev/null; done",
                 "i=0; until false; do i=$((i+1)); done", "for i in 1; do while true; do true; done; done"):
        started = time.monotonic()
        result = run(device, line)
        assert (result.code, result.stderr) == (152, b"Cputime limit exceeded\n"), line
        assert b"never" not in result.stdout
        assert time.monotonic() - started < 10


def test_the_default_limits_end_a_busy_loop_quickly(device):
    started = time.monotonic()
    result = run(device, "while true; do :; done", limits=None)
    assert result.code == 152 and time.monotonic() - started < 30


def test_sleep_past_the_time_limit_is_cut_off(device):
    started = time.monotonic()
    result = run(device, "sleep 60; echo never", limits=ShellLimits(max_seconds=0.3))
    assert (result.code, result.stdout) == (152, b"")
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("line, message", [
    ("f() { f; }; f", b"/system/bin/sh: f: recursion too deep\n"),
    ("f() { echo $(f); }; f", b"recursion too deep"),
    ("g() { (g); }; g", b"recursion too deep"),
    ("s=:; i=0; while [ $i -lt 45 ]; do s=\"( $s )\"; i=$((i+1)); done; eval \"$s\"", b"too deeply nested"),
    ("x=a; while true; do x=$x$x; done", b"/system/bin/sh: out of memory\n"),
])
def test_recursion_and_memory_are_bounded(device, line, message):
    result = run(device, line)
    assert result.code != 0 and message in result.stderr


@pytest.mark.parametrize("line", [
    "(" * 5000 + "echo hi" + ")" * 5000,
    "echo " + "$(" * 300 + "echo hi" + ")" * 300,
    "{ " * 2000 + "echo hi; " + "} " * 2000,
    "if true; then " * 500 + "echo hi" + "; fi" * 500,
    "echo " + "`echo " * 201,
    "echo $((" + "(" * 4000 + "1" + ")" * 4000 + "))",
    "echo ${x:-${x:-${x:-" * 200 + "}}}" * 200,
])
def test_deeply_nested_input_is_an_error_not_a_crash(device, line):
    result = run(device, line)
    assert result.code != 0 and result.stderr.startswith(b"/system/bin/sh: ")


def test_long_input_is_parsed_in_bounded_time(device):
    line = "echo " + "word " * 13_000 + "; " + "x=1; " * 2_000 + "echo done"
    started = time.monotonic()
    result = run(device, line, limits=None)
    assert result.stdout.endswith(b"word\ndone\n")
    assert time.monotonic() - started < 10


def test_endless_output_is_cut_off(device):
    result = run(device, "cat /dev/zero; echo never")
    assert (result.code, result.stderr) == (153, b"File size limit exceeded\n")
    assert len(result.output) < 2 * SMALL.max_output
    assert run(device, "head -c 5 /dev/zero | wc -c").stdout == b"5\n"


def test_storage_has_a_capacity():
    device = AttachedDevice(phone=new_phone(), transport_id=1, storage=PhoneStorage(capacity=1 << 20))
    result = run(device, "head -c 700000 /dev/zero > /sdcard/a && cat /sdcard/a /sdcard/a > /sdcard/b; echo $?",
                 limits=None)
    assert result.stdout == b"1\n"
    assert b"No space left on device" in result.stderr
    assert device.storage.usage()[0] <= 1 << 20
    result = run(device, "while true; do echo 0123456789abcdef >> /sdcard/log || break; done; echo stopped",
                  limits=ShellLimits())
    assert result.stdout == b"stopped\n" and b"No space left on device" in result.stderr


def test_a_command_record_does_not_grow_without_end(device):
    for _ in range(3):
        run(device, "while true; do true; done", limits=ShellLimits(max_commands=60_000))
    assert len(device.commands) <= 100_000


def test_odd_bytes_stay_data(device):
    result = run(device, "$(printf '\\057bin\\057sh') -c 'echo pwned'; echo '\x00\x1b[31m \udcff'")
    assert b"/system/bin/sh: /bin/sh: inaccessible or not found\n" in result.stderr
    assert b"pwned" not in result.stdout
    assert result.stdout.startswith(b"\x00\x1b[31m ")
