"""The virtual phone's uiautomator2 server at its door: JSON-RPC errors shaped as jsonrpc4j writes
them, NanoHTTPD's answers to bad HTTP, and bounded work for huge bodies, many connections and slow
clients. Raw sockets through the `tcp:9008` device service and an `adb forward`."""

from __future__ import annotations

import http.client
import json
import socket
import time

import adbutils
import pytest

from app.virtual_phone import u2_http
from app.virtual_phone.adb_server import VirtualAdbServer
from app.virtual_phone.u2_server import MAX_CONNECTIONS, U2_JAR_DEVICE_PATH, U2_SERVER_CLASS

from .u2_requests import connect, exchange, post, read_all, rpc, split

JAR = pytest.importorskip("uiautomator2", reason="the server's jar comes with uiautomator2").__file__
START = f"CLASSPATH={U2_JAR_DEVICE_PATH} app_process / {U2_SERVER_CLASS} -p 9008"


@pytest.fixture
def served():
    """(adbutils device, attached phone) with the server running; the shell closes at the end."""
    from pathlib import Path
    with VirtualAdbServer() as server:
        attached = server.add_phone()
        device = adbutils.AdbClient(host="127.0.0.1", port=server.port).device(attached.serial)
        device.sync.push(str(Path(JAR).parent / "assets" / "u2.jar"), U2_JAR_DEVICE_PATH)
        shell = device.shell(START, stream=True)
        deadline = time.monotonic() + 10
        while "tcp:9008" not in attached.sockets.listening():
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.01)
        try:
            yield device, attached
        finally:
            shell.close()
            deadline = time.monotonic() + 10
            while attached.sockets.listening():
                assert time.monotonic() < deadline, "the server kept listening"
                time.sleep(0.01)


def error_of(answer: dict) -> tuple[int, str]:
    return answer["error"]["code"], answer["error"]["message"]


def test_ping_over_an_adb_forward(served):
    device, _ = served
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    device.forward(f"tcp:{port}", "tcp:9008")
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/ping")
    response = conn.getresponse()
    assert (response.status, response.read()) == (200, b"pong")
    assert response.getheader("Content-Type") == "text/html"
    conn.close()


def test_the_status_line_and_keep_alive_are_nanohttpd_s(served):
    device, _ = served
    sock = connect(device)
    try:
        sock.sendall(b"GET /ping HTTP/1.1\r\nHost: x\r\n\r\nGET /ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        answer = read_all(sock)
    finally:
        sock.close()
    assert answer.startswith(b"HTTP/1.1 200 OK \r\n") and answer.count(b"pong") == 2


def test_json_rpc_errors_are_jsonrpc4j_s(served):
    device, _ = served
    unknown = rpc(device, "noSuchMethod", [])
    assert unknown["id"] == 1 and error_of(unknown) == (-32601, "method not found")
    assert error_of(rpc(device, "deviceInfo", [1, 2, 3])) == (-32602, "method parameters invalid")
    assert error_of(rpc(device, "dumpWindowHierarchy", {"compressed": False})) == (-32602,
                                                                                     "method parameters invalid")
    wrong_type = rpc(device, "dumpWindowHierarchy", [False, "deep"])
    assert wrong_type["error"]["code"] == -32001
    assert wrong_type["error"]["message"] == "com.fasterxml.jackson.databind.exc.InvalidFormatException"
    assert "deep" in wrong_type["error"]["data"]
    status, _, body = post(device, b"{not json")
    assert status == 200 and json.loads(body) == {"jsonrpc": "jsonrpc", "id": "null",
                                                  "error": {"code": -32700, "message": "JSON parse error"}}
    _, _, body = post(device, b'{"id": 7, "method": "deviceInfo"}')      # no "jsonrpc"
    assert json.loads(body) == {"jsonrpc": "2.0", "id": "null", "error": {"code": -32600, "message": "invalid request"}}
    _, _, body = post(device, b'"just a string"')
    assert json.loads(body)["error"]["code"] == -32600
    _, _, body = post(device, b"[" * 10_000 + b"]" * 10_000)             # deep nesting: a parse error, no crash
    assert json.loads(body)["error"]["code"] == -32700
    _, _, body = post(device, b'{"jsonrpc": "2.0", "method": "deviceInfo"}')   # a notification: no answer
    assert body == b""
    _, _, body = post(device, b'[{"jsonrpc":"2.0","id":"a","method":"deviceInfo"},'
                              b'{"jsonrpc":"2.0","id":2,"method":"x"}]')
    batch = json.loads(body)
    assert batch[0]["id"] == "a" and "displayWidth" in batch[0]["result"] and batch[1]["error"]["code"] == -32601
    bad_config = rpc(device, "setConfigurator", [{"waitForIdleTimeout": 5, "bogus": 1}])
    assert bad_config["error"]["message"].endswith("UnrecognizedPropertyException")
    assert rpc(device, "getConfigurator")["result"]["waitForIdleTimeout"] == 10000   # unchanged


def test_paths_and_methods_nanohttpd_does_not_serve(served):
    device, _ = served
    status, _, body = split(exchange(device, b"GET /nothing HTTP/1.1\r\nConnection: close\r\n\r\n"))
    assert (status, body) == (404, b"/nothing not found!")
    status, _, body = split(exchange(device, b"GET /jsonrpc/0 HTTP/1.1\r\nConnection: close\r\n\r\n"))
    assert (status, body) == (500, b"Invalid http post data!")
    status, _, body = split(exchange(device, b"BREW /ping HTTP/1.1\r\n\r\n"))
    assert status == 400 and body.startswith(b"BAD REQUEST: Syntax error.")
    status, _, body = split(exchange(device, b"GET\r\n\r\n"))
    assert status == 400 and body.startswith(b"BAD REQUEST: Missing URI.")
    status, _, body = split(exchange(device, b"\x00\xff garbage \x16\x03\x01\r\n\r\n"))
    assert status == 400
    assert split(exchange(device, b"GET /ping HTTP/1.1\r\nConnection: close\r\n\r\n"))[2] == b"pong"


def test_gzip_when_the_client_accepts_it(served):
    import gzip
    device, _ = served
    status, headers, body = split(exchange(device, b"GET /ping HTTP/1.1\r\nAccept-Encoding: gzip\r\n"
                                                   b"Connection: close\r\n\r\n"))
    assert headers["content-encoding"] == "gzip" and headers["transfer-encoding"] == "chunked"
    size, _, rest = body.partition(b"\r\n")
    assert gzip.decompress(rest[:int(size, 16)]) == b"pong"


def test_a_huge_body_is_refused_without_being_read(served):
    device, attached = served
    sock = connect(device, timeout=10)
    try:
        sock.sendall(f"POST /jsonrpc/0 HTTP/1.1\r\nContent-Length: {u2_http.MAX_BODY + 1}\r\n\r\n".encode())
        assert read_all(sock) == b""          # closed, unanswered
    finally:
        sock.close()
    sock = connect(device, timeout=10)
    try:
        sock.sendall(b"POST /jsonrpc/0 HTTP/1.1\r\nContent-Length: -5\r\n\r\n")
        assert read_all(sock) == b""
    finally:
        sock.close()
    head = exchange(device, b"GET /ping HTTP/1.1\r\nX: " + b"a" * 100_000 + b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 ") and head.count(b"HTTP/1.1") == 1
    assert rpc(device, "deviceInfo")["result"]["sdkInt"] == attached.phone.profile.sdk


def test_many_connections_and_slow_clients_are_bounded(served, monkeypatch):
    device, _ = served
    monkeypatch.setattr(u2_http, "READ_TIMEOUT", 0.3)
    idle = [connect(device, timeout=5) for _ in range(MAX_CONNECTIONS + 8)]
    try:
        for sock in idle:
            sock.sendall(b"GET /pi")          # a request that never ends
        # the ones over the limit are closed at once; the slow ones after the read timeout
        for sock in idle:
            assert read_all(sock) == b""
        assert split(exchange(device, b"GET /ping HTTP/1.1\r\nConnection: close\r\n\r\n"))[2] == b"pong"
    finally:
        for sock in idle:
            sock.close()


def test_stop_ends_the_server(served):
    device, attached = served
    status, _, body = split(exchange(device, b"GET /stop HTTP/1.1\r\nConnection: close\r\n\r\n"))
    assert (status, body) == (200, b"Server stopped!!!")
    deadline = time.monotonic() + 10
    while attached.sockets.listening():
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert attached.ui_automation.holder is None
