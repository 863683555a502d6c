"""Toybox's file commands: cat, rm, rmdir, mkdir, mv, cp, touch, chmod, ln, readlink, realpath,
basename, dirname, pwd. Messages follow toybox on Android."""

from __future__ import annotations

import posixpath
import stat as st
from datetime import UTC, datetime

from ..storage import NOENT, StorageError
from .context import Tool, Usage, parse_options

# ---------------------------------------------------------------------------- reading


def cat(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "uvtenAs")
    return tool.inputs(operands, lambda name, data: tool.write(data))


def readlink(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "efmnqvz")
    status = 0
    for name in operands:
        try:
            if options.keys() & {"e", "f", "m"}:
                target = tool.storage.realpath(tool.path(name))
                if "e" in options or "f" in options:
                    tool.storage.lstat(target if "e" in options else posixpath.dirname(target) or "/", True)
            else:
                target = tool.storage.readlink(tool.path(name))
        except StorageError:
            status = 1
            continue
        tool.write(target + ("" if "n" in options else "\n"))
    return status


def realpath(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "LPemqsz")
    status = 0
    for name in operands:
        try:
            target = tool.storage.realpath(tool.path(name))
            tool.storage.lstat(posixpath.dirname(target) or "/", True)
            if "e" in options:
                tool.storage.lstat(target, True)
        except StorageError as exc:
            if "q" not in options:
                tool.fail(name, exc)
            status = 1
            continue
        tool.write(target + "\n")
    return status


def basename(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "a", valued="s", stop_at_operand=True)
    if not operands:
        raise Usage("Needs 1 argument")
    suffix = options.get("s", [""])[-1]
    names = operands if ("a" in options or "s" in options) else operands[:1]
    if len(operands) == 2 and not options:
        suffix = operands[1]
    for name in names:
        base = posixpath.basename(name.rstrip("/")) or ("/" if name.startswith("/") else "")
        if suffix and base != suffix and base.endswith(suffix):
            base = base[:-len(suffix)]
        tool.write(base + "\n")
    return 0


def dirname(tool: Tool, args: list[str]) -> int:
    if not args:
        raise Usage("Needs 1 argument")
    for name in args:
        stripped = name.rstrip("/")
        folder = posixpath.dirname(stripped).rstrip("/") if "/" in stripped else "."
        tool.write((folder or "/") + "\n")
    return 0


def pwd(tool: Tool, args: list[str]) -> int:
    tool.write(tool.process.cwd + "\n")
    return 0


# ---------------------------------------------------------------------------- changing


def mkdir(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "pv", valued="mZ")
    if not operands:
        raise Usage("Needs 1 argument")
    mode = int(options["m"][-1], 8) if "m" in options else 0o777
    status = 0
    for name in operands:
        path = tool.path(name)
        try:
            if "p" in options:
                _make_parents(tool, path, mode)
            else:
                tool.storage.mkdir(path, mode)
        except StorageError as exc:
            tool.error(f"'{name}': {exc.reason}")
            status = 1
    return status


def _make_parents(tool: Tool, path: str, mode: int) -> None:
    parts = [p for p in path.split("/") if p]
    for index in range(1, len(parts) + 1):
        partial = "/" + "/".join(parts[:index])
        if tool.storage.is_dir(partial):
            continue
        tool.storage.mkdir(partial, mode)


def rmdir(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "p")
    status = 0
    for name in operands:
        path = tool.path(name)
        while True:
            try:
                tool.storage.rmdir(path)
            except StorageError as exc:
                tool.fail(name, exc)
                status = 1
                break
            path = posixpath.dirname(path)
            if "p" not in options or path in ("/", "."):
                break
    return status


def rm(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "fiRrv")
    force, recursive = "f" in options, bool(options.keys() & {"r", "R"})
    if not operands and not force:
        raise Usage("Needs 1 argument")
    status = 0
    for name in operands:
        path = tool.path(name)
        if path == "/":
            tool.error("rm /. if you mean it")
            status = 1
            continue
        try:
            found = tool.storage.lstat(path)
            if found.is_dir:
                if not recursive:
                    raise StorageError("Is a directory")
                tool.storage.rmdir(path, recursive=True)
            else:
                tool.storage.unlink(path)
        except StorageError as exc:
            if not (force and exc.reason == NOENT):
                tool.fail(name, exc)
                status = 1
    return status


def touch(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "acmh", valued="dtr")
    when: float | None = None
    if "r" in options:
        try:
            when = tool.storage.lstat(tool.path(options["r"][-1]), True).mtime
        except StorageError as exc:
            tool.fail(options["r"][-1], exc)
            return 1
    elif "t" in options or "d" in options:
        when = _parse_touch_time(options.get("t", options.get("d", [""]))[-1])
        if when is None:
            raise Usage(f"bad date '{options['t' if 't' in options else 'd'][-1]}'")
    status = 0
    for name in operands:
        try:
            tool.storage.touch(tool.path(name), when, create="c" not in options)
        except StorageError as exc:
            tool.error(f"'{name}': {exc.reason}")
            status = 1
    return status


def _parse_touch_time(text: str) -> float | None:
    for fmt in ("%Y%m%d%H%M.%S", "%Y%m%d%H%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d"):
        try:
            return datetime.strptime(text, fmt).replace(tzinfo=UTC).timestamp()
        except ValueError:
            continue
    if text.startswith("@") and text[1:].isdigit():
        return float(text[1:])
    return None


def chmod(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "Rfv")
    if len(operands) < 2:
        raise Usage("Needs 2 arguments")
    spec, names = operands[0], operands[1:]
    status = 0
    for name in names:
        path = tool.path(name)
        try:
            current = tool.storage.lstat(path, True).mode
            mode = _apply_mode(spec, current)
            if mode is None:
                raise Usage(f"bad mode '{spec}'")
            tool.storage.chmod(path, mode)
        except StorageError as exc:
            tool.error(f"'{name}': {exc.reason}")
            status = 1
    return status


def _apply_mode(spec: str, current: int) -> int | None:
    if spec.isdigit():
        try:
            return int(spec, 8)
        except ValueError:
            return None
    mode = current & 0o7777
    for clause in spec.split(","):
        who_text = ""
        while clause and clause[0] in "ugoa":
            who_text, clause = who_text + clause[0], clause[1:]
        if not clause or clause[0] not in "+-=":
            return None
        op, perms = clause[0], clause[1:]
        who = who_text or "a"
        mask = 0
        for person in who:
            shifts = {"u": [6], "g": [3], "o": [0], "a": [6, 3, 0]}[person]
            for shift in shifts:
                for letter, bit in (("r", 4), ("w", 2), ("x", 1)):
                    if letter in perms:
                        mask |= bit << shift
        if op == "+":
            mode |= mask
        elif op == "-":
            mode &= ~mask
        else:
            clear = sum(7 << s for p in who for s in {"u": [6], "g": [3], "o": [0], "a": [6, 3, 0]}[p])
            mode = (mode & ~clear) | mask
    return mode


def ln(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "sfnTv")
    if len(operands) < 2 or "s" not in options:
        tool.error("cannot create hard link: Operation not permitted" if len(operands) >= 2 else "Needs 1 argument")
        return 1
    target, link = operands[0], tool.path(operands[-1])
    if tool.storage.is_dir(link) and "n" not in options:
        link = f"{link}/{posixpath.basename(target)}"
    try:
        if "f" in options and tool.storage.exists(link):
            tool.storage.unlink(link)
        tool.storage.symlink(target, link)
    except StorageError as exc:
        tool.error(f"cannot create symbolic link from '{target}' to '{operands[-1]}': {exc.reason}")
        return 1
    return 0


def cp(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "aDdFfHiLlnPpRrsTuv", valued="t")
    return _copy_or_move(tool, operands, recursive=bool(options.keys() & {"r", "R", "a"}), move=False,
                         no_clobber="n" in options)


def mv(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "FfinTvx", valued="t")
    return _copy_or_move(tool, operands, recursive=True, move=True, no_clobber="n" in options)


def _copy_or_move(tool: Tool, operands: list[str], recursive: bool, move: bool, no_clobber: bool) -> int:
    if len(operands) < 2:
        raise Usage("Needs 2 arguments")
    *sources, destination = operands
    target = tool.path(destination)
    into = tool.storage.is_dir(target)
    if len(sources) > 1 and not into:
        tool.error(f"'{destination}' not directory")
        return 1
    status = 0
    for name in sources:
        source = tool.path(name)
        final = f"{target}/{posixpath.basename(source)}" if into else target
        try:
            found = tool.storage.lstat(source)
            if no_clobber and tool.storage.exists(final):
                continue
            if move:
                tool.storage.rename(source, final)
            elif found.is_dir:
                if not recursive:
                    tool.error(f"Skipped dir '{name}'")
                    status = 1
                    continue
                if (final + "/").startswith(source.rstrip("/") + "/"):
                    tool.error(f"'{name}' is '{destination}'")
                    status = 1
                    continue
                _copy_tree(tool, source, final)
            else:
                tool.storage.write_file(final, tool.storage.read_file(source), mode=found.mode & 0o777)
        except StorageError as exc:
            tool.error(f"'{name}': {exc.reason}" if move else f"{name}: {exc.reason}")
            status = 1
    return status


def _copy_tree(tool: Tool, source: str, target: str) -> None:
    tool.process.budget.tick()
    if not tool.storage.is_dir(target):
        tool.storage.mkdir(target)
    for name, found in tool.storage.entries(source):
        if found.is_dir:
            _copy_tree(tool, f"{source}/{name}", f"{target}/{name}")
        elif st.S_ISLNK(found.mode):
            tool.storage.symlink(tool.storage.readlink(f"{source}/{name}"), f"{target}/{name}")
        else:
            tool.storage.write_file(f"{target}/{name}", tool.storage.read_file(f"{source}/{name}"),
                                    mode=found.mode & 0o777)


COMMANDS = {"cat": cat, "readlink": readlink, "realpath": realpath, "basename": basename,
            "dirname": dirname, "pwd": pwd, "mkdir": mkdir, "rmdir": rmdir, "rm": rm, "touch": touch,
            "chmod": chmod, "ln": ln, "cp": cp, "mv": mv}
