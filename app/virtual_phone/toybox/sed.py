"""Toybox's sed: addresses (N, $, /regex/, ranges, !), and the commands s, d, p, q, =, y, a, i, c;
options -n, -e, -E/-r, -i, -s."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..storage import StorageError
from .context import Tool, Usage, parse_options
from .regex import RegexError, compile_posix


class SedError(Exception):
    pass


@dataclass
class Command:
    name: str
    first: object = None          # address: int, "$", or compiled regex
    last: object = None
    negate: bool = False
    regex: re.Pattern[str] | None = None
    replacement: str = ""
    flags: str = ""
    text: str = ""
    active: bool = field(default=False)


def _read_delimited(script: str, pos: int, delimiter: str) -> tuple[str, int]:
    out = []
    while pos < len(script):
        ch = script[pos]
        if ch == "\\" and pos + 1 < len(script):
            nxt = script[pos + 1]
            out.append(nxt if nxt == delimiter else "\n" if nxt == "n" else ch + nxt)
            pos += 2
            continue
        if ch == delimiter:
            return "".join(out), pos + 1
        out.append(ch)
        pos += 1
    raise SedError(f"unmatched '{delimiter}'")


def _regex(text: str, extended: bool, flags: int = 0) -> re.Pattern[str]:
    try:
        return re.compile(compile_posix(text, extended), flags)
    except RegexError as exc:
        raise SedError(f"bad regex '{text}': {exc.reason}") from None


def _address(script: str, pos: int, extended: bool):
    if pos < len(script) and script[pos].isdigit() and (match := re.match(r"\d+", script[pos:])):
        return int(match.group()), pos + len(match.group())
    if pos < len(script) and script[pos] == "$":
        return "$", pos + 1
    if pos < len(script) and script[pos] in "/\\":
        delimiter = "/"
        if script[pos] == "\\":
            delimiter, pos = script[pos + 1], pos + 1
        text, pos = _read_delimited(script, pos + 1, delimiter)
        return _regex(text, extended), pos
    return None, pos


def parse_script(script: str, extended: bool) -> list[Command]:
    commands, pos = [], 0
    while pos < len(script):
        while pos < len(script) and script[pos] in " \t\n;":
            pos += 1
        if pos >= len(script):
            break
        first, pos = _address(script, pos, extended)
        last = None
        if first is not None and pos < len(script) and script[pos] == ",":
            last, pos = _address(script, pos + 1, extended)
            if last is None:
                raise SedError("unexpected ','")
        while pos < len(script) and script[pos] == " ":
            pos += 1
        negate = pos < len(script) and script[pos] == "!"
        if negate:
            pos += 1
        if pos >= len(script):
            raise SedError("missing command")
        name = script[pos]
        pos += 1
        command = Command(name, first, last, negate)
        if name == "s":
            if pos >= len(script):
                raise SedError("unterminated 's' command")
            delimiter = script[pos]
            pattern, pos = _read_delimited(script, pos + 1, delimiter)
            command.replacement, pos = _read_delimited(script, pos, delimiter)
            match = re.match(r"[gpiIe0-9]*", script[pos:])   # matches always, if only ""
            command.flags = match.group() if match else ""
            pos += len(command.flags)
            command.regex = _regex(pattern, extended, re.IGNORECASE if set(command.flags) & {"i", "I"} else 0)
        elif name == "y":
            delimiter = script[pos]
            source, pos = _read_delimited(script, pos + 1, delimiter)
            target, pos = _read_delimited(script, pos, delimiter)
            if len(source) != len(target):
                raise SedError("strings for 'y' command are different lengths")
            command.text = source + "\0" + target
        elif name in "aic":
            text = script[pos:].split("\n", 1)[0]
            pos += len(text)
            text = text.lstrip()
            if text.startswith("\\"):
                text = text[1:].lstrip("\n")
            command.text = text.replace("\\n", "\n")
        elif name not in "dpqQ=nNhHgGx":
            raise SedError(f"unknown command '{name}'")
        commands.append(command)
    return commands


def _matches(address, line: str, number: int, last_line: bool) -> bool:
    if address == "$":
        return last_line
    if isinstance(address, int):
        return number == address
    return bool(address.search(line))


def _selected(command: Command, line: str, number: int, last_line: bool) -> bool:
    if command.first is None:
        hit = True
    elif command.last is None:
        hit = _matches(command.first, line, number, last_line)
    elif command.active:
        hit = True
        if _matches(command.last, line, number,
                    last_line) or (isinstance(command.last, int) and number >= command.last):
            command.active = False
    elif _matches(command.first, line, number, last_line):
        hit = True
        command.active = not (isinstance(command.last, int) and command.last <= number)
    else:
        hit = False
    return hit != command.negate


def _substitute(command: Command, line: str) -> tuple[str, bool]:
    """Apply an s command to a line: (new line, whether a replacement was made)."""
    assert command.regex is not None   # the parser compiles every s command's regex
    count_match = re.search(r"\d+", command.flags)
    nth = int(count_match.group()) if count_match else 1
    every = "g" in command.flags
    seen, made = 0, False

    def replace(match: re.Match[str]) -> str:
        nonlocal seen, made
        seen += 1
        if seen < nth or (seen > nth and not every):
            return match.group()
        made = True
        out, i, text = [], 0, command.replacement
        while i < len(text):
            ch = text[i]
            if ch == "\\" and i + 1 < len(text):
                nxt = text[i + 1]
                out.append((match.group(int(nxt)) or "") if nxt.isdigit() else "\n" if nxt == "n" else nxt)
                i += 2
            elif ch == "&":
                out.append(match.group())
                i += 1
            else:
                out.append(ch)
                i += 1
        return "".join(out)
    result = command.regex.sub(replace, line)
    return result, made


def run_sed(commands: list[Command], text: str, quiet: bool, tool: Tool) -> str:
    lines = text.split("\n")
    trailing = text.endswith("\n")
    if trailing:
        lines.pop()
    out: list[str] = []
    for index, line in enumerate(lines):
        number, last_line = index + 1, index == len(lines) - 1
        before, after, deleted, stop = [], [], False, False
        if number % 256 == 0:
            tool.process.budget.tick()
        for command in commands:
            if not _selected(command, line, number, last_line):
                continue
            name = command.name
            if name == "s":
                line, changed = _substitute(command, line)
                if changed and "p" in command.flags:
                    out.append(line)
            elif name == "d":
                deleted = True
                break
            elif name == "p":
                out.append(line)
            elif name == "=":
                out.append(str(number))
            elif name in "qQ":
                stop, deleted = True, name == "Q"
                break
            elif name == "y":
                source, target = command.text.split("\0")
                line = line.translate(str.maketrans(source, target))
            elif name == "a":
                after.append(command.text)
            elif name == "i":
                before.append(command.text)
            elif name == "c":
                if command.last is None or not command.active:
                    before.append(command.text)
                deleted = True
                break
        out.extend(before)
        if not deleted and not quiet:
            out.append(line)
        out.extend(after)
        if stop:
            break
    return "\n".join(out) + ("\n" if out and (trailing or len(out) > len(lines)) else "")


def sed(tool: Tool, args: list[str]) -> int:
    in_place, plain = False, []
    for arg in args:
        match = re.fullmatch(r"-([nrEsz]*)i.*", arg)
        if match:       # -i takes an optional backup suffix attached to it (-i.bak), never a separate word
            in_place = True
            if match.group(1):
                plain.append("-" + match.group(1))
        elif arg == "--in-place":
            in_place = True
        else:
            plain.append(arg)
    options, operands = parse_options(plain, "nrEsz", valued="ef",
                                      long={"quiet": "n", "regexp-extended": "E", "expression": "e"})
    scripts = list(options.get("e", []))
    for script_file in options.get("f", []):
        try:
            scripts.append(tool.read(script_file).decode("utf-8", "surrogateescape"))
        except StorageError as exc:
            tool.fail(script_file, exc)
            return 1
    if not scripts:
        if not operands:
            raise Usage("Needs 1 argument")
        scripts.append(operands.pop(0))
    try:
        commands = parse_script("\n".join(scripts), extended=bool(options.keys() & {"r", "E"}))
    except SedError as exc:
        tool.error(str(exc))
        return 1
    quiet = "n" in options
    if in_place:
        status = 0
        for name in operands:
            try:
                data = tool.read(name).decode("utf-8", "surrogateescape")
                result = run_sed(commands, data, quiet, tool)
                tool.storage.write_file(tool.path(name), result.encode("utf-8", "surrogateescape"))
            except StorageError as exc:
                tool.fail(name, exc)
                status = 1
        return status
    chunks: list[bytes] = []
    status = tool.inputs(operands, lambda name, data: chunks.append(data))
    tool.write(run_sed(commands, b"".join(chunks).decode("utf-8", "surrogateescape"), quiet, tool))
    return status


COMMANDS = {"sed": sed}
