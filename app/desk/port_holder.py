"""Who holds a loopback TCP port, in a few words: Agent Desk's built-in phone, an ADB server, or another
program — with its process id and name where the system says (Linux's /proc)."""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path

from .shared_phone_server import STATUS_REQUEST

ASK_TIMEOUT = 3.0        # a busy machine answers a loopback request late


def _ask(port: int, request: str) -> tuple[bytes, str]:
    """(status, text) of one ADB host request to 127.0.0.1:port; (b"", "") when nothing sensible answers."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=ASK_TIMEOUT) as sock:
            sock.sendall(f"{len(request):04x}{request}".encode())
            status = _read(sock, 4)
            if status not in (b"OKAY", b"FAIL"):
                return b"", ""
            size = int(_read(sock, 4), 16)
            return status, _read(sock, size).decode("utf-8", "replace")
    except (OSError, ValueError):
        return b"", ""


def _read(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def agentdesk_phone_status(port: int) -> dict | None:
    """The status of Agent Desk's built-in phone on `port`, or None when something else (or nothing) is there."""
    status, text = _ask(port, STATUS_REQUEST)
    if status != b"OKAY":
        return None
    try:
        answer = json.loads(text)
    except ValueError:
        return None
    return answer if isinstance(answer, dict) and answer.get("app") == "agentdesk" else None


def describe_holder(port: int) -> str:
    """Who holds 127.0.0.1:port, e.g. "an ADB server (process 4242, adb)"."""
    phone = agentdesk_phone_status(port)
    if phone is not None:
        return f"Agent Desk's built-in virtual phone (process {phone.get('pid', '?')})"
    status, _ = _ask(port, "host:version")
    what = "an ADB server" if status == b"OKAY" else "another program"
    process = listening_process(port)
    return f"{what} ({process})" if process else what


def listening_process(port: int) -> str:
    """"process PID, NAME" of whoever listens on TCP `port` (Linux, own processes); "" when unknown."""
    if not sys.platform.startswith("linux"):
        return ""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 9 and fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(f"socket:[{fields[9]}]")
    if not inodes:
        return ""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            for fd in (entry / "fd").iterdir():
                if os.readlink(fd) in inodes:
                    name = (entry / "comm").read_text().strip()
                    return f"process {entry.name}, {name}"
        except OSError:
            continue
    return ""
