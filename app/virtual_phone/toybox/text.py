"""Toybox's text filters: head, tail, wc, cut, tr, sort, uniq, tee, seq and the checksums."""

from __future__ import annotations

import hashlib
import re

from ..storage import StorageError
from .context import Tool, Usage, number, parse_options

# ---------------------------------------------------------------------------- head, tail, wc


def _numeric_shortcut(args: list[str]) -> list[str]:
    """`head -5` means `head -n 5`."""
    return [("-n" + arg[1:]) if re.fullmatch(r"-\d+", arg) else arg for arg in args]


def _file_headers(tool: Tool, operands: list[str], options: dict):
    """What head and tail print before each input: "==> NAME <==" when there are several (-q: never,
    -v: always), with a blank line between inputs."""
    shown = len(operands) > 1 and "q" not in options or "v" in options
    first = True

    def header(name: str) -> None:
        nonlocal first
        if shown:
            tool.write(("" if first else "\n") + f"==> {name} <==\n")
        first = False
    return header


def head(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(_numeric_shortcut(args), "qv", valued="nc")
    lines = number(options["n"][-1]) if "n" in options else 10
    chars = number(options["c"][-1]) if "c" in options else None
    header = _file_headers(tool, operands, options)

    def each(name: str, data: bytes) -> None:
        header(name)
        if chars is not None:
            tool.write(data[:chars])
        else:
            kept = data.split(b"\n")
            tool.write(b"\n".join(kept[:lines]) + (b"\n" if len(kept) > lines else b""))
    return _inputs_limited(tool, operands, each)


def _inputs_limited(tool: Tool, names: list[str], each) -> int:
    """Like Tool.inputs, but an endless device (/dev/zero) gives only what head needs."""
    status = 0
    for name in names or ["-"]:
        try:
            path = tool.path(name)
            data = tool.storage.read_file(path, limit=1 << 20) if name != "-" and tool.storage.is_endless(path) \
                else tool.read(name)
        except StorageError as exc:
            tool.fail(name, exc)
            status = 1
            continue
        each(name, data)
    return status


def tail(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(_numeric_shortcut(args), "fFqv", valued="nc")
    count_text = options.get("n", ["10"])[-1]
    chars_text = options.get("c", [None])[-1]
    header = _file_headers(tool, operands, options)

    def each(name: str, data: bytes) -> None:
        header(name)
        if chars_text is not None:
            count = number(chars_text.lstrip("+"))
            tool.write(data[count - 1:] if chars_text.startswith("+") else data[-count:] if count else b"")
            return
        lines = data.split(b"\n")
        ended = data.endswith(b"\n")
        if ended:
            lines.pop()
        count = number(count_text.lstrip("+"))
        kept = lines[count - 1:] if count_text.startswith("+") else (lines[-count:] if count else [])
        tool.write(b"\n".join(kept) + (b"\n" if kept and (ended or kept[-1] != lines[-1]) else b""))
    return tool.inputs(operands, each)


def wc(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "Lcmwl")
    chosen = [f for f in "lwmcL" if f in options] or ["l", "w", "c"]
    padded = not ((not operands and len(chosen) == 1) or len(operands) == 1)
    totals = dict.fromkeys("lwmcL", 0)

    def show(counts: dict, name: str | None) -> None:
        numbers = [f"{counts[f]:>7}" if padded else str(counts[f]) for f in chosen]
        tool.write(" ".join(numbers) + (f" {name}" if name else "") + "\n")

    def each(name: str, data: bytes) -> None:
        text = data.decode("utf-8", "replace")
        counts = {"l": data.count(b"\n"), "w": len(data.split()), "c": len(data), "m": len(text),
                  "L": max((len(line) for line in text.split("\n")), default=0)}
        for key in totals:
            totals[key] = max(totals[key], counts[key]) if key == "L" else totals[key] + counts[key]
        show(counts, name if operands else None)
    status = tool.inputs(operands, each)
    if len(operands) > 1:
        show(totals, "total")
    return status


# ---------------------------------------------------------------------------- cut, tr, sort, uniq


def _ranges(spec: str) -> list[tuple[int, int]]:
    ranges = []
    for item in spec.split(","):
        match = re.fullmatch(r"(\d*)(-?)(\d*)", item)
        if not match or item in ("", "-"):
            raise Usage(f"bad list '{spec}'")
        start, dash, end = match.groups()
        low = int(start) if start else 1
        high = int(end) if end else (low if not dash else 1 << 30)
        if low < 1:
            raise Usage(f"bad list '{spec}'")
        ranges.append((low, high))
    return ranges


def cut(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "sn", valued="bcfdO")
    mode = next((m for m in "bcf" if m in options), None)
    if mode is None:
        raise Usage("Needs -bcf")
    ranges = _ranges(options[mode][-1])
    delimiter = options.get("d", ["\t"])[-1] or "\n"

    def keep(index: int) -> bool:
        return any(low <= index <= high for low, high in ranges)

    def each(name: str, data: bytes) -> None:
        text = data.decode("utf-8", "surrogateescape")
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()
        for line in lines:
            if mode == "f":
                if delimiter not in line:
                    if "s" not in options:
                        tool.write(line + "\n")
                    continue
                fields = line.split(delimiter)
                tool.write(delimiter.join(f for i, f in enumerate(fields, 1) if keep(i)) + "\n")
            else:
                tool.write("".join(c for i, c in enumerate(line, 1) if keep(i)) + "\n")
    return tool.inputs(operands, each)


_TR_CLASSES = {"alpha": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", "digit": "0123456789",
               "lower": "abcdefghijklmnopqrstuvwxyz", "upper": "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
               "space": " \t\n\r\f\v", "blank": " \t", "punct": "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
               "xdigit": "0123456789ABCDEFabcdef"}


def _tr_set(spec: str) -> str:
    out, i = [], 0
    spec = re.sub(r"\\([0-7]{1,3})", lambda m: chr(int(m.group(1), 8)), spec)
    spec = spec.replace("\\n", "\n").replace("\\t", "\t").replace("\\r", "\r").replace("\\\\", "\\")
    while i < len(spec):
        match = re.match(r"\[:(\w+):\]", spec[i:])
        if match and match.group(1) in _TR_CLASSES:
            out.append(_TR_CLASSES[match.group(1)])
            i += len(match.group())
        elif i + 2 < len(spec) and spec[i + 1] == "-":
            out.append("".join(chr(c) for c in range(ord(spec[i]), ord(spec[i + 2]) + 1)))
            i += 3
        else:
            out.append(spec[i])
            i += 1
    return "".join(out)


def tr(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "cCdst")
    if not operands or (len(operands) < 2 and "d" not in options and "s" not in options):
        raise Usage("Needs 1 argument" if not operands else "Needs 2 arguments")
    first = _tr_set(operands[0])
    second = _tr_set(operands[1]) if len(operands) > 1 else ""
    text = tool.stdin.decode("latin-1")
    if options.keys() & {"c", "C"}:
        first = "".join(chr(c) for c in range(256) if chr(c) not in first)
    if "d" in options:
        text = "".join(c for c in text if c not in first)
        squeeze = second
    else:
        if second:
            second = (second + second[-1] * len(first))[:len(first)]
            text = text.translate(str.maketrans(first, second))
        squeeze = second or first
    if "s" in options:
        text = re.sub("([" + re.escape(squeeze) + "])\\1+", r"\1", text) if squeeze else text
    tool.write(text.encode("latin-1"))
    return 0


def sort(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "bcdfhiMmnrsuVz", valued="kto")
    chunks: list[bytes] = []
    status = tool.inputs(operands, lambda name, data: chunks.append(data))
    text = b"".join(chunks).decode("utf-8", "surrogateescape")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    separator = options.get("t", [None])[-1]
    field = int(options["k"][-1].split(",")[0].split(".")[0]) if "k" in options else None

    def key_text(line: str) -> str:
        if field is None:
            return line
        parts = line.split(separator) if separator else line.split()
        return (separator or " ").join(parts[field - 1:]) if field - 1 < len(parts) else ""

    def key(line: str):
        value = key_text(line)
        if "f" in options:
            value = value.upper()
        if "n" in options or "h" in options:
            match = re.match(r"\s*(-?\d+(?:\.\d+)?)", value)
            return (float(match.group(1)) if match else 0.0, line)
        return (value, line) if field is not None else value
    ordered = sorted(lines, key=key, reverse="r" in options)
    if "u" in options:
        seen, unique = set(), []
        for line in ordered:
            marker = key(line)[0] if isinstance(key(line), tuple) else key(line)
            if marker not in seen:
                seen.add(marker)
                unique.append(line)
        ordered = unique
    tool.write("".join(line + "\n" for line in ordered))
    return status


def uniq(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "cduiz", valued="fsw")
    data = b""
    if operands:
        try:
            data = tool.read(operands[0])
        except StorageError as exc:
            tool.fail(operands[0], exc)
            return 1
    else:
        data = tool.stdin
    lines = data.decode("utf-8", "surrogateescape").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    groups: list[list[str]] = []
    for line in lines:
        same = groups and (groups[-1][0].lower() == line.lower() if "i" in options else groups[-1][0] == line)
        if same:
            groups[-1].append(line)
        else:
            groups.append([line])
    for group in groups:
        if ("d" in options and len(group) < 2) or ("u" in options and len(group) > 1):
            continue
        tool.write((f"{len(group):>7} " if "c" in options else "") + group[0] + "\n")
    return 0


# ---------------------------------------------------------------------------- tee, seq, sums, base64


def tee(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "aip")
    status = 0
    for name in operands:
        try:
            tool.storage.write_file(tool.path(name), tool.stdin, append="a" in options)
        except StorageError as exc:
            tool.fail(name, exc)
            status = 1
    tool.write(tool.stdin)
    return status


def seq(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options([a if not re.fullmatch(r"-\d+(\.\d+)?", a) else " " + a for a in args],
                                      "w", valued="fs")
    values = [o.strip() for o in operands]
    if not 1 <= len(values) <= 3:
        raise Usage("Needs 1-3 arguments")
    try:
        numbers = [float(v) if "." in v else int(v) for v in values]
    except ValueError:
        tool.error(f"invalid number '{next(v for v in values if not re.fullmatch(r'-?[0-9.]+', v))}'")
        return 1
    first, step, last = (1, 1, numbers[0]) if len(numbers) == 1 else \
        (numbers[0], 1, numbers[1]) if len(numbers) == 2 else tuple(numbers)
    if step == 0:
        tool.error("increment can't be zero")
        return 1
    separator = options.get("s", ["\n"])[-1]
    decimals = max((len(v.split(".")[1]) for v in values if "." in v), default=0)
    width = max(len(f"{first:.{decimals}f}"), len(f"{last:.{decimals}f}")) if "w" in options else 0
    parts, value, count = [], first, 0
    while (value <= last) if step > 0 else (value >= last):
        count += 1
        text = f"{value:.{decimals}f}"
        parts.append(("" if count == 1 else separator) + (text.zfill(width) if width else text))
        if len(parts) >= 4096:
            tool.process.budget.tick()
            tool.write("".join(parts))
            parts = []
        value = first + step * count
    if count:
        parts.append("\n")
    tool.write("".join(parts))
    return 0


def checksum(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "bcs")
    algorithm = {"md5sum": "md5", "sha1sum": "sha1", "sha256sum": "sha256", "sha512sum": "sha512"}[tool.name]
    return tool.inputs(operands, lambda name, data: tool.write(
        f"{hashlib.new(algorithm, data).hexdigest()}  {name}\n"))


COMMANDS = {"head": head, "tail": tail, "wc": wc, "cut": cut, "tr": tr,
            "sort": sort, "uniq": uniq, "tee": tee, "seq": seq, "md5sum": checksum, "sha1sum": checksum,
            "sha256sum": checksum, "sha512sum": checksum}
