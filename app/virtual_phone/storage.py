"""The phone's file system as ADB sees it, held in memory for the phone's lifetime.

A tree of folders, files and symbolic links with modes, owners and modification times, like
the phone's: /sdcard (also reached as /storage/emulated/0), /data/local/tmp, a read-only
/system with the toybox links in /system/bin, /proc files generated on read, and /dev/null,
/dev/zero. The shell user can write in /sdcard and /data/local/tmp only. Everything stored
counts against a capacity (256 MB unless told otherwise), so a huge push or a runaway loop
gets "No space left on device" instead of the host's memory. Nothing here touches the
host's own file system.
"""

from __future__ import annotations

import posixpath
import stat
import threading
import time
from collections.abc import Callable

from .profiles import ANDROID_14, DeviceProfile
from .storage_nodes import (
    ACCES,
    EXIST,
    INVAL,
    ISDIR,
    LOOP,
    NOENT,
    NOSPC,
    NOTDIR,
    NOTEMPTY,
    ROFS,
    SHELL,
    Dir,
    File,
    Link,
    Node,
    Stat,
    StorageError,
)
from .storage_rules import UNLISTABLE, check_writable, default_mode, default_owner, normalise_path
from .storage_system import SystemWritesMixin, initial_tree

__all__ = ["ACCES", "EXIST", "ISDIR", "NOENT", "NOSPC", "NOTDIR", "NOTEMPTY", "ROFS", "PhoneStorage", "Stat",
           "StorageError"]

DEFAULT_CAPACITY = 256 * 1024 * 1024
MAX_ENTRIES = 100_000
MAX_SYMLINK_HOPS = 40



class PhoneStorage(SystemWritesMixin):
    """An in-memory tree of files and folders, safe to use from several connections."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY, profile: DeviceProfile = ANDROID_14,
                 clock: Callable[[], float] = time.time) -> None:
        self._lock = threading.RLock()
        self.capacity = capacity
        self.clock = clock
        self.profile = profile
        self.used = 0
        self._entries = 0
        self._next_ino = 2
        self.root = Dir(stat.S_IFDIR | 0o755, mtime=clock(), ino=1)
        self._build()

    # ------------------------------------------------------------------ set-up
    def _build(self) -> None:
        for path, node in initial_tree(lambda: self.profile):
            self._install(path, node)

    def _install(self, path: str, node: Node) -> None:
        node.mtime = node.mtime or self.clock()
        node.ino = self._new_ino()
        parent = self._lookup(posixpath.dirname(path), follow=True)
        assert isinstance(parent, Dir)
        parent.entries[posixpath.basename(path)] = node

    def _new_ino(self) -> int:
        self._next_ino += 1
        return self._next_ino

    # ------------------------------------------------------------------ paths
    normalise = staticmethod(normalise_path)

    def _lookup(self, path: str, follow: bool, hops: int = 0) -> Node:
        """The node at an absolute path; symbolic links on the way are followed."""
        node: Node = self.root
        parts = [p for p in self.normalise(path).split("/") if p]
        walked = ""
        for index, name in enumerate(parts):
            if not isinstance(node, Dir):
                raise StorageError(NOTDIR)
            child = node.entries.get(name)
            if child is None:
                raise StorageError(NOENT)
            last = index == len(parts) - 1
            if isinstance(child, Link) and (follow or not last):
                if hops >= MAX_SYMLINK_HOPS:
                    raise StorageError(LOOP)
                target = child.target if child.target.startswith("/") else f"{walked}/{child.target}"
                child = self._lookup(target, True, hops + 1)
                walked = self.realpath_unlocked(target, hops + 1)
            else:
                walked = f"{walked}/{name}"
            node = child
        return node

    def realpath_unlocked(self, path: str, hops: int = 0) -> str:
        resolved = ""
        for name in [p for p in self.normalise(path).split("/") if p]:
            parent = self._lookup(resolved or "/", True, hops)
            child = parent.entries.get(name) if isinstance(parent, Dir) else None
            if isinstance(child, Link):
                if hops >= MAX_SYMLINK_HOPS:
                    raise StorageError(LOOP)
                target = child.target if child.target.startswith("/") else f"{resolved}/{child.target}"
                resolved = self.realpath_unlocked(target, hops + 1)
            else:
                resolved = self.normalise(f"{resolved}/{name}")
        return resolved or "/"

    def realpath(self, path: str) -> str:
        """The path with every symbolic link resolved (the final part need not exist)."""
        with self._lock:
            return self.realpath_unlocked(path)

    def _parent(self, path: str) -> tuple[Dir, str, str]:
        """(folder, name, canonical path) for creating or removing `path`; checks write permission."""
        real = self.realpath_unlocked(posixpath.dirname(self.normalise(path)))
        parent = self._lookup(real, follow=True)
        if not isinstance(parent, Dir):
            raise StorageError(NOTDIR)
        name = posixpath.basename(self.normalise(path))
        if not name:
            raise StorageError(EXIST)
        check_writable(real)
        return parent, name, self.normalise(f"{real}/{name}")

    def writable(self, path: str) -> bool:
        """Whether the shell user may change what is at `path`."""
        try:
            check_writable(self.realpath(path))
            return True
        except StorageError:
            return False

    # ------------------------------------------------------------------ reading
    def lstat(self, path: str, follow: bool = False) -> Stat:
        with self._lock:
            node = self._lookup(path, follow)
            size = node.size if isinstance(node, File) else (len(node.target) if isinstance(node, Link) else 3452)
            if isinstance(node, File) and node.produce is not None:
                size = 0
            nlink = 2 + sum(isinstance(c, Dir) for c in node.entries.values()) if isinstance(node, Dir) else 1
            return Stat(node.mode, size, int(node.mtime), node.uid, node.gid, nlink, node.ino)

    def stat(self, path: str) -> tuple[int, int, int] | None:
        """(mode, size, mtime) like lstat; None when nothing is there."""
        try:
            found = self.lstat(path)
        except StorageError:
            return None
        return found.mode, found.size, found.mtime

    def read_file(self, path: str, limit: int | None = None) -> bytes:
        """A file's bytes (at most `limit` of an endless device); raises StorageError."""
        with self._lock:
            node = self._lookup(path, follow=True)
            if isinstance(node, Dir):
                raise StorageError(ISDIR)
            assert isinstance(node, File)
            if node.produce is not None:
                return node.produce()
            if node.endless:
                count = limit if limit is not None else 1 << 20
                return (node.endless * (count // len(node.endless) + 1))[:count]
            return bytes(node.data)

    def is_endless(self, path: str) -> bool:
        with self._lock:
            try:
                node = self._lookup(path, follow=True)
            except StorageError:
                return False
            return isinstance(node, File) and bool(node.endless)

    def read(self, path: str) -> bytes | None:
        try:
            return self.read_file(path)
        except StorageError:
            return None

    def is_dir(self, path: str) -> bool:
        try:
            return self.lstat(path, follow=True).is_dir
        except StorageError:
            return False

    def exists(self, path: str) -> bool:
        try:
            self.lstat(path)
            return True
        except StorageError:
            return False

    def readlink(self, path: str) -> str:
        with self._lock:
            node = self._lookup(path, follow=False)
            if not isinstance(node, Link):
                raise StorageError(INVAL)
            return node.target

    def entries(self, path: str) -> list[tuple[str, Stat]]:
        """A folder's entries, sorted by name, each with its lstat; raises StorageError."""
        with self._lock:
            real = self.realpath_unlocked(path)
            node = self._lookup(real, follow=True)
            if not isinstance(node, Dir):
                raise StorageError(NOTDIR)
            if real in UNLISTABLE:
                raise StorageError(ACCES)
            names = sorted(node.entries)
        return [(name, self.lstat(f"{real}/{name}")) for name in names]

    def list_dir(self, path: str) -> list[tuple[str, int, int, int]] | None:
        """Entries of a folder as (name, mode, size, mtime); None when it cannot be listed."""
        try:
            return [(name, s.mode, s.size, s.mtime) for name, s in self.entries(path)]
        except StorageError:
            return None

    # ------------------------------------------------------------------ writing
    def _charge(self, delta: int, new_entries: int = 0) -> None:
        if delta > 0 and self.used + delta > self.capacity:
            raise StorageError(NOSPC)
        if new_entries and self._entries + new_entries > MAX_ENTRIES:
            raise StorageError(NOSPC)
        self.used += delta
        self._entries += new_entries

    def write_file(self, path: str, data: bytes, append: bool = False, mode: int | None = None,
                   owner: tuple[int, int] | None = None) -> None:
        """Create or replace (or append to) a file; raises StorageError (NOSPC past the capacity)."""
        with self._lock:
            real = self.realpath_unlocked(path)
            if self._is_device(real):
                return   # /dev/null and friends swallow what is written
            parent, name, real = self._parent(real)
            node = parent.entries.get(name)
            if isinstance(node, Dir):
                raise StorageError(ISDIR)
            if isinstance(node, File):
                delta = len(data) if append else len(data) - node.size
                self._charge(delta)
                if append:
                    node.data += data
                else:
                    node.data[:] = data
                if mode is not None:
                    node.mode = stat.S_IFREG | (mode & 0o7777)
                node.mtime = self.clock()
                return
            self._charge(len(data), 1)
            uid, gid = owner or default_owner(real, self.profile.sdk)
            parent.entries[name] = File(stat.S_IFREG | ((mode if mode is not None else default_mode(real)) & 0o7777),
                                        uid, gid, self.clock(), self._new_ino(), bytearray(data))
            parent.mtime = self.clock()

    def _is_device(self, path: str) -> bool:
        try:
            node = self._lookup(path, follow=True)
        except StorageError:
            return False
        return stat.S_ISCHR(node.mode)

    def write(self, path: str, data: bytes, append: bool = False, mode: int = 0o100660) -> bool:
        """Write a file, creating missing folders as adb push does; False when it cannot be written."""
        try:
            self.make_dirs(posixpath.dirname(self.normalise(path)))
            self.write_file(path, data, append, mode)
            return True
        except StorageError:
            return False

    def prepare_file(self, path: str) -> None:
        """Make a file's folders (as adb push does) and check the file may be written there."""
        with self._lock:
            self.make_dirs(posixpath.dirname(self.normalise(path)))
            real = self.realpath_unlocked(path)
            if self._is_device(real):
                return
            parent, name, _ = self._parent(real)
            if isinstance(parent.entries.get(name), Dir):
                raise StorageError(ISDIR)

    def room_for(self, path: str) -> int:
        """How many bytes a file at `path` may hold (what is free plus what it holds now)."""
        with self._lock:
            try:
                node = self._lookup(path, follow=True)
            except StorageError:
                node = None
            held = node.size if isinstance(node, File) and not node.endless else 0
            return self.capacity - self.used + held

    def mkdir(self, path: str, mode: int = 0o771) -> None:
        with self._lock:
            parent, name, real = self._parent(path)
            if name in parent.entries:
                raise StorageError(EXIST)
            self._charge(0, 1)
            uid, gid = default_owner(real, self.profile.sdk)
            if real.startswith("/sdcard"):
                mode = 0o2770 if self.profile.sdk >= 30 else 0o771
            parent.entries[name] = Dir(stat.S_IFDIR | (mode & 0o7777), uid, gid, self.clock(), self._new_ino())
            parent.mtime = self.clock()

    def make_dirs(self, path: str) -> None:
        """Create a folder and its parents where allowed; existing folders are fine."""
        path = self.normalise(path)
        with self._lock:
            if self.is_dir(path):
                return
            self.make_dirs(posixpath.dirname(path))
            try:
                self.mkdir(path)
            except StorageError:
                pass

    def remove(self, path: str) -> bool:
        """Remove a file or link; False when there is none (or it cannot be removed)."""
        try:
            self.unlink(path)
            return True
        except StorageError:
            return False

    def unlink(self, path: str) -> None:
        with self._lock:
            parent, name, _ = self._parent(path)
            node = parent.entries.get(name)
            if node is None:
                raise StorageError(NOENT)
            if isinstance(node, Dir):
                raise StorageError(ISDIR)
            self._forget(node)
            del parent.entries[name]
            parent.mtime = self.clock()

    def rmdir(self, path: str, recursive: bool = False) -> None:
        with self._lock:
            parent, name, _ = self._parent(path)
            node = parent.entries.get(name)
            if node is None:
                raise StorageError(NOENT)
            if not isinstance(node, Dir):
                raise StorageError(NOTDIR)
            if node.entries and not recursive:
                raise StorageError(NOTEMPTY)
            self._forget(node)
            del parent.entries[name]
            parent.mtime = self.clock()

    def _forget(self, node: Node) -> None:
        if isinstance(node, Dir):
            for child in node.entries.values():
                self._forget(child)
        self.used -= node.size if isinstance(node, File) else 0
        self._entries -= 1

    def rename(self, source: str, target: str) -> None:
        with self._lock:
            src_parent, src_name, src_real = self._parent(source)
            node = src_parent.entries.get(src_name)
            if node is None:
                raise StorageError(NOENT)
            dst_parent, dst_name, dst_real = self._parent(target)
            if isinstance(node, Dir) and (dst_real + "/").startswith(src_real + "/"):
                raise StorageError(INVAL)
            existing = dst_parent.entries.get(dst_name)
            if existing is node:
                return
            if existing is not None:
                if isinstance(existing, Dir) and not isinstance(node, Dir):
                    raise StorageError(ISDIR)
                if isinstance(node, Dir) and not isinstance(existing, Dir):
                    raise StorageError(NOTDIR)
                if isinstance(existing, Dir) and existing.entries:
                    raise StorageError(NOTEMPTY)
                self._forget(existing)
            del src_parent.entries[src_name]
            dst_parent.entries[dst_name] = node
            src_parent.mtime = dst_parent.mtime = self.clock()

    def symlink(self, target: str, path: str) -> None:
        with self._lock:
            parent, name, _ = self._parent(path)
            if name in parent.entries:
                raise StorageError(EXIST)
            self._charge(0, 1)
            parent.entries[name] = Link(stat.S_IFLNK | 0o777, SHELL, SHELL, self.clock(), self._new_ino(), target)

    def chmod(self, path: str, mode: int) -> None:
        with self._lock:
            node = self._lookup(path, follow=True)
            check_writable(self.realpath_unlocked(path))
            node.mode = stat.S_IFMT(node.mode) | (mode & 0o7777)

    def touch(self, path: str, mtime: float | None = None, create: bool = True) -> None:
        with self._lock:
            if not self.exists(path):
                if create:
                    self.write_file(path, b"")
                if not self.exists(path):
                    return
            node = self._lookup(path, follow=True)
            check_writable(self.realpath_unlocked(posixpath.dirname(self.normalise(path))))
            node.mtime = self.clock() if mtime is None else mtime

    def usage(self) -> tuple[int, int]:
        """(bytes used, capacity) of the phone's storage."""
        with self._lock:
            return self.used, self.capacity
