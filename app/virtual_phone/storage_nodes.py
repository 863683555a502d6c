"""The pieces of the phone's file system: folders, files, links, their stat, and its errors."""

from __future__ import annotations

import stat
from collections.abc import Callable
from dataclasses import dataclass, field

NOENT = "No such file or directory"
NOTDIR = "Not a directory"
ISDIR = "Is a directory"
EXIST = "File exists"
NOTEMPTY = "Directory not empty"
NOSPC = "No space left on device"
ACCES = "Permission denied"
ROFS = "Read-only file system"
LOOP = "Too many levels of symbolic links"
INVAL = "Invalid argument"

ROOT, SHELL, SYSTEM = 0, 2000, 1000
ERRNO = {NOENT: 2, ACCES: 13, EXIST: 17, NOTDIR: 20, ISDIR: 21, INVAL: 22, NOSPC: 28, ROFS: 30, NOTEMPTY: 39, LOOP: 40}

class StorageError(Exception):
    """A failed file operation; the message is the phone's strerror text (e.g. NOENT)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason

    @property
    def errno(self) -> int:
        return ERRNO.get(self.reason, 5)


@dataclass
class Node:
    mode: int
    uid: int = ROOT
    gid: int = ROOT
    mtime: float = 0.0
    ino: int = 0


@dataclass
class File(Node):
    data: bytearray = field(default_factory=bytearray)
    produce: Callable[[], bytes] | None = None   # generated on read (/proc files)
    endless: bytes = b""                           # a device that never ends (/dev/zero)

    @property
    def size(self) -> int:
        return len(self.data)


@dataclass
class Dir(Node):
    entries: dict[str, Node] = field(default_factory=dict)


@dataclass
class Link(Node):
    target: str = ""


@dataclass(frozen=True)
class Stat:
    mode: int
    size: int
    mtime: int
    uid: int
    gid: int
    nlink: int
    ino: int

    @property
    def is_dir(self) -> bool:
        return stat.S_ISDIR(self.mode)
