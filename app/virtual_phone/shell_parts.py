"""What the parts of Shell (ExpansionMixin, BuiltinsMixin, ProgramsMixin) use of one another.

`shell.py` sets these attributes and the parts define these methods; they are declared here
only so that each part is type-checked against them. Nothing here exists at run time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from . import shell_ast as ast
    from .shell import FileAccess, Runner
    from .shell_io import IO, Budget, ShellLimits


class ShellParts:
    """The state and methods Shell's parts share (declarations only)."""

    runner: Runner
    files: FileAccess
    vars: dict[str, str]
    exported: set[str]
    readonly: set[str]
    functions: dict[str, ast.Node]
    positional: list[str]
    name: str
    cwd: str
    last_status: int
    options: set[str]
    limits: ShellLimits
    budget: Budget
    depth: int
    loop_depth: int
    local_frames: list[dict[str, str | None]]
    substitution_status: int | None

    if TYPE_CHECKING:
        # shell.py
        def __init__(self, runner: Runner, files: FileAccess, env: dict[str, str] | None = None, *,
                     name: str = "/system/bin/sh", cwd: str = "/", limits: ShellLimits | None = None,
                     interactive: bool = False, cancelled: Callable[[], bool] | None = None) -> None: ...
        def run_script(self, text: str, io: IO) -> int: ...
        def error(self, io: IO, message: str) -> None: ...
        def resolve(self, path: str) -> str: ...
        def run_subshell(self, node: ast.Node, io: IO) -> int: ...
        def environment(self, extra: dict[str, str] | None = None) -> dict[str, str]: ...
        def execute(self, node: ast.Node, io: IO) -> int: ...
        # shell_expand.py
        def set_var(self, name: str, value: str) -> None: ...
        def arithmetic(self, text: str) -> int: ...
        def expand_string(self, word: ast.Word, io: IO) -> str: ...
        # shell_programs.py
        def run_program(self, argv: list[str], io: IO, env: dict[str, str]) -> int: ...
        def check_executable(self, name: str) -> tuple[str, int] | None: ...
