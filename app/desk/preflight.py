"""What is missing before a run can go: one list of plain-language items every face shows its own way.

The display (for the window), the ADB server, a ready phone, the API key, the data folder and the
model's server. Each check is quick and asks nothing of a model (the model's server is only
connected to), so a face may ask before every run. No Qt here.
"""

from __future__ import annotations

import asyncio
import socket
from dataclasses import asdict, dataclass
from typing import Literal
from urllib.parse import urlsplit

from app.core.config import Settings
from app.core.data_folder import data_folder_problem
from app.core.device.local_adb import answers
from app.core.key_origins import origin_of
from app.display_check import qt_platform_problem

Thing = Literal["display", "adb", "phone", "key", "data folder", "model"]
MODEL_CONNECT_TIMEOUT = 2.0


@dataclass(frozen=True)
class Missing:
    """One thing a run needs that is not there, and what to do about it."""

    thing: Thing
    words: str

    def __str__(self) -> str:
        return self.words

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


def model_server_problem(base_url: str, timeout: float = MODEL_CONNECT_TIMEOUT) -> str:
    """Why the model's server cannot be reached ("" when something listens there). Blocking; no request."""
    try:
        parts = urlsplit(base_url)
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        return f"its base URL is not valid ({exc})"
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return ""
    except OSError as exc:
        if isinstance(exc, TimeoutError | socket.timeout):
            return f"no answer within {timeout:g} s"
        return (exc.strerror or str(exc) or type(exc).__name__).lower()


def _checks(settings: Settings, adb_address: str | None, *, display: bool, phone: bool, key_problem: str,
            model: bool) -> list[Missing]:
    """The checks themselves (blocking)."""
    missing: list[Missing] = []
    if display and (problem := qt_platform_problem()):
        missing.append(Missing("display", f"No display for the window: {problem}"))
    if adb_address is not None and not answers(adb_address):
        missing.append(Missing("adb", f"No ADB server answers at {adb_address}: install Android's platform tools "
                                      "(`adb`) and run `adb start-server`, or set ANDROID_ADB_SERVER_PORT."))
    if phone:
        missing.append(Missing("phone", "No phone is ready: turn on USB debugging and plug the phone in (allow "
                                        "debugging on its screen), or `adb connect HOST:PORT`."))
    if key_problem:
        missing.append(Missing("key", key_problem))
    if problem := data_folder_problem():
        missing.append(Missing("data folder", problem))
    if model and (problem := model_server_problem(settings.provider.base_url)):
        try:
            where = origin_of(settings.provider.base_url)
        except ValueError:
            where = settings.provider.base_url
        missing.append(Missing("model", f"The model's server at {where} cannot be reached ({problem}): start it, "
                                        "or set the base URL in Settings."))
    return missing


async def preflight(settings: Settings, adb_address: str | None, *, display: bool = True, phone: bool = False,
                    key_problem: str = "", model: bool = True) -> list[Missing]:
    """What is missing, in a worker thread (the disk and the network may be slow). `adb_address`: the ADB server
    to find answering (None: not asked); `phone`: a ready phone is missing; `key_problem`: why no API key may go
    to the model (the desk knows both)."""
    return await asyncio.to_thread(_checks, settings, adb_address, display=display, phone=phone,
                                   key_problem=key_problem, model=model)
