"""ADB's sync SEND, written on the app's own transport: a stream of bytes into a file on the phone.

adbutils' `sync.push` drops the phone's FAIL message and reads a destination whose mode has its
lowest bit set as a folder (`mode & S_IFDIR != 0` binds as `mode & True`), refusing a stream
then; this one says what the phone answered.
"""

from __future__ import annotations

import select
import socket
import struct
import time
from collections.abc import Callable
from typing import BinaryIO

from .errors import CommandFailed

CHUNK = 64 * 1024                  # the sync protocol's largest DATA packet
Progress = Callable[[int, int], None]     # (bytes sent, bytes in all); called on a worker thread


class PushFailed(CommandFailed):
    """The phone refused to store the file (no space, no permission…)."""


def send(sock: socket.socket, source: BinaryIO, size: int, target: str, mode: int, *, name: str,
         progress: Progress | None = None) -> None:
    """SEND `source` (`size` bytes) to `target` with `mode` over an open `sync:` service socket.
    Raises PushFailed with the phone's reason; OSError/EOFError when the connection breaks."""
    spec = f"{target},{0o100000 | mode}".encode()
    sock.sendall(b"SEND" + struct.pack("<I", len(spec)) + spec)
    sent = 0
    while chunk := source.read(CHUNK):
        if has_answer(sock):          # the phone refused part-way: stop and read why
            break
        sock.sendall(b"DATA" + struct.pack("<I", len(chunk)) + chunk)
        sent += len(chunk)
        if progress is not None:
            progress(sent, size)
    else:
        sock.sendall(b"DONE" + struct.pack("<I", int(time.time())))
    status = recv_exact(sock, 8)
    if status[:4] == b"OKAY":
        return
    if status[:4] == b"FAIL":
        reason = recv_exact(sock, struct.unpack("<I", status[4:])[0]).decode("utf-8", "replace")
        raise PushFailed(f"The phone refused to store {name} at {target}: {reason}.", "sync send", reason)
    raise PushFailed(f"The phone gave an unexpected answer while storing {name}: {status!r}.")


def has_answer(sock: socket.socket) -> bool:
    """Whether the phone has already said something (or closed), without waiting."""
    readable, _, _ = select.select([sock], [], [], 0)
    return bool(readable)


def recv_exact(sock: socket.socket, count: int, closed: str = "the phone closed the connection") -> bytes:
    """Exactly `count` bytes; EOFError(`closed`) when the other side closes first."""
    data = bytearray()
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise EOFError(closed)
        data += chunk
    return bytes(data)
