"""What a shell command reads and writes: its Result, input streams, output sinks and limits.

A Result keeps stdout and stderr in the order they were written (a list of (fd, bytes) chunks),
because `adb shell` without protocol v2 sends both on one stream, interleaved as written.
Every byte a command writes and every command the shell runs is counted against ShellLimits,
so that no input can make the virtual phone run forever or fill the host's memory.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field


class Result:
    """What a command did: its output chunks in the order written, and its exit code."""

    __slots__ = ("chunks", "code")

    def __init__(self, stdout: bytes = b"", stderr: bytes = b"", code: int = 0, *,
                 chunks: list[tuple[int, bytes]] | None = None):
        if chunks is None:
            chunks = [(fd, data) for fd, data in ((1, stdout), (2, stderr)) if data]
        self.chunks = chunks
        self.code = code

    @property
    def stdout(self) -> bytes:
        return b"".join(data for fd, data in self.chunks if fd == 1)

    @property
    def stderr(self) -> bytes:
        return b"".join(data for fd, data in self.chunks if fd == 2)

    @property
    def output(self) -> bytes:
        """stdout and stderr interleaved as written (what shell protocol v1 carries)."""
        return b"".join(data for _, data in self.chunks)

    def __repr__(self) -> str:
        return f"Result(stdout={self.stdout!r}, stderr={self.stderr!r}, code={self.code})"


class ShellExit(Exception):
    """`exit`: ends the shell with a code (an interactive session ends too)."""

    def __init__(self, code: int):
        super().__init__(code)
        self.code = code
        self.result: Result | None = None   # an interactive shell's output up to `exit`, set by Shell.run_line


class LimitExceeded(Exception):
    """The shell went past a limit and is killed, as the kernel kills a process past an rlimit."""

    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.message, self.code = message, code


CPU_LIMIT = ("Cputime limit exceeded", 128 + 24)     # SIGXCPU
OUTPUT_LIMIT = ("File size limit exceeded", 128 + 25)  # SIGXFSZ


@dataclass(frozen=True)
class ShellLimits:
    """How much one command line (with everything it starts) may do."""

    max_commands: int = 100_000          # commands run and loop turns taken
    max_seconds: float = 60.0            # wall-clock time, sleeps included
    max_output: int = 64 * 1024 * 1024   # bytes written to any one stream or pipe
    max_depth: int = 100                 # nested function calls, eval, sh and $(...)


@dataclass
class Budget:
    """The limits of one command line as it is being run (shared by its subshells)."""

    limits: ShellLimits
    started: float = field(default_factory=time.monotonic)
    commands: int = 0
    cancelled: Callable[[], bool] = lambda: False

    @property
    def deadline(self) -> float:
        return self.started + self.limits.max_seconds

    def remaining(self) -> float:
        return max(0.0, self.deadline - time.monotonic())

    def tick(self) -> None:
        """One more command or loop turn; raises LimitExceeded past the limits."""
        self.commands += 1
        if self.commands > self.limits.max_commands or (self.commands & 63 == 0 and
                                                       (time.monotonic() > self.deadline or self.cancelled())):
            raise LimitExceeded(*CPU_LIMIT)

    def check_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise LimitExceeded(*CPU_LIMIT)


class Input:
    """A command's standard input: bytes read from the front, shared by the commands of a loop."""

    def __init__(self, data: bytes = b""):
        self.data = data
        self.pos = 0

    def read_all(self) -> bytes:
        data = self.data[self.pos:] if self.pos else self.data
        self.pos = len(self.data)
        return data

    def read_line(self) -> bytes | None:
        if self.pos >= len(self.data):
            return None
        end = self.data.find(b"\n", self.pos)
        end = len(self.data) if end < 0 else end + 1
        line = self.data[self.pos:end]
        self.pos = end
        return line


class Sink:
    """Where a file descriptor's output goes."""

    def write(self, data: bytes) -> None:
        raise NotImplementedError


class NullSink(Sink):
    def write(self, data: bytes) -> None:
        pass


class BufferSink(Sink):
    """A pipe or a $(...) capture: bytes kept in memory, up to the output limit."""

    def __init__(self, budget: Budget):
        self.buffer = bytearray()
        self.budget = budget

    def write(self, data: bytes) -> None:
        if len(self.buffer) + len(data) > self.budget.limits.max_output:
            raise LimitExceeded(*OUTPUT_LIMIT)
        self.buffer += data


class Collector:
    """The shell's own stdout and stderr: chunks in the order written."""

    def __init__(self, budget: Budget):
        self._parts: list[tuple[int, bytearray]] = []
        self.size = 0
        self.budget = budget

    @property
    def chunks(self) -> list[tuple[int, bytes]]:
        return [(fd, bytes(data)) for fd, data in self._parts]

    def sink(self, fd: int) -> Sink:
        return _CollectorSink(self, fd)

    def add(self, fd: int, data: bytes) -> None:
        if not data:
            return
        self.size += len(data)
        if self.size > self.budget.limits.max_output:
            raise LimitExceeded(*OUTPUT_LIMIT)
        if self._parts and self._parts[-1][0] == fd:
            self._parts[-1][1].extend(data)
        else:
            self._parts.append((fd, bytearray(data)))


class _CollectorSink(Sink):
    def __init__(self, collector: Collector, fd: int):
        self.collector, self.fd = collector, fd

    def write(self, data: bytes) -> None:
        self.collector.add(self.fd, data)


class FileSink(Sink):
    """Output redirected to a file on the phone (the writer raises StorageError on a full disk)."""

    def __init__(self, write: Callable[[bytes], None]):
        self._write = write

    def write(self, data: bytes) -> None:
        if data:
            self._write(data)


class IO:
    """The open file descriptors of a command: 0 an Input, 1 and 2 (and more) Sinks."""

    def __init__(self, fds: dict[int, Input | Sink]):
        self.fds = fds

    @property
    def stdin(self) -> Input:
        source = self.fds.get(0)
        return source if isinstance(source, Input) else Input()

    @property
    def out(self) -> Sink:
        sink = self.fds.get(1)
        return sink if isinstance(sink, Sink) else NullSink()

    @property
    def err(self) -> Sink:
        sink = self.fds.get(2)
        return sink if isinstance(sink, Sink) else NullSink()

    def copy(self) -> IO:
        return IO(dict(self.fds))


@dataclass
class Process:
    """What a program started by the shell sees: its directory, its environment, its limits,
    and a way to start other programs (for xargs and env): run(argv, stdin, env=None)."""

    cwd: str
    env: dict[str, str]
    budget: Budget
    run: Callable[..., Result]
