"""Bad input at the ADB level gets a phone-like answer, and the server goes on serving afterwards."""

from __future__ import annotations

import socket
import struct

import adbutils
import pytest

from app.virtual_phone.adb_connection import protocol_string


def connect(server) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=10)


def answer(sock: socket.socket) -> tuple[bytes, str]:
    status = sock.recv(4)
    if status != b"FAIL":
        return status, ""
    length = int(sock.recv(4), 16)
    return status, sock.recv(length).decode()


def on_device(server, service: str) -> socket.socket:
    sock = connect(server)
    sock.sendall(protocol_string(f"host:transport:{server.devices[0].serial}"))
    assert sock.recv(4) == b"OKAY"
    sock.sendall(protocol_string(service))
    return sock


def still_serves(server) -> None:
    device = adbutils.AdbClient(host="127.0.0.1", port=server.port).device(server.devices[0].serial)
    assert device.shell("echo alive") == "alive"


@pytest.mark.parametrize("request_bytes", [b"zzzz", b"00", b"ffff" + b"x" * 10, b"\x00\x01\x02\x03garbage",
                                           b"0004", b""])
def test_malformed_requests_close_the_connection_only(virtual_adb, request_bytes):
    with connect(virtual_adb) as sock:
        sock.sendall(request_bytes)
        sock.shutdown(socket.SHUT_WR)
        sock.recv(100)
    still_serves(virtual_adb)


def test_unknown_host_and_device_services_fail_with_a_message(virtual_adb):
    with connect(virtual_adb) as sock:
        sock.sendall(protocol_string("host:frobnicate"))
        assert answer(sock) == (b"FAIL", "unsupported host service: frobnicate")
    with on_device(virtual_adb, "jdwp-tracker:") as sock:
        status, message = answer(sock)
        assert status == b"FAIL" and message
    with on_device(virtual_adb, "localabstract:") as sock:
        assert answer(sock) == (b"FAIL", "closed")
    still_serves(virtual_adb)


def test_a_client_that_vanishes_mid_push_or_mid_command(virtual_adb):
    with on_device(virtual_adb, "sync:") as sock:
        assert sock.recv(4) == b"OKAY"
        path = b"/sdcard/half.bin,33188"
        sock.sendall(b"SEND" + struct.pack("<I", len(path)) + path + b"DATA" + struct.pack("<I",
                                                                                           1_000_000) + b"x" * 1000)
    with on_device(virtual_adb, "shell:cat > /sdcard/never.txt") as sock:
        assert sock.recv(4) == b"OKAY"
    with on_device(virtual_adb, "shell,v2:") as sock:
        assert sock.recv(4) == b"OKAY"
        sock.sendall(struct.pack("<BI", 0, 100) + b"echo partial")   # a packet cut short
    still_serves(virtual_adb)
    assert virtual_adb.devices[0].storage.read("/sdcard/half.bin") is None   # nothing half-written is kept


def test_a_huge_push_is_refused_without_holding_it_in_memory(virtual_adb):
    storage = virtual_adb.devices[0].storage
    with on_device(virtual_adb, "sync:") as sock:
        assert sock.recv(4) == b"OKAY"
        path = b"/sdcard/huge.bin,33188"
        sock.sendall(b"SEND" + struct.pack("<I", len(path)) + path)
        chunk = b"\0" * 65536
        sent = 0
        try:
            while sent < storage.capacity + 4 * 65536:
                sock.sendall(b"DATA" + struct.pack("<I", len(chunk)) + chunk)
                sent += len(chunk)
            sock.sendall(b"DONE" + struct.pack("<I", 0))
        except OSError:
            pass   # the phone may stop reading once it has refused
        status = sock.recv(4)
        message = sock.recv(struct.unpack("<I", sock.recv(4))[0]).decode()   # sync: a binary length
    assert status == b"FAIL" and "No space left on device" in message
    assert storage.read("/sdcard/huge.bin") is None
    still_serves(virtual_adb)
