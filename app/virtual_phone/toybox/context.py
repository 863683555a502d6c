"""What a toybox command gets: its arguments, stdin, the phone, the storage, and helpers that
write output and errors in toybox's style ("ls: /nope: No such file or directory")."""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..shell_io import OUTPUT_LIMIT, LimitExceeded, Result
from ..storage import PhoneStorage, StorageError

if TYPE_CHECKING:
    from ..phone import VirtualPhone
    from ..shell import Process

USER_NAMES = {0: "root", 1000: "system", 1001: "radio", 1007: "log", 1015: "sdcard_rw", 1023: "media_rw",
              1036: "logd", 2000: "shell", 9997: "everybody"}


def user_name(uid: int) -> str:
    if uid in USER_NAMES:
        return USER_NAMES[uid]
    if 10000 <= uid < 20000:
        return f"u0_a{uid - 10000}"
    return str(uid)


class Usage(Exception):
    """Bad options: toybox prints the message and exits 1."""


@dataclass
class Tool:
    """One run of a toybox command."""

    name: str
    storage: PhoneStorage
    process: Process
    stdin: bytes = b""
    phone: VirtualPhone | None = None
    chunks: list[tuple[int, bytearray]] = field(default_factory=list)
    size: int = 0

    # ------------------------------------------------------------------ output
    def write(self, data: str | bytes, fd: int = 1) -> None:
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogateescape")
        if not data:
            return
        self.size += len(data)
        if self.size > self.process.budget.limits.max_output:
            raise LimitExceeded(*OUTPUT_LIMIT)
        if self.chunks and self.chunks[-1][0] == fd:
            self.chunks[-1][1].extend(data)
        else:
            self.chunks.append((fd, bytearray(data)))

    def error(self, message: str) -> None:
        self.write(f"{self.name}: {message}\n", 2)

    def fail(self, path: str, exc: StorageError) -> None:
        self.error(f"{path}: {exc.reason}")

    def result(self, code: int) -> Result:
        return Result(chunks=[(fd, bytes(data)) for fd, data in self.chunks], code=code)

    # ------------------------------------------------------------------ files
    def path(self, name: str) -> str:
        resolved = posixpath.normpath(posixpath.join(self.process.cwd, name))
        return "/" + resolved.lstrip("/") if resolved.startswith("//") else resolved

    def read(self, name: str) -> bytes:
        """A file's contents (`-` is stdin); raises StorageError."""
        if name == "-":
            return self.stdin
        return self.storage.read_file(self.path(name), limit=self.process.budget.limits.max_output + 1)

    def inputs(self, names: list[str], each: Callable[[str, bytes], None]) -> int:
        """Call `each(name, data)` for every readable input (stdin when none); 1 if any failed."""
        status = 0
        for name in names or ["-"]:
            try:
                data = self.read(name)
            except StorageError as exc:
                self.fail(name, exc)
                status = 1
                continue
            each(name, data)
        return status


def parse_options(args: list[str], flags: str, valued: str = "", stop_at_operand: bool = False,
                  long: dict[str, str] | None = None) -> tuple[dict[str, list[str]], list[str]]:
    """Toybox-style options: combined flags (-la), values (-n 5, -n5), `--`, options after operands.

    Returns ({flag: [values...]}, operands); a flag without value maps to [""] per use.
    """
    options: dict[str, list[str]] = {}
    operands: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--":
            operands.extend(args[index:])
            break
        if arg.startswith("--") and long is not None:
            name, has_value, value = arg[2:].partition("=")
            if name not in long:
                raise Usage(f"Unknown option '{name}'")
            key = long[name]
            if key in valued and not has_value:
                if index >= len(args):
                    raise Usage(f"Missing argument to --{name}")
                value, index = args[index], index + 1
            options.setdefault(key, []).append(value)
            continue
        if not arg.startswith("-") or arg == "-" or len(arg) < 2:
            operands.append(arg)
            if stop_at_operand:
                operands.extend(args[index:])
                break
            continue
        position = 1
        while position < len(arg):
            letter = arg[position]
            position += 1
            if letter in valued:
                value = arg[position:]
                if not value:
                    if index >= len(args):
                        raise Usage(f"Missing argument to -{letter}")
                    value, index = args[index], index + 1
                options.setdefault(letter, []).append(value)
                break
            if letter not in flags:
                raise Usage(f"Unknown option '{letter}'")
            options.setdefault(letter, []).append("")
    return options, operands


def number(text: str, what: str = "") -> int:
    try:
        return int(text)
    except ValueError:
        raise Usage(f"not integer: {text}" if not what else f"bad {what} '{text}'") from None
