"""Whether a run folder's run is still going: its process holds an OS lock on the folder's `running.lock`.

`RunningMark` takes that lock when a run's folder is made and lets it go when run.json has its
result. The OS drops the lock when the process dies (kill -9, a crash, a power cut), so a folder
whose run.json has no result and whose lock is free was left by a process that is gone: the
trajectory marks it "interrupted" (`trajectory.mark_interrupted_runs`). The lock is the OS's
advisory file lock (flock on POSIX, msvcrt on Windows), which also holds between two writers of
one process, so a run going in this very process is never taken for a dead one.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

LOCK_FILE = "running.lock"
_OPEN_FLAGS = os.O_RDWR if os.name == "nt" else os.O_RDONLY
"""POSIX locks a file opened for reading: no file stays open for writing while the run goes (a disk can
still be remounted read-only, as a failing disk is, and the run then sees that)."""

if sys.platform == "win32":                                          # pragma: no cover - Windows
    import msvcrt

    def _lock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)

    def _unlock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
else:
    import fcntl

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


class RunningMark:
    """The lock a going run holds on its folder; `release()` (idempotent) lets it go and removes the file."""

    def __init__(self, fd: int, path: Path) -> None:
        self._fd: int | None = fd
        self.path = path

    @classmethod
    def take(cls, run_dir: Path) -> RunningMark | None:
        """The folder's lock, or None when another writer (of this process or another) holds it."""
        path = Path(run_dir) / LOCK_FILE
        fd = os.open(path, _OPEN_FLAGS | os.O_CREAT, 0o600)
        try:
            _lock(fd)
        except OSError:
            os.close(fd)
            return None
        return cls(fd, path)

    def release(self, remove: bool = True) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        if remove:
            self.path.unlink(missing_ok=True)       # while still held: no one else can be mid-take on it
        try:
            _unlock(fd)
        except OSError:
            pass
        os.close(fd)

    def __del__(self) -> None:          # a writer dropped without finishing: the lock goes with it, the file stays
        self.release(remove=False)
