"""adb forward / adb reverse / tcp: and localabstract: services, through adbutils and Debian's adb."""

from __future__ import annotations

import shutil
import socket
import subprocess
import threading

import adbutils
import pytest
from adbutils import Network

from app.virtual_phone.adb_server import VirtualAdbServer

adb_client_missing = shutil.which("adb") is None


def echo_upper(sock: socket.socket) -> None:
    """A device-side server for the tests: answers every chunk in capitals, until the client closes."""
    while True:
        data = sock.recv(4096)
        if not data:
            return
        sock.sendall(data.upper())


def talk(port: int, message: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(message)
        conn.shutdown(socket.SHUT_WR)
        return _read_all(conn)


def _read_all(conn: socket.socket) -> bytes:
    chunks = []
    while chunk := conn.recv(4096):
        chunks.append(chunk)
    return b"".join(chunks)


@pytest.fixture
def phone(virtual_adb):
    device = virtual_adb.devices[0]
    device.sockets.listen("localabstract:upper", echo_upper)
    device.sockets.listen("tcp:7100", echo_upper)
    return device


@pytest.fixture
def device(virtual_adb, phone) -> adbutils.AdbDevice:
    return adbutils.AdbClient(host="127.0.0.1", port=virtual_adb.port).device(phone.serial)


def test_forward_reaches_a_server_on_the_phone(device):
    port = _free_port()
    device.forward(f"tcp:{port}", "localabstract:upper")
    assert talk(port, b"hello phone") == b"HELLO PHONE"
    assert [(f.local, f.remote) for f in device.forward_list()] == [(f"tcp:{port}", "localabstract:upper")]
    device.forward_remove(f"tcp:{port}")
    assert device.forward_list() == []
    with pytest.raises(OSError):
        talk(port, b"gone")


def test_forward_port_picks_a_free_port_and_tcp_services_work(device):
    port = device.forward_port(7100)
    assert talk(port, b"abc") == b"ABC"
    device.forward_remove_all()
    assert device.forward_list() == []


def test_norebind_and_unknown_listener_fail_as_adb_says(device):
    port = _free_port()
    device.forward(f"tcp:{port}", "tcp:7100")
    with pytest.raises(adbutils.AdbError, match="cannot rebind existing socket"):
        device.forward(f"tcp:{port}", "localabstract:upper", norebind=True)
    with pytest.raises(adbutils.AdbError, match="not found"):
        device.forward_remove("tcp:1", raise_non_found=True)
    with pytest.raises(adbutils.AdbError, match="bad forward"):
        device.forward("tcp:5", "")
    device.forward_remove_all()


def test_forward_to_nothing_closes_the_connection(device):
    port = _free_port()
    device.forward(f"tcp:{port}", "localabstract:nobody_listens")
    assert talk(port, b"anyone?") == b""
    device.forward_remove_all()


def test_forwards_die_with_the_phone(virtual_adb, device, phone):
    port = _free_port()
    device.forward(f"tcp:{port}", "tcp:7100")
    virtual_adb.unplug(phone.serial)
    assert virtual_adb.forwards.listing() == ""
    with pytest.raises(OSError):
        talk(port, b"x")
    virtual_adb.plug(phone)


def test_localabstract_service_directly(device):
    conn = device.create_connection(Network.LOCAL_ABSTRACT, "upper")
    with conn:
        conn.sendall(b"direct")
        conn.shutdown(socket.SHUT_WR)
        assert _read_all(conn) == b"DIRECT"
    with pytest.raises(adbutils.AdbError, match="closed"):
        device.create_connection(Network.LOCAL_ABSTRACT, "nothing_here")


def test_reverse_carries_phone_connections_back_to_the_host(device, phone):
    host_server = socket.create_server(("127.0.0.1", 0))
    host_port = host_server.getsockname()[1]
    got: list[bytes] = []

    def answer():
        conn, _ = host_server.accept()
        with conn:
            got.append(_read_all(conn))
            conn.sendall(b"from host")

    thread = threading.Thread(target=answer)
    thread.start()
    try:
        device.reverse("tcp:8081", f"tcp:{host_port}")
        assert [(r.remote, r.local) for r in device.reverse_list()] == [("tcp:8081", f"tcp:{host_port}")]
        # Something on the phone connects to its own port 8081 (as an app would)…
        conn = phone.sockets.connect("tcp:8081")
        conn.sendall(b"from phone")
        conn.shutdown(socket.SHUT_WR)
        reply = _read_all(conn)
        conn.close()
        thread.join(5)
        assert got == [b"from phone"] and reply == b"from host"
        device.reverse_remove_all()
        assert device.reverse_list() == [] and phone.sockets.connect("tcp:8081") is None
    finally:
        host_server.close()
        thread.join(5)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.skipif(adb_client_missing, reason="Debian's adb client is not installed (apt install adb)")
class TestWithDebianAdb:
    def adb(self, server: VirtualAdbServer, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["adb", "-P", str(server.port), *args], capture_output=True, text=True, timeout=30)

    def test_forward_list_remove(self, virtual_adb, phone):
        port = _free_port()
        done = self.adb(virtual_adb, "forward", f"tcp:{port}", "localabstract:upper")
        assert done.returncode == 0, done.stderr
        listing = self.adb(virtual_adb, "forward", "--list")
        assert listing.stdout.split() == [phone.serial, f"tcp:{port}", "localabstract:upper"]
        assert talk(port, b"debian") == b"DEBIAN"
        assert self.adb(virtual_adb, "forward", "--remove", f"tcp:{port}").returncode == 0
        missing = self.adb(virtual_adb, "forward", "--remove", f"tcp:{port}")
        assert missing.returncode != 0 and "not found" in missing.stderr
        assert self.adb(virtual_adb, "forward", "--list").stdout.strip() == ""

    def test_forward_tcp0_prints_the_port(self, virtual_adb, phone):
        done = self.adb(virtual_adb, "forward", "tcp:0", "tcp:7100")
        port = int(done.stdout.strip())
        assert talk(port, b"zero") == b"ZERO"
        assert self.adb(virtual_adb, "forward", "--remove-all").returncode == 0
        assert virtual_adb.forwards.listing() == ""

    def test_reverse_list_remove(self, virtual_adb, phone):
        assert self.adb(virtual_adb, "reverse", "tcp:9000", "tcp:9001").returncode == 0
        assert self.adb(virtual_adb, "reverse", "--list").stdout.split()[1:] == ["tcp:9000", "tcp:9001"]
        assert self.adb(virtual_adb, "reverse", "--remove", "tcp:9000").returncode == 0
        assert phone.sockets.reverse_rules() == []
        assert self.adb(virtual_adb, "reverse", "--remove-all").returncode == 0
