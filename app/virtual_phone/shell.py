"""A small POSIX-sh subset, enough to run what ADB clients send to a phone.

It does what the phone's /system/bin/sh (mksh) does with a command line, so that the
virtual phone is an honest witness in security tests: quotes and backslashes protect
text; `;`, `&&`, `||`, `|`, `&` and newlines outside quotes start another command;
`$(...)` and backticks outside single quotes really run a command and substitute its
output; `$VAR`/`${VAR}`/`$?` expand; `>`, `>>`, `2>`, `2>&1`, `<` redirect. Every simple
command that runs is passed to a `Runner`, which keeps the phone's command record.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

from .shell_parser import (  # noqa: F401  (parse and ShellSyntaxError are part of this module's API)
    Pipeline,
    Redirect,
    ShellSyntaxError,
    SimpleCommand,
    Word,
    parse,
)


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
