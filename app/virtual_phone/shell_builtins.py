"""The commands mksh runs itself: cd, export, set, read, eval, echo, test, `[[ ]]`...

Each builtin is a Shell method `builtin_<name>(argv, io) -> status`; messages follow mksh's
("cd: /nope: No such file or directory", "shift: nothing to shift").
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from .shell_conditions import run_test
from .shell_io import LimitExceeded
from .shell_parts import ShellParts
from .storage import StorageError

if TYPE_CHECKING:
    from .shell import IO

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class ControlFlow(Exception):
    """break, continue or return unwinding to the loop or function that handles it."""


class BreakLoop(ControlFlow):
    def __init__(self, levels: int):
        super().__init__(levels)
        self.levels = levels


class ContinueLoop(BreakLoop):
    pass


class ReturnFrom(ControlFlow):
    def __init__(self, code: int):
        super().__init__(code)
        self.code = code


class Fatal(Exception):
    """An error that ends a non-interactive mksh (bad substitution, readonly variable...)."""

    def __init__(self, message: str, code: int = 1):
        super().__init__(message)
        self.message, self.code = message, code


_ESCAPES = {"a": "\a", "b": "\b", "e": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}


def backslash_escapes(text: str) -> tuple[str, bool]:
    """mksh's echo/print escapes: (text, False when `\\c` asked to stop output there)."""
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch != "\\" or i + 1 >= len(text):
            out.append(ch)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "c":
            return "".join(out), False
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        elif nxt == "0":
            octal = re.match(r"[0-7]{0,3}", text[i + 2:])   # matches always, if only ""
            digits = octal.group() if octal else ""
            out.append(chr(int(digits or "0", 8)))
            i += 2 + len(digits)
        else:
            out.append(ch)
            i += 1
    return "".join(out), True


def echo_text(args: list[str], escapes: bool) -> str:
    """What `echo ARGS` prints: -n drops the newline, -e/-E turn backslash escapes on/off
    (`escapes` is the default: on for mksh's builtin, off for toybox's echo)."""
    args, newline = list(args), True
    while args and re.fullmatch(r"-[neE]+", args[0]):
        for flag in args.pop(0)[1:]:
            newline = newline and flag != "n"
            escapes = {"e": True, "E": False}.get(flag, escapes)
    text = " ".join(args)
    if escapes:
        text, go_on = backslash_escapes(text)
        newline = newline and go_on
    return text + ("\n" if newline else "")


class BuiltinsMixin(ShellParts):
    """Builtins of Shell."""

    SPECIAL_BUILTINS = {":", ".", "break", "continue", "eval", "exec", "exit", "export", "readonly", "return",
                        "set", "shift", "trap", "unset", "source", "local", "typeset"}
    BUILTINS = SPECIAL_BUILTINS | {"true", "false", "echo", "print", "test", "[", "pwd", "cd", "read", "let",
                                   "command", "type", "whence", "wait", "umask", "ulimit", "alias", "unalias"}

    def builtin(self, name: str) -> Callable[[list[str], IO], int] | None:
        if name not in self.BUILTINS:
            return None
        method = {":": "true", ".": "source", "[": "test", "typeset": "local", "whence": "type"}.get(name, name)
        return getattr(self, f"builtin_{method}")

    def say(self, io: IO, text: str, fd: int = 1) -> None:
        (io.out if fd == 1 else io.err).write(text.encode("utf-8", "surrogateescape"))

    def complain(self, io: IO, command: str, message: str, code: int = 1) -> int:
        self.error(io, f"{command}: {message}")
        return code

    # ------------------------------------------------------------------ trivial
    def builtin_true(self, argv: list[str], io: IO) -> int:
        return 0

    def builtin_false(self, argv: list[str], io: IO) -> int:
        return 1

    def builtin_wait(self, argv: list[str], io: IO) -> int:
        return 0

    def builtin_trap(self, argv: list[str], io: IO) -> int:
        return 0

    def builtin_alias(self, argv: list[str], io: IO) -> int:
        return 0

    builtin_unalias = builtin_alias

    def builtin_umask(self, argv: list[str], io: IO) -> int:
        if len(argv) == 1:
            self.say(io, "0000\n")
        return 0

    def builtin_ulimit(self, argv: list[str], io: IO) -> int:
        self.say(io, "unlimited\n")
        return 0

    # ------------------------------------------------------------------ output
    def builtin_echo(self, argv: list[str], io: IO) -> int:
        self.say(io, echo_text(argv[1:], escapes=True))   # mksh's echo reads backslash escapes
        return 0

    def builtin_print(self, argv: list[str], io: IO) -> int:
        args, newline, raw, fd = argv[1:], True, False, 1
        while args and args[0].startswith("-") and len(args[0]) > 1:
            flags = args.pop(0)
            if flags == "--":
                break
            newline = newline and "n" not in flags
            raw = raw or "r" in flags
            fd = 2 if "u2" in flags else fd
        text = " ".join(args)
        if not raw:
            text, go_on = backslash_escapes(text)
            newline = newline and go_on
        self.say(io, text + ("\n" if newline else ""), fd)
        return 0

    def builtin_pwd(self, argv: list[str], io: IO) -> int:
        self.say(io, (self.files.realpath(self.cwd) if "-P" in argv[1:] else self.cwd) + "\n")
        return 0

    def builtin_test(self, argv: list[str], io: IO) -> int:
        status, error = run_test(argv[0], argv[1:], self.files, self.resolve)
        if error:
            self.error(io, error.rstrip("\n"))
        return status

    # ------------------------------------------------------------------ directory and variables
    def builtin_cd(self, argv: list[str], io: IO) -> int:
        args = [a for a in argv[1:] if a not in ("-L", "-P")]
        if args and args[0] == "-":
            target = self.vars.get("OLDPWD", self.cwd)
            self.say(io, target + "\n")
        else:
            target = args[0] if args else self.vars.get("HOME", "/")
        path = self.resolve(target)
        try:
            found = self.files.lstat(path, follow=True)
            if not found.is_dir:
                raise StorageError("Not a directory")
        except StorageError as exc:
            return self.complain(io, "cd", f"{target}: {exc.reason}", 2)
        self.vars["OLDPWD"], self.cwd = self.cwd, path
        self.vars["PWD"] = path
        return 0

    def builtin_export(self, argv: list[str], io: IO) -> int:
        names = [a for a in argv[1:] if a != "-p"]
        if not names:
            for name in sorted(self.exported):
                if name in self.vars:
                    self.say(io, f"export {name}={_quote(self.vars[name])}\n")
            return 0
        for item in names:
            name, has_value, value = item.partition("=")
            if not _NAME.match(name):
                return self.complain(io, "export", f"{name}: is not an identifier")
            if has_value:
                self.set_var(name, value)
            self.exported.add(name)
        return 0

    def builtin_readonly(self, argv: list[str], io: IO) -> int:
        for item in argv[1:]:
            name, has_value, value = item.partition("=")
            if has_value:
                self.set_var(name, value)
            self.readonly.add(name)
        return 0

    def builtin_local(self, argv: list[str], io: IO) -> int:
        for item in (a for a in argv[1:] if not a.startswith(("-", "+"))):
            name, has_value, value = item.partition("=")
            if not _NAME.match(name):
                return self.complain(io, argv[0], f"{name}: is not an identifier")
            if self.local_frames and name not in self.local_frames[-1]:
                self.local_frames[-1][name] = self.vars.get(name)
            if "-x" in argv[1:]:
                self.exported.add(name)
            if has_value:
                self.set_var(name, value)
            elif self.local_frames:
                self.vars.pop(name, None)
        return 0

    def builtin_unset(self, argv: list[str], io: IO) -> int:
        functions = "-f" in argv[1:]
        for name in (a for a in argv[1:] if a not in ("-f", "-v")):
            if functions:
                self.functions.pop(name, None)
                continue
            if name in self.readonly:
                return self.complain(io, "unset", f"{name}: is read only")
            self.vars.pop(name, None)
            self.exported.discard(name)
        return 0

    def builtin_set(self, argv: list[str], io: IO) -> int:
        args = argv[1:]
        if not args:
            for name in sorted(self.vars):
                self.say(io, f"{name}={_quote(self.vars[name])}\n")
            return 0
        while args and args[0][:1] in ("-", "+") and args[0] not in ("-", "+"):
            flag = args.pop(0)
            if flag == "--":
                self.positional = args
                return 0
            if flag[1:] == "o" and args:
                option = {"errexit": "e", "nounset": "u", "xtrace": "x"}.get(args.pop(0))
                letters = option or ""
            else:
                letters = flag[1:]
            for letter in letters:
                (self.options.add if flag[0] == "-" else self.options.discard)(letter)
        if args:
            self.positional = args
        return 0

    def builtin_shift(self, argv: list[str], io: IO) -> int:
        count = int(argv[1]) if len(argv) > 1 and argv[1].isdigit() else 1
        if count > len(self.positional):
            return self.complain(io, "shift", "nothing to shift")
        self.positional = self.positional[count:]
        return 0

    def builtin_read(self, argv: list[str], io: IO) -> int:
        args = argv[1:]
        raw = False
        while args and args[0].startswith("-") and len(args[0]) > 1:
            flag = args.pop(0)
            raw = raw or "r" in flag
            if flag in ("-p", "-t", "-u", "-n", "-d") and args:
                args.pop(0)
        names = args or ["REPLY"]
        line = io.stdin.read_line()
        if line is None:
            for name in names:
                self.set_var(name, "")
            return 1
        text = line.decode("utf-8", "surrogateescape").rstrip("\n")
        if not raw:
            text = re.sub(r"\\(.)", r"\1", text.replace("\\\n", ""))
        ifs = self.vars.get("IFS", " \t\n")
        if names == ["REPLY"] and not args:
            self.set_var("REPLY", text)
            return 0
        white = "".join(c for c in ifs if c in " \t\n")
        text = text.strip(white)
        for index, name in enumerate(names):
            if index == len(names) - 1:
                self.set_var(name, text.strip(white))
                break
            match = re.search(f"[{re.escape(ifs)}]+", text) if ifs else None
            if not match:
                self.set_var(name, text)
                text = ""
                continue
            self.set_var(name, text[:match.start()])
            text = text[match.end():]
        return 0

    def builtin_let(self, argv: list[str], io: IO) -> int:
        value = 0
        for expression in argv[1:]:
            value = self.arithmetic(expression)
        return 0 if value != 0 else 1

    # ------------------------------------------------------------------ control
    def builtin_exit(self, argv: list[str], io: IO) -> int:
        from .shell_io import ShellExit

        raise ShellExit(_status_argument(argv, self.last_status))

    def builtin_return(self, argv: list[str], io: IO) -> int:
        raise ReturnFrom(_status_argument(argv, self.last_status))

    def builtin_break(self, argv: list[str], io: IO) -> int:
        if not self.loop_depth:
            return 0
        levels = int(argv[1]) if len(argv) > 1 and argv[1].isdigit() and int(argv[1]) > 0 else 1
        raise BreakLoop(min(levels, self.loop_depth))

    def builtin_continue(self, argv: list[str], io: IO) -> int:
        if not self.loop_depth:
            return 0
        levels = int(argv[1]) if len(argv) > 1 and argv[1].isdigit() and int(argv[1]) > 0 else 1
        raise ContinueLoop(min(levels, self.loop_depth))

    def builtin_eval(self, argv: list[str], io: IO) -> int:
        from .shell_parser import ShellSyntaxError, parse

        text = " ".join(argv[1:])
        if not text.strip():
            return 0
        try:
            node = parse(text)
        except ShellSyntaxError as exc:
            raise Fatal(str(exc), 1) from None
        self.depth += 1
        try:
            if self.depth > self.limits.max_depth:
                raise LimitExceeded(f"{self.name}: eval: too deeply nested", 1)
            return self.execute(node, io)
        finally:
            self.depth -= 1

    def builtin_source(self, argv: list[str], io: IO) -> int:
        if len(argv) < 2:
            return self.complain(io, argv[0], "missing argument")
        try:
            text = self.files.read_file(self.resolve(argv[1]), limit=self.limits.max_output).decode("utf-8",
                                                                                                    "surrogateescape")
        except StorageError as exc:
            return self.complain(io, argv[1], exc.reason)
        saved = self.positional
        if len(argv) > 2:
            self.positional = argv[2:]
        try:
            return self.builtin_eval(["eval", text], io)
        except ReturnFrom as exc:
            return exc.code
        finally:
            self.positional = saved

    def builtin_exec(self, argv: list[str], io: IO) -> int:
        from .shell_io import ShellExit

        if len(argv) == 1:
            return 0
        raise ShellExit(self.run_program(argv[1:], io, self.environment()))

    def builtin_command(self, argv: list[str], io: IO) -> int:
        args = argv[1:]
        if args and args[0] in ("-v", "-V"):
            return self.builtin_type(["type", *args[1:]], io, short=args[0] == "-v")
        if args and args[0] == "-p":
            args = args[1:]
        if not args:
            return 0
        builtin = self.builtin(args[0])
        return builtin(args, io) if builtin else self.run_program(args, io, self.environment())

    def builtin_type(self, argv: list[str], io: IO, short: bool = False) -> int:
        status = 0
        for name in argv[1:]:
            path = self.command_path(name)
            if name in self.functions:
                self.say(io, name + "\n" if short else f"{name} is a function\n")
            elif name in self.BUILTINS:
                self.say(io, name + "\n" if short else f"{name} is a shell builtin\n")
            elif path:
                self.say(io, path + "\n" if short else f"{name} is a tracked alias for {path}\n")
            else:
                status = 1
                if not short:
                    self.say(io, f"{name} not found\n")
        return status

    def command_path(self, name: str) -> str | None:
        """Where PATH finds a program on the phone (as `which` would print it)."""
        if "/" in name:
            return name if self.check_executable(name) is None else None
        for folder in self.vars.get("PATH", "").split(":"):
            if not folder:
                continue
            candidate = posixpath.join(folder, name)
            if self.check_executable(candidate) is None:
                return candidate
        return None


def _status_argument(argv: list[str], default: int) -> int:
    if len(argv) > 1:
        try:
            return int(argv[1]) & 0xFF
        except ValueError:
            return 255
    return default


def _quote(value: str) -> str:
    if re.fullmatch(r"[A-Za-z0-9_./:,+=@%-]*", value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"
