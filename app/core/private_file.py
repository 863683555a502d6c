"""A small secret kept in a file only its owner can read (the task API's token where no keyring exists).

The file is made with mode 0600 from the start (never written first and narrowed after), in one step
(a temporary file linked into place), so a second process never reads it half written. Reading
refuses, with a sentence saying what to do, a file that is a symbolic link, not a plain file, owned by
another user, or readable or writable by anyone but its owner: a token another user could read (or
plant) would let them drive the phones. Windows keeps a user's files private through the folder's
permissions, so the mode checks are POSIX only.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

MAX_BYTES = 4096
PRIVATE_MODE = 0o600
_POSIX = os.name == "posix"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class PrivateFileProblem(ValueError):
    """The file exists but is not safe (or not possible) to use; the message says what to do."""


def read_private(path: Path) -> str | None:
    """The file's text, stripped; None when it does not exist. PrivateFileProblem when it is a link, not a
    plain file, another user's, or open to other users."""
    if path.is_symlink():
        raise PrivateFileProblem(f"{path} is a symbolic link; Agent Desk reads its token only from a plain file of "
                                 "yours. Remove the link (a new token is made).")
    try:
        descriptor = os.open(path, os.O_RDONLY | _NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:        # became a link between the two looks
            raise PrivateFileProblem(f"{path} is a symbolic link; remove it (a new token is made).") from None
        raise PrivateFileProblem(f"{path} cannot be read: {exc.strerror or exc}.") from None
    with os.fdopen(descriptor, "rb") as file:
        _check_private(path, os.fstat(file.fileno()))
        data = file.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise PrivateFileProblem(f"{path} is larger than a token; remove it (a new token is made).")
    try:
        return data.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise PrivateFileProblem(f"{path} does not hold a token (it is not text); remove it (a new token is made)."
                                 ) from None


def _check_private(path: Path, info: os.stat_result) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise PrivateFileProblem(f"{path} is not a plain file; remove it (a new token is made).")
    if not _POSIX:
        return
    if info.st_uid != os.getuid():
        raise PrivateFileProblem(f"{path} belongs to another user (uid {info.st_uid}); Agent Desk uses only a "
                                 "token file of your own. Remove it (a new token is made).")
    loose = stat.S_IMODE(info.st_mode) & 0o077
    if loose:
        raise PrivateFileProblem(f"{path} can be read or changed by other users (mode "
                                 f"{stat.S_IMODE(info.st_mode):03o}), so the token in it may be known to them. "
                                 f"Remove it to make a new token, or, if only you could ever reach it, run "
                                 f"`chmod 600 {path}`.")


def write_private(path: Path, text: str, *, replace: bool) -> str:
    """Write `text` to `path` with mode 0600. With `replace` False, a file already there (another process made
    it first) is kept and its text returned instead; returns the text the file holds. OSError when the folder
    cannot be written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not replace and path.is_symlink():
        read_private(path)          # raises, saying so
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, PRIVATE_MODE)
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(text.encode("utf-8") + b"\n")
            file.flush()
            os.fsync(file.fileno())
        if replace:
            os.replace(temporary, path)
            return text
        try:
            os.link(temporary, path)            # atomic, and refuses a path that exists (a link too)
        except FileExistsError:
            existing = read_private(path)
            if existing:
                return existing
            raise PrivateFileProblem(f"{path} is empty; remove it (a new token is made).") from None
        except OSError:                         # a file system without hard links
            if path.exists() or path.is_symlink():
                existing = read_private(path)
                if existing:
                    return existing
            os.replace(temporary, path)
        return text
    finally:
        with contextlib.suppress(OSError):
            temporary.unlink()
