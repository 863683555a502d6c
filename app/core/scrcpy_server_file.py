"""The scrcpy server file the app pushes to a phone, and the check that it is the right one.

The file, scrcpy's own prebuilt server 3.3.4, travels as package data of `app.resources`
(app/resources/scrcpy/, with scrcpy's Apache-2.0 LICENSE and a NOTICE saying where it came
from) and is found through importlib.resources, so a checkout, an installed wheel and the
PyInstaller bundle all find it the same way. The version is pinned: the client speaks 3.3.4's
wire format, which changed in 4.x, and the server refuses a client naming another version.

Before the file goes to a phone its SHA-256 is checked against the one scrcpy publishes for
that release: a damaged or replaced file would run on the phone with the ADB shell's rights,
so it is refused with a clear error rather than pushed.
"""

from __future__ import annotations

import hashlib
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from app.android.scrcpy import SERVER_SHA256, SERVER_VERSION

SERVER_FILE_NAME = f"scrcpy-server-v{SERVER_VERSION}"
RESOURCE_FOLDER = "scrcpy"                 # under app/resources
# Where a person would look for it in a checkout; said in errors.
_SHOWN_PATH = f"app/resources/{RESOURCE_FOLDER}/{SERVER_FILE_NAME}"


class ServerFileError(Exception):
    """The scrcpy server file is missing, unreadable or not the pinned release; the message says which."""


def server_resource() -> Traversable:
    """The server file as an importlib.resources entry (it may not exist: see `verified_server_bytes`)."""
    return files("app.resources") / RESOURCE_FOLDER / SERVER_FILE_NAME


def server_file() -> Path:
    """The server file's path on disk, for code that needs a real file (a push by path, say).

    Raises ServerFileError when the file is missing or the installation keeps its resources
    somewhere that is not a folder (a zipped install); `verified_server_bytes` works there too.
    """
    resource = server_resource()
    if not isinstance(resource, Path):
        raise ServerFileError(f"the scrcpy server file {_SHOWN_PATH} is not a file on disk in this "
                              f"installation ({type(resource).__name__}); read it with verified_server_bytes()")
    if not resource.is_file():
        raise ServerFileError(f"the scrcpy server file {_SHOWN_PATH} is missing from this installation "
                              f"(looked at {resource}); reinstall Agent Desk")
    return resource


def check_server_bytes(data: bytes, where: str = _SHOWN_PATH) -> bytes:
    """`data` itself when its SHA-256 is the pinned release's; else ServerFileError naming both digests."""
    digest = hashlib.sha256(data).hexdigest()
    if digest != SERVER_SHA256:
        raise ServerFileError(f"the scrcpy server file {where} is not scrcpy's {SERVER_VERSION} release: its "
                              f"SHA-256 is {digest}, expected {SERVER_SHA256} ({len(data)} bytes). The file was "
                              f"damaged or replaced, and is not pushed to the phone; reinstall Agent Desk")
    return data


def verified_server_bytes(source: Traversable | Path | None = None) -> bytes:
    """The server file's bytes, checked against SERVER_SHA256 (ServerFileError when missing or altered).

    `source` is the file to read, the bundled one by default; it is read afresh on every call,
    so a file altered while the app runs is refused too.
    """
    resource = server_resource() if source is None else source
    where = _SHOWN_PATH if source is None else str(source)
    try:
        data = resource.read_bytes()
    except FileNotFoundError:
        raise ServerFileError(f"the scrcpy server file {where} is missing from this installation; "
                              f"reinstall Agent Desk") from None
    except OSError as exc:
        raise ServerFileError(f"the scrcpy server file {where} could not be read: {exc}") from exc
    return check_server_bytes(data, where)
