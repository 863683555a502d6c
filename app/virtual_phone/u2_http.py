"""HTTP as uiautomator2's on-phone server speaks it (NanoHTTPD 2.3.1), over one phone socket.

What is copied: the status line `HTTP/1.1 200 OK ` (NanoHTTPD writes a space after the reason), the
headers Content-Type, Date, Connection and Content-Length; keep-alive unless the client says
`Connection: close`; a request NanoHTTPD cannot parse answers 400 with "BAD REQUEST: Syntax error.
Usage: GET /example/file.html" (or "Missing URI") and closes; a text or JSON answer is gzipped and
chunked when the client accepts gzip (useGzipWhenAccepted) — why uiautomator2's client sends an
empty Accept-Encoding; an idle connection is closed after NanoHTTPD's 5 s socket read timeout.

What is bounded here (a real phone would only run out of memory): the request head (8 KiB, as
NanoHTTPD's BUFSIZE; a longer one is answered as a syntax error) and the body (MAX_BODY; a larger
one closes the connection unanswered).
"""

from __future__ import annotations

import gzip
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import formatdate

HEAD_LIMIT = 8192              # NanoHTTPD.HTTPSession.BUFSIZE
MAX_BODY = 4 * 1024 * 1024     # a JSON-RPC request is a few hundred bytes; this is generous
DRAIN_LIMIT = 1024 * 1024      # what a closing connection still reads from a client that goes on sending
READ_TIMEOUT = 5.0             # NanoHTTPD.SOCKET_READ_TIMEOUT (5000 ms)
METHODS = ("GET", "PUT", "POST", "DELETE", "HEAD", "OPTIONS", "TRACE", "CONNECT", "PATCH",
           "PROPFIND", "PROPPATCH", "MKCOL", "MOVE", "COPY", "LOCK", "UNLOCK")
SYNTAX_ERROR = "BAD REQUEST: Syntax error. Usage: GET /example/file.html"
MISSING_URI = "BAD REQUEST: Missing URI. Usage: GET /example/file.html"
REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 500: "Internal Server Error"}


@dataclass
class Request:
    method: str
    uri: str                     # the path, without the query string
    query: str | None
    headers: dict[str, str] = field(default_factory=dict)   # names in lower case, as NanoHTTPD keeps them
    body: bytes = b""


@dataclass
class Response:
    status: int
    mime: str
    body: bytes
    after: Callable[[], None] | None = None    # run once the answer is sent (/stop stops the server then)


Router = Callable[[Request], Response]


class _Closed(Exception):
    """The client went away, was too slow, or sent more than the server takes."""


def serve_connection(sock: socket.socket, route: Router, stopping: Callable[[], bool]) -> None:
    """Answer requests on one connection until it closes (or the server stops)."""
    sock.settimeout(READ_TIMEOUT)
    buffer = b""
    try:
        while not stopping():
            try:
                head, buffer = _read_head(sock, buffer)
            except _Closed:
                return
            request = _parse_head(head)
            if isinstance(request, Response):
                _send(sock, request, keep_alive=False, gzip_ok=False)
                _finish(sock)
                return
            length_text = request.headers.get("content-length", "0").strip() or "0"
            if not length_text.isdigit() or int(length_text) > MAX_BODY:
                return        # a body it cannot or will not hold: the connection ends unanswered
            length = int(length_text)
            while len(buffer) < length:
                buffer += _recv(sock)
            request.body, buffer = buffer[:length], buffer[length:]
            response = route(request)
            keep_alive = request.headers.get("connection", "").lower() != "close"
            gzip_ok = "gzip" in request.headers.get("accept-encoding", "")
            try:
                _send(sock, response, keep_alive, gzip_ok, head_only=request.method == "HEAD")
            finally:
                if response.after is not None:
                    response.after()
            if not keep_alive:
                _finish(sock)
                return
    except (_Closed, OSError):
        return


def _finish(sock: socket.socket) -> None:
    """End after a last answer: shut our side, then read (and drop) what the client still sends,
    for at most DRAIN_LIMIT bytes or one second — closing with unread input makes the kernel send a
    reset, which can destroy the answer before the client reads it."""
    try:
        sock.shutdown(socket.SHUT_WR)
        sock.settimeout(1.0)
        drained = 0
        while drained < DRAIN_LIMIT and (data := sock.recv(65536)):
            drained += len(data)
    except OSError:
        pass


def _recv(sock: socket.socket) -> bytes:
    try:
        data = sock.recv(65536)
    except (TimeoutError, OSError):
        raise _Closed from None
    if not data:
        raise _Closed
    return data


def _read_head(sock: socket.socket, buffer: bytes) -> tuple[bytes, bytes]:
    while True:
        end = buffer.find(b"\r\n\r\n")
        if end >= 0:
            return buffer[:end], buffer[end + 4:]
        if len(buffer) > HEAD_LIMIT:
            return b"", b""     # a head that does not fit: answered as one that does not parse
        buffer += _recv(sock)


def _parse_head(head: bytes) -> Request | Response:
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split()
    if not parts or parts[0] not in METHODS:
        return Response(400, "text/plain", SYNTAX_ERROR.encode())
    if len(parts) < 2:
        return Response(400, "text/plain", MISSING_URI.encode())
    uri, _, query = parts[1].partition("?")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    return Request(parts[0], uri, query or None, headers)


def _send(sock: socket.socket, response: Response, keep_alive: bool, gzip_ok: bool,
          head_only: bool = False) -> None:
    reason = REASONS.get(response.status, "")
    lines = [f"HTTP/1.1 {response.status} {reason} ", f"Content-Type: {response.mime}",
             f"Date: {formatdate(usegmt=True)}", f"Connection: {'keep-alive' if keep_alive else 'close'}"]
    body = response.body
    if gzip_ok and ("text/" in response.mime or "/json" in response.mime):
        packed = gzip.compress(body)
        lines += ["Content-Encoding: gzip", "Transfer-Encoding: chunked"]
        body = f"{len(packed):x}\r\n".encode() + packed + b"\r\n0\r\n\r\n" if packed else b"0\r\n\r\n"
    else:
        lines.append(f"Content-Length: {len(body)}")
    sock.sendall("\r\n".join(lines).encode("latin-1") + b"\r\n\r\n" + (b"" if head_only else body))
