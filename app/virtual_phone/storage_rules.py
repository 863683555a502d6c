"""Where the shell user may do what on the phone's storage, and how new files are owned.

As on a phone: the shell user writes in /sdcard and /data/local/tmp only; /system, /vendor,
/product and /apex are read-only; /proc is the kernel's; /data and its app folders cannot be
listed. /storage/emulated/0 and /mnt/sdcard are other names for /sdcard.
"""

from __future__ import annotations

import posixpath

from .storage_nodes import ACCES, ROFS, ROOT, SHELL, StorageError

WRITABLE = ("/sdcard", "/data/local/tmp")
READ_ONLY = ("/system", "/vendor", "/product", "/apex")
UNLISTABLE = ("/data", "/data/local", "/data/data", "/data/app")
SDCARD_ALIASES = ("/storage/emulated/0", "/storage/self/primary", "/mnt/sdcard", "/mnt/user/0/primary")


def normalise_path(path: str) -> str:
    """An absolute, normalised path, with /sdcard's other names turned into /sdcard."""
    path = posixpath.normpath("/" + path.strip())
    if path.startswith("//"):
        path = "/" + path.lstrip("/")
    for alias in SDCARD_ALIASES:
        if path == alias or path.startswith(alias + "/"):
            path = "/sdcard" + path[len(alias):]
    return path


def _under(folder: str, roots: tuple[str, ...]) -> bool:
    return any(folder == root or folder.startswith(root + "/") for root in roots)


def check_writable(folder: str) -> None:
    """Raise StorageError (EACCES or EROFS) unless the shell user may change what is in `folder`."""
    if _under(folder, WRITABLE):
        return
    if _under(folder, ("/proc",)):
        raise StorageError(ACCES if folder == "/proc" else ROFS)
    if _under(folder, READ_ONLY) or folder == "/":
        raise StorageError(ROFS)
    raise StorageError(ACCES)


def default_owner(path: str, sdk: int) -> tuple[int, int]:
    """(uid, gid) of a file the shell creates at `path` (the media provider owns /sdcard since Android 11)."""
    if path.startswith("/sdcard"):
        return (10215, 1023) if sdk >= 30 else (ROOT, 1015)
    return SHELL, SHELL


def default_mode(path: str) -> int:
    return 0o660 if path.startswith("/sdcard") else 0o666
