"""`app_process [java-options] cmd-dir class args…` on the virtual phone.

The virtual phone cannot run dex code. It knows the servers clients push and start this way —
scrcpy's (`com.genymobile.scrcpy.Server`, scrcpy_server.py) and uiautomator2's
(`com.wetest.uia2.Main`, u2_server.py) — and runs one only when the file on CLASSPATH is that
server's pinned file (its SHA-256). Any other class or file gets what the phone prints when
app_process cannot load its class: `Aborted`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .shell import Result
from .storage import StorageError

if TYPE_CHECKING:
    from .attached_device import AttachedDevice
    from .shell_io import Process

ABORTED = Result(stderr=b"Aborted \n", code=134)
"""What `adb shell` shows when app_process cannot load its class (a missing file, a file that
is not the server's dex): ART aborts (SIGABRT) after logging the ClassNotFoundException to logcat."""
APP_PROCESS_USAGE = b"Usage: app_process [java-options] cmd-dir start-class-name [options]\n"

ServerMain = Callable[["AttachedDevice", list[str], "Process", str], Result]
"""Runs one server: (device, its arguments, the shell process, the class path) → what the shell gets."""


@dataclass(frozen=True)
class KnownServer:
    sha256: str
    main: ServerMain


def _servers() -> dict[str, KnownServer]:
    from app.android.scrcpy import SERVER_CLASS, SERVER_SHA256

    from .scrcpy_server import run_scrcpy_server
    from .u2_server import U2_JAR_SHA256, U2_SERVER_CLASS, run_u2_server
    return {SERVER_CLASS: KnownServer(SERVER_SHA256, run_scrcpy_server),
            U2_SERVER_CLASS: KnownServer(U2_JAR_SHA256, run_u2_server)}


def run_app_process(device: AttachedDevice, argv: list[str], process: Process) -> Result:
    args = list(argv[1:])
    while args and args[0].startswith("-"):
        args.pop(0)
    if len(args) < 2:
        return Result(stderr=APP_PROCESS_USAGE + ABORTED.stderr, code=ABORTED.code)
    class_name, server_args = args[1], args[2:]
    classpath = process.env.get("CLASSPATH", "")
    server = _servers().get(class_name)
    if server is None or not _has_hash(device, classpath, process.cwd, server.sha256):
        return ABORTED
    return server.main(device, server_args, process, classpath)


def _has_hash(device: AttachedDevice, classpath: str, cwd: str, sha256: str) -> bool:
    path = classpath if classpath.startswith("/") else f"{cwd.rstrip('/')}/{classpath}"
    try:
        data = device.storage.read_file(path)
    except (StorageError, OSError):
        return False
    return hashlib.sha256(data).hexdigest() == sha256
