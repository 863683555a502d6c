"""`test` / `[` expressions (string, numeric and file tests), shared by the shell and toybox.

Files are looked up in the phone's storage through `lstat(path, follow)` and `writable(path)`.
Errors raise ConditionError with the wording of mksh's builtin (exit status 2).
"""

from __future__ import annotations

import stat
from collections.abc import Callable
from typing import Protocol

from . import shell_ast as ast
from .storage import Stat, StorageError

UNARY_FILE = set("efdrwxsLhbcpSugkOG")
UNARY_STRING = {"-z", "-n"}
BINARY = {"=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef"}


class ConditionError(Exception):
    """A malformed expression; the message follows the command's name."""


class ConditionFiles(Protocol):
    def lstat(self, path: str, follow: bool = False) -> Stat: ...

    def writable(self, path: str) -> bool: ...


def is_unary(op: str) -> bool:
    return op in UNARY_STRING or (len(op) == 2 and op[0] == "-" and op[1] in UNARY_FILE) or op == "-t"


def _number(text: str) -> int:
    value = text.strip()
    try:
        return int(value)
    except ValueError:
        raise ConditionError(f"{text}: bad number") from None


def unary(op: str, arg: str, files: ConditionFiles, resolve: Callable[[str], str]) -> bool:
    if op == "-z":
        return arg == ""
    if op == "-n":
        return arg != ""
    if op == "-t":
        return False
    if not arg:
        return False
    path = resolve(arg)
    try:
        found = files.lstat(path, follow=op not in ("-L", "-h"))
    except StorageError:
        return False
    mode = found.mode
    checks = {
        "-e": True, "-f": stat.S_ISREG(mode), "-d": stat.S_ISDIR(mode), "-L": stat.S_ISLNK(mode),
        "-h": stat.S_ISLNK(mode), "-b": stat.S_ISBLK(mode), "-c": stat.S_ISCHR(mode), "-p": stat.S_ISFIFO(mode),
        "-S": stat.S_ISSOCK(mode), "-s": found.size > 0, "-r": True, "-x": bool(mode & 0o111),
        "-u": bool(mode & stat.S_ISUID), "-g": bool(mode & stat.S_ISGID), "-k": bool(mode & stat.S_ISVTX),
        "-O": found.uid == 2000, "-G": found.gid == 2000,
    }
    if op == "-w":
        return files.writable(path)
    return checks[op]


def binary(op: str, left: str, right: str, files: ConditionFiles, resolve: Callable[[str], str]) -> bool:
    if op in ("=", "=="):
        return left == right
    if op == "!=":
        return left != right
    if op == "<":
        return left < right
    if op == ">":
        return left > right
    if op in ("-nt", "-ot", "-ef"):
        try:
            a, b = files.lstat(resolve(left), True), files.lstat(resolve(right), True)
        except StorageError:
            return False
        return {"-nt": a.mtime > b.mtime, "-ot": a.mtime < b.mtime, "-ef": a.ino == b.ino}[op]
    x, y = _number(left), _number(right)
    return {"-eq": x == y, "-ne": x != y, "-lt": x < y, "-le": x <= y, "-gt": x > y, "-ge": x >= y}[op]


class _Expression:
    def __init__(self, args: list[str], files: ConditionFiles, resolve: Callable[[str], str]):
        self.args, self.pos = args, 0
        self.files, self.resolve = files, resolve

    def peek(self, offset: int = 0) -> str | None:
        index = self.pos + offset
        return self.args[index] if index < len(self.args) else None

    def take(self) -> str:
        if self.pos >= len(self.args):
            raise ConditionError("argument expected")
        self.pos += 1
        return self.args[self.pos - 1]

    def parse_or(self) -> bool:
        value = self.parse_and()
        while self.peek() == "-o":
            self.take()
            value = self.parse_and() or value
        return value

    def parse_and(self) -> bool:
        value = self.parse_not()
        while self.peek() == "-a":
            self.take()
            value = self.parse_not() and value
        return value

    def parse_not(self) -> bool:
        if self.peek() == "!" and self.peek(1) is not None:
            self.take()
            return not self.parse_not()
        return self.primary()

    def primary(self) -> bool:
        token = self.take()
        if token == "(" and self.peek(1) is not None:
            value = self.parse_or()
            if self.take() != ")":
                raise ConditionError("unexpected operator/operand")
            return value
        following = self.peek()
        if following in BINARY and self.peek(1) is not None:
            self.take()
            return binary(following, token, self.take(), self.files, self.resolve)
        if is_unary(token) and following is not None:
            return unary(token, self.take(), self.files, self.resolve)
        return token != ""


def evaluate(args: list[str], files: ConditionFiles, resolve: Callable[[str], str]) -> bool:
    """The truth of a test expression (POSIX rules for up to four arguments, then precedence)."""
    count = len(args)
    if count == 0:
        return False
    if count == 1:
        return args[0] != ""
    if count == 2 and args[0] == "!":
        return args[1] == ""
    if count == 2 and is_unary(args[0]):
        return unary(args[0], args[1], files, resolve)
    if count == 3 and args[1] in BINARY:
        return binary(args[1], args[0], args[2], files, resolve)
    if count == 3 and args[0] == "!":
        return not evaluate(args[1:], files, resolve)
    if count == 3 and args[0] == "(" and args[2] == ")":
        return args[1] != ""
    expression = _Expression(args, files, resolve)
    value = expression.parse_or()
    if expression.pos != len(args):
        raise ConditionError(f"{args[expression.pos]}: unexpected operator/operand")
    return value


def run_test(name: str, args: list[str], files: ConditionFiles, resolve: Callable[[str], str]) -> tuple[int, str]:
    """`test ARGS` or `[ ARGS ]`: (exit status, error text or "")."""
    if name == "[":
        if not args or args[-1] != "]":
            return 2, "[: missing ]\n"
        args = args[:-1]
    try:
        return (0 if evaluate(args, files, resolve) else 1), ""
    except ConditionError as exc:
        return 2, f"{name}: {exc}\n"


def double_bracket(shell, words: list[ast.Word], io) -> int:
    """`[[ ... ]]` for a Shell: like test, with && || ( ) and patterns after == and !=."""
    tokens: list[tuple[str, ast.Word]] = [(op if (op := w.literal()) in ("&&", "||", "(", ")", "!")
                                           else shell.expand_string(w, io), w) for w in words]
    position = 0

    def take() -> tuple[str, ast.Word]:
        nonlocal position
        if position >= len(tokens):
            raise ConditionError("argument expected")
        position += 1
        return tokens[position - 1]

    def is_op(index: int, ops: tuple[str, ...]) -> bool:
        return index < len(tokens) and tokens[index][1].literal() in ops

    def parse_or() -> bool:
        value = parse_and()
        while is_op(position, ("||",)):
            take()
            right = parse_and()
            value = value or right
        return value

    def parse_and() -> bool:
        value = parse_not()
        while is_op(position, ("&&",)):
            take()
            right = parse_not()
            value = value and right
        return value

    def parse_not() -> bool:
        if is_op(position, ("!",)):
            take()
            return not parse_not()
        if is_op(position, ("(",)):
            take()
            value = parse_or()
            if not is_op(position, (")",)):
                raise ConditionError("missing )")
            take()
            return value
        text, _ = take()
        if position < len(tokens) and tokens[position][0] in ("=", "==", "!=") and position + 1 < len(tokens):
            op = take()[0]
            _, right_word = take()
            matched = bool(shell.pattern_regex(right_word, io).fullmatch(text))
            return matched if op != "!=" else not matched
        if position < len(tokens) and tokens[position][0] in ("<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge",
                                                                "-nt", "-ot", "-ef") and position + 1 < len(tokens):
            op = take()[0]
            return binary(op, text, take()[0], shell.files, shell.resolve)
        if is_unary(text) and position < len(tokens) and not is_op(position, ("&&", "||", ")")):
            return unary(text, take()[0], shell.files, shell.resolve)
        return text != ""

    try:
        value = parse_or()
        if position != len(tokens):
            raise ConditionError(f"{tokens[position][0]}: unexpected operator/operand")
    except ConditionError as exc:
        shell.error(io, f"[[: {exc}")
        return 2
    return 0 if value else 1
