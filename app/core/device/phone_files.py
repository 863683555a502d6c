"""Files from this computer onto the phone: install an APK, or put any file in its Download folder.

What scrcpy does when a file is dropped on its window. An APK is streamed into the package manager
(`cmd package install -S SIZE` over the `exec:` service, as `adb install` does on Android 7 and
later), with a push to /data/local/tmp and `pm install` for older phones; its package name is read
here first, so a file that is no APK is refused before anything is sent. Other files go over ADB's
sync protocol, under a free name (an existing file of the same name is never overwritten).

All the blocking work runs in a worker thread. Failures raise CommandFailed subclasses whose
message says what happened in a sentence: pm's own reason (INSTALL_FAILED_…) or the phone's.
"""

from __future__ import annotations

import asyncio
import posixpath
import re
import time
from pathlib import Path
from typing import BinaryIO

from adbutils.errors import AdbError

from . import sync_send
from .adb_transport import read_to_end, translate_adb_error
from .apk_manifest import NotAnApk, apk_package_name
from .errors import CommandFailed, DeviceError
from .sync_send import CHUNK, Progress, PushFailed  # noqa: F401 (PushFailed: raised from here too)

DOWNLOAD_FOLDER = "/sdcard/Download/"
STAGING_FOLDER = "/data/local/tmp/"
MAX_APK_BYTES = 2**31 - 1          # pm's -S size is a Java int
TRANSFER_TIMEOUT = 120.0           # seconds the phone may stay silent while a file goes over
_FAILURE = re.compile(r"Failure \[([^\]]*)\]")



class FileRefused(CommandFailed):
    """The file cannot go to the phone as it is (missing, not an APK, too big, a bad name)."""


class InstallFailed(CommandFailed):
    """The phone's package manager refused the APK; `reason` is its INSTALL_FAILED_… text."""

    def __init__(self, message: str, reason: str, output: str = ""):
        super().__init__(message, "pm install", output)
        self.reason = reason


# ---------------------------------------------------------------------------- install


async def install_apk(device, path: Path | str, progress: Progress | None = None) -> str:
    """Install the APK at `path` on the phone; returns its package name. Raises FileRefused before
    sending anything when the file is no APK or too big, InstallFailed with pm's reason after."""
    path = Path(path)
    size = _local_size(path)
    if size > MAX_APK_BYTES:
        raise FileRefused(f"{path.name} is too big to install ({size / 2**30:.1f} GB; Android takes at most 2 GB).")
    try:
        package = await asyncio.to_thread(apk_package_name, path)
    except NotAnApk as exc:
        raise FileRefused(str(exc)) from None
    transport, serial = device.transport, device.serial
    output = await asyncio.to_thread(_stream_install, transport, serial, path, size, progress)
    if not _answered(output):           # no `cmd` (Android 6 and older): push, then pm install
        staged = STAGING_FOLDER + f"agentdesk-{int(time.time() * 1000)}.apk"
        await asyncio.to_thread(_send_file, transport, serial, path, staged, 0o644, progress)
        try:
            output = await device.shell(f"pm install -r {staged}", timeout=TRANSFER_TIMEOUT)
        finally:
            await device.shell(f"rm -f {staged}")
    _check_installed(path, output)
    try:
        await device.installed_apps(refresh=True)      # the agent's list of apps knows it at once
    except DeviceError:
        pass
    return package


def _answered(output: str) -> bool:
    return "Success" in output or "Failure" in output


def _check_installed(path: Path, output: str) -> None:
    if "Success" in output:
        return
    found = _FAILURE.search(output)
    reason = found.group(1) if found else (output.strip().splitlines() or ["no answer"])[0]
    raise InstallFailed(f"The phone refused to install {path.name}: {reason}", reason, output)


def _stream_install(transport, serial: str, path: Path, size: int, progress: Progress | None) -> str:
    """`cmd package install -r -S SIZE` with the file as its stdin; pm's answer as text."""
    sock = transport.open_service(serial, f"exec:cmd package install -r -S {size}", TRANSFER_TIMEOUT)
    try:
        sock.settimeout(TRANSFER_TIMEOUT)
        with _open_local(path) as source:
            sent = 0
            while chunk := source.read(CHUNK):
                if sync_send.has_answer(sock):          # pm gave up early (e.g. no `cmd`): stop sending
                    break
                sock.sendall(chunk)
                sent += len(chunk)
                if progress is not None:
                    progress(sent, size)
        return read_to_end(sock).decode("utf-8", "replace")
    except (OSError, EOFError) as exc:
        raise translate_adb_error(exc, serial) from exc
    finally:
        sock.close()


# ---------------------------------------------------------------------------- push


async def push_file(device, path: Path | str, folder: str = DOWNLOAD_FOLDER,
                    progress: Progress | None = None) -> str:
    """Copy the file at `path` into `folder` on the phone under its own name (or "name (2).ext"
    when that is taken); returns the phone path. Refuses a name that would leave the folder."""
    path = Path(path)
    _local_size(path)
    name = safe_name(path.name)
    if not folder.startswith("/"):
        raise FileRefused(f"The phone folder must be an absolute path, not {folder!r}.")
    folder = folder if folder.endswith("/") else folder + "/"
    transport, serial = device.transport, device.serial
    target = await asyncio.to_thread(_free_name, transport, serial, folder, name)
    await asyncio.to_thread(_send_file, transport, serial, path, target, 0o644, progress)
    return target


def safe_name(name: str) -> str:
    """`name` when it is one plain file name; raises FileRefused for one that would leave its folder."""
    if name in ("", ".", "..") or "/" in name or "\\" in name or "\0" in name or any(ord(c) < 32 for c in name):
        raise FileRefused(f"The file name {name!r} cannot be used on the phone: it must be a plain name "
                          "without slashes or control characters.")
    if len(name.encode("utf-8")) > 255:
        raise FileRefused(f"The file name {name[:40]}… is too long for the phone (255 bytes at most).")
    return name


def _free_name(transport, serial: str, folder: str, name: str) -> str:
    """folder/name, or folder/"stem (n).ext" for the first n that does not exist yet."""
    sync = transport.client.device(serial).sync
    stem, ext = posixpath.splitext(name)
    candidate, number = folder + name, 1
    try:
        while sync.exists(candidate):
            number += 1
            candidate = f"{folder}{stem} ({number}){ext}"
    except (AdbError, OSError, EOFError) as exc:
        raise translate_adb_error(exc, serial) from exc
    return candidate


def _send_file(transport, serial: str, path: Path, target: str, mode: int, progress: Progress | None) -> None:
    """ADB sync SEND of the local file to `target`; raises PushFailed with the phone's reason."""
    sock = transport.open_service(serial, "sync:", TRANSFER_TIMEOUT)
    try:
        sock.settimeout(TRANSFER_TIMEOUT)
        with _open_local(path) as source:
            sync_send.send(sock, source, path.stat().st_size, target, mode, name=path.name, progress=progress)
    except (OSError, EOFError) as exc:
        raise translate_adb_error(exc, serial) from exc
    finally:
        sock.close()


# ---------------------------------------------------------------------------- helpers


def _local_size(path: Path) -> int:
    try:
        if not path.is_file():
            raise FileRefused(f"{path} is not a file" + (" (folders cannot be sent)." if path.is_dir() else "."))
        return path.stat().st_size
    except OSError as exc:
        raise FileRefused(f"Cannot read {path}: {exc.strerror or exc}.") from None


def _open_local(path: Path) -> BinaryIO:
    try:
        return path.open("rb")
    except OSError as exc:
        raise FileRefused(f"Cannot read {path}: {exc.strerror or exc}.") from None
