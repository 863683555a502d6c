"""What every program shares: results with the phone's output and error conventions.

Programs that are Java services (`cmd` commands: am, pm, wm, input, ime, settings...) report an
uncaught exception as ShellCommand does: a blank line, "Exception occurred while executing 'X':",
the exception and its stack on stderr, exit code 255.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..shell import Result

if TYPE_CHECKING:
    from ..attached_device import AttachedDevice

Program = Callable[["AttachedDevice", list[str], bytes], Result]


def ok(text: str = "") -> Result:
    return Result(stdout=text.encode("utf-8"))


def fail(text: str, code: int = 1) -> Result:
    return Result(stderr=text.encode("utf-8"), code=code)


def lines(items) -> str:
    return "".join(f"{item}\n" for item in items)


class ShellCommandError(Exception):
    """A Java exception escaping a system service's shell command (e.g. IllegalArgumentException)."""

    def __init__(self, message: str, exception: str = "java.lang.IllegalArgumentException") -> None:
        super().__init__(message)
        self.exception = exception


def java_exception(command: str, message: str, exception: str = "java.lang.IllegalArgumentException",
                   where: str = "com.android.server.am.ActivityManagerShellCommand.onCommand") -> Result:
    cls, _, method = where.rpartition(".")
    source = cls.rsplit(".", 1)[-1].split("$")[0] + ".java"
    trace = (f"\tat {where}({source}:{211 + len(command) * 7})\n"
             "\tat com.android.modules.utils.BasicShellCommandHandler.exec(BasicShellCommandHandler.java:97)\n"
             "\tat android.os.ShellCommand.exec(ShellCommand.java:38)\n"
             "\tat android.os.Binder.shellCommand(Binder.java:1092)\n"
             "\tat android.os.Binder.onTransact(Binder.java:912)\n")
    return fail(f"\nException occurred while executing '{command}':\n{exception}: {message}\n{trace}", 255)


class Args:
    """A ShellCommand's argument cursor: next_arg, next_required (throws as Java does), peek."""

    def __init__(self, args: list[str]) -> None:
        self.args = list(args)
        self.pos = 0

    def peek(self) -> str | None:
        return self.args[self.pos] if self.pos < len(self.args) else None

    def next(self) -> str | None:
        value = self.peek()
        if value is not None:
            self.pos += 1
        return value

    def required(self) -> str:
        value = self.next()
        if value is None:
            previous = self.args[self.pos - 1] if self.pos else ""
            raise ShellCommandError(f'Argument expected after "{previous}"')
        return value

    def option(self) -> str | None:
        """The next argument if it is an option (starts with -), as getNextOption does."""
        value = self.peek()
        if value is None or not value.startswith("-") or value == "-":
            return None
        self.pos += 1
        return None if value == "--" else value

    def rest(self) -> list[str]:
        remaining = self.args[self.pos:]
        self.pos = len(self.args)
        return remaining


def package_argument(args: Args) -> str:
    """`[--user USER_ID] PACKAGE`, as force-stop, path, clear and grant take it (the phone has user 0 only)."""
    while (opt := args.option()) is not None:
        if opt != "--user":
            raise ShellCommandError(f"Unknown option: {opt}")
        args.required()
    return args.required()


def java_int(text: str) -> int:
    """Integer.parseInt: raises ShellCommandError(NumberFormatException) on bad input."""
    try:
        if text.strip() != text or not text.lstrip("+-").isdigit():
            raise ValueError
        value = int(text)
        if not -(1 << 31) <= value < (1 << 31):
            raise ValueError
        return value
    except ValueError:
        raise ShellCommandError(f'For input string: "{text}"', "java.lang.NumberFormatException") from None


def java_float(text: str) -> float:
    """Float.parseFloat: a decimal with an optional f/d suffix, NaN or Infinity; else NumberFormatException."""
    body = text.strip()
    if body[-1:] in ("f", "F", "d", "D"):
        body = body[:-1]
    if body.lstrip("+-") in ("NaN", "Infinity"):
        return float(body.replace("Infinity", "inf"))
    try:
        if body.lower().lstrip("+-").startswith(("inf", "nan")):
            raise ValueError
        return float(body)
    except ValueError:
        raise ShellCommandError(f'For input string: "{text}"', "java.lang.NumberFormatException") from None


def java_hash(text: str) -> int:
    """String.hashCode(), which decides the order ArrayMap and HashMap list their keys in."""
    value = 0
    for ch in text:
        value = (31 * value + ord(ch)) & 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value
