"""The ADB sync: service (adb push / pull / ls / stat), version 1 of the protocol."""

from __future__ import annotations

import socket
import struct

from .storage import PhoneStorage

SYNC_DATA_MAX = 64 * 1024


def recv_exact(sock: socket.socket, n: int) -> bytes | None:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def _fail(sock: socket.socket, message: str) -> None:
    data = message.encode("utf-8")
    sock.sendall(b"FAIL" + struct.pack("<I", len(data)) + data)


def serve_sync(sock: socket.socket, storage: PhoneStorage) -> None:
    """Answer sync requests (STAT, LIST, RECV, SEND) until QUIT or the client goes away."""
    while True:
        header = recv_exact(sock, 8)
        if header is None:
            return
        request, length = header[:4], struct.unpack("<I", header[4:])[0]
        argument = recv_exact(sock, length) if length else b""
        if argument is None or request == b"QUIT":
            return
        path = argument.decode("utf-8", "replace")
        if request == b"STAT":
            mode, size, mtime = storage.stat(path) or (0, 0, 0)
            sock.sendall(b"STAT" + struct.pack("<III", mode, size, mtime))
        elif request == b"LIST":
            out = bytearray()
            for name, mode, size, mtime in storage.list_dir(path) or []:
                encoded = name.encode("utf-8")
                out += b"DENT" + struct.pack("<IIII", mode, size, mtime, len(encoded)) + encoded
            sock.sendall(bytes(out) + b"DONE" + bytes(16))
        elif request == b"RECV":
            data = storage.read(path)
            if data is None:
                _fail(sock, "No such file or directory")
                return
            out = bytearray()
            for start in range(0, len(data), SYNC_DATA_MAX):
                chunk = data[start:start + SYNC_DATA_MAX]
                out += b"DATA" + struct.pack("<I", len(chunk)) + chunk
            sock.sendall(bytes(out) + b"DONE" + bytes(4))
        elif request == b"SEND":
            if not _receive_file(sock, storage, path):
                return
        else:
            _fail(sock, f"unknown sync request {request!r}")
            return


def _receive_file(sock: socket.socket, storage: PhoneStorage, spec: str) -> bool:
    path, _, mode_text = spec.rpartition(",")
    if not path:
        path, mode_text = spec, "33188"
    data = bytearray()
    while True:
        header = recv_exact(sock, 8)
        if header is None:
            return False
        kind, value = header[:4], struct.unpack("<I", header[4:])[0]
        if kind == b"DATA":
            chunk = recv_exact(sock, value)
            if chunk is None:
                return False
            data += chunk
        elif kind == b"DONE":
            break
        else:
            _fail(sock, f"bad sync packet {kind!r}")
            return False
    mode = int(mode_text) if mode_text.isdigit() else 0o100644
    if not storage.write(path, bytes(data), mode=mode | 0o100000):
        _fail(sock, f"couldn't create file: {path}: No such file or directory")
        return False
    sock.sendall(b"OKAY" + bytes(4))
    return True
