"""The phone's toybox commands as `programs.run_program` dispatches them (see the toybox package)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .shell import Process
from .shell_io import Budget, Result, ShellLimits
from .toybox import COMMANDS as UTILITIES
from .toybox import run

if TYPE_CHECKING:
    from .attached_device import AttachedDevice

__all__ = ["UTILITIES", "run_utility"]


def run_utility(device: AttachedDevice, argv: list[str], stdin: bytes, process: Process | None = None) -> Result:
    """Run a toybox command on a device (from `/` with the shell's environment when no process is given)."""
    if process is None:
        budget = Budget(ShellLimits())
        process = Process("/", {"PATH": "/system/bin"}, budget, lambda args, data, env=None: Result(
            stderr=f"{args[0]}: inaccessible or not found\n".encode(), code=127))
    result = run(argv, stdin, device.storage, process, device.phone)
    if result is None:
        return Result(stderr=f"/system/bin/sh: {argv[0]}: inaccessible or not found\n".encode(), code=127)
    return result
