"""How the shell starts programs and applies redirections (a mixin of Shell).

A command given by path must exist on the phone and be executable, as mksh checks; a text
file runs as a script; `sh` and `mksh` start a child shell here; everything else goes to the
Runner (the phone's toybox and framework programs). Nothing here reaches the host.
"""

from __future__ import annotations

import posixpath
import stat
from functools import partial

from . import shell_ast as ast
from .shell_io import IO, Collector, FileSink, Input, LimitExceeded, NullSink, Process, Result, ShellExit, Sink
from .shell_parts import ShellParts
from .storage import StorageError

SHELL_NAMES = {"sh", "mksh"}


class ProgramsMixin(ShellParts):
    """Starting programs and opening redirections, for Shell."""

    # ------------------------------------------------------------------ programs
    def run_program(self, argv: list[str], io: IO, env: dict[str, str]) -> int:
        """Run a program (not a builtin): a file by path, another shell, or one of the phone's."""
        name = argv[0]
        if "/" in name:
            failure = self.check_executable(name)
            if failure is not None:
                self.error(io, failure[0])
                return failure[1]
            if self.is_script(name):
                return self.run_shell_program(["sh", *argv], io, env)
        if posixpath.basename(name) in SHELL_NAMES:
            return self.run_shell_program(argv, io, env)
        stdin = io.stdin.read_all()
        process = Process(self.cwd, env, self.budget,
                          lambda args, data, environment=None: self.spawn(args, data, environment or env))
        result = self.runner(argv, stdin, process)
        if result is None:
            self.error(io, f"{name}: inaccessible or not found")
            return 127
        for fd, data in result.chunks:
            sink = io.fds.get(fd)
            try:
                (sink if isinstance(sink, Sink) else NullSink()).write(data)
            except StorageError as exc:
                io.err.write(f"{posixpath.basename(name)}: write error: {exc.reason}\n".encode())
                return 1
        return result.code & 0xFF

    def spawn(self, argv: list[str], stdin: bytes, env: dict[str, str]) -> Result:
        """Run a program for another program (xargs, env) and return what it wrote."""
        collector = Collector(self.budget)
        io = IO({0: Input(stdin), 1: collector.sink(1), 2: collector.sink(2)})
        self.budget.tick()
        code = self.run_program(argv, io, env)
        return Result(chunks=collector.chunks, code=code)

    def check_executable(self, name: str) -> tuple[str, int] | None:
        """Why a command given by path cannot run, as mksh words it (None when it can)."""
        try:
            found = self.files.lstat(self.resolve(name), follow=True)
        except StorageError as exc:
            if exc.reason == "Not a directory":
                return f"{name}: can't execute: Not a directory", 126
            return f"{name}: inaccessible or not found", 127
        if found.is_dir:
            return f"{name}: can't execute: Is a directory", 126
        if not found.mode & 0o111:
            return f"{name}: can't execute: Permission denied", 126
        return None

    def is_script(self, name: str) -> bool:
        path = self.resolve(name)
        if not stat.S_ISREG(self.files.lstat(path, follow=True).mode):
            return False
        head = self.files.read_file(path)[:4]
        return head != b"\x7fELF"

    def run_shell_program(self, argv: list[str], io: IO, env: dict[str, str]) -> int:
        """`sh -c 'cmd' name args`, `sh script args` or `sh` reading its script from stdin."""
        args = argv[1:]
        options, command = set(), None
        while args and args[0].startswith("-") and len(args[0]) > 1 and args[0] != "--":
            flag = args.pop(0)
            if "c" in flag:
                if not args:
                    self.error(io, "-c: option requires an argument")
                    return 1
                command = args.pop(0)
            options |= set(flag[1:]) & {"e", "x", "u"}
        if args[:1] == ["--"]:
            args = args[1:]
        child = type(self)(self.runner, self.files, env,
                           name=posixpath.basename(argv[0]) if command is None else argv[0],
                      cwd=self.cwd, limits=self.limits)
        child.budget, child.options, child.depth = self.budget, options, self.depth + 1
        if child.depth > self.limits.max_depth:
            raise LimitExceeded(f"{self.name}: too deeply nested", 1)
        if command is not None:
            script = command
            if args:
                child.name, child.positional = args[0], args[1:]
        elif args:
            path = self.resolve(args[0])
            try:
                script = self.files.read_file(path, limit=self.limits.max_output).decode("utf-8", "surrogateescape")
            except StorageError as exc:
                self.error(io, f"{args[0]}: {exc.reason}" if exc.reason != "No such file or directory"
                           else f"{args[0]}: inaccessible or not found")
                return 127
            child.name, child.positional = args[0], args[1:]
        else:
            script = io.stdin.read_all().decode("utf-8", "surrogateescape")
        try:
            return child.run_script(script, io) & 0xFF
        except ShellExit as exc:
            return exc.code & 0xFF

    # ------------------------------------------------------------------ redirections
    def open_redirects(self, redirects: list[ast.Redirect], io: IO) -> IO | None:
        """The descriptors after applying redirections left to right; None (after a message) on failure."""
        new = io.copy()
        for redirect in redirects:
            op, fd = redirect.op, redirect.fd
            if op in ("<<", "<<-"):
                new.fds[fd] = Input(self.expand_string(redirect.target, io).encode("utf-8", "surrogateescape"))
                continue
            target = self.expand_string(redirect.target, io)
            if op == "<<<":
                new.fds[fd] = Input((target + "\n").encode("utf-8", "surrogateescape"))
            elif op in (">&", "<&"):
                if target == "-":
                    new.fds[fd] = NullSink() if op == ">&" else Input()
                elif target.isdigit() and int(target) in new.fds:
                    new.fds[fd] = new.fds[int(target)]
                else:
                    self.error(new, f"{target}: bad file descriptor" if target.isdigit()
                               else f"{target}: illegal file descriptor name")
                    return None
            elif op in ("<", "<>"):
                try:
                    data = self.files.read_file(self.resolve(target), limit=self.limits.max_output + 1)
                except StorageError as exc:
                    self.error(new, f"can't open {target}: {exc.reason}")
                    return None
                new.fds[fd] = Input(data)
            else:
                path = self.resolve(target)
                if path == "/dev/null":
                    new.fds[fd] = NullSink()
                    continue
                try:
                    self.files.write_file(path, b"", append=op == ">>")
                except StorageError as exc:
                    self.error(new, f"can't create {target}: {exc.reason}")
                    return None
                new.fds[fd] = FileSink(partial(self.files.write_file, path, append=True))
        return new
