"""Parsing a shell command line into pipelines of simple commands (the sh subset of shell.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

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
