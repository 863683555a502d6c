"""Raw HTTP to the virtual phone's uiautomator2 server, through the `tcp:9008` device service."""

from __future__ import annotations

import json
import socket
from typing import Any

import adbutils
from adbutils import Network


def connect(device: adbutils.AdbDevice, timeout: float = 10.0, port: int = 9008) -> socket.socket:
    sock = device.create_connection(Network.TCP, port)
    sock.settimeout(timeout)
    return sock


def read_all(sock: socket.socket) -> bytes:
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except (ConnectionResetError, TimeoutError):
        pass
    return data


def exchange(device: adbutils.AdbDevice, raw: bytes, timeout: float = 10.0) -> bytes:
    """Send `raw` and read until the server closes (send `Connection: close` to get one answer)."""
    sock = connect(device, timeout)
    try:
        sock.sendall(raw)
        return read_all(sock)
    finally:
        sock.close()


def post(device: adbutils.AdbDevice, body: bytes, path: str = "/jsonrpc/0", timeout: float = 10.0,
         headers: str = "") -> tuple[int, dict[str, str], bytes]:
    raw = (f"POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
           f"Content-Length: {len(body)}\r\nConnection: close\r\n{headers}\r\n").encode() + body
    return split(exchange(device, raw, timeout))


def split(answer: bytes) -> tuple[int, dict[str, str], bytes]:
    if not answer:
        raise ConnectionError("no answer: the server closed the connection or the wait ran out")
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return status, headers, body


def rpc(device: adbutils.AdbDevice, method: str, params: Any = None, timeout: float = 10.0) -> dict:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    status, _, answer = post(device, body, timeout=timeout)
    assert status == 200, answer
    return json.loads(answer)
