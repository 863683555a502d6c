"""A lock per phone that holds across processes: two `agentdesk` processes never drive one phone at once.

A lock file per phone under the data folder, held with the OS's file lock (the `filelock`
library: fcntl/flock on POSIX, msvcrt on Windows) for as long as a run drives the phone.
The OS drops the lock when the holding process dies, so a crash never leaves a phone
locked. Next to it, a small text file says who holds it, for the message the next one sees.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from filelock import FileLock, Timeout

from app.core import paths

from .errors import DeviceError
from .phone_id import PhoneId

POLL_SECONDS = 0.2


class PhoneBusy(DeviceError):
    """Another run (in this process or another) is driving the phone."""


def locks_dir() -> Path:
    return paths.data_dir() / "locks"


class PhoneLock:
    """The cross-process lock of one phone."""

    def __init__(self, phone: PhoneId, folder: Path | None = None) -> None:
        self.phone = phone
        folder = folder or locks_dir()
        self._path = folder / f"{phone.lock_name()}.lock"
        self._owner_path = folder / f"{phone.lock_name()}.owner"
        self._lock = FileLock(str(self._path), thread_local=False)

    @property
    def held(self) -> bool:
        return self._lock.is_locked

    def holder(self) -> str:
        """Who holds the lock, in words (as the holder wrote it); "" if unknown."""
        try:
            owner = json.loads(self._owner_path.read_text(encoding="utf-8"))
            return f"run “{owner.get('what', '?')}” (process {owner.get('pid', '?')})"
        except (OSError, ValueError, AttributeError):
            return ""

    def try_acquire(self, what: str) -> bool:
        """Take the lock if it is free (blocking briefly on the file system only)."""
        self._path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._lock.acquire(timeout=0)
        except Timeout:
            return False
        try:
            self._owner_path.write_text(json.dumps({"pid": os.getpid(), "what": what}), encoding="utf-8")
        except OSError:
            pass
        return True

    async def acquire(self, what: str, *, wait: bool, on_wait=None) -> None:
        """Take the lock; when another process holds it, wait for it (polling) or raise PhoneBusy."""
        told = False
        while not await asyncio.to_thread(self.try_acquire, what):
            holder = await asyncio.to_thread(self.holder)
            if not wait:
                raise PhoneBusy(f"Phone {self.phone} is busy{' with ' + holder if holder else ''} in another "
                                "Agent Desk process. Wait for it to finish, or stop it there.")
            if not told and on_wait is not None:
                on_wait(f"Waiting for phone {self.phone}: another Agent Desk process is driving it"
                        f"{' (' + holder + ')' if holder else ''}.")
                told = True
            await asyncio.sleep(POLL_SECONDS)

    def release(self) -> None:
        if self._lock.is_locked:
            try:
                self._owner_path.unlink(missing_ok=True)
            except OSError:
                pass
            self._lock.release()
