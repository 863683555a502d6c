"""Toybox's commands that walk folders or measure storage: find, du, df."""

from __future__ import annotations

import re
import stat as st

from ..shell_expand import pattern_to_regex
from ..storage import Stat, StorageError
from .context import Tool, Usage, number, parse_options
from .listing import human

_TYPES = {"f": st.S_IFREG, "d": st.S_IFDIR, "l": st.S_IFLNK, "c": st.S_IFCHR, "b": st.S_IFBLK, "p": st.S_IFIFO,
          "s": st.S_IFSOCK}


def _glob(pattern: str, ignore_case: bool = False) -> re.Pattern[str]:
    return re.compile(pattern_to_regex([(c, False) for c in pattern]), re.DOTALL | (re.I if ignore_case else 0))


def find(tool: Tool, args: list[str]) -> int:
    roots = []
    while args and not args[0].startswith("-") and args[0] not in ("(", "!"):
        roots.append(args.pop(0))
    tests, max_depth, min_depth, actions = [], None, 0, []
    index = 0
    negate = False
    while index < len(args):
        option = args[index]
        value = args[index + 1] if index + 1 < len(args) else None
        index += 1
        if option in ("!", "-not"):
            negate = not negate
            continue
        if option in ("-a", "-and"):
            continue
        if option in ("-print", "-print0"):
            actions.append(option)
            continue
        if option in ("-delete", "-exec") or option == "-o":
            tool.error(f"{option}: not supported on this phone's find")
            return 1
        if value is None:
            tool.error(f"'{option}' needs 1 arg")
            return 1
        index += 1
        if option == "-maxdepth":
            max_depth = number(value)
        elif option == "-mindepth":
            min_depth = number(value)
        elif option in ("-name", "-iname"):
            regex = _glob(value, option == "-iname")
            tests.append((negate, lambda name, path, found, r=regex: bool(r.fullmatch(name))))
        elif option in ("-path", "-ipath"):
            regex = _glob(value, option == "-ipath")
            tests.append((negate, lambda name, path, found, r=regex: bool(r.fullmatch(path))))
        elif option == "-type":
            if value not in _TYPES:
                tool.error(f"bad -type '{value}'")
                return 1
            tests.append((negate, lambda name, path, found, t=_TYPES[value]: st.S_IFMT(found.mode) == t))
        elif option == "-size":
            tests.append((negate, _size_test(value)))
        elif option == "-newer":
            try:
                reference = tool.storage.lstat(tool.path(value), True).mtime
            except StorageError as exc:
                tool.fail(value, exc)
                return 1
            tests.append((negate, lambda name, path, found, r=reference: found.mtime > r))
        else:
            tool.error(f"bad arg '{option}'")
            return 1
        negate = False
    terminator = "\0" if "-print0" in actions else "\n"
    status = 0
    for root in roots or ["."]:
        status |= _walk(tool, root, tool.path(root), 0, tests, max_depth, min_depth, terminator)
    return status


def _size_test(spec: str):
    match = re.fullmatch(r"([+-]?)(\d+)([bckMG]?)", spec)
    if not match:
        raise Usage(f"bad -size '{spec}'")
    sign, amount, unit = match.groups()
    scale = {"": 512, "b": 512, "c": 1, "k": 1024, "M": 1 << 20, "G": 1 << 30}[unit]
    wanted = int(amount)

    def test(name: str, path: str, found: Stat) -> bool:
        size = -(-found.size // scale)
        return size > wanted if sign == "+" else size < wanted if sign == "-" else size == wanted
    return test


def _walk(tool: Tool, shown: str, path: str, depth: int, tests, max_depth, min_depth, terminator: str) -> int:
    tool.process.budget.tick()
    try:
        found = tool.storage.lstat(path, follow=depth == 0)
    except StorageError as exc:
        tool.error(f"'{shown}': {exc.reason}")
        return 1
    name = shown.rstrip("/").rsplit("/", 1)[-1] or shown
    if depth >= min_depth and all(negate != test(name, shown, found) for negate, test in tests):
        tool.write(shown + terminator)
    if not found.is_dir or (max_depth is not None and depth >= max_depth):
        return 0
    try:
        entries = tool.storage.entries(path)
    except StorageError as exc:
        tool.error(f"'{shown}': {exc.reason}")
        return 1
    status = 0
    for entry, _ in entries:
        child = f"{shown.rstrip('/')}/{entry}" if shown != "/" else f"/{entry}"
        status |= _walk(tool, child, f"{path.rstrip('/')}/{entry}", depth + 1, tests, max_depth, min_depth,
                        terminator)
    return status


def du(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "aHLlskhmcx", valued="d")
    max_depth = number(options["d"][-1]) if "d" in options else (0 if "s" in options else None)
    status, total = 0, 0
    for name in operands or ["."]:
        try:
            total += _du(tool, name, tool.path(name), 0, max_depth, "a" in options, "h" in options)
        except StorageError as exc:
            tool.error(f"{name}: {exc.reason}")
            status = 1
    if "c" in options:
        tool.write(f"{_du_size(total, 'h' in options)}\ttotal\n")
    return status


def _du_size(kib: int, human_readable: bool) -> str:
    return human(kib * 1024) if human_readable else str(kib)


def _du(tool: Tool, shown: str, path: str, depth: int, max_depth, every: bool, human_readable: bool) -> int:
    tool.process.budget.tick()
    found = tool.storage.lstat(path, follow=depth == 0)
    size = -(-found.size // 4096) * 4 if not found.is_dir else 4
    if found.is_dir:
        for entry, _ in tool.storage.entries(path):
            size += _du(tool, f"{shown.rstrip('/')}/{entry}", f"{path.rstrip('/')}/{entry}", depth + 1, max_depth,
                        every, human_readable)
    if (found.is_dir or every or depth == 0) and (max_depth is None or depth <= max_depth):
        tool.write(f"{_du_size(size, human_readable)}\t{shown}\n")
    return size


def df(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "ahHikPt", valued="t")
    used, capacity = tool.storage.usage()
    data = (capacity // 1024, used // 1024, (capacity - used) // 1024)
    mounts = [("tmpfs", (2 * 1024 * 1024, 1024, 2 * 1024 * 1024 - 1024), "/dev"),
              ("/dev/block/dm-0", (1_048_576, 1_031_200, 17_376), "/"),
              ("/dev/block/dm-5", data, "/data"),
              ("/dev/fuse", data, "/storage/emulated")]
    if operands:
        chosen: list[tuple[str, tuple[int, int, int], str]] = []
        for name in operands:
            path = tool.storage.realpath(tool.path(name))
            if not tool.storage.exists(path):
                tool.error(f"{name}: No such file or directory")
                continue
            mount = "/storage/emulated" if path.startswith("/sdcard") else \
                "/data" if path.startswith("/data") else "/dev" if path.startswith("/dev") else "/"
            chosen.extend(m for m in mounts if m[2] == mount)
        mounts = chosen
    readable = "h" in options
    header = "Size  Used Avail" if readable else "1K-blocks    Used Available"
    tool.write(f"Filesystem      {header} Use% Mounted on\n")
    for device, (size, in_use, free), where in mounts:
        percent = f"{-(-in_use * 100 // size) if size else 0}%"
        if readable:
            tool.write(f"{device:<15} {human(size * 1024):>4} {human(in_use * 1024):>5} {human(free * 1024):>5} "
                       f"{percent:>4} {where}\n")
        else:
            tool.write(f"{device:<15} {size:>9} {in_use:>7} {free:>9} {percent:>4} {where}\n")
    return 0


COMMANDS = {"find": find, "du": du, "df": df}
