"""The phone's file system as ADB sees it: /sdcard, /data/local/tmp and a few system paths."""

from __future__ import annotations

import posixpath
import stat
import threading
import time
from dataclasses import dataclass


@dataclass
class StoredFile:
    data: bytes
    mode: int = 0o100660
    mtime: int = 0


class PhoneStorage:
    """An in-memory tree of files and folders, safe to use from several connections."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._files: dict[str, StoredFile] = {}
        self._dirs: set[str] = {"/"}
        for folder in ("/sdcard", "/sdcard/Download", "/sdcard/Pictures", "/sdcard/DCIM",
                       "/data", "/data/local", "/data/local/tmp", "/system", "/system/bin", "/dev"):
            self.make_dirs(folder)
        self.write("/system/build.prop", b"ro.build.version.sdk=34\n")

    @staticmethod
    def normalise(path: str) -> str:
        path = posixpath.normpath("/" + path.strip())
        # /storage/emulated/0 and /mnt/sdcard are the same place as /sdcard on a phone.
        for alias in ("/storage/emulated/0", "/storage/self/primary", "/mnt/sdcard"):
            if path == alias or path.startswith(alias + "/"):
                path = "/sdcard" + path[len(alias):]
        return path

    def make_dirs(self, path: str) -> None:
        path = self.normalise(path)
        with self._lock:
            while path not in self._dirs:
                self._dirs.add(path)
                path = posixpath.dirname(path)

    def write(self, path: str, data: bytes, append: bool = False, mode: int = 0o100660) -> bool:
        """Write a file; False when its folder does not exist or the path is a folder."""
        path = self.normalise(path)
        with self._lock:
            if path in self._dirs or posixpath.dirname(path) not in self._dirs:
                return False
            old = self._files.get(path)
            if append and old is not None:
                data = old.data + data
            self._files[path] = StoredFile(data, mode or 0o100660, int(time.time()))
            return True

    def read(self, path: str) -> bytes | None:
        stored = self._files.get(self.normalise(path))
        return stored.data if stored else None

    def remove(self, path: str) -> bool:
        with self._lock:
            return self._files.pop(self.normalise(path), None) is not None

    def stat(self, path: str) -> tuple[int, int, int] | None:
        """(mode, size, mtime) like lstat; None when nothing is there."""
        path = self.normalise(path)
        if path in self._dirs:
            return (stat.S_IFDIR | 0o771, 4096, 0)
        stored = self._files.get(path)
        if stored is None:
            return None
        return (stored.mode, len(stored.data), stored.mtime)

    def is_dir(self, path: str) -> bool:
        return self.normalise(path) in self._dirs

    def list_dir(self, path: str) -> list[tuple[str, int, int, int]] | None:
        """Entries of a folder as (name, mode, size, mtime); None when it is not a folder."""
        path = self.normalise(path)
        if path not in self._dirs:
            return None
        with self._lock:
            entries = []
            for folder in self._dirs:
                if folder != path and posixpath.dirname(folder) == path:
                    entries.append((posixpath.basename(folder), stat.S_IFDIR | 0o771, 4096, 0))
            for name, stored in self._files.items():
                if posixpath.dirname(name) == path:
                    entries.append((posixpath.basename(name), stored.mode, len(stored.data), stored.mtime))
        return sorted(entries)
