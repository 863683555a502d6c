"""POSIX regular expressions (basic and extended, as grep and sed take them) in Python's syntax."""

from __future__ import annotations

import re

_CLASSES = {"alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
            "space": r" \t\n\r\f\v", "blank": r" \t", "punct": r"!-/:-@\[-`{-~", "xdigit": "0-9A-Fa-f",
            "print": r"\x20-\x7e", "graph": r"\x21-\x7e", "cntrl": r"\x00-\x1f\x7f"}


class RegexError(Exception):
    def __init__(self, pattern: str, reason: str):
        super().__init__(reason)
        self.pattern, self.reason = pattern, reason


def compile_posix(pattern: str, extended: bool) -> str:
    """Translate a POSIX BRE (or ERE) into a Python regular expression source."""
    out, i, n = [], 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            i += 2
            if not extended and nxt in "(){}|+?":
                out.append(nxt)            # \( \) \{ \} \| \+ \? are the BRE operators
            elif nxt.isdigit():
                out.append("\\" + nxt)
            elif nxt in "wWsSbB<>":
                out.append({"<": r"\b(?=\w)", ">": r"\b(?<=\w)"}.get(nxt, "\\" + nxt))
            else:
                out.append(re.escape(nxt))
            continue
        if ch == "[":
            end, text = _bracket(pattern, i)
            if end < 0:
                raise RegexError(pattern, "Unmatched [, [^, [:, [., or [=")
            out.append(text)
            i = end + 1
            continue
        if not extended and ch in "(){}|+?":
            out.append("\\" + ch)
        elif ch == "*" and (not out or out[-1] in ("(", "|", "^")) and not extended:
            out.append(r"\*")
        else:
            out.append(ch)
        i += 1
    source = "".join(out)
    try:
        re.compile(source)
    except re.error as exc:
        raise RegexError(pattern, str(exc)) from None
    return source


def _bracket(pattern: str, start: int) -> tuple[int, str]:
    i = start + 1
    body = []
    if i < len(pattern) and pattern[i] == "^":
        body.append("^")
        i += 1
    first = True
    while i < len(pattern):
        ch = pattern[i]
        if ch == "]" and not first:
            return i, "[" + "".join(body) + "]"
        match = re.match(r"\[:(\w+):\]", pattern[i:])
        if match and match.group(1) in _CLASSES:
            body.append(_CLASSES[match.group(1)])
            i += len(match.group())
        else:
            body.append("\\\\" if ch == "\\" else "\\[" if ch == "[" else ch)
            i += 1
        first = False
    return -1, ""
