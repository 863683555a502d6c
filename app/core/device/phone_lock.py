"""A lock per phone that holds across processes: two `agentdesk` processes never drive one phone at once.

A lock file per phone in one per-machine folder (`locks_dir`, found without any environment
variable: the variables that move the data folder must not move the lock), held with the OS's
file lock (the `filelock` library: fcntl/flock on POSIX, msvcrt on Windows) for as long as a run
drives the phone. Keyed by the phone itself: a physical phone by its own serial (`ro.serialno`, read
once per session: the same phone through two ADB servers, or over USB and Wi-Fi, is one lock), else
(an emulator, the built-in virtual phone, a serial many phones share) by server and serial,
`localhost` and `127.0.0.1` being one server.
The OS drops the lock when the holding process dies, so a crash never leaves a phone
locked. Next to it, a small text file says who holds it, for the message the next one sees.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import stat
import sys
from pathlib import Path

from filelock import FileLock, Timeout

from .errors import DeviceError
from .phone_id import PhoneId

POLL_SECONDS = 0.2


class PhoneBusy(DeviceError):
    """Another run (in this process or another) is driving the phone."""


POSIX_LOCKS_DIR = Path("/tmp/agentdesk-locks")
"""Machine-wide (two users driving one USB phone is a conflict too), like /tmp itself: mode 1777."""
WINDOWS_LOCKS_DIR = Path("C:/ProgramData/AgentDesk/locks")


class LockFolderUntrusted(DeviceError):
    """The per-machine lock folder is not safe to use (another user could forge or remove locks)."""


def locks_dir() -> Path:
    """The per-machine folder of phone locks, checked (`checked_locks_dir`); never in the data folder."""
    return checked_locks_dir(WINDOWS_LOCKS_DIR if sys.platform == "win32" else POSIX_LOCKS_DIR)


def checked_locks_dir(folder: Path) -> Path:
    """`folder`, made if missing (world-writable with the sticky bit on POSIX, so every user can lock and
    none can remove another's file), and refused when it is not a real folder owned by root or by us
    (a folder someone else owns can have its locks forged or removed by them)."""
    if sys.platform == "win32":
        folder.mkdir(parents=True, exist_ok=True)
        return folder
    try:
        folder.mkdir(mode=0o700, parents=False, exist_ok=True)
        info = os.lstat(folder)
        if info.st_uid == _uid() and stat.S_IMODE(info.st_mode) != 0o1777:
            os.chmod(folder, 0o1777)
            info = os.lstat(folder)
    except OSError as error:
        raise LockFolderUntrusted(f"Agent Desk cannot use its phone-lock folder {folder} "
                                  f"({error.strerror or error}). Remove it or make it writable, then try "
                                  "again.") from None
    trouble = _untrusted(info)
    if trouble:
        raise LockFolderUntrusted(f"Agent Desk does not trust its phone-lock folder {folder}: {trouble}. "
                                  f"Remove it (it is remade safely), then try again.")
    return folder


def _untrusted(info: os.stat_result) -> str:
    """Why a lock folder is unsafe, in words; "" when it is safe."""
    if not stat.S_ISDIR(info.st_mode):
        return "it is not a folder (a link or a file)"
    mode = stat.S_IMODE(info.st_mode)
    if info.st_uid not in (0, _uid()):
        return f"it belongs to another user (uid {info.st_uid})"
    if mode & 0o022 and not mode & stat.S_ISVTX:
        return "others may remove its files (writable without the sticky bit)"
    return ""


def _uid() -> int:
    return os.getuid()


EMULATED_HARDWARE = frozenset({"ranchu", "goldfish", "cutf_cvm", "vsoc_x86", "virtual"})
"""`ro.hardware` of emulators (their `ro.serialno` is one per system image, not per instance) and of the
built-in virtual phone (whose serial is only its name on its own server)."""
SHARED_SERIALNOS = frozenset({"", "unknown", "0123456789abcdef", "0123456789", "1234567890abcdef"})
"""`ro.serialno` values that cheap phones share: no phone's own name."""
SERIALNO_COMMAND = "getprop ro.serialno; getprop ro.hardware; getprop ro.kernel.qemu; getprop ro.boot.qemu"
"""What `hardware_lock_name` reads, one answer a line."""


def hardware_lock_name(getprop_output: str) -> str | None:
    """The lock name of a physical phone by its own serial, from `SERIALNO_COMMAND`'s output; None
    for an emulator, the virtual phone or a shared serial (then server and serial name the lock)."""
    serialno, hardware, qemu, boot_qemu = (getprop_output.splitlines() + ["", "", "", ""])[:4]
    serialno = serialno.strip()
    if (hardware.strip() in EMULATED_HARDWARE or "1" in (qemu.strip(), boot_qemu.strip())
            or serialno.casefold() in SHARED_SERIALNOS or serialno.upper().startswith("EMULATOR")
            or len(serialno) > 64):
        return None
    return "serialno_" + re.sub(r"[^A-Za-z0-9._-]", "_", serialno)


class PhoneLock:
    """The cross-process lock of one phone."""

    def __init__(self, phone: PhoneId, folder: Path | None = None) -> None:
        self.phone = phone
        self._folder = folder or locks_dir()
        self._name(phone.lock_name())

    def _name(self, name: str) -> None:
        self.name = name
        self._path = self._folder / f"{name}.lock"
        self._owner_path = self._folder / f"{name}.owner"
        self._lock = FileLock(str(self._path), thread_local=False, mode=0o666)   # every user of the machine locks it

    def key_by(self, name: str) -> None:
        """Name the lock by the phone itself (`hardware_lock_name`) instead of server and serial;
        only while it is not held."""
        if self._lock.is_locked:
            raise RuntimeError("a held phone lock cannot be renamed")
        self._name(name)

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
        for path in (self._path, self._owner_path):
            if path.is_symlink() or (path.exists() and not path.is_file()):
                raise LockFolderUntrusted(f"Agent Desk does not trust the phone lock {path}: it is a link or "
                                          "not a file (someone may have planted it). Remove it, then try again.")
        try:
            self._lock.acquire(timeout=0)
        except Timeout:
            return False
        except OSError as error:
            raise LockFolderUntrusted(f"Agent Desk cannot use the phone lock {self._path} "
                                      f"({error.strerror or error}). Remove it, then try again.") from None
        try:       # never through a link planted since the check above
            handle = os.open(self._owner_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0),
                             0o644)
            with os.fdopen(handle, "w", encoding="utf-8") as owner:
                owner.write(json.dumps({"pid": os.getpid(), "what": what}))
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
