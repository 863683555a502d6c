"""The phone's /system/bin/sh (mksh), enough of it to run what ADB clients send to phones.

It does what mksh does with a command line, so that the virtual phone is an honest witness:
quotes protect text; `$(...)`, variables and arithmetic expand; `;` `&&` `||` `!` `|`, groups,
`if`/`for`/`while`/`until`/`case`, functions and redirections work; exit codes propagate.
Shell builtins (cd, export, echo, test...) run here; every other command goes to a `Runner`
(the phone's toybox and framework programs), which keeps the phone's command record.

Payload text stays data: nothing here reaches the host's shell or files, only the phone's
in-memory storage; and every command line runs within ShellLimits (commands, time, output,
nesting), past which the shell is killed with a phone-like message.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import Any, Protocol

from . import shell_ast as ast
from .shell_builtins import BreakLoop, BuiltinsMixin, ContinueLoop, ControlFlow, Fatal, ReturnFrom
from .shell_conditions import double_bracket
from .shell_expand import ExpansionMixin
from .shell_io import (
    IO,
    Budget,
    BufferSink,
    Collector,
    Input,
    LimitExceeded,
    Process,
    Result,
    ShellExit,
    ShellLimits,
    Sink,
)
from .shell_parser import ShellSyntaxError, parse
from .shell_programs import ProgramsMixin
from .storage import Stat, StorageError

__all__ = ["FileAccess", "Process", "Result", "Runner", "Shell", "ShellExit", "ShellLimits", "ShellSyntaxError",
           "parse"]

class FileAccess(Protocol):
    """What the shell needs of the phone's storage (PhoneStorage provides it)."""

    def read_file(self, path: str, limit: int | None = None) -> bytes: ...

    def write_file(self, path: str, data: bytes, append: bool = False) -> None: ...

    def lstat(self, path: str, follow: bool = False) -> Stat: ...

    def entries(self, path: str) -> list[tuple[str, Stat]]: ...

    def realpath(self, path: str) -> str: ...

    def writable(self, path: str) -> bool: ...


class Runner(Protocol):
    """Runs one program on the phone; None when there is no such program."""

    def __call__(self, argv: list[str], stdin: bytes, process: Process) -> Result | None: ...


class Shell(ExpansionMixin, BuiltinsMixin, ProgramsMixin):
    """One shell process: runs command lines, keeps `$?`, variables, functions and its directory."""

    def __init__(self, runner: Runner, files: FileAccess, env: dict[str, str] | None = None, *,
                 name: str = "/system/bin/sh", cwd: str = "/", limits: ShellLimits | None = None,
                 interactive: bool = False, cancelled: Callable[[], bool] | None = None):
        self.runner, self.files = runner, files
        self.cancelled = cancelled or _never   # True once whoever started the shell went away
        self.vars: dict[str, str] = dict(env or {})
        self.exported: set[str] = set(self.vars)
        self.readonly: set[str] = set()
        self.functions: dict[str, ast.Node] = {}
        self.positional: list[str] = []
        self.name = name
        self.cwd = cwd
        self.vars.setdefault("PWD", cwd)
        self.last_status = 0
        self.options: set[str] = set()
        self.limits = limits or ShellLimits()
        self.budget = Budget(self.limits, cancelled=self.cancelled)
        self.interactive = interactive
        self.depth = 0
        self.loop_depth = 0
        self.condition_depth = 0
        self.local_frames: list[dict[str, str | None]] = []
        self.substitution_status: int | None = None   # status of the last $(...) of the current command

    # ------------------------------------------------------------------ entry points
    def run_line(self, line: str, stdin: bytes = b"") -> Result:
        """Run a whole command line; its output keeps stdout and stderr in the order written."""
        self.budget = Budget(self.limits, cancelled=self.cancelled)
        collector = Collector(self.budget)
        io = IO({0: Input(stdin), 1: collector.sink(1), 2: collector.sink(2)})
        try:
            code = self.run_script(line, io)
        except LimitExceeded as exc:
            collector.budget = Budget(ShellLimits(max_output=collector.size + 4096))
            collector.add(2, f"{exc.message}\n".encode())
            code = self.last_status = exc.code
        except ShellExit as exc:
            if self.interactive:
                exc.result = Result(chunks=collector.chunks, code=exc.code & 0xFF)   # what it printed first
                raise
            code = self.last_status = exc.code & 0xFF
        return Result(chunks=collector.chunks, code=code)

    def run_script(self, text: str, io: IO) -> int:
        """Parse and run a script in this shell; errors end it as they end mksh."""
        try:
            node = parse(text)
        except ShellSyntaxError as exc:
            self.error(io, str(exc))
            self.last_status = 1
            return 1
        try:
            self.execute(node, io)
        except Fatal as exc:
            self.error(io, exc.message)
            self.last_status = exc.code
        except ReturnFrom as exc:
            self.last_status = exc.code
        except ControlFlow:
            pass
        except RecursionError:
            self.error(io, "too deeply nested")
            self.last_status = 1
        return self.last_status

    # ------------------------------------------------------------------ helpers
    def error(self, io: IO, message: str) -> None:
        io.err.write(f"{self.name}: {message}\n".encode("utf-8", "surrogateescape"))

    def resolve(self, path: str) -> str:
        """An absolute path for a path the user gave, relative to the working directory."""
        if not path:
            return self.cwd
        resolved = posixpath.normpath(posixpath.join(self.cwd, path))
        return "/" + resolved.lstrip("/") if resolved.startswith("//") else resolved

    def subshell(self) -> Shell:
        """A copy of this shell for `( ... )`, pipelines and `$(...)`: changes do not come back."""
        child = Shell.__new__(Shell)
        child.__dict__.update(self.__dict__)
        child.vars, child.exported = dict(self.vars), set(self.exported)
        child.readonly, child.functions = set(self.readonly), dict(self.functions)
        child.positional, child.options = list(self.positional), set(self.options)
        child.local_frames = []
        child.depth = self.depth + 1
        if child.depth > self.limits.max_depth:
            raise LimitExceeded(f"{self.name}: too deeply nested", 1)
        return child

    def run_subshell(self, node: ast.Node, io: IO) -> int:
        child = self.subshell()
        try:
            return child.execute(node, io)
        except ShellExit as exc:
            return exc.code & 0xFF
        except ReturnFrom as exc:
            return exc.code
        except ControlFlow:
            return child.last_status
        except Fatal as exc:
            child.error(io, exc.message)
            return exc.code

    def environment(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = {name: self.vars[name] for name in self.exported if name in self.vars}
        env.update(extra or {})
        return env

    # ------------------------------------------------------------------ execution
    def execute(self, node: ast.Node, io: IO) -> int:
        handler = _HANDLERS[type(node)]
        status = handler(self, node, io)
        self.last_status = status
        if status and "e" in self.options and not self.condition_depth and type(node) in _ERREXIT_NODES:
            raise ShellExit(status)
        return status

    def condition(self, node: ast.Node, io: IO) -> int:
        self.condition_depth += 1
        try:
            return self.execute(node, io)
        finally:
            self.condition_depth -= 1

    def exec_sequence(self, node: ast.Sequence, io: IO) -> int:
        status = 0
        for item in node.items:
            status = self.execute(item, io)
        return status

    def exec_and_or(self, node: ast.AndOr, io: IO) -> int:
        status = self.condition(node.first, io) if node.rest else self.execute(node.first, io)
        for index, (op, pipeline) in enumerate(node.rest):
            if (op == "&&") == (status == 0):
                last = index == len(node.rest) - 1
                status = self.execute(pipeline, io) if last else self.condition(pipeline, io)
        return status

    def exec_pipeline(self, node: ast.Pipeline, io: IO) -> int:
        if len(node.commands) == 1:
            status = self.condition(node.commands[0], io) if node.negate else self.execute(node.commands[0], io)
        else:
            source: Input | Sink = io.fds.get(0, Input())
            status = 0
            for index, command in enumerate(node.commands):
                last = index == len(node.commands) - 1
                stage = io.copy()
                stage.fds[0] = source
                pipe = None if last else BufferSink(self.budget)
                if pipe is not None:
                    stage.fds[1] = pipe
                status = self.run_subshell(command, stage)
                if pipe is not None:
                    source = Input(bytes(pipe.buffer))
        return int(status == 0) if node.negate else status

    def exec_group(self, node: ast.Group, io: IO) -> int:
        if node.subshell:
            return self.run_subshell(node.body, io)
        return self.execute(node.body, io)

    def exec_if(self, node: ast.If, io: IO) -> int:
        for condition, body in node.clauses:
            if self.condition(condition, io) == 0:
                return self.execute(body, io)
        return self.execute(node.orelse, io) if node.orelse is not None else 0

    def exec_loop(self, node: ast.Loop, io: IO) -> int:
        status = 0
        self.loop_depth += 1
        try:
            while True:
                self.budget.tick()
                if (self.condition(node.condition, io) == 0) == node.until:
                    break
                if self.run_loop_body(node.body, io):
                    break
                status = self.last_status
        finally:
            self.loop_depth -= 1
        return status

    def exec_for(self, node: ast.For, io: IO) -> int:
        values = self.expand_words(node.words, io) if node.words is not None else list(self.positional)
        status = 0
        self.loop_depth += 1
        try:
            for value in values:
                self.budget.tick()
                self.set_var(node.name, value)
                if self.run_loop_body(node.body, io):
                    break
                status = self.last_status
        finally:
            self.loop_depth -= 1
        return status

    def run_loop_body(self, body: ast.Node, io: IO) -> bool:
        """Run one turn of a loop; True when `break` ends the loop."""
        try:
            self.execute(body, io)
        except BreakLoop as exc:   # ContinueLoop too
            if exc.levels > 1:
                exc.levels -= 1
                raise
            return not isinstance(exc, ContinueLoop)
        return False

    def exec_case(self, node: ast.Case, io: IO) -> int:
        subject = self.expand_string(node.word, io)
        for patterns, body in node.arms:
            if any(self.pattern_regex(pattern, io).fullmatch(subject) for pattern in patterns):
                return self.execute(body, io) if body is not None else 0
        return 0

    def exec_function_def(self, node: ast.FunctionDef, io: IO) -> int:
        self.functions[node.name] = node.body
        return 0

    def exec_arith(self, node: ast.ArithCommand, io: IO) -> int:
        return 0 if self.arithmetic(self.expand_string(node.expr, io)) != 0 else 1

    def exec_conditional(self, node: ast.Conditional, io: IO) -> int:
        return double_bracket(self, node.words, io)

    def exec_redirected(self, node: ast.Redirected, io: IO) -> int:
        redirected = self.open_redirects(node.redirects, io)
        if redirected is None:
            return 1
        return self.execute(node.command, redirected)

    def exec_simple(self, node: ast.Simple, io: IO) -> int:
        self.budget.tick()
        self.substitution_status = None
        argv = self.expand_words(node.words, io)
        assigns = {name: self.expand_string(word, io) for name, word in node.assigns}
        substituted = self.substitution_status or 0
        redirected = self.open_redirects(node.redirects, io) if node.redirects else io
        if redirected is None:
            return 1
        if not argv:
            for name, value in assigns.items():
                self.set_var(name, value)
            return substituted
        if "x" in self.options:
            trace = " ".join([f"{k}={v}" for k, v in assigns.items()] + argv)
            redirected.err.write(f"+ {trace}\n".encode("utf-8", "surrogateescape"))
        try:
            return self.run_command(argv, assigns, redirected)
        except StorageError as exc:   # a redirected write found the disk full
            self.error(io, f"{argv[0]}: write error: {exc.reason}")
            return 1

    def run_command(self, argv: list[str], assigns: dict[str, str], io: IO) -> int:
        name = argv[0]
        builtin = self.builtin(name)
        if builtin is not None and name in self.SPECIAL_BUILTINS:
            for key, value in assigns.items():
                self.set_var(key, value)
            return builtin(argv, io)
        if name in self.functions:
            return self.with_assignments(assigns, lambda: self.call_function(name, argv, io))
        if builtin is not None:
            return self.with_assignments(assigns, lambda: builtin(argv, io))
        return self.run_program(argv, io, self.environment(assigns))

    def with_assignments(self, assigns: dict[str, str], action: Callable[[], int]) -> int:
        saved = {name: self.vars.get(name) for name in assigns}
        for key, value in assigns.items():
            self.set_var(key, value)
        try:
            return action()
        finally:
            for key, old in saved.items():
                if old is None:
                    self.vars.pop(key, None)
                else:
                    self.vars[key] = old

    def call_function(self, name: str, argv: list[str], io: IO) -> int:
        if self.depth >= self.limits.max_depth:
            raise LimitExceeded(f"{self.name}: {name}: recursion too deep", 1)
        saved = self.positional
        self.positional = argv[1:]
        self.depth += 1
        self.local_frames.append({})
        try:
            return self.execute(self.functions[name], io)
        except ReturnFrom as exc:
            return exc.code
        finally:
            for var, value in self.local_frames.pop().items():
                if value is None:
                    self.vars.pop(var, None)
                else:
                    self.vars[var] = value
            self.depth -= 1
            self.positional = saved


def _never() -> bool:
    return False


# Each handler takes the node type it is keyed by, which one Callable type cannot say.
_HANDLERS: dict[type, Callable[[Shell, Any, IO], int]] = {
    ast.Simple: Shell.exec_simple, ast.Pipeline: Shell.exec_pipeline, ast.AndOr: Shell.exec_and_or,
    ast.Sequence: Shell.exec_sequence, ast.If: Shell.exec_if, ast.Loop: Shell.exec_loop, ast.For: Shell.exec_for,
    ast.Case: Shell.exec_case, ast.Group: Shell.exec_group, ast.FunctionDef: Shell.exec_function_def,
    ast.ArithCommand: Shell.exec_arith, ast.Conditional: Shell.exec_conditional,
    ast.Redirected: Shell.exec_redirected,
}
_ERREXIT_NODES = (ast.Simple, ast.Pipeline, ast.ArithCommand, ast.Conditional, ast.Group)
