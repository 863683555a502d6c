"""The shell:, shell,v2: and exec: services: a command's stdin in, its output and exit code out.

Protocols, as adbd speaks them:
- `shell:` (v1) and `exec:` are raw streams: output goes back as written (stdout and stderr
  share the stream, as adbd's protocol-less subprocesses do), then the connection closes.
- `shell,v2:` frames everything in packets (id byte, little-endian length, data): stdin 0,
  stdout 1, stderr 2, exit 3 (one byte: the code), close-stdin 4, window size 5.

Stdin: the virtual phone runs a command line to the end before answering, so it needs the
command's stdin first. It waits for stdin only when the command reads it: a streamed install
(`… install -S SIZE`, exactly SIZE bytes), or a command that reads stdin when it has no file
to read (`cat > /sdcard/f`, `sh`, `base64 -d`…), until the client closes its side or stops
sending. Everything else starts at once, so `exec:screencap -p` pays no wait.
"""

from __future__ import annotations

import re
import select
import shlex
import socket
import struct

from .attached_device import AttachedDevice
from .hostile_dumps import ENDLESS, endless_dump
from .shell import Result, ShellExit
from .sync_service import recv_exact

SHELL_STDIN, SHELL_STDOUT, SHELL_STDERR, SHELL_EXIT, SHELL_CLOSE_STDIN, SHELL_WINDOW_SIZE = 0, 1, 2, 3, 4, 5

# Commands that read stdin when given no file operand (the first command of the line).
STDIN_READERS = frozenset({"cat", "sh", "tee", "base64", "wc", "sed", "grep", "head", "tail", "sort", "uniq",
                           "md5sum", "sha1sum", "sha256sum", "tr", "cut", "xargs", "dd", "read", "while"})
STREAMED_SIZE = re.compile(r"(?:^|\s)-S\s+(\d+)(?:\s|$)")
STDIN_QUIET_SECONDS = 0.3      # a client that sends nothing for this long has sent all it will
STDIN_TIMEOUT_SECONDS = 30.0   # a streamed install may take this long to arrive
MAX_STDIN = 512 * 1024 * 1024


class DropConnection(Exception):
    """Raised by a fault: the connection must end abruptly (TCP reset), as when a cable is pulled."""


def serve_command(sock: socket.socket, device: AttachedDevice, service: str, argument: str,
                  protocol_v2: bool) -> None:
    """Run one command line and send its output as the service's protocol wants."""
    stdin = read_stdin(sock, argument, protocol_v2)
    if device.faults.hostile_dumps[:1] == [ENDLESS] and "uiautomator dump" in argument:
        device.faults.hostile_dumps.pop(0)
        send_endless_dump(sock, device, protocol_v2)
        return
    try:
        result = device.new_shell(service, cancelled=lambda: connection_closed(sock)).run_line(argument, stdin)
    except ShellExit as exc:
        result = exc.result or Result(code=exc.code)
    if device.faults.take("drop_connections"):
        output = result.output
        sock.sendall(output[: len(output) // 3])
        raise DropConnection()
    if protocol_v2:
        sock.sendall(v2_packets(result) + struct.pack("<BIB", SHELL_EXIT, 1, result.code & 0xFF))
    else:
        sock.sendall(result.output)   # v1 and exec: stdout and stderr share the stream, as written


def send_endless_dump(sock: socket.socket, device: AttachedDevice, protocol_v2: bool) -> None:
    """A dump that never ends, sent until the client closes the connection (then counted in
    `device.faults.endless_dumps_ended`, so a test can see that nothing still reads it)."""
    try:
        for chunk in endless_dump(device.phone.dump_hierarchy()):
            sock.sendall(struct.pack("<BI", SHELL_STDOUT, len(chunk)) + chunk if protocol_v2 else chunk)
    except OSError:
        device.faults.endless_dumps_ended += 1


def connection_closed(sock: socket.socket) -> bool:
    """Whether the client has closed the connection (a peek, no wait: unread stdin stays
    unread), so a long-running command such as the scrcpy server can end with it."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        return bool(readable) and not sock.recv(1, socket.MSG_PEEK)
    except (OSError, ValueError):
        return True


def v2_packets(result: Result) -> bytes:
    packets = bytearray()
    for packet_id, data in ((SHELL_STDOUT, result.stdout), (SHELL_STDERR, result.stderr)):
        if data:
            packets += struct.pack("<BI", packet_id, len(data)) + data
    return bytes(packets)


def read_stdin(sock: socket.socket, command_line: str, protocol_v2: bool) -> bytes:
    """The stdin a command line needs before it runs (b"" for most commands)."""
    streamed = STREAMED_SIZE.search(command_line)
    if streamed:
        wanted = min(int(streamed.group(1)), MAX_STDIN)
        return _read(sock, protocol_v2, wanted, quiet=STDIN_TIMEOUT_SECONDS)
    if _reads_stdin(command_line):
        return _read(sock, protocol_v2, MAX_STDIN, quiet=STDIN_QUIET_SECONDS)
    return b""


def _reads_stdin(command_line: str) -> bool:
    try:
        words = shlex.split(command_line, comments=True)
    except ValueError:
        return False
    words = [w for w in words if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", w)]
    if not words:
        return False
    name = words[0].rsplit("/", 1)[-1]
    if name not in STDIN_READERS:
        return False
    if name == "sh":
        return "-c" not in words[1:] and len(words) == 1
    if name in ("read", "while", "xargs", "tee", "dd"):
        return True
    first_command = re.split(r"[|;&]", command_line, maxsplit=1)[0]
    operands = [w for w in shlex.split(first_command)[1:] if not w.startswith("-") and not w.startswith(">")]
    if name in ("grep", "sed"):
        return len(operands) <= 1          # the pattern / script, then files
    if name == "cat" and ">" in first_command:
        return not [w for w in first_command.split(">")[0].split()[1:] if not w.startswith("-")]
    return not operands


def _read(sock: socket.socket, protocol_v2: bool, wanted: int, quiet: float) -> bytes:
    """Up to `wanted` bytes of stdin, until the client closes stdin or sends nothing for `quiet` s."""
    data = bytearray()
    while len(data) < wanted:
        readable, _, _ = select.select([sock], [], [], quiet)
        if not readable:
            break
        if not protocol_v2:
            chunk = sock.recv(min(65536, wanted - len(data)))
            if not chunk:
                break
            data += chunk
            continue
        header = recv_exact(sock, 5)
        if header is None:
            break
        packet_id, length = struct.unpack("<BI", header)
        payload = recv_exact(sock, length) if length else b""
        if payload is None or packet_id == SHELL_CLOSE_STDIN:
            break
        if packet_id == SHELL_STDIN:
            data += payload[: wanted - len(data)]
    return bytes(data)


def interactive_shell(sock: socket.socket, device: AttachedDevice, service: str, protocol_v2: bool,
                      with_pty: bool) -> None:
    """`adb shell` with no command: lines in, output (and a prompt on a terminal) out, until exit or EOF."""
    shell = device.new_shell(service)
    prompt = f"{device.phone.model.split()[0].lower()}:/ $ ".encode() if with_pty else b""

    def on_terminal(data: bytes) -> bytes:
        """A terminal (pty) turns each newline into CR LF, as the phone's tty driver does."""
        return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n") if with_pty else data

    def send(result: Result, extra: bytes = b"") -> None:
        if protocol_v2:
            out = Result(chunks=[(fd, on_terminal(data)) for fd, data in result.chunks], code=result.code)
            sock.sendall(v2_packets(out) + (struct.pack("<BI", SHELL_STDOUT, len(extra)) + extra if extra else b""))
        else:
            sock.sendall(on_terminal(result.output) + extra)

    send(Result(), prompt)
    pending = b""
    while True:
        chunk = _next_input(sock, protocol_v2)
        if chunk is None:
            break
        if with_pty:   # the tty echoes what is typed, so the person sees it
            send(Result(chunks=[(1, chunk.replace(b"\r", b"\n"))]))
            chunk = chunk.replace(b"\r", b"\n")
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            try:
                result = shell.run_line(line.decode("utf-8", "replace").rstrip("\r"))
            except ShellExit as exc:
                send(exc.result or Result())
                _send_exit(sock, protocol_v2, exc.code)
                return
            send(result, prompt)
    if pending.strip():
        try:
            send(shell.run_line(pending.decode("utf-8", "replace")))
        except ShellExit as exc:
            send(exc.result or Result())
    _send_exit(sock, protocol_v2, shell.last_status)


def _next_input(sock: socket.socket, protocol_v2: bool) -> bytes | None:
    """The next stdin bytes; None once the client closed stdin or went away."""
    while True:
        if not protocol_v2:
            chunk = sock.recv(4096)
            return chunk or None
        header = recv_exact(sock, 5)
        if header is None:
            return None
        packet_id, length = struct.unpack("<BI", header)
        payload = recv_exact(sock, length) if length else b""
        if payload is None or packet_id == SHELL_CLOSE_STDIN:
            return None
        if packet_id == SHELL_STDIN:
            return payload
        # window-size changes and unknown packets are ignored, as adbd does without a pty


def _send_exit(sock: socket.socket, protocol_v2: bool, code: int) -> None:
    if protocol_v2:
        sock.sendall(struct.pack("<BIB", SHELL_EXIT, 1, code & 0xFF))
