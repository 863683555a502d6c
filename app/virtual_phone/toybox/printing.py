"""Toybox's echo, printf and base64."""

from __future__ import annotations

import base64 as b64
import binascii
import re

from ..shell_builtins import backslash_escapes, echo_text
from ..storage import StorageError
from .context import Tool, Usage, number, parse_options


def echo(tool: Tool, args: list[str]) -> int:
    tool.write(echo_text(args, escapes=False))
    return 0


_SPEC = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?([diouxXcsbfeEgG%])")


def _int_argument(tool: Tool, text: str) -> tuple[int, bool]:
    value = text.strip()
    if value[:1] in ("'", '"') and len(value) > 1:
        return ord(value[1]), True
    try:
        return int(value, 0) if re.fullmatch(r"[-+]?0[xX][0-9a-fA-F]+|[-+]?0[0-7]*", value) else int(value), True
    except ValueError:
        tool.error(f"invalid number '{text}'")
        return 0, False


def printf(tool: Tool, args: list[str]) -> int:
    if not args:
        raise Usage("Needs 1 argument")
    fmt, values = args[0], args[1:]
    status = 0
    position = 0
    while True:
        out: list[str] = []
        i, consumed = 0, False
        while i < len(fmt):
            ch = fmt[i]
            if ch == "\\":
                text, go_on = backslash_escapes(fmt[i:i + 5] if fmt[i + 1:i + 2] == "0" else fmt[i:i + 2])
                if not go_on:
                    tool.write("".join(out))
                    return status
                out.append(text)
                i += 5 if fmt[i + 1:i + 2] == "0" else 2
                continue
            match = _SPEC.match(fmt, i) if ch == "%" else None
            if ch != "%" or not match:
                out.append(ch)
                i += 1
                continue
            i = match.end()
            flags, width, precision, kind = match.groups()
            if kind == "%":
                out.append("%")
                continue

            def take() -> str:
                nonlocal position, consumed
                consumed = True
                position += 1
                return values[position - 1] if position - 1 < len(values) else ""
            if width == "*":
                width = str(_int_argument(tool, take() or "0")[0])
            if precision == "*":
                precision = str(_int_argument(tool, take() or "0")[0])
            value = take()
            spec = "%" + flags + (width or "") + (f".{precision}" if precision is not None else "")
            if kind in "sb":
                text = backslash_escapes(value)[0] if kind == "b" else value
                out.append((spec + "s") % text)
            elif kind == "c":
                out.append((spec + "s") % value[:1])
            elif kind in "feEgG":
                try:
                    out.append((spec + kind) % float(value or 0))
                except ValueError:
                    tool.error(f"invalid number '{value}'")
                    status = 1
                    out.append((spec + kind) % 0.0)
            else:
                number_, ok = _int_argument(tool, value or "0")
                status = status if ok else 1
                if kind == "u" and number_ < 0:
                    number_ += 1 << 64
                out.append((spec + ("d" if kind in "iu" else kind)) % number_)
        tool.write("".join(out))
        if not consumed or position >= len(values):
            return status


def base64(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "di", valued="w")
    try:
        data = tool.read(operands[0]) if operands else tool.stdin
    except StorageError as exc:
        tool.fail(operands[0], exc)
        return 1
    if "d" in options:
        text = re.sub(rb"\s+", b"", data)
        try:
            tool.write(b64.b64decode(text + b"=" * (-len(text) % 4), validate=True))
        except (binascii.Error, ValueError):
            tool.error("bad input")
            return 1
        return 0
    wrap = number(options["w"][-1]) if "w" in options else 76
    encoded = b64.b64encode(data).decode()
    if wrap:
        encoded = "\n".join(encoded[i:i + wrap] for i in range(0, len(encoded), wrap))
    tool.write(encoded + "\n" if encoded else "")
    return 0


COMMANDS = {"echo": echo, "printf": printf, "base64": base64}
