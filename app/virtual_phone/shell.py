"""A small POSIX-sh subset, enough to run what ADB clients send to a phone.

It does what the phone's /system/bin/sh (mksh) does with a command line, so that the
virtual phone is an honest witness in security tests: quotes and backslashes protect
text; `;`, `&&`, `||`, `|`, `&` and newlines outside quotes start another command;
`$(...)` and backticks outside single quotes really run a command and substitute its
output; `$VAR`/`${VAR}`/`$?` expand; `>`, `>>`, `2>`, `2>&1`, `<` redirect. Every simple
command that runs is passed to a `Runner`, which keeps the phone's command record.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Protocol

# ---------------------------------------------------------------------------- parsing


class ShellSyntaxError(ValueError):
    """The line is not valid sh (unterminated quote, dangling operator...)."""


@dataclass
class Segment:
    """A piece of a word: literal text, a command substitution, or a variable."""

    kind: str  # "lit" | "sub" | "var"
    value: str
    quoted: bool


@dataclass
class Word:
    segments: list[Segment] = field(default_factory=list)

    def add(self, kind: str, value: str, quoted: bool) -> None:
        self.segments.append(Segment(kind, value, quoted))


@dataclass
class Redirect:
    fd: int  # 0 stdin, 1 stdout, 2 stderr
    op: str  # ">", ">>", "<", ">&"
    target: Word


@dataclass
class SimpleCommand:
    words: list[Word] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class Pipeline:
    commands: list[SimpleCommand]


@dataclass
class ListItem:
    pipeline: Pipeline
    connector: str  # how the NEXT item is joined: ";", "&&", "||", "&" ("" for the last)


_OPERATOR_CHARS = ";&|\n"
_WORD_BREAK = " \t;&|\n<>()"


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def peek(self, n: int = 1) -> str:
        return self.text[self.pos:self.pos + n]

    def parse_list(self) -> list[ListItem]:
        items: list[ListItem] = []
        while True:
            self.skip_blanks(newlines=True)
            if self.pos >= len(self.text):
                break
            pipeline = self.parse_pipeline()
            self.skip_blanks()
            connector = ""
            for op in ("&&", "||", ";", "&", "\n"):
                if self.text.startswith(op, self.pos):
                    connector = ";" if op == "\n" else op
                    self.pos += len(op)
                    break
            if not connector and self.pos < len(self.text):
                raise ShellSyntaxError(f"syntax error: unexpected '{self.peek()}'")
            if connector in ("&&", "||"):
                self.skip_blanks(newlines=True)
                if self.pos >= len(self.text):
                    raise ShellSyntaxError(f"syntax error: unexpected end of line after '{connector}'")
            items.append(ListItem(pipeline, connector))
        return items

    def parse_pipeline(self) -> Pipeline:
        commands = [self.parse_command()]
        while True:
            self.skip_blanks()
            if self.peek() == "|" and self.peek(2) != "||":
                self.pos += 1
                self.skip_blanks(newlines=True)
                commands.append(self.parse_command())
            else:
                return Pipeline(commands)

    def parse_command(self) -> SimpleCommand:
        command = SimpleCommand()
        while True:
            self.skip_blanks()
            if self.pos >= len(self.text) or self.peek() in _OPERATOR_CHARS:
                break
            if self.peek() == "#" :
                self.pos = self.text.find("\n", self.pos) if "\n" in self.text[self.pos:] else len(self.text)
                break
            redirect = self.try_redirect(command)
            if redirect:
                command.redirects.append(redirect)
                continue
            if self.peek() in "()":
                raise ShellSyntaxError(f"syntax error: unexpected '{self.peek()}'")
            command.words.append(self.parse_word())
        if not command.words and not command.redirects:
            raise ShellSyntaxError(f"syntax error: unexpected '{self.peek() or 'end of line'}'")
        return command

    def try_redirect(self, command: SimpleCommand) -> Redirect | None:
        start = self.pos
        fd = None
        if self.peek().isdigit() and self.text[self.pos + 1:self.pos + 2] in ("<", ">"):
            fd = int(self.peek())
            self.pos += 1
        ch = self.peek()
        if ch not in "<>":
            self.pos = start
            return None
        if self.peek(2) == ">>":
            op, self.pos = ">>", self.pos + 2
        elif self.peek(2) == ">&":
            op, self.pos = ">&", self.pos + 2
        else:
            op, self.pos = ch, self.pos + 1
        self.skip_blanks()
        if self.pos >= len(self.text) or self.peek() in _OPERATOR_CHARS:
            raise ShellSyntaxError("syntax error: redirection without a target")
        target = self.parse_word()
        return Redirect(fd if fd is not None else (0 if op == "<" else 1), op, target)

    def skip_blanks(self, newlines: bool = False) -> None:
        blanks = " \t\n" if newlines else " \t"
        while self.pos < len(self.text):
            if self.peek() in blanks:
                self.pos += 1
            elif self.peek(2) == "\\\n":
                self.pos += 2
            else:
                break

    def parse_word(self) -> Word:
        word = Word()
        literal: list[str] = []

        def flush(quoted: bool = False) -> None:
            if literal:
                word.add("lit", "".join(literal), quoted)
                literal.clear()

        while self.pos < len(self.text):
            ch = self.peek()
            if ch in _WORD_BREAK:
                break
            if ch == "\\":
                nxt = self.text[self.pos + 1:self.pos + 2]
                self.pos += 2
                if nxt != "\n":
                    flush()
                    word.add("lit", nxt, True)
            elif ch == "'":
                end = self.text.find("'", self.pos + 1)
                if end < 0:
                    raise ShellSyntaxError("syntax error: unterminated quoted string")
                flush()
                word.add("lit", self.text[self.pos + 1:end], True)
                self.pos = end + 1
            elif ch == '"':
                flush()
                self.parse_double_quoted(word)
            elif ch in "$`":
                flush()
                self.parse_expansion(word, quoted=False)
            else:
                literal.append(ch)
                self.pos += 1
        flush()
        if not word.segments:
            raise ShellSyntaxError(f"syntax error: unexpected '{self.peek()}'")
        return word

    def parse_double_quoted(self, word: Word) -> None:
        self.pos += 1
        literal: list[str] = []
        while True:
            if self.pos >= len(self.text):
                raise ShellSyntaxError("syntax error: unterminated quoted string")
            ch = self.peek()
            if ch == '"':
                self.pos += 1
                break
            if ch == "\\" and self.text[self.pos + 1:self.pos + 2] in ('"', "\\", "$", "`", "\n"):
                nxt = self.text[self.pos + 1]
                if nxt != "\n":
                    literal.append(nxt)
                self.pos += 2
            elif ch in "$`":
                if literal:
                    word.add("lit", "".join(literal), True)
                    literal.clear()
                self.parse_expansion(word, quoted=True)
            else:
                literal.append(ch)
                self.pos += 1
        # An empty "" is still a word (an empty argument).
        word.add("lit", "".join(literal), True)

    def parse_expansion(self, word: Word, quoted: bool) -> None:
        if self.peek() == "`":
            end = self.pos + 1
            while end < len(self.text) and self.text[end] != "`":
                end += 2 if self.text[end] == "\\" else 1
            if end >= len(self.text):
                raise ShellSyntaxError("syntax error: unterminated backquote")
            word.add("sub", self.text[self.pos + 1:end].replace("\\`", "`"), quoted)
            self.pos = end + 1
            return
        # "$"
        nxt = self.text[self.pos + 1:self.pos + 2]
        if nxt == "(":
            end = _matching_paren(self.text, self.pos + 1)
            word.add("sub", self.text[self.pos + 2:end], quoted)
            self.pos = end + 1
        elif nxt == "{":
            end = self.text.find("}", self.pos)
            if end < 0:
                raise ShellSyntaxError("syntax error: bad substitution")
            word.add("var", self.text[self.pos + 2:end], quoted)
            self.pos = end + 1
        elif nxt and (nxt.isalnum() or nxt in "_?$#!@*"):
            end = self.pos + 2
            if nxt.isalpha() or nxt == "_":
                while end < len(self.text) and (self.text[end].isalnum() or self.text[end] == "_"):
                    end += 1
            word.add("var", self.text[self.pos + 1:end], quoted)
            self.pos = end
        else:
            word.add("lit", "$", quoted)
            self.pos += 1


def _matching_paren(text: str, open_pos: int) -> int:
    depth, pos, quote = 0, open_pos, ""
    while pos < len(text):
        ch = text[pos]
        if quote:
            if ch == quote:
                quote = ""
            elif ch == "\\" and quote == '"':
                pos += 1
        elif ch in "'\"":
            quote = ch
        elif ch == "\\":
            pos += 1
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return pos
        pos += 1
    raise ShellSyntaxError("syntax error: unterminated $(")


def parse(line: str) -> list[ListItem]:
    """Parse a command line into a list of pipelines joined by ; && || &."""
    return _Parser(line).parse_list()


# ---------------------------------------------------------------------------- running


@dataclass
class Result:
    stdout: bytes = b""
    stderr: bytes = b""
    code: int = 0


class Runner(Protocol):
    """Runs one simple command (argv after expansion) on the phone."""

    def __call__(self, argv: list[str], stdin: bytes) -> Result: ...


@dataclass
class FileAccess:
    """How redirections reach the phone's files."""

    read: Callable[[str], bytes | None]
    write: Callable[[str, bytes, bool], None]  # path, data, append


class ShellExit(Exception):
    def __init__(self, code: int):
        self.code = code


class Shell:
    """One shell process: runs command lines, keeps `$?` and variables between them."""

    def __init__(self, runner: Runner, files: FileAccess, env: dict[str, str] | None = None):
        self.runner = runner
        self.files = files
        self.env = dict(env or {})
        self.last_status = 0

    def run_line(self, line: str) -> Result:
        """Run a whole command line; stdout and stderr are returned separately."""
        try:
            items = parse(line)
        except ShellSyntaxError as exc:
            self.last_status = 2
            return Result(stderr=f"/system/bin/sh: {exc}\n".encode(), code=2)
        out, err = bytearray(), bytearray()
        skip_next = False
        for item in items:
            if not skip_next:
                result = self.run_pipeline(item.pipeline)
                out += result.stdout
                err += result.stderr
                self.last_status = result.code
            if item.connector == "&&":
                skip_next = self.last_status != 0
            elif item.connector == "||":
                skip_next = self.last_status == 0
            else:
                skip_next = False
        return Result(bytes(out), bytes(err), self.last_status)

    def run_pipeline(self, pipeline: Pipeline) -> Result:
        stdin = b""
        err = bytearray()
        result = Result()
        for command in pipeline.commands:
            result = self.run_command(command, stdin)
            err += result.stderr
            stdin = result.stdout
        return Result(result.stdout, bytes(err), result.code)

    def run_command(self, command: SimpleCommand, stdin: bytes) -> Result:
        argv: list[str] = []
        for word in command.words:
            argv.extend(self.expand(word))
        for redirect in command.redirects:
            if redirect.fd == 0 and redirect.op == "<":
                path = self._target(redirect)
                data = self.files.read(path)
                if data is None:
                    return Result(stderr=f"/system/bin/sh: can't open {path}: No such file or directory\n".encode(), code=1)
                stdin = data
        if not argv:
            return Result()
        if "=" in argv[0] and argv[0].split("=", 1)[0].isidentifier() and len(argv) == 1:
            name, value = argv[0].split("=", 1)
            self.env[name] = value
            return Result()
        if argv[0] == "exit":
            raise ShellExit(int(argv[1]) if len(argv) > 1 and argv[1].isdigit() else self.last_status)
        result = self.runner(argv, stdin)
        return self.apply_output_redirects(command, result)

    def apply_output_redirects(self, command: SimpleCommand, result: Result) -> Result:
        """Route stdout/stderr as sh does: redirections apply left to right, `N>&M` copies M's target."""
        targets: dict[int, tuple[str, str, bool]] = {1: ("fd", "1", False), 2: ("fd", "2", False)}
        for redirect in command.redirects:
            if redirect.op == "<":
                continue
            target = self._target(redirect)
            if redirect.op == ">&":
                if target.isdigit() and int(target) in targets:
                    targets[redirect.fd] = targets[int(target)]
                continue
            targets[redirect.fd] = ("file", target, redirect.op == ">>")
        routed = {"1": bytearray(), "2": bytearray()}
        to_files: dict[str, tuple[bytearray, bool]] = {}
        for fd, data in ((1, result.stdout), (2, result.stderr)):
            kind, where, append = targets.get(fd, ("fd", str(fd), False))
            if kind == "fd":
                routed[where] += data
            elif where != "/dev/null":
                to_files.setdefault(where, (bytearray(), append))[0].extend(data)
        for path, (data, append) in to_files.items():
            self.files.write(path, bytes(data), append)
        return Result(bytes(routed["1"]), bytes(routed["2"]), result.code)

    def _target(self, redirect: Redirect) -> str:
        return "".join(self.expand(redirect.target))

    def expand(self, word: Word) -> list[str]:
        """Expand one word into fields (unquoted substitutions split on blanks)."""
        fields: list[str] = [""]
        has_content = False
        for seg in word.segments:
            if seg.kind == "lit":
                fields[-1] += seg.value
                has_content = True
                continue
            value = self.substitute(seg.value) if seg.kind == "sub" else self.variable(seg.value)
            if seg.quoted:
                fields[-1] += value
                has_content = True
                continue
            pieces = value.split()
            if not pieces:
                continue
            if value[:1].isspace() and fields[-1]:
                fields.append("")
            fields[-1] += pieces[0]
            fields.extend(pieces[1:])
            if value[-1:].isspace():
                fields.append("")
            has_content = True
        if fields and fields[-1] == "" and len(fields) > 1:
            fields.pop()
        return fields if has_content else []

    def substitute(self, command_line: str) -> str:
        inner = Shell(self.runner, self.files, self.env)
        try:
            result = inner.run_line(command_line)
        except ShellExit:
            return ""
        return result.stdout.decode("utf-8", "replace").rstrip("\n")

    def variable(self, name: str) -> str:
        if name == "?":
            return str(self.last_status)
        if name == "$":
            return "4242"
        return self.env.get(name, "")
