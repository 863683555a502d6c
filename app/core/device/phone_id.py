"""Which phone: its ADB server and its serial together.

Two machines, or a real emulator and the built-in virtual phone, can each have an
`emulator-5554`; the pair is unique. The text form is `SERIAL@HOST:PORT`. A plain serial
is accepted wherever it names one known phone unambiguously.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .errors import DeviceNotFound


class AmbiguousPhone(DeviceNotFound):
    """A plain serial matches phones on more than one ADB server."""


@dataclass(frozen=True, order=True)
class PhoneId:
    server: str     # "host:port" of the ADB server the phone is attached to
    serial: str

    def __str__(self) -> str:
        return f"{self.serial}@{self.server}"

    @classmethod
    def parse(cls, text: str) -> PhoneId | None:
        """`SERIAL@HOST:PORT` → PhoneId; a plain serial → None (it needs the known phones to resolve)."""
        serial, at, server = text.strip().rpartition("@")
        if at and serial and re.fullmatch(r"[^\s:]+:\d+|\[[0-9a-fA-F:]+\]:\d+", server):
            return cls(server, serial)
        return None

    def lock_name(self) -> str:
        """A file-name-safe form, for the per-phone lock file; `localhost:P` and `127.0.0.1:P` are one server."""
        host, _, port = self.server.rpartition(":")
        if host.casefold() in ("localhost", "[::1]", "::1"):
            host = "127.0.0.1"
        return re.sub(r"[^A-Za-z0-9._-]", "_", f"{host}:{port}_{self.serial}")


def resolve_phone(name: str | PhoneId, known: Iterable[PhoneId]) -> PhoneId:
    """The known phone that `name` names: a full id, or a plain serial that only one phone has."""
    known = list(known)
    if isinstance(name, PhoneId):
        wanted: PhoneId | None = name
    else:
        wanted = PhoneId.parse(name)
    if wanted is not None:
        if wanted in known:
            return wanted
        raise DeviceNotFound(f"Phone {wanted} is not connected. Attached: {_listing(known)}.")
    matches = [phone for phone in known if phone.serial == str(name).strip()]      # name is a str here
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise DeviceNotFound(f"Phone {name} is not connected. Attached: {_listing(known)}.")
    raise AmbiguousPhone(f"More than one ADB server has a phone called {name}: "
                         f"{', '.join(str(p) for p in matches)}. Name it as SERIAL@HOST:PORT.")


def _listing(known: list[PhoneId]) -> str:
    return ", ".join(str(phone) for phone in known) or "none"
