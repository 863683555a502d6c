"""stdin for exec: and shell,v2:, interactive shells in both protocols — through Debian's adb and adbutils."""

from __future__ import annotations

import shutil
import socket
import struct
import subprocess

import pytest

from app.virtual_phone.adb_connection import protocol_string
from app.virtual_phone.adb_server import VirtualAdbServer
from app.virtual_phone.shell_service import _reads_stdin

adb_missing = pytest.mark.skipif(shutil.which("adb") is None,
                                 reason="Debian's adb client is not installed (apt install adb)")


def adb(server: VirtualAdbServer, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["adb", "-P", str(server.port), *args], input=stdin, capture_output=True, timeout=30,
                          stdin=None if stdin is not None else subprocess.DEVNULL)


def open_service(server: VirtualAdbServer, service: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    sock.sendall(protocol_string(f"host:transport:{server.devices[0].serial}"))
    assert sock.recv(4) == b"OKAY"
    sock.sendall(protocol_string(service))
    assert sock.recv(4) == b"OKAY"
    return sock


def read_all(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def v2_packets(data: bytes) -> list[tuple[int, bytes]]:
    packets, at = [], 0
    while at < len(data):
        packet_id, length = struct.unpack_from("<BI", data, at)
        packets.append((packet_id, data[at + 5: at + 5 + length]))
        at += 5 + length
    return packets


def test_which_command_lines_wait_for_stdin():
    assert _reads_stdin("cat > /sdcard/x.txt")
    assert _reads_stdin("base64 -d")
    assert _reads_stdin("sh")
    assert not _reads_stdin("cat /sdcard/x.txt")
    assert not _reads_stdin("screencap -p")
    assert not _reads_stdin("sh -c 'echo hi'")
    assert not _reads_stdin("grep foo /sdcard/x")


def test_exec_streams_stdin_into_a_file(virtual_adb):
    sock = open_service(virtual_adb, "exec:cat > /sdcard/in.bin")
    payload = bytes(range(256)) * 300
    sock.sendall(payload)
    sock.shutdown(socket.SHUT_WR)
    read_all(sock)
    sock.close()
    assert virtual_adb.devices[0].storage.read("/sdcard/in.bin") == payload


def test_streamed_size_reads_exactly_that_many_bytes_without_a_close(virtual_adb):
    # As `cmd package install -S SIZE` does: the size is announced, the client keeps its side open.
    sock = open_service(virtual_adb, "exec:sh -c 'head -c 5' -S 7")
    sock.sendall(b"abcdefg")            # no shutdown: a streamed install does not close its side
    assert read_all(sock) == b"abcde"
    sock.close()


def test_v2_stdin_packets_then_close_stdin(virtual_adb):
    sock = open_service(virtual_adb, "shell,v2,raw:base64")
    sock.sendall(struct.pack("<BI", 0, 5) + b"hello" + struct.pack("<BI", 4, 0))
    packets = v2_packets(read_all(sock))
    sock.close()
    assert packets == [(1, b"aGVsbG8=\n"), (3, b"\x00")]


def test_v2_interactive_session_runs_lines_and_exits_with_the_code(virtual_adb):
    sock = open_service(virtual_adb, "shell,v2,raw:")
    script = b"cd /sdcard\npwd\necho oops >&2\nexit 7\n"
    sock.sendall(struct.pack("<BI", 0, len(script)) + script)
    packets = v2_packets(read_all(sock))
    sock.close()
    assert (1, b"/sdcard\n") in packets and (2, b"oops\n") in packets
    assert packets[-1] == (3, b"\x07")


@adb_missing
class TestDebianAdb:
    def test_piped_script_into_adb_shell(self, virtual_adb):
        done = adb(virtual_adb, "shell", stdin=b"echo one\necho two\nfalse\n")
        assert done.stdout.split() == [b"one", b"two"]
        assert done.returncode == 1      # the status of the script's last command

    def test_exec_in_and_exec_out(self, virtual_adb):
        data = b"\x00binary\xff" * 1000
        assert adb(virtual_adb, "exec-in", "cat > /data/local/tmp/blob", stdin=data).returncode == 0
        out = adb(virtual_adb, "exec-out", "cat /data/local/tmp/blob")
        assert out.stdout == data

    def test_stdin_through_shell_v2(self, virtual_adb):
        done = adb(virtual_adb, "shell", "wc -c", stdin=b"12345")
        assert done.stdout.strip() == b"5" and done.returncode == 0


def test_an_interactive_terminal_echoes_what_is_typed_and_ends_lines_with_cr_lf(virtual_adb):
    sock = open_service(virtual_adb, "shell:")          # v1 without a command: a terminal (pty)
    prompt = b"agentdesk:/ $ "
    seen = b""
    sock.sendall(b"echo hi\r")                         # Enter on a terminal sends CR
    while seen.count(prompt) < 2:
        seen += sock.recv(4096)
    sock.sendall(b"exit\r")
    seen += read_all(sock)
    sock.close()
    assert seen == prompt + b"echo hi\r\n" + b"hi\r\n" + prompt + b"exit\r\n"
