"""A tiny ADB server on loopback that answers host requests from a script, the way adb's own does.

adb answers `host:connect:…` and `host:pair:…` with OKAY and the outcome in words; `host:kill`
with OKAY, then it exits. This fake lets a test choose those words (and the device list) and
see which requests came, without a real adb.
"""

from __future__ import annotations

import socket
import socketserver
import threading


def _block(text: str) -> bytes:
    data = text.encode()
    return f"{len(data):04x}".encode() + data


class _Handler(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        fake: FakeAdbHost = self.server.fake       # type: ignore[attr-defined]
        sock: socket.socket = self.request
        try:
            size = int(_recv(sock, 4), 16)
            request = _recv(sock, size).decode()
        except (OSError, ValueError):
            return
        fake.requests.append(request)
        if request == "host:kill":
            sock.sendall(b"OKAY")
            fake.killed.set()                     # adb exits: nobody listens from now on
            self.server.shutdown()
            self.server.socket.close()
        elif request == "host:version":
            sock.sendall(b"OKAY" + _block("0029"))
        elif request in ("host:devices", "host:devices-l"):
            sock.sendall(b"OKAY" + _block(fake.listing))
        elif request.startswith("host:track-devices"):
            sent = fake.listing
            sock.sendall(b"OKAY" + _block(sent))
            while not (fake.stopped.wait(0.05) or fake.killed.is_set()):
                if fake.listing != sent:
                    sent = fake.listing
                    sock.sendall(_block(sent))
        elif request.startswith("host:connect:"):
            sock.sendall(b"OKAY" + _block(fake.connect_reply))
        elif request.startswith("host:pair:"):
            if fake.pair_reply is None:
                sock.sendall(b"FAIL" + _block("unknown host service"))
            else:
                sock.sendall(b"OKAY" + _block(fake.pair_reply))
        else:
            sock.sendall(b"FAIL" + _block(f"unknown host service: {request}"))


def _recv(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise OSError("closed")
        data += chunk
    return data


class _Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = False
    block_on_close = True      # server_close() waits for every connection's thread


class FakeAdbHost:
    def __init__(self, port: int = 0):
        self.requests: list[str] = []
        self.listing = ""
        self.connect_reply = ""
        self.pair_reply: str | None = None      # None: an adb too old to pair (FAIL)
        self.killed = threading.Event()
        self.stopped = threading.Event()
        self._server = _Server(("127.0.0.1", port), _Handler)
        self._server.fake = self                # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=f"fake-adb:{self.port}", daemon=True)
        self._lock = threading.Lock()

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> FakeAdbHost:
        self._thread.start()
        return self

    def stop(self) -> None:
        with self._lock:
            if self.stopped.is_set():
                return
            self.stopped.set()
        if not self.killed.is_set():
            self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)
