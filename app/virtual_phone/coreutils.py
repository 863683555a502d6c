"""The toybox utilities a phone's shell has, as far as ADB clients use them."""

from __future__ import annotations

import re
import time
from typing import Callable

from .shell import Result
from .storage import PhoneStorage

Utility = Callable[[PhoneStorage, list[str], bytes], Result]


def _missing(name: str, path: str) -> Result:
    return Result(stderr=f"{name}: {path}: No such file or directory\n".encode(), code=1)


def echo(storage: PhoneStorage, argv: list[str], stdin: bytes) -> Result:
    args = argv[1:]
    newline = True
    if args[:1] == ["-n"]:
        newline, args = False, args[1:]
    return Result(stdout=(" ".join(args) + ("\n" if newline else "")).encode("utf-8"))


def cat(storage: PhoneStorage, argv: list[str], stdin: bytes) -> Result:
    paths = [a for a in argv[1:] if a != "-"]
    if not paths:
        return Result(stdout=stdin)
    out = bytearray()
    for path in paths:
        data = storage.read(path)
        if data is None:
            return Result(stdout=bytes(out), stderr=f"cat: {path}: No such file or directory\n".encode(), code=1)
        out += data
    return Result(stdout=bytes(out))


def rm(storage: PhoneStorage, argv: list[str], stdin: bytes) -> Result:
    force = any(a.startswith("-") and "f" in a for a in argv[1:])
    for path in (a for a in argv[1:] if not a.startswith("-")):
        if not storage.remove(path) and not force:
            return Result(stderr=f"rm: {path}: No such file or directory\n".encode(), code=1)
    return Result()


def mkdir(storage: PhoneStorage, argv: list[str], stdin: bytes) -> Result:
    for path in (a for a in argv[1:] if not a.startswith("-")):
        storage.make_dirs(path)
    return Result()


def ls(storage: PhoneStorage, argv: list[str], stdin: bytes) -> Result:
    paths = [a for a in argv[1:] if not a.startswith("-")] or ["/"]
    out = []
    for path in paths:
        entries = storage.list_dir(path)
        if entries is None:
            if storage.stat(path) is None:
                return _missing("ls", path)
            out.append(path)
        else:
            out.extend(name for name, *_ in entries)
    return Result(stdout="".join(line + "\n" for line in out).encode("utf-8"))


def sleep(storage: PhoneStorage, argv: list[str], stdin: bytes) -> Result:
    try:
        time.sleep(min(float(argv[1]), 10.0) if len(argv) > 1 else 0)
    except ValueError:
        return Result(stderr=f"sleep: invalid number '{argv[1]}'\n".encode(), code=1)
    return Result()


def grep(storage: PhoneStorage, argv: list[str], stdin: bytes) -> Result:
    flags = "".join(a[1:] for a in argv[1:] if a.startswith("-") and len(a) > 1)
    rest = [a for a in argv[1:] if not (a.startswith("-") and len(a) > 1)]
    if not rest:
        return Result(stderr=b"usage: grep [-Eiov] PATTERN [FILE...]\n", code=2)
    pattern = rest[0]
    try:
        # Basic patterns are matched literally: what ADB clients grep for has no regex syntax.
        regex = re.compile(pattern if "E" in flags else re.escape(pattern),
                           re.IGNORECASE if "i" in flags else 0)
    except re.error:
        return Result(stderr=b"grep: bad regex\n", code=2)
    data = stdin
    if len(rest) > 1:
        data = storage.read(rest[1])
        if data is None:
            return _missing("grep", rest[1])
    lines = data.decode("utf-8", "replace").splitlines()
    invert = "v" in flags
    hits = [line for line in lines if bool(regex.search(line)) != invert]
    return Result(stdout="".join(h + "\n" for h in hits).encode("utf-8"), code=0 if hits else 1)


def head(storage: PhoneStorage, argv: list[str], stdin: bytes) -> Result:
    count = 10
    for i, arg in enumerate(argv[1:], start=1):
        if arg == "-n" and i + 1 < len(argv):
            count = int(argv[i + 1])
        elif arg.startswith("-") and arg[1:].isdigit():
            count = int(arg[1:])
    lines = stdin.splitlines(keepends=True)
    return Result(stdout=b"".join(lines[:count]))


def fixed(text: str, code: int = 0) -> Utility:
    return lambda storage, argv, stdin: Result(stdout=text.encode(), code=code)


UTILITIES: dict[str, Utility] = {
    "echo": echo,
    "cat": cat,
    "rm": rm,
    "mkdir": mkdir,
    "ls": ls,
    "sleep": sleep,
    "grep": grep,
    "head": head,
    "true": fixed(""),
    "false": fixed("", 1),
    "id": fixed("uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log) context=u:r:shell:s0\n"),
    "whoami": fixed("shell\n"),
}
