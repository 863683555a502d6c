"""Toybox's ls and stat, in the formats Android prints (long-iso times, owner names, totals)."""

from __future__ import annotations

import posixpath
import stat as st
from datetime import UTC, datetime

from ..storage import Stat, StorageError
from .context import Tool, Usage, parse_options, user_name


def mode_string(mode: int) -> str:
    kind = {st.S_IFDIR: "d", st.S_IFLNK: "l", st.S_IFCHR: "c", st.S_IFBLK: "b", st.S_IFIFO: "p",
            st.S_IFSOCK: "s"}.get(st.S_IFMT(mode), "-")
    bits = ""
    for shift, special, letter in ((6, st.S_ISUID, "s"), (3, st.S_ISGID, "s"), (0, st.S_ISVTX, "t")):
        triple = (mode >> shift) & 7
        execute = "x" if triple & 1 else "-"
        if mode & special:
            execute = letter if triple & 1 else letter.upper()
        bits += ("r" if triple & 4 else "-") + ("w" if triple & 2 else "-") + execute
    return kind + bits


def iso_time(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M")


def _blocks(found: Stat) -> int:
    """Disk use in KiB, as the phone's 4 KiB-block file systems count it (short links take none)."""
    if st.S_ISLNK(found.mode):
        return 0
    return -(-found.size // 4096) * 4 if not found.is_dir else 4


def human(size: int) -> str:
    value, units = float(size), "KMGTPE"
    if size < 1024:
        return str(size)
    for unit in units:
        value /= 1024
        if value < 1024 or unit == units[-1]:
            return f"{value:.1f}{unit}" if value < 10 else f"{value:.0f}{unit}"
    return str(size)


# ---------------------------------------------------------------------------- ls


def ls(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "1aAdlnRrStFhiscCx")
    long = "l" in options or "n" in options
    status = 0
    files: list[tuple[str, Stat]] = []
    folders: list[tuple[str, Stat]] = []
    for name in operands or ["."]:
        path = tool.path(name)
        try:
            found = tool.storage.lstat(path, follow=not long or name.endswith("/"))
            if found.is_dir or (st.S_ISLNK(found.mode) and not long and tool.storage.is_dir(path)):
                found = tool.storage.lstat(path, follow=True)
        except StorageError as exc:
            tool.fail(name, exc)
            status = 1
            continue
        (folders if found.is_dir and "d" not in options else files).append((name, found))
    if files:
        _ls_entries(tool, [(n, s, tool.path(n)) for n, s in _sorted(files, options)], options)
    headed = len(operands) > 1 or bool(files) or "R" in options
    for index, (name, _) in enumerate(_sorted(folders, options)):
        status |= _ls_folder(tool, name, options, headed, first=index == 0 and not files)
    return status


def _sorted(items: list, options: dict) -> list:
    if "S" in options:
        items = sorted(items, key=lambda item: (-item[1].size, item[0]))
    elif "t" in options:
        items = sorted(items, key=lambda item: (-item[1].mtime, item[0]))
    else:
        items = sorted(items, key=lambda item: item[0])
    return items[::-1] if "r" in options else items


def _ls_folder(tool: Tool, name: str, options: dict, headed: bool, first: bool) -> int:
    path = tool.path(name)
    try:
        entries = tool.storage.entries(path)
    except StorageError as exc:
        tool.fail(name, exc)
        return 1
    if "a" in options:
        entries = [(".", tool.storage.lstat(path, True)),
                   ("..", tool.storage.lstat(posixpath.dirname(path) or "/", True))] + entries
    elif "A" not in options:
        entries = [(n, s) for n, s in entries if not n.startswith(".")]
    if headed:
        tool.write(("" if first else "\n") + f"{name}:\n")
    if "l" in options or "n" in options or "s" in options:
        tool.write(f"total {sum(_blocks(s) for _, s in entries)}\n")
    rows = [(n, s, f"{path.rstrip('/')}/{n}") for n, s in _sorted(entries, options)]
    _ls_entries(tool, rows, options)
    status = 0
    if "R" in options:
        for entry, found, _ in rows:
            if found.is_dir and entry not in (".", ".."):
                status |= _ls_folder(tool, f"{name.rstrip('/')}/{entry}", options, True, False)
    return status


def _ls_entries(tool: Tool, rows: list[tuple[str, Stat, str]], options: dict) -> None:
    if not rows:                     # an empty folder: `total 0` (for -l) and nothing else
        return
    if not ("l" in options or "n" in options):
        for name, found, _ in rows:
            suffix = "/" if "F" in options and found.is_dir else ""
            inode = f"{found.ino} " if "i" in options else ""
            tool.write(f"{inode}{name}{suffix}\n")
        return
    numeric = "n" in options
    table = []
    for name, found, path in rows:
        size = human(found.size) if "h" in options else str(found.size)
        owner = str(found.uid) if numeric else user_name(found.uid)
        group = str(found.gid) if numeric else user_name(found.gid)
        shown = name
        if st.S_ISLNK(found.mode):
            try:
                shown += " -> " + tool.storage.readlink(path)
            except StorageError:
                pass
        table.append((mode_string(found.mode), str(found.nlink), owner, group, size, iso_time(found.mtime), shown))
    widths = [max(len(row[i]) for row in table) for i in range(5)]
    for mode, links, owner, group, size, when, shown in table:
        tool.write(f"{mode} {links:>{widths[1]}} {owner:<{widths[2]}} {group:<{widths[3]}} "
                   f"{size:>{widths[4]}} {when} {shown}\n")


# ---------------------------------------------------------------------------- stat


_FILE_TYPES = {st.S_IFCHR: "character device", st.S_IFDIR: "directory", st.S_IFBLK: "block device",
               st.S_IFREG: "regular file", st.S_IFLNK: "symbolic link", st.S_IFSOCK: "socket",
               st.S_IFIFO: "FIFO (named pipe)"}
DEFAULT_STAT_FORMAT = ("  File: %N\n  Size: %s\t Blocks: %b\t IO Blocks: %B\t %F\n"
                       "Device: %Dh/%dd\t Inode: %i\t Links: %h\t Device type: %t,%T\n"
                       "Access: (%04a/%A)\tUid: (%5u/%8U)\tGid: (%5g/%8G)\n"
                       "Access: %x\nModify: %y\nChange: %z\n")


def stat(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "Lft", valued="c")
    if not operands:
        raise Usage("Needs 1 argument")
    fmt = options["c"][-1] + "\n" if "c" in options else DEFAULT_STAT_FORMAT
    status = 0
    for name in operands:
        path = tool.path(name)
        try:
            found = tool.storage.lstat(path, follow="L" in options)
            link = tool.storage.readlink(path) if st.S_ISLNK(found.mode) else ""
        except StorageError as exc:
            tool.error(f"{name}: {exc.reason}")
            status = 1
            continue
        tool.write(_stat_format(fmt, name, found, link))
    return status


def _stat_format(fmt: str, name: str, found: Stat, link: str) -> str:
    when = datetime.fromtimestamp(found.mtime, UTC).strftime("%Y-%m-%d %H:%M:%S.000000000 +0000")
    kind = _FILE_TYPES.get(st.S_IFMT(found.mode), "regular file")
    if kind == "regular file" and found.size == 0:
        kind = "regular empty file"
    values = {
        "a": ("o", found.mode & 0o7777), "A": ("s", mode_string(found.mode)), "b": ("d", _blocks(found) * 2),
        "B": ("d", 512), "d": ("d", 64784), "D": ("x", 64784), "f": ("x", found.mode), "F": ("s", kind),
        "g": ("d", found.gid), "G": ("s", user_name(found.gid)), "h": ("d", found.nlink), "i": ("d", found.ino),
        "n": ("s", name), "N": ("s", name + (f" -> '{link}'" if link else "")), "o": ("d", 4096),
        "s": ("d", found.size), "t": ("x", 0), "T": ("x", 0), "u": ("d", found.uid),
        "U": ("s", user_name(found.uid)), "x": ("s", when), "X": ("d", found.mtime), "y": ("s", when),
        "Y": ("d", found.mtime), "z": ("s", when), "Z": ("d", found.mtime), "C": ("s", "u:object_r:shell_data_file:s0"),
        "m": ("s", "/"),
    }
    out, i = [], 0
    while i < len(fmt):
        ch = fmt[i]
        if ch == "\\" and i + 1 < len(fmt):
            out.append({"n": "\n", "t": "\t", "\\": "\\"}.get(fmt[i + 1], fmt[i + 1]))
            i += 2
            continue
        if ch != "%":
            out.append(ch)
            i += 1
            continue
        j = i + 1
        while j < len(fmt) and (fmt[j].isdigit() or fmt[j] in "-+ #"):
            j += 1
        if j >= len(fmt):
            out.append(fmt[i:])
            break
        spec, letter = fmt[i + 1:j], fmt[j]
        if letter == "%":
            out.append("%")
        elif letter in values:
            kind_code, value = values[letter]
            out.append(("%" + spec + kind_code) % value)
        else:
            out.append("?")
        i = j + 1
    return "".join(out)



COMMANDS = {"ls": ls, "stat": stat}
