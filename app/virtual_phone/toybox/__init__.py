"""The toybox commands of the phone's /system/bin, with their real options and messages.

`run(argv, stdin, storage, process, phone)` runs one; `COMMANDS` names them all. `toybox CMD ...`
works too, as on a phone.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..shell_io import Result
from ..storage import PhoneStorage
from . import files, grep, listing, printing, processes, sed, system, text, tree
from .context import Tool, Usage

if TYPE_CHECKING:
    from ..phone import VirtualPhone
    from ..shell import Process

Command = Callable[[Tool, list[str]], int]

COMMANDS: dict[str, Command] = {
    **files.COMMANDS, **listing.COMMANDS, **grep.COMMANDS, **tree.COMMANDS, **text.COMMANDS, **sed.COMMANDS,
                                **printing.COMMANDS,
    **processes.COMMANDS, **system.COMMANDS,
}


def run(argv: list[str], stdin: bytes, storage: PhoneStorage, process: Process,
        phone: VirtualPhone | None = None) -> Result | None:
    """Run a toybox command; None when toybox has no such command."""
    name = posixpath.basename(argv[0])
    args = argv[1:]
    if name == "toybox":
        if not args:
            return Result(stdout=(" ".join(sorted(COMMANDS)) + "\n").encode())
        name, args = posixpath.basename(args[0]), args[1:]
    command = COMMANDS.get(name)
    if command is None:
        return None
    tool = Tool(name, storage, process, stdin, phone)
    try:
        code = command(tool, args)
    except Usage as exc:
        tool.error(f"{exc} (see \"{name} --help\")" if str(exc).startswith("Unknown option") else str(exc))
        code = 1
    return tool.result(code)
