"""What the status bar says: a sentence a person can act on, with the technical text kept apart.

`explain(text)` turns whatever reached the status bar — a sentence the app wrote, or the raw
text of an exception ("connect to adb server failed: [Errno 111] Connection refused") — into a
`StatusMessage`: the sentence to show (what happened and what to do), the raw text for the
"Details" button (empty when the sentence is all there is), whether it is an error, and whether
it describes an ongoing condition that stays until something replaces it. No Qt here.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass

DEFAULT_ADB_ADDRESS = "127.0.0.1:5037"
INFO_SECONDS = 10          # a plain message fades after this long
ERROR_SECONDS = 45         # an error stays longer (its Details may be wanted)

ADDRESS = re.compile(r"\b((?:\d{1,3}\.){3}\d{1,3}|localhost|\[[0-9a-fA-F:]+\]|[\w-]+(?:\.[\w-]+)+):(\d{1,5})\b")
TECHNICAL = re.compile(
    r"\[Errno -?\d+\]|Traceback \(most recent call last\)|\b[A-Z]\w*(?:Error|Exception)\b|errno\s*=?\s*\d+"
    r"|<[\w.]+ object at 0x[0-9a-f]+>|\bWinError\b|\bOSError\b|adbutils\.|socket\.|httpx\.|openai\.",
)
ERROR_WORDS = re.compile(r"\b(cannot|can't|could not|couldn't|failed|fails|unable|refused|not allowed|denied"
                         r"|error|unreachable|offline|unauthori[sz]ed|disconnected|not connected|not found)\b",
                         re.IGNORECASE)


@dataclass(frozen=True)
class StatusMessage:
    text: str                 # the sentence shown
    details: str = ""         # the technical text behind "Details" ("" = none)
    error: bool = False
    lasting: bool = False     # an ongoing condition ("waiting for it to come back…"): stays until replaced

    @property
    def seconds(self) -> float | None:
        """How long it stays on screen; None: until the next message replaces it."""
        if self.lasting:
            return None
        return ERROR_SECONDS if self.error else INFO_SECONDS


def _adb_address(raw: str) -> str:
    """The ADB server's host:port: named in the text, else adbutils' environment, else the default."""
    found = ADDRESS.search(raw)
    if found:
        return found.group(0)
    host = os.environ.get("ANDROID_ADB_SERVER_HOST") or "127.0.0.1"
    port = os.environ.get("ANDROID_ADB_SERVER_PORT") or "5037"
    return f"{host}:{port}"


def _address(raw: str, otherwise: str) -> str:
    found = ADDRESS.search(raw)
    return found.group(0) if found else otherwise


def _host(raw: str) -> str:
    found = ADDRESS.search(raw) or re.search(r"['\"]([\w.-]+)['\"]", raw)
    return f"The name {found.group(1)} is" if found else "That address is"


def _path(raw: str) -> str:
    found = re.search(r":\s*'([^']+)'", raw)
    return found.group(1) if found else "a file it needs"


def _serial(raw: str) -> str:
    found = re.search(r"device\s+'([^']+)'", raw) or re.search(r"serial\s*[=:]?\s*'?([\w.:-]+)", raw)
    return f"The phone {found.group(1)}" if found else "The phone"


# (pattern on the raw text, the sentence with its fix). The first that matches wins; order matters.
RULES: list[tuple[re.Pattern, Callable[[str], str]]] = [
    (re.compile(r"connect to adb server failed|cannot reach the adb server|adb server.*(refused|unreachable)"
                r"|(adb|5037).*connection refused|connection refused.*(adb|5037)", re.IGNORECASE | re.DOTALL),
     lambda raw: f"Cannot reach the ADB server on {_adb_address(raw)} — start it with `adb start-server`, "
                 "or the app uses its virtual phone."),
    (re.compile(r"(failed|unable|cannot) to connect to|could not connect to .*(refused|failed|timed out)",
                re.IGNORECASE | re.DOTALL),
     lambda raw: f"Could not connect to {_address(raw, 'the phone')} over Wi-Fi — turn on Wireless debugging on "
                 "the phone, check the address and port, and that both are on the same network."),
    (re.compile(r"unauthori[sz]ed", re.IGNORECASE),
     lambda raw: f"{_serial(raw)} has not allowed this computer yet — unlock it and accept the "
                 "“Allow USB debugging?” prompt."),
    (re.compile(r"device offline|\boffline\b", re.IGNORECASE),
     lambda raw: f"{_serial(raw)} is offline — unlock it, or unplug it and plug it in again."),
    (re.compile(r"device '[^']*' not found|device not found|no devices/emulators found", re.IGNORECASE),
     lambda raw: f"{_serial(raw)} is not connected — plug it in again (USB debugging on) or choose another phone."),
    (re.compile(r"\[Errno (111|61|10061)\]|connection refused", re.IGNORECASE),
     lambda raw: f"Nothing answers at {_address(raw, 'that address')} — check the address and that the server "
                 "there is running."),
    (re.compile(r"\[Errno (113|101|65|10051|10065)\]|no route to host|network is unreachable", re.IGNORECASE),
     lambda raw: f"Cannot reach {_address(raw, 'that address')} — check that this computer and the phone are "
                 "on the same network."),
    (re.compile(r"name or service not known|nodename nor servname|getaddrinfo failed|\[Errno -[23]\]"
                r"|temporary failure in name resolution", re.IGNORECASE),
     lambda raw: f"{_host(raw)} not known — check its spelling, or use the IP address."),
    (re.compile(r"timed? ?out|TimeoutError|deadline exceeded", re.IGNORECASE),
     lambda raw: "No answer in time — check the phone (unlocked, still connected) or the network, and try again."),
    (re.compile(r"\[Errno (13|1)\]|permission denied|access is denied", re.IGNORECASE),
     lambda raw: f"Agent Desk may not use {_path(raw)} — check its permissions, or choose another folder."),
    (re.compile(r"\[Errno 28\]|no space left", re.IGNORECASE),
     lambda raw: "The disk is full — free some space, then try again."),
    (re.compile(r"\[Errno (32|104|54|10054)\]|broken pipe|connection reset|connection aborted|EOFError"
                r"|unexpected EOF", re.IGNORECASE),
     lambda raw: "The connection dropped — check the cable or Wi-Fi; the phone is used again when it is back."),
    (re.compile(r"\b(401|403)\b.*(key|auth|unauthor)|invalid api key|incorrect api key", re.IGNORECASE | re.DOTALL),
     lambda raw: "The model server refused the API key — check it in Settings."),
    (re.compile(r"\b429\b|rate.?limit", re.IGNORECASE),
     lambda raw: "The model server is limiting requests — wait a minute and try again, or check your plan."),
]
FALLBACK = "try again; if it keeps happening, the Details hold the technical text for a bug report."


def looks_technical(text: str) -> bool:
    """Raw exception text (errno, exception class names, tracebacks) rather than a sentence for a person."""
    return bool(TECHNICAL.search(text))


def explain(text: str) -> StatusMessage:
    """The sentence to show for `text`, with the raw text kept for the Details when it is technical."""
    text = str(text)
    if not text.strip():
        return StatusMessage("")
    if not looks_technical(text) and not _adb_refused(text):          # already a sentence: shown as it is
        return StatusMessage(text, error=bool(ERROR_WORDS.search(text)), lasting=text.rstrip().endswith(("…", "...")))
    text = text.strip()
    for pattern, sentence in RULES:
        if pattern.search(text):
            return StatusMessage(sentence(text), details=text, error=True)
    return StatusMessage(f"{_plain_prefix(text) or 'Something went wrong'} — {FALLBACK}", details=text, error=True)


def _plain_prefix(text: str) -> str:
    """The sentence a message starts with before its raw part ("Other phones are not listed: ValueError…")."""
    found = TECHNICAL.search(text)
    prefix = text[: found.start()] if found else ""
    prefix = prefix.rstrip(" :;,-—")
    return prefix if len(prefix.split()) >= 3 and not looks_technical(prefix) else ""


def _adb_refused(text: str) -> bool:
    """The adb client's own wording, which names no exception class: still raw text to explain."""
    lowered = text.lower()
    return "connect to adb server failed" in lowered or "connection refused" in lowered
