"""Reading sh text as mksh does: tokens, words with their quoting, expansions, here-documents.

The Lexer turns text into tokens on demand; shell_parser's Parser builds commands from them.
Errors raise ShellSyntaxError with mksh's wording; nesting is capped (MAX_NESTING) so that deeply
nested input fails with an error instead of exhausting the interpreter's stack.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .shell_ast import Arith, CommandSub, Lit, Node, Param, Redirect, Word

MAX_NESTING = 60
_ESCAPABLE_IN_DOUBLE_QUOTES = ('"', "\\", "$", "`", "\n")
_ESCAPABLE_IN_TEXT_BODY = ("\\", "$", "`", "\n")   # here-documents and arithmetic: " stays as it is


class ShellSyntaxError(ValueError):
    """The text is not valid sh (unterminated quote, misplaced keyword, dangling operator...)."""


@dataclass
class Token:
    kind: str          # "word", "op", "redir", "eof"
    value: str = ""    # operator text, or the literal text of a plain word
    word: Word = field(default_factory=Word)   # empty unless kind is "word"
    fd: int | None = None
    start: int = 0


RESERVED = {"if", "then", "elif", "else", "fi", "do", "done", "case", "esac", "while", "until", "for",
            "{", "}", "!", "in", "function", "[["}
CLOSERS = {"then", "elif", "else", "fi", "do", "done", "esac", "}"}
_META = set(" \t\n;&|<>()")
NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
FUNCTION_PARENS = re.compile(r"[ \t]*\([ \t]*\)")
_IO_NUMBER = re.compile(r"\d+(?=[<>])")
_NAME_PREFIX = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BRACED_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+|[?$#!@*-]")
_REDIR_OPS = ("<<<", "<<-", "<<", "<>", "<&", ">>", ">&", ">|", "<", ">")
_SPECIAL_PARAMS = "?$#!@*-0123456789"
_PARAM_OPS = (":-", ":=", ":+", ":?", "-", "=", "+", "?", "##", "#", "%%", "%", "//", "/", ":")


class Lexer:
    """Reads tokens and words; the Parser subclass supplies parse_sequence for `$(...)`."""

    def __init__(self, text: str, depth: int = 0):
        self.text = text
        self.pos = 0
        self.depth = depth
        self.lookahead: Token | None = None
        self.heredocs: list[tuple[Redirect, str, bool]] = []

    if TYPE_CHECKING:   # defined by the Parser subclass
        def parse_all(self) -> Node: ...
        def parse_sequence(self, allow_empty: bool = False) -> Node: ...

    # ------------------------------------------------------------------ errors and nesting
    def unexpected(self, token: Token) -> ShellSyntaxError:
        if token.kind == "eof":
            return ShellSyntaxError("syntax error: unexpected EOF")
        shown = {"\n": "newline"}.get(token.value, token.value)
        if token.kind == "redir":
            shown = f"{token.fd if token.fd is not None else ''}{token.value}"
        return ShellSyntaxError(f"syntax error: '{shown}' unexpected")

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise ShellSyntaxError("syntax error: nesting too deep")

    # ------------------------------------------------------------------ tokens
    def peek(self) -> Token:
        if self.lookahead is None:
            self.lookahead = self.lex()
        return self.lookahead

    def next(self) -> Token:
        token = self.peek()
        self.lookahead = None
        return token

    def at_op(self, *ops: str) -> bool:
        token = self.peek()
        return token.kind == "op" and token.value in ops

    def at_word(self, *words: str) -> bool:
        token = self.peek()
        return token.kind == "word" and token.value in words

    def expect_word(self, word: str) -> None:
        if not self.at_word(word):
            raise self.unexpected(self.peek())
        self.next()

    def skip_newlines(self) -> None:
        while self.at_op("\n"):
            self.next()

    def lex(self) -> Token:
        text = self.text
        while self.pos < len(text):
            if text[self.pos] in " \t":
                self.pos += 1
            elif text.startswith("\\\n", self.pos):
                self.pos += 2
            elif text[self.pos] == "#":
                end = text.find("\n", self.pos)
                self.pos = len(text) if end < 0 else end
            else:
                break
        start = self.pos
        if self.pos >= len(text):
            if self.heredocs:
                raise ShellSyntaxError(f"here document '{self.heredocs[0][1]}' unclosed")
            return Token("eof", start=start)
        ch = text[self.pos]
        if ch == "\n":
            self.pos += 1
            self.read_heredocs()
            return Token("op", "\n", start=start)
        if ch in ";&|()":
            two = text[self.pos:self.pos + 2]
            op = two if two in (";;", "&&", "||") else ch
            self.pos += len(op)
            return Token("op", op, start=start)
        fd = None
        match = _IO_NUMBER.match(text, self.pos)
        if match:
            fd, self.pos = int(match.group()), match.end()
        if text[self.pos] in "<>":
            op = next(o for o in _REDIR_OPS if text.startswith(o, self.pos))
            self.pos += len(op)
            return Token("redir", op, fd=fd, start=start)
        word = self.lex_word()
        return Token("word", word.literal() or "", word=word, start=start)

    # ------------------------------------------------------------------ words
    def lex_word(self, stop: str = "", quoted: bool = False) -> Word:
        """Read one word up to a metacharacter (or a character of `stop`, for ${...} arguments)."""
        word = Word()
        literal: list[str] = []
        text = self.text

        def flush() -> None:
            if literal:
                word.parts.append(Lit("".join(literal), quoted))
                literal.clear()

        while self.pos < len(text):
            ch = text[self.pos]
            if ch in stop or (not stop and ch in _META):
                break
            if ch == "\\":
                nxt = text[self.pos + 1:self.pos + 2]
                self.pos += 2
                if nxt != "\n":
                    flush()
                    word.parts.append(Lit(nxt, True))
            elif ch == "'":
                end = text.find("'", self.pos + 1)
                if end < 0:
                    raise ShellSyntaxError("no closing quote")
                flush()
                word.parts.append(Lit(text[self.pos + 1:end], True))
                self.pos = end + 1
            elif ch == '"':
                flush()
                self.pos += 1
                self.lex_double_quoted(word)
            elif ch in "$`":
                flush()
                word.parts.append(self.lex_expansion(quoted))
            else:
                literal.append(ch)
                self.pos += 1
        flush()
        return word

    def lex_double_quoted(self, word: Word) -> None:
        literal: list[str] = []
        text = self.text
        parts_before = len(word.parts)
        while True:
            if self.pos >= len(text):
                raise ShellSyntaxError("no closing quote")
            ch = text[self.pos]
            if ch == '"':
                self.pos += 1
                break
            self.lex_quoted_char(word, literal, _ESCAPABLE_IN_DOUBLE_QUOTES)
        if literal or len(word.parts) == parts_before:
            word.parts.append(Lit("".join(literal), True))   # "" is still an (empty) argument

    def lex_expansion(self, quoted: bool):
        text = self.text
        if text[self.pos] == "`":
            return self.lex_backquote(quoted)
        nxt = text[self.pos + 1:self.pos + 2]
        if nxt == "(":
            if text.startswith("((", self.pos + 1):
                end = arith_end(text, self.pos + 3)
                if end is not None:
                    inner = text[self.pos + 3:end]
                    self.pos = end + 2
                    return Arith(self.nested(inner).lex_text_body(), quoted)
            self.pos += 2
            return CommandSub(self.parse_nested_list(), quoted)
        if nxt == "{":
            self.pos += 2
            return self.lex_braced_param(quoted)
        if nxt and nxt in _SPECIAL_PARAMS:
            self.pos += 2
            return Param(nxt, quoted=quoted)
        match = _NAME_PREFIX.match(text, self.pos + 1)
        if match:
            self.pos = match.end()
            return Param(match.group(), quoted=quoted)
        self.pos += 1
        return Lit("$", quoted)

    def lex_backquote(self, quoted: bool) -> CommandSub:
        text = self.text
        end, inner = self.pos + 1, []
        while end < len(text) and text[end] != "`":
            if text[end] == "\\" and text[end + 1:end + 2] in ("`", "\\", "$"):
                end += 1
            inner.append(text[end:end + 1])
            end += 1
        if end >= len(text):
            raise ShellSyntaxError("no closing quote")
        self.pos = end + 1
        return CommandSub(self.nested("".join(inner)).parse_all(), quoted)

    def parse_nested_list(self) -> Node:
        """The commands of `$(...)`, read in place; the closing `)` is consumed."""
        self.enter()
        saved, self.lookahead = self.lookahead, None
        body = self.parse_sequence(allow_empty=True)
        if not self.at_op(")"):
            raise self.unexpected(self.peek())
        self.lookahead = saved
        self.depth -= 1
        return body

    def lex_braced_param(self, quoted: bool) -> Param:
        text = self.text
        length = text.startswith("#", self.pos) and not text.startswith("#}", self.pos)
        if length:
            self.pos += 1
        match = _BRACED_NAME.match(text, self.pos)
        if not match:
            raise ShellSyntaxError(f"${{{text[self.pos:self.pos + 10]}: bad substitution")
        name = match.group()
        self.pos = match.end()
        if length:
            self.close_brace(name)
            return Param(name, "len", quoted=quoted)
        op = next((o for o in _PARAM_OPS if text.startswith(o, self.pos)), "")
        if text.startswith("}", self.pos):
            self.pos += 1
            return Param(name, quoted=quoted)
        if not op:
            raise ShellSyntaxError(f"${{{name}{text[self.pos:self.pos + 1]}: bad substitution")
        self.pos += len(op)
        self.enter()
        if op in ("/", "//"):
            pattern = self.lex_word(stop="/}", quoted=quoted)
            replacement = None
            if text.startswith("/", self.pos):
                self.pos += 1
                replacement = self.lex_word(stop="}", quoted=quoted)
            self.close_brace(name)
            self.depth -= 1
            return Param(name, op, pattern, quoted, replacement)
        arg = self.lex_word(stop="}", quoted=quoted)
        self.close_brace(name)
        self.depth -= 1
        return Param(name, op, arg, quoted)

    def close_brace(self, name: str) -> None:
        if not self.text.startswith("}", self.pos):
            raise ShellSyntaxError(f"${{{name}: bad substitution")
        self.pos += 1

    def lex_quoted_char(self, word: Word, literal: list[str], escapable: tuple[str, ...]) -> None:
        """One step through quoted text: a backslash before one of `escapable` (a backslash-newline
        vanishes), an expansion, or a literal character gathered into `literal`."""
        text, ch = self.text, self.text[self.pos]
        if ch == "\\" and text[self.pos + 1:self.pos + 2] in escapable:
            if text[self.pos + 1] != "\n":
                literal.append(text[self.pos + 1])
            self.pos += 2
        elif ch in "$`":
            if literal:
                word.parts.append(Lit("".join(literal), True))
                literal.clear()
            word.parts.append(self.lex_expansion(True))
        else:
            literal.append(ch)
            self.pos += 1

    def lex_text_body(self) -> Word:
        """Text where only $, ` and backslash are special (here-documents, arithmetic)."""
        word = Word()
        literal: list[str] = []
        text = self.text
        while self.pos < len(text):
            self.lex_quoted_char(word, literal, _ESCAPABLE_IN_TEXT_BODY)
        if literal:
            word.parts.append(Lit("".join(literal), True))
        return word

    def nested(self, text: str) -> Lexer:
        parser = type(self)(text, self.depth + 1)
        if parser.depth > MAX_NESTING:
            raise ShellSyntaxError("syntax error: nesting too deep")
        return parser

    # ------------------------------------------------------------------ here-documents
    def read_heredocs(self) -> None:
        pending, self.heredocs = self.heredocs, []
        for redirect, delimiter, literal in pending:
            strip_tabs = redirect.op == "<<-"
            lines = []
            while True:
                if self.pos >= len(self.text):
                    raise ShellSyntaxError(f"here document '{delimiter}' unclosed")
                end = self.text.find("\n", self.pos)
                end = len(self.text) if end < 0 else end
                line = self.text[self.pos:end]
                self.pos = min(end + 1, len(self.text))
                if strip_tabs:
                    line = line.lstrip("\t")
                if line == delimiter:
                    break
                lines.append(line + "\n")
            body = "".join(lines)
            redirect.target = Word([Lit(body, True)]) if literal else self.nested(body).lex_text_body()

def arith_end(text: str, start: int) -> int | None:
    """Index of the `))` closing an arithmetic expansion that starts at `start`, if it is one."""
    depth, pos, quote = 0, start, ""
    while pos < len(text):
        ch = text[pos]
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            if depth == 0:
                return pos if text.startswith("))", pos) else None
            depth -= 1
        pos += 1
    return None
