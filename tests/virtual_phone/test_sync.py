"""adb push / pull / ls / stat against the phone's storage: adbd's answers, its capacity, and
clients that send too much or vanish mid-transfer."""

from __future__ import annotations

import io
import shutil
import socket
import stat
import struct
import subprocess

import adbutils
import pytest

from app.virtual_phone.adb_server import VirtualAdbServer
from app.virtual_phone.storage import PhoneStorage


@pytest.fixture
def device(virtual_adb) -> adbutils.AdbDevice:
    return adbutils.AdbClient(host="127.0.0.1", port=virtual_adb.port).device(virtual_adb.devices[0].serial)


def sync_socket(server: VirtualAdbServer) -> socket.socket:
    """A raw connection switched to the phone's sync: service."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    for request in (f"host:transport:{server.devices[0].serial}", "sync:"):
        sock.sendall(b"%04x" % len(request) + request.encode())
        assert sock.recv(4) == b"OKAY"
    return sock


def read_exact(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            break
        data += chunk
    return data


def request(sock: socket.socket, kind: bytes, path: str) -> None:
    sock.sendall(kind + struct.pack("<I", len(path.encode())) + path.encode())


def test_push_creates_folders_and_keeps_data(device, virtual_adb):
    device.sync.push(io.BytesIO(b"x" * 200_000), "/sdcard/new/deep/blob.bin")
    assert device.sync.read_bytes("/sdcard/new/deep/blob.bin") == b"x" * 200_000
    assert device.sync.stat("/sdcard/new/deep/blob.bin").size == 200_000
    assert [f.path for f in device.sync.list("/sdcard/new/deep")] == [".", "..", "blob.bin"]
    assert device.shell("ls -l /storage/emulated/0/new/deep").splitlines()[1].split()[4] == "200000"


def test_push_to_a_read_only_place_fails_like_adbd(device):
    with pytest.raises(adbutils.AdbError):
        device.sync.push(io.BytesIO(b"x"), "/system/x")
    with pytest.raises(adbutils.AdbError, match="open failed: No such file or directory"):
        device.sync.read_bytes("/sdcard/none.txt")
    assert not device.sync.exists("/system/x")


def test_a_push_past_the_capacity_is_refused_without_keeping_it(virtual_adb, device):
    attached = virtual_adb.devices[0]
    attached.storage = PhoneStorage(capacity=1 << 20)
    device.sync.push(io.BytesIO(b"a" * 500_000), "/sdcard/fits.bin")
    with pytest.raises(adbutils.AdbError):
        device.sync.push(io.BytesIO(b"b" * 3_000_000), "/sdcard/huge.bin")
    assert not device.sync.exists("/sdcard/huge.bin")
    assert attached.storage.usage()[0] == 500_000
    assert device.shell("echo still here") == "still here"


def test_raw_push_past_the_capacity_answers_write_failed(virtual_adb):
    virtual_adb.devices[0].storage = PhoneStorage(capacity=100_000)
    with sync_socket(virtual_adb) as sock:
        request(sock, b"SEND", "/sdcard/big,33188")
        for _ in range(4):
            sock.sendall(b"DATA" + struct.pack("<I", 60_000) + b"z" * 60_000)
        sock.sendall(b"DONE" + struct.pack("<I", 0))
        reply = read_exact(sock, 8)
        message = read_exact(sock, struct.unpack("<I", reply[4:])[0])
    assert reply[:4] == b"FAIL" and message == b"write failed: No space left on device"


def test_clients_that_vanish_mid_transfer_leave_the_phone_working(virtual_adb, device):
    for cut in (b"SEND", b"SEND\x20\x00", b"DATA"):
        sock = sync_socket(virtual_adb)
        if cut == b"DATA":
            request(sock, b"SEND", "/sdcard/partial,33188")
            sock.sendall(b"DATA" + struct.pack("<I", 50_000) + b"p" * 1000)
        else:
            sock.sendall(cut)
        sock.close()
    sock = sync_socket(virtual_adb)
    request(sock, b"RECV", "/proc/version")
    sock.close()                      # gone before reading the answer
    assert not device.sync.exists("/sdcard/partial")
    assert device.shell("echo alive") == "alive"


@pytest.mark.parametrize("kind, path, answer", [
    (b"STAT", "/nope", b"STAT" + bytes(12)),
    (b"HUH?", "/", b"FAIL"),
    (b"LIST", "/nope", b"DONE" + bytes(16)),
])
def test_odd_requests_get_adbds_answers(virtual_adb, kind, path, answer):
    with sync_socket(virtual_adb) as sock:
        request(sock, kind, path)
        assert read_exact(sock, len(answer)) == answer


def test_a_path_too_long_is_refused(virtual_adb):
    with sync_socket(virtual_adb) as sock:
        request(sock, b"STAT", "/sdcard/" + "a" * 2000)
        reply = read_exact(sock, 8)
        assert reply[:4] == b"FAIL" and read_exact(sock, struct.unpack("<I", reply[4:])[0]) == b"path too long"


def test_stat_and_list_version_2(virtual_adb):
    virtual_adb.devices[0].storage.write("/data/local/tmp/f", b"12345", mode=0o100644)
    with sync_socket(virtual_adb) as sock:
        request(sock, b"STA2", "/system/bin/ls")
        record = read_exact(sock, 72)
        assert record[:4] == b"STA2"
        error, _, _, mode, _, uid, gid, size = struct.unpack("<IQQIIIIQ", record[4:48])
        assert error == 0 and stat.S_ISREG(mode) and uid == 0
        request(sock, b"LST2", "/system/bin/ls")
        mode = struct.unpack("<I", read_exact(sock, 72)[24:28])[0]
        assert stat.S_ISLNK(mode)
        request(sock, b"LST2", "/nope")
        assert struct.unpack("<I", read_exact(sock, 72)[4:8])[0] == 2    # ENOENT
        request(sock, b"LIS2", "/data/local/tmp")
        names = {}
        while True:
            head = read_exact(sock, 72)
            if head[:4] == b"DONE":
                break
            name = read_exact(sock, struct.unpack("<I", read_exact(sock, 4))[0]).decode()
            names[name] = struct.unpack("<Q", head[40:48])[0]
        assert names == {".": 3452, "..": 3452, "f": 5}


@pytest.mark.skipif(shutil.which("adb") is None, reason="Debian's adb client is not installed (apt-get install adb)")
def test_debian_adb_push_pull_and_errors(virtual_adb, tmp_path):
    def adb(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["adb", "-P", str(virtual_adb.port), "-s", virtual_adb.devices[0].serial, *args],
                              capture_output=True, timeout=60)
    source = tmp_path / "note.txt"
    source.write_bytes(b"hello phone\n")
    assert adb("push", str(source), "/data/local/tmp/").returncode == 0
    assert adb("shell", "cat /data/local/tmp/note.txt").stdout == b"hello phone\n"
    assert adb("pull", "/proc/version", str(tmp_path / "version")).returncode == 0
    assert (tmp_path / "version").read_bytes().startswith(b"Linux version ")
    refused = adb("push", str(source), "/system/")
    assert refused.returncode == 1
    assert b"remote couldn't create file: Read-only file system" in refused.stdout + refused.stderr
    virtual_adb.devices[0].storage = PhoneStorage(capacity=64 * 1024)
    big = tmp_path / "big"
    big.write_bytes(b"\0" * 500_000)
    full = adb("push", str(big), "/sdcard/big")
    assert full.returncode == 1 and b"remote write failed: No space left on device" in full.stdout + full.stderr
    missing = adb("pull", "/sdcard/none", str(tmp_path))
    # The phone offers stat_v2, so adb asks with STA2 and reports the errno it gets back.
    assert missing.returncode == 1 and (b"failed to stat remote object '/sdcard/none': No such file or directory"
                                        in missing.stdout + missing.stderr)
