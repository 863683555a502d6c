"""Word expansion as mksh does it: parameters, `$(...)`, arithmetic, field splitting, globbing.

Expanded text is kept as segments marked literal (quoted, or produced by a quoted expansion)
or not, so that only unquoted text is split on IFS and matched as a pattern against the
phone's files. Nothing here reads anything but the shell's variables and the phone's storage.
"""

from __future__ import annotations

import os
import random
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from . import shell_ast as ast
from .shell_arith import ArithError, evaluate
from .shell_builtins import Fatal
from .shell_io import BufferSink
from .shell_parts import ShellParts
from .storage import StorageError

if TYPE_CHECKING:
    from .shell import IO

DEFAULT_IFS = " \t\n"
_GLOB_CHARS = set("*?[")
_CLASSES = {"alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
            "space": r" \t\n\r\f\v", "blank": r" \t", "punct": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
            "xdigit": "0-9A-Fa-f", "print": r"\x20-\x7e", "graph": r"\x21-\x7e", "cntrl": r"\x00-\x1f\x7f"}


@dataclass
class Field:
    """One field being built: (text, literal) segments; `present` keeps an empty quoted field."""

    segments: list[tuple[str, bool]] = field(default_factory=list)
    present: bool = False

    def add(self, text: str, literal: bool) -> None:
        if text:
            self.segments.append((text, literal))

    def text(self) -> str:
        return "".join(text for text, _ in self.segments)

    def chars(self) -> list[tuple[str, bool]]:
        return [(ch, literal) for text, literal in self.segments for ch in text]


def pattern_to_regex(chars: list[tuple[str, bool]], lazy: bool = False) -> str:
    """A regular expression for a shell pattern; literal characters match only themselves."""
    out, i = [], 0
    star = ".*?" if lazy else ".*"
    while i < len(chars):
        ch, literal = chars[i]
        if literal:
            out.append(re.escape(ch))
        elif ch == "*":
            out.append(star)
        elif ch == "?":
            out.append(".")
        elif ch == "[":
            end, bracket = _bracket(chars, i)
            if bracket is None:
                out.append(re.escape(ch))
            else:
                out.append(bracket)
                i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


def _bracket(chars: list[tuple[str, bool]], start: int) -> tuple[int, str | None]:
    """A bracket expression [...] starting at `start`: (index of its `]`, regex class)."""
    i = start + 1
    negate = i < len(chars) and chars[i][0] in "!^" and not chars[i][1]
    if negate:
        i += 1
    body: list[str] = []
    first = True
    while i < len(chars):
        ch, literal = chars[i]
        if ch == "]" and not first and not literal:
            return i, "[" + ("^" if negate else "") + "".join(body) + "]"
        if ch == "[" and not literal and i + 1 < len(chars) and chars[i + 1][0] == ":":
            text = "".join(c for c, _ in chars[i:i + 12])
            match = re.match(r"\[:(\w+):\]", text)
            if match and match.group(1) in _CLASSES:
                body.append(_CLASSES[match.group(1)])
                i += len(match.group())
                first = False
                continue
        if ch == "-" and not literal and body and i + 1 < len(chars) and chars[i + 1][0] != "]":
            body.append("-")
        else:
            body.append(re.escape(ch))
        first = False
        i += 1
    return start, None


def split_fields(value: str, ifs: str) -> tuple[list[str], bool, bool]:
    """Split text on IFS: (pieces, began with a separator, ended with one)."""
    if not ifs:
        return [value], False, False
    white = {c for c in ifs if c in " \t\n"}
    pieces, i, n = [], 0, len(value)
    leading = bool(value) and value[0] in ifs
    while i < n and value[i] in white:
        i += 1
    if i < n and value[i] in ifs:     # a leading non-blank separator makes an empty first field
        pieces.append("")
        i += 1
        while i < n and value[i] in white:
            i += 1
    while i < n:
        start = i
        while i < n and value[i] not in ifs:
            i += 1
        pieces.append(value[start:i])
        while i < n and value[i] in white:
            i += 1
        if i < n and value[i] in ifs and value[i] not in white:
            i += 1
            while i < n and value[i] in white:
                i += 1
            if i >= n:
                break
    trailing = bool(value) and value[-1] in ifs
    return pieces, leading, trailing


class ExpansionMixin(ShellParts):
    """Expansion methods of Shell (they use its variables, positional parameters and storage)."""

    _random = random.Random()

    # ------------------------------------------------------------------ variables
    def param_value(self, name: str) -> str | None:
        """A parameter's value, None when unset."""
        if name.isdigit():
            index = int(name)
            if index == 0:
                return self.name
            return self.positional[index - 1] if index <= len(self.positional) else None
        if name == "?":
            return str(self.last_status)
        if name == "$":
            return str(_shell_pid())
        if name == "#":
            return str(len(self.positional))
        if name in "@*":
            return (self.vars.get("IFS", DEFAULT_IFS)[:1] if name == "*" else " ").join(self.positional)
        if name == "!":
            return self.vars.get("!")
        if name == "-":
            return "".join(sorted(self.options)) + "hB"
        if name == "RANDOM" and name not in self.vars:
            return str(self._random.randrange(32768))
        return self.vars.get(name)

    def get_var(self, name: str) -> str:
        value = self.param_value(name)
        if value is None and "u" in self.options and name not in "@*":
            raise Fatal(f"{name}: parameter not set", 1)
        return value or ""

    def set_var(self, name: str, value: str) -> None:
        if name in self.readonly:
            raise Fatal(f"{name}: is read only", 1)
        if len(value) > self.limits.max_output // 4:
            raise Fatal("out of memory", 1)
        self.vars[name] = value

    def arithmetic(self, text: str) -> int:
        try:
            return evaluate(text, self.get_var, self.set_var)
        except ArithError as exc:
            raise Fatal(str(exc), 1) from None

    # ------------------------------------------------------------------ words
    def expand_words(self, words: list[ast.Word], io: IO) -> list[str]:
        """Command arguments: expanded, split on IFS and matched against the phone's files."""
        out: list[str] = []
        for word in words:
            for item in self._expand(word, io, split=True):
                matches = self._glob(item.chars())
                if matches:
                    out.extend(matches)
                elif item.segments or item.present:
                    out.append(item.text())
        return out

    def expand_string(self, word: ast.Word, io: IO) -> str:
        """One string, neither split nor globbed (assignments, redirection targets, case words)."""
        return "".join(item.text() for item in self._expand(word, io, split=False))

    def pattern_regex(self, word: ast.Word, io: IO, lazy: bool = False) -> re.Pattern[str]:
        chars = [c for item in self._expand(word, io, split=False) for c in item.chars()]
        return re.compile(pattern_to_regex(chars, lazy), re.DOTALL)

    def _expand(self, word: ast.Word, io: IO, split: bool) -> list[Field]:
        fields = [Field()]
        ifs = self.vars.get("IFS", DEFAULT_IFS)
        for index, part in enumerate(word.parts):
            if isinstance(part, ast.Lit):
                text = part.text
                if index == 0 and not part.quoted and text.startswith("~") and split:
                    head, sep, rest = text.partition("/")
                    if head == "~":
                        text = self.vars.get("HOME", "/") + sep + rest
                        fields[-1].add(text, True)
                        fields[-1].present = True
                        continue
                fields[-1].add(text, part.quoted)
                fields[-1].present = fields[-1].present or part.quoted or bool(text)
                continue
            if isinstance(part, ast.Param) and part.name == "@" and part.op == "" and part.quoted:
                for position, value in enumerate(self.positional):
                    if position:
                        fields.append(Field())
                    fields[-1].add(value, True)
                    fields[-1].present = True
                continue
            value = self._part_value(part, io)
            if len(value) > self.limits.max_output // 4:
                raise Fatal("out of memory", 1)
            if part.quoted or not split:
                fields[-1].add(value, True)
                fields[-1].present = fields[-1].present or part.quoted
                continue
            pieces, leading, trailing = split_fields(value, ifs) if value else ([], False, False)
            if not pieces:
                if leading and (fields[-1].segments or fields[-1].present):
                    fields.append(Field())
                continue
            if leading and (fields[-1].segments or fields[-1].present):
                fields.append(Field())
            for position, piece in enumerate(pieces):
                if position:
                    fields.append(Field())
                fields[-1].add(piece, False)
                fields[-1].present = True
            if trailing:
                fields.append(Field())
        return fields

    def _part_value(self, part: ast.Part, io: IO) -> str:
        if isinstance(part, ast.CommandSub):
            return self.command_substitution(part.body, io)
        if isinstance(part, ast.Arith):
            return str(self.arithmetic(self.expand_string(part.expr, io)))
        assert isinstance(part, ast.Param)
        return self._parameter(part, io)

    def command_substitution(self, body: ast.Node, io: IO) -> str:
        if isinstance(body, ast.Simple) and not body.words and not body.assigns and \
                [r.op for r in body.redirects] == ["<"]:
            path = self.resolve(self.expand_string(body.redirects[0].target, io))
            try:
                data = self.files.read_file(path, limit=self.limits.max_output)
            except StorageError as exc:
                self.error(io, f"can't open $(<...) file: {exc.reason}")
                return ""
            return data.decode("utf-8", "surrogateescape").rstrip("\n")
        sink = BufferSink(self.budget)
        inner = io.copy()
        inner.fds[1] = sink
        self.last_status = self.substitution_status = self.run_subshell(body, inner)
        return bytes(sink.buffer).decode("utf-8", "surrogateescape").rstrip("\n")

    # ------------------------------------------------------------------ ${...}
    def _parameter(self, part: ast.Param, io: IO) -> str:
        name, op = part.name, part.op
        if op == "len":
            if name in "@*":
                return str(len(self.positional))
            return str(len(self.get_var(name)))
        value = self.param_value(name)
        if op == "":
            if value is None and "u" in self.options and name not in "@*":
                raise Fatal(f"{name}: parameter not set", 1)
            return value or ""
        unset = value is None or (op.startswith(":") and op != ":" and value == "")
        assert part.arg is not None   # the lexer gives every operator but "" and "len" its word
        if op in (":-", "-"):
            return self.expand_string(part.arg, io) if unset or value is None else value
        if op in (":=", "="):
            if unset:
                if name.isdigit() or not name[0].isalpha() and name[0] != "_":
                    raise Fatal(f"{name}: bad substitution", 1)
                self.set_var(name, self.expand_string(part.arg, io))
            return self.vars.get(name, value or "")
        if op in (":+", "+"):
            return "" if unset else self.expand_string(part.arg, io)
        if op in (":?", "?"):
            if unset or value is None:
                message = self.expand_string(part.arg, io) or ("parameter null or not set" if op == ":?"
                                                                 else "parameter not set")
                raise Fatal(f"{name}: {message}", 1)
            return value
        value = value or ""
        if op == ":":
            return self._substring(value, self.expand_string(part.arg, io))
        if op in ("#", "##"):
            match = re.match(f"(?:{self.pattern_regex(part.arg, io, lazy=op == '#').pattern})", value, re.DOTALL)
            return value[match.end():] if match else value
        if op in ("%", "%%"):
            pattern = self.pattern_regex(part.arg, io).pattern
            search = f"(?:{pattern})\\Z" if op == "%%" else f".*((?:{pattern})\\Z)"
            match = re.search(search, value, re.DOTALL) if op == "%%" else re.match(search, value, re.DOTALL)
            if not match:
                return value
            return value[:match.start()] if op == "%%" else value[:match.start(1)]
        # "/" and "//": replace the first or every longest match
        regex = self.pattern_regex(part.arg, io)
        if not regex.pattern:
            return value
        replacement = self.expand_string(part.replacement, io) if part.replacement else ""
        return regex.sub(lambda _: replacement, value, count=0 if op == "//" else 1)

    def _substring(self, value: str, spec: str) -> str:
        offset_text, _, length_text = spec.partition(":")
        offset = self.arithmetic(offset_text)
        if offset < 0:
            offset = max(0, len(value) + offset)
        if not length_text:
            return value[offset:]
        length = self.arithmetic(length_text)
        end = offset + length if length >= 0 else len(value) + length
        return value[offset:max(offset, end)]

    # ------------------------------------------------------------------ globbing
    def _glob(self, chars: list[tuple[str, bool]]) -> list[str] | None:
        """Paths on the phone matching a field with unquoted pattern characters; None when none match."""
        if not any(ch in _GLOB_CHARS and not literal for ch, literal in chars):
            return None
        components: list[list[tuple[str, bool]]] = [[]]
        for ch, literal in chars:
            if ch == "/":
                components.append([])
            else:
                components[-1].append((ch, literal))
        bases = ["/"] if chars and chars[0][0] == "/" else [""]
        if bases == ["/"]:
            components = components[1:]
        for position, component in enumerate(components):
            last = position == len(components) - 1
            if not component:
                if last:
                    bases = [b + "/" for b in bases if self._is_dir(b)]
                continue
            text = "".join(c for c, _ in component)
            if not any(c in _GLOB_CHARS and not lit for c, lit in component):
                bases = [_join(b, text) for b in bases]
                continue
            regex = re.compile(pattern_to_regex(component), re.DOTALL)
            found = []
            for base in bases:
                try:
                    entries = self.files.entries(self.resolve(base or "."))
                except StorageError:
                    continue
                for name, _ in entries:
                    if name.startswith(".") and not text.startswith("."):
                        continue
                    if regex.fullmatch(name):
                        found.append(_join(base, name))
            bases = found
            if not last:
                bases = [b for b in bases if self._is_dir(b)]
        matches = sorted(b for b in bases if self._exists(b))
        return matches or None

    def _is_dir(self, path: str) -> bool:
        try:
            return self.files.lstat(self.resolve(path or "."), follow=True).is_dir
        except StorageError:
            return False

    def _exists(self, path: str) -> bool:
        try:
            self.files.lstat(self.resolve(path.rstrip("/") or "/"))
            return True
        except StorageError:
            return False


def _join(base: str, name: str) -> str:
    if not base:
        return name
    return base + name if base.endswith("/") else f"{base}/{name}"


def _shell_pid() -> int:
    """The pid `$$` shows: a plausible phone pid, fixed for this host process."""
    return 4000 + os.getpid() % 20000

