"""Wi-Fi phones: `adb connect HOST:PORT` and `adb pair HOST:PORT CODE`, with their true outcome.

adb's server answers both host requests with OKAY whatever happened and says the outcome in
words ("connected to …", "already connected to …", "failed to connect to …", "Successfully
paired to …", "Failed: Wrong password…"), so the words are what we read. "connected to" is
not the end of it either: the phone may then list as unauthorized or offline, so a connect
also looks at the device list before it says it worked. Blocking: run in a thread.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from .adb_servers import _connect, _read_block, _request
from .adb_transport import DeviceListing, parse_devices_l
from .errors import DeviceError

SETTLE_SECONDS = 3.0      # how long a fresh Wi-Fi phone may stay "connecting"/"authorizing"
WIRELESS_HINT = ("check the address, that the phone is on the same network, and that Wireless debugging "
                 "(Developer options) is on")


@dataclass(frozen=True)
class WifiOutcome:
    ok: bool
    text: str            # what happened, in words a person can act on
    reply: str = ""      # adb's own words


def parse_address(text: str, *, default_port: int | None = 5555) -> str:
    """"host[:port]" → "host:port" (ValueError says what is wrong)."""
    text = text.strip()
    host, colon, port = text.rpartition(":")
    if not colon:
        host, port = text, ""
    if not host or any(c.isspace() for c in host):
        raise ValueError("Type the phone's address as shown under Wireless debugging, e.g. 192.168.1.20:5555.")
    if not port:
        if default_port is None:
            raise ValueError("Pairing needs the port shown next to the pairing code, e.g. 192.168.1.20:37199.")
        port = str(default_port)
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"“{port}” is not a port number (1–65535).")
    return f"{host}:{port}"


def host_query(server: str, request: str, timeout: float) -> str:
    """One host request whose answer is OKAY + a string block (blocking; DeviceError when it fails)."""
    with _connect(server, timeout) as sock:
        try:
            _request(sock, request)
            return _read_block(sock)
        except (OSError, EOFError, ValueError) as exc:
            raise DeviceError(f"The ADB server at {server} stopped answering ({exc}).") from exc


def connect_outcome(address: str, reply: str) -> WifiOutcome:
    """adb's answer to host:connect, read into what happened."""
    words = reply.strip()
    lowered = words.lower()
    if lowered.startswith("already connected to"):
        return WifiOutcome(True, f"Already connected to {address}.", words)
    if lowered.startswith("connected to"):
        return WifiOutcome(True, f"Connected to {address}.", words)
    if "authenticate" in lowered:
        return WifiOutcome(False, f"{address} refused this computer: on Android 11 and later pair first "
                                  "(Pair, with the code from “Pair device with pairing code”), then connect.", words)
    why = words.split(": ", 1)[1] if ": " in words else words
    return WifiOutcome(False, f"Could not connect to {address}: {why or 'no reason given'} — {WIRELESS_HINT}.",
                       words)


def pair_outcome(address: str, reply: str) -> WifiOutcome:
    """adb's answer to host:pair, read into what happened."""
    words = reply.strip()
    if words.lower().startswith("successfully paired"):
        return WifiOutcome(True, f"Paired with {address}. Now connect to the address and port shown under "
                                 "Wireless debugging (not the pairing port).", words)
    why = words.removeprefix("Failed:").strip().rstrip(".")
    if "password" in why.lower():
        why = "the code is wrong, or the phone closed the pairing dialog — check the six-digit code and try again"
    return WifiOutcome(False, f"Could not pair with {address}: {why or 'no reason given'}.", words)


def _state_of(server: str, address: str, timeout: float) -> DeviceListing | None:
    listings = parse_devices_l(host_query(server, "host:devices-l", timeout))
    return next((d for d in listings if d.serial == address), None)


def connect(server: str, address: str, timeout: float = 15.0, settle: float = SETTLE_SECONDS) -> WifiOutcome:
    """`adb connect address` on `server`, then the phone's state from the device list."""
    try:
        address = parse_address(address)
        outcome = connect_outcome(address, host_query(server, f"host:connect:{address}", timeout))
        if not outcome.ok:
            return outcome
        deadline = time.monotonic() + settle
        listing = _state_of(server, address, timeout)
        while (listing is None or listing.state in ("connecting", "authorizing")) and time.monotonic() < deadline:
            time.sleep(0.2)
            listing = _state_of(server, address, timeout)
    except (ValueError, DeviceError) as exc:
        return WifiOutcome(False, str(exc))
    if listing is None:
        return WifiOutcome(False, f"adb said “{outcome.reply}”, but {address} is not in its device list — "
                                  f"{WIRELESS_HINT}.", outcome.reply)
    if not listing.ready:
        return WifiOutcome(False, f"Connected to {address}, but it is {listing.describe_state()}.", outcome.reply)
    return outcome


def pair(server: str, address: str, code: str, timeout: float = 30.0) -> WifiOutcome:
    """`adb pair address code` on `server` (the host request host:pair:CODE:HOST:PORT)."""
    code = code.strip()
    if not code or any(c.isspace() or c == ":" for c in code):
        return WifiOutcome(False, "Type the pairing code the phone shows under “Pair device with pairing code”.")
    try:
        address = parse_address(address, default_port=None)
        return pair_outcome(address, host_query(server, f"host:pair:{code}:{address}", timeout))
    except ValueError as exc:
        return WifiOutcome(False, str(exc))
    except DeviceError as exc:
        if "unknown host service" in str(exc).lower():
            return WifiOutcome(False, "This ADB server cannot pair (it is older than Android platform-tools 30): "
                                      "update adb, or pair once with `adb pair` from a newer one.", str(exc))
        return WifiOutcome(False, str(exc))
