"""The phone's log buffers, and how `logcat` prints them (threadtime by default, or `-v FORMAT`)."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

LEVELS = "VDIWEF"
FORMATS = ("brief", "process", "tag", "thread", "raw", "time", "threadtime", "long")


@dataclass(frozen=True)
class LogEntry:
    time: datetime
    pid: int
    tid: int
    level: str       # one of LEVELS
    tag: str
    message: str
    buffer: str = "main"   # main, system, crash, events

    def format(self, style: str) -> str:
        stamp = self.time.strftime("%m-%d %H:%M:%S.") + f"{self.time.microsecond // 1000:03d}"
        head = f"{self.level}/{self.tag}"
        if style == "brief":
            return f"{head}({self.pid:5d}): {self.message}"
        if style == "process":
            return f"{self.level}({self.pid:5d}) {self.message}  ({self.tag})"
        if style == "tag":
            return f"{head}: {self.message}"
        if style == "thread":
            return f"{self.level}({self.pid:5d}:{self.tid:5d}) {self.message}"
        if style == "raw":
            return self.message
        if style == "time":
            return f"{stamp} {head}({self.pid:5d}): {self.message}"
        if style == "long":
            return f"[ {stamp} {self.pid:5d}:{self.tid:5d} {head} ]\n{self.message}\n"
        return f"{stamp} {self.pid:5d} {self.tid:5d} {self.level} {self.tag}: {self.message}"


class SystemLog:
    """A ring buffer of log lines, shared by every program that writes to or reads the log."""

    def __init__(self, clock: Callable[[], datetime], capacity: int = 5000) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._entries: deque[LogEntry] = deque(maxlen=capacity)

    def write(self, level: str, tag: str, message: str, pid: int, tid: int | None = None,
              buffer: str = "main", at: datetime | None = None) -> None:
        entry = LogEntry(at or self._clock(), pid, pid if tid is None else tid, level, tag, message, buffer)
        with self._lock:
            self._entries.append(entry)

    def entries(self, buffers: set[str] | None = None) -> list[LogEntry]:
        with self._lock:
            return [e for e in self._entries if buffers is None or e.buffer in buffers]

    def clear(self, buffers: set[str] | None = None) -> None:
        with self._lock:
            kept = [e for e in self._entries if buffers is not None and e.buffer not in buffers]
            self._entries.clear()
            self._entries.extend(kept)


def passes(entry: LogEntry, filters: list[tuple[str, str]], default_level: str) -> bool:
    """logcat filter specs (TAG:LEVEL, * for any tag): the first spec naming the tag decides."""
    minimum = default_level
    for tag, level in filters:
        if tag == entry.tag:
            minimum = level
            break
        if tag == "*":
            minimum = level
    if minimum == "S":
        return False
    return LEVELS.index(entry.level) >= LEVELS.index(minimum)
