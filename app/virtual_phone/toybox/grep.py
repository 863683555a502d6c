"""Toybox's grep (and egrep, fgrep): basic and extended regular expressions, -c -i -l -n -o -q -v -w -x -r."""

from __future__ import annotations

import re

from ..storage import StorageError
from .context import Tool, number, parse_options
from .regex import RegexError, compile_posix


def grep(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "EFiIvcohHnqswxlLrRzZa", valued="efmABC")
    if tool.name == "egrep":
        options.setdefault("E", [""])
    if tool.name == "fgrep":
        options.setdefault("F", [""])
    patterns = list(options.get("e", []))
    for pattern_file in options.get("f", []):
        try:
            patterns += tool.read(pattern_file).decode("utf-8", "surrogateescape").splitlines()
        except StorageError as exc:
            tool.fail(pattern_file, exc)
            return 2
    if not patterns:
        if not operands:
            tool.error("usage: grep [-ABcCEFhHiIlLmnoqrRsvwxzZ] [-e REGEX]... [-f REGFILE] [FILE]...")
            return 2
        patterns = operands.pop(0).split("\n")
    flags = re.IGNORECASE if "i" in options else 0
    try:
        regexes = [_grep_regex(p, options, flags) for p in patterns]
    except RegexError as exc:
        tool.error(f"bad REGEX '{exc.pattern}': {exc.reason}")
        return 2
    files = operands
    if options.keys() & {"r", "R"}:
        files = _expand_recursive(tool, files or ["."])
    show_names = ("H" in options or len(files) > 1) and "h" not in options
    limit = number(options["m"][-1]) if "m" in options else None
    matched_any, status = False, 0
    for name in files or ["-"]:
        try:
            data = tool.read(name)
        except StorageError as exc:
            if "s" not in options:
                tool.fail(name, exc)
            status = 2
            continue
        shown = "(standard input)" if name == "-" else name
        count = _grep_one(tool, regexes, data, options, shown if show_names else None, limit)
        matched_any = matched_any or count > 0
        if "q" in options and matched_any:
            return 0
        if "c" in options:
            tool.write(f"{shown}:{count}\n" if show_names else f"{count}\n")
        elif "l" in options and count:
            tool.write(shown + "\n")
        elif "L" in options and not count:
            tool.write(shown + "\n")
    if status and not matched_any:
        return 2
    return 0 if matched_any else 1


def _grep_regex(pattern: str, options: dict, flags: int) -> re.Pattern[str]:
    source = re.escape(pattern) if "F" in options else compile_posix(pattern, extended="E" in options)
    if "w" in options:
        source = rf"(?<![\w])(?:{source})(?![\w])"
    if "x" in options:
        source = rf"(?:{source})\Z"
    try:
        return re.compile(source, flags)
    except re.error as exc:
        raise RegexError(pattern, str(exc)) from None


def _grep_one(tool: Tool, regexes, data: bytes, options: dict, name: str | None, limit: int | None) -> int:
    text = data.decode("utf-8", "surrogateescape")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    invert, count = "v" in options, 0
    quiet = options.keys() & {"q", "c", "l", "L"}
    for number_, line in enumerate(lines, start=1):
        hits = [m for r in regexes
                for m in (r.finditer(line) if "o" in options and not invert
                          else [r.match(line) if "x" in options else r.search(line)]) if m]
        if bool(hits) == invert:
            continue
        count += 1
        if not quiet:
            prefix = (f"{name}:" if name else "") + (f"{number_}:" if "n" in options else "")
            if "o" in options and not invert:
                for hit in sorted(hits, key=lambda m: m.start()):
                    if hit.group():
                        tool.write(f"{prefix}{hit.group()}\n")
            else:
                tool.write(f"{prefix}{line}\n")
        if limit is not None and count >= limit:
            break
    return count


def _expand_recursive(tool: Tool, names: list[str]) -> list[str]:
    out = []
    for name in names:
        if not tool.storage.is_dir(tool.path(name)):
            out.append(name)
            continue
        try:
            entries = tool.storage.entries(tool.path(name))
        except StorageError as exc:
            tool.fail(name, exc)
            continue
        out += _expand_recursive(tool, [f"{name.rstrip('/')}/{entry}" for entry, _ in entries])
    return out



COMMANDS = {"grep": grep, "egrep": grep, "fgrep": grep}
