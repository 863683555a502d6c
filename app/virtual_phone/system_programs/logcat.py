"""`logcat`: print (-d), clear (-c) or size (-g) the log buffers, with filter specs (TAG:LEVEL,
-s), formats (-v), -t/-m counts, --pid and -b buffers.

A real logcat without -d keeps streaming until it is killed; the virtual phone cannot hold a
service open, so it prints what the buffers hold and ends, as with -d.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..shell import Result
from ..system_log import FORMATS, LEVELS, passes
from .common import fail, lines, ok

if TYPE_CHECKING:
    from ..attached_device import AttachedDevice

DEFAULT_BUFFERS = {"main", "system", "crash"}
ALL_BUFFERS = {"main", "system", "crash", "events", "radio", "kernel"}
MODIFIERS = {"color", "colors", "descriptive", "epoch", "monotonic", "nsec", "printable", "uid", "usec", "UTC",
             "year", "zone"}   # -v modifiers that change details the virtual log does not keep
_VALUE_OPTIONS = {"-v", "-b", "-t", "-T", "-m", "-f", "-r", "-n", "-e", "--pid", "--regex", "--format",
                  "--buffer", "--max-count", "--file"}


def program_logcat(device: AttachedDevice, argv: list[str], stdin: bytes) -> Result:
    log = device.phone.system.log
    args = argv[1:]
    style, buffers, filters = "threadtime", set(), []
    clear = size = silent = False
    tail = max_count = pid = None
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in _VALUE_OPTIONS or (arg.startswith("--") and "=" in arg):
            name, _, value = arg.partition("=")
            if not value:
                if i + 1 >= len(args):
                    return fail(f"logcat: option requires an argument -- '{arg.lstrip('-')}'\n", 255)
                value = args[i + 1]
                i += 1
            if name in ("-v", "--format"):
                if value in FORMATS:
                    style = value
                elif value not in MODIFIERS:
                    return fail(f"logcat: Unknown output format '{value}'.\n", 255)
            elif name in ("-b", "--buffer"):
                for buffer in value.split(","):
                    if buffer == "all":
                        buffers |= ALL_BUFFERS
                    elif buffer == "default":
                        buffers |= DEFAULT_BUFFERS
                    elif buffer in ALL_BUFFERS:
                        buffers.add(buffer)
                    else:
                        return fail(f"logcat: Unknown buffer '{buffer}'.\n", 255)
            elif name in ("-t", "-T"):
                tail = int(value) if value.isdigit() else None
            elif name in ("-m", "--max-count"):
                max_count = int(value) if value.isdigit() else None
            elif name == "--pid":
                pid = int(value) if value.isdigit() else -1
        elif arg == "-c":
            clear = True
        elif arg == "-g":
            size = True
        elif arg == "-s":
            silent = True
        elif arg in ("-d", "-D", "-B", "-L", "-Z", "-S", "-q", "--dividers", "--wrap"):
            pass
        elif arg.startswith("-"):
            return fail(f"logcat: invalid option -- '{arg.lstrip('-')}'\nUsage: logcat [options] [filterspecs]\n",
                        255)
        else:
            tag, _, level = arg.partition(":")
            level = (level or "V")[:1].upper()
            if level not in LEVELS + "S":
                return fail(f"logcat: Invalid filter expression '{arg}'\n", 255)
            filters.append((tag, level))
        i += 1
    buffers = buffers or DEFAULT_BUFFERS
    if clear:
        log.clear(buffers)
        return ok()
    if size:
        return ok(lines(f"{b}: ring buffer is 256 KiB (12 KiB consumed), max entry is 5120 B, max payload is 4068 B"
                        for b in sorted(buffers)))
    entries = [e for e in log.entries(buffers) if passes(e, filters, "S" if silent else "V")
               and (pid is None or e.pid == pid)]
    if tail is not None:
        entries = entries[-tail:] if tail else []
    if max_count is not None:
        entries = entries[:max_count]
    out, started = [], set()
    for entry in entries:
        if entry.buffer not in started:
            started.add(entry.buffer)
            out.append(f"--------- beginning of {entry.buffer}")
        out.append(entry.format(style).rstrip("\n") if style != "long" else entry.format(style))
    return ok(lines(out))
