"""The ADB sync: service (adb push / pull / ls / stat), as adbd's file_sync_service answers it.

Requests: STAT (lstat, v1), STA2/LST2 (stat/lstat, v2), LIST and LIS2 (folder listings), SEND
(push), RECV (pull), QUIT. Failures answer FAIL with adbd's text ("couldn't create file:
Read-only file system", "write failed: No space left on device"). A push never buffers more
than the phone's free space: past it the data is read and thrown away until DONE, as adbd does.
A client that vanishes mid-transfer just ends the service.
"""

from __future__ import annotations

import socket
import stat
import struct

from .storage import NOSPC, PhoneStorage, Stat, StorageError

SYNC_DATA_MAX = 64 * 1024
MAX_PATH = 1024


def recv_exact(sock: socket.socket, n: int) -> bytes | None:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(min(n - len(buf), 1 << 20))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def _fail(sock: socket.socket, message: str) -> None:
    data = message.encode("utf-8")
    sock.sendall(b"FAIL" + struct.pack("<I", len(data)) + data)


def serve_sync(sock: socket.socket, storage: PhoneStorage) -> None:
    """Answer sync requests until QUIT, an error, or the client goes away."""
    while True:
        header = recv_exact(sock, 8)
        if header is None:
            return
        request, length = header[:4], struct.unpack("<I", header[4:])[0]
        if length > MAX_PATH:
            _fail(sock, "path too long")
            return
        argument = recv_exact(sock, length) if length else b""
        if argument is None or request == b"QUIT":
            return
        path = argument.decode("utf-8", "surrogateescape")
        handler = _HANDLERS.get(request)
        if handler is None:
            _fail(sock, f"unknown command {struct.unpack('<I', request)[0]:08x}")
            return
        if not handler(sock, storage, path):
            return


def _stat_v1(sock: socket.socket, storage: PhoneStorage, path: str) -> bool:
    try:
        found = storage.lstat(path)
        sock.sendall(b"STAT" + struct.pack("<III", found.mode, found.size & 0xFFFFFFFF, found.mtime))
    except StorageError:
        sock.sendall(b"STAT" + bytes(12))
    return True


def _stat_v2_record(found: Stat | None, error: int = 0) -> bytes:
    if found is None:
        return struct.pack("<I", error) + bytes(64)
    return struct.pack("<IQQIIIIQqqq", 0, 64784, found.ino, found.mode, found.nlink, found.uid, found.gid,
                       found.size, found.mtime, found.mtime, found.mtime)


def _stat_v2(follow: bool):
    def answer(sock: socket.socket, storage: PhoneStorage, path: str) -> bool:
        try:
            record = _stat_v2_record(storage.lstat(path, follow=follow))
        except StorageError as exc:
            record = _stat_v2_record(None, exc.errno)
        sock.sendall((b"STA2" if follow else b"LST2") + record)
        return True
    return answer


def _list(version: int):
    def answer(sock: socket.socket, storage: PhoneStorage, path: str) -> bool:
        out = bytearray()
        try:
            entries = [(".", storage.lstat(path, True)), ("..", storage.lstat(path.rstrip("/") + "/..", True))]
            entries += storage.entries(path)
        except StorageError:
            entries = []
        for name, found in entries:
            encoded = name.encode("utf-8", "surrogateescape")
            if version == 1:
                out += b"DENT" + struct.pack("<IIII", found.mode, found.size & 0xFFFFFFFF, found.mtime, len(encoded))
            else:
                out += b"DNT2" + _stat_v2_record(found) + struct.pack("<I", len(encoded))
            out += encoded
        done = b"DONE" + bytes(16) if version == 1 else b"DONE" + bytes(72)
        sock.sendall(bytes(out) + done)
        return True
    return answer


def _receive(sock: socket.socket, storage: PhoneStorage, path: str) -> bool:
    """RECV: send a file in DATA packets of at most 64 KiB."""
    try:
        if storage.is_endless(path):
            data = storage.read_file(path, limit=storage.capacity)
        else:
            data = storage.read_file(path)
    except StorageError as exc:
        reason = f"read failed: {exc.reason}" if exc.reason == "Is a directory" else f"open failed: {exc.reason}"
        _fail(sock, reason)
        return False
    for start in range(0, len(data), SYNC_DATA_MAX):
        chunk = data[start:start + SYNC_DATA_MAX]
        sock.sendall(b"DATA" + struct.pack("<I", len(chunk)) + chunk)
    sock.sendall(b"DONE" + bytes(4))
    return True


def _send(sock: socket.socket, storage: PhoneStorage, spec: str) -> bool:
    """SEND "path,mode": DATA packets then DONE with the file's mtime; answers OKAY or FAIL."""
    path, comma, mode_text = spec.rpartition(",")
    if not comma:
        _fail(sock, "missing , in ID_SEND")
        return False
    try:
        mode = int(mode_text, 0)
    except ValueError:
        _fail(sock, "bad mode")
        return False
    if stat.S_ISLNK(mode):
        return _send_link(sock, storage, path)
    mode &= 0o777
    mode |= (mode >> 3) & 0o070
    mode |= (mode >> 3) & 0o007
    try:
        storage.prepare_file(path)
    except StorageError as exc:
        _fail(sock, f"couldn't create file: {exc.reason}")
        return _discard(sock)
    room = storage.room_for(path)
    data = bytearray()
    while True:
        header = recv_exact(sock, 8)
        if header is None:
            return False
        kind, value = header[:4], struct.unpack("<I", header[4:])[0]
        if kind == b"DONE":
            break
        if kind != b"DATA":
            _fail(sock, "invalid data message")
            return False
        if value > SYNC_DATA_MAX:
            _fail(sock, "oversize data message")
            return False
        chunk = recv_exact(sock, value)
        if chunk is None:
            return False
        if len(data) + len(chunk) > room:
            _fail(sock, f"write failed: {NOSPC}")
            return _discard(sock)
        data += chunk
    try:
        storage.write_file(path, bytes(data), mode=None if _on_sdcard(storage, path) else mode)
        storage.touch(path, float(value), create=False)
    except StorageError as exc:
        _fail(sock, f"write failed: {exc.reason}")
        return False
    sock.sendall(b"OKAY" + bytes(4))
    return True


def _on_sdcard(storage: PhoneStorage, path: str) -> bool:
    return storage.realpath(path).startswith("/sdcard")


def _send_link(sock: socket.socket, storage: PhoneStorage, path: str) -> bool:
    header = recv_exact(sock, 8)
    if header is None or header[:4] != b"DATA":
        if header is not None:
            _fail(sock, "invalid data message: expected ID_DATA")
        return False
    length = struct.unpack("<I", header[4:])[0]
    if length > SYNC_DATA_MAX:
        _fail(sock, "oversize data message")
        return False
    target = recv_exact(sock, length)
    done = recv_exact(sock, 8)
    if target is None or done is None:
        return False
    try:
        storage.prepare_file(path)
        storage.symlink(target.rstrip(b"\0").decode("utf-8", "surrogateescape"), path)
    except StorageError as exc:
        _fail(sock, f"symlink failed: {exc.reason}")
        return False
    if done[:4] != b"DONE":
        _fail(sock, "invalid data message: expected ID_DONE")
        return False
    sock.sendall(b"OKAY" + bytes(4))
    return True


def _discard(sock: socket.socket) -> bool:
    """After a failed push, read and drop the client's DATA until DONE (as adbd does); then end."""
    while True:
        header = recv_exact(sock, 8)
        if header is None or header[:4] != b"DATA":
            return False
        length = struct.unpack("<I", header[4:])[0]
        if length > SYNC_DATA_MAX or recv_exact(sock, length) is None:
            return False


_HANDLERS = {
    b"STAT": _stat_v1, b"STA2": _stat_v2(follow=True), b"LST2": _stat_v2(follow=False), b"LIST": _list(1),
    b"LIS2": _list(2), b"RECV": _receive, b"SEND": _send,
}
