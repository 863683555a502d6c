"""The phone's processes as ps, pidof and kill see them: init, zygote64, system_server, System UI
and every app the phone has started (an app gets a new pid each time it starts again).

The shell user may signal only its own processes, as on a phone: killing an app or a system
process answers "Operation not permitted".
"""

from __future__ import annotations

import itertools
import threading
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .context import Tool, Usage, parse_options, user_name

if TYPE_CHECKING:
    from ..phone import VirtualPhone


@dataclass(frozen=True)
class ProcessInfo:
    uid: int
    pid: int
    ppid: int
    name: str
    args: str
    vsz: int
    rss: int
    wchan: str = "do_epoll_wait"
    state: str = "S"


ZYGOTE = 612
_SYSTEM = [
    ProcessInfo(0, 1, 0, "init", "/system/bin/init second_stage", 10918432, 11020),
    ProcessInfo(0, 2, 0, "[kthreadd]", "[kthreadd]", 0, 0, "kthreadd"),
    ProcessInfo(0, 312, 1, "ueventd", "/system/bin/ueventd", 10831276, 3520),
    ProcessInfo(1036, 338, 1, "logd", "/system/bin/logd", 10965436, 8712, "sigsuspend"),
    ProcessInfo(1000, 401, 1, "servicemanager", "/system/bin/servicemanager", 10864716, 5220, "binder_ioctl"),
    ProcessInfo(1000, 470, 1, "surfaceflinger", "/system/bin/surfaceflinger", 11390440, 38108),
    ProcessInfo(0, ZYGOTE, 1, "zygote64", "zygote64", 15283644, 118428, "do_sys_poll"),
    ProcessInfo(1000, 1021, ZYGOTE, "system_server", "system_server", 20394712, 312908),
    ProcessInfo(10154, 1248, ZYGOTE, "com.android.systemui", "com.android.systemui", 17936852, 201776),
    ProcessInfo(1001, 1391, ZYGOTE, "com.android.phone", "com.android.phone", 16581944, 98120),
    ProcessInfo(10140, 1460, ZYGOTE, "com.android.inputmethod.latin", "com.android.inputmethod.latin",
                16209300, 87420),
    ProcessInfo(2000, 2106, 1, "adbd", "/apex/com.android.adbd/bin/adbd --root_seclabel=u:r:su:s0", 10993608,
                7884, "do_epoll_wait"),
]
ADBD = 2106


class ProcessTable:
    """The processes `ps` lists on one phone; apps' pids come from the phone's own records."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.shell_pids = itertools.count(9120, 3)

    def snapshot(self, phone: VirtualPhone | None) -> list[ProcessInfo]:
        """The system's processes plus every running app, with the pids and uids `dumpsys` reports."""
        apps = []
        if phone is not None:
            system = phone.system
            with phone.lock:
                running = system.running_apps()
                uids = {package: system.uid_of(package) for _, package in running}
            for index, (pid, package) in enumerate(running):
                apps.append(ProcessInfo(uids[package], pid, ZYGOTE, package, package,
                                        16000000 + index * 52711, 90000 + index * 3113))
        return sorted(_SYSTEM + apps, key=lambda p: p.pid)

    def shell_pair(self) -> tuple[int, int]:
        """Pids for the `sh` that runs a command and the command itself."""
        with self.lock:
            shell = next(self.shell_pids)
        return shell, shell + 1


_TABLES: weakref.WeakKeyDictionary[object, ProcessTable] = weakref.WeakKeyDictionary()
_TABLES_LOCK = threading.Lock()


def table_for(phone: VirtualPhone | None) -> ProcessTable:
    if phone is None:
        return ProcessTable()
    with _TABLES_LOCK:
        return _TABLES.setdefault(phone, ProcessTable())


def _all_processes(tool: Tool, command: str) -> list[ProcessInfo]:
    table = table_for(tool.phone)
    shell, own = table.shell_pair()
    return table.snapshot(tool.phone) + [
        ProcessInfo(2000, shell, ADBD, "sh", "/system/bin/sh -c " + command, 10884528, 3640, "do_wait"),
        ProcessInfo(2000, own, shell, command, command, 10913516, 3832, "0", "R"),
    ]


# ---------------------------------------------------------------------------- ps

_FIELDS = {  # name: (title, width: negative = left-aligned)
    "USER": ("USER", -12), "UID": ("UID", 5), "PID": ("PID", 5), "PPID": ("PPID", 5), "VSZ": ("VSZ", 7),
    "VSIZE": ("VSZ", 10), "RSS": ("RSS", 6), "WCHAN": ("WCHAN", -6), "ADDR": ("ADDR", 4 + 8), "S": ("S", -1),
    "NAME": ("NAME", -27), "CMD": ("CMD", -15), "CMDLINE": ("CMDLINE", -27), "ARGS": ("ARGS", -27),
    "COMM": ("COMM", -27), "TTY": ("TT", -8), "TIME": ("TIME", 8), "STIME": ("STIME", 5), "C": ("C", 1),
    "PRI": ("PRI", 3), "NI": ("NI", 3), "LABEL": ("LABEL", -30), "%CPU": ("%CPU", 4), "%MEM": ("%MEM", 5),
}


# What toybox's ps shows on Android without -o (widths as a phone prints them).
_ANDROID_DEFAULT = [("USER", "USER", -12), ("PID", "PID", 5), ("PPID", "PPID", 5), ("VSIZE", "VSZ", 7),
                    ("RSS", "RSS", 6), ("WCHAN", "WCHAN", -10), ("ADDR", "ADDR", 10), ("S", "S", -1),
                    ("NAME", "NAME", -27)]


def _value(process: ProcessInfo, name: str) -> str:
    return {
        "USER": user_name(process.uid), "UID": str(process.uid), "PID": str(process.pid), "PPID": str(process.ppid),
        "VSZ": str(process.vsz), "VSIZE": str(process.vsz), "RSS": str(process.rss), "WCHAN": process.wchan,
        "ADDR": "0", "S": process.state, "NAME": process.name, "CMD": process.name[:15],
        "CMDLINE": process.args, "ARGS": process.args, "COMM": process.name, "TTY": "?", "TIME": "00:00:01",
        "STIME": "09:00", "C": "0", "PRI": "19", "NI": "0", "LABEL": "u:r:untrusted_app:s0", "%CPU": "0.0",
        "%MEM": "0.1",
    }[name]


def ps(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "AadefLlnwZT", valued="oOpPtuUgGks")
    fields: list[tuple[str, str, int]] = []
    if "o" in options:
        for spec in ",".join(options["o"]).split(","):
            name, _, title = spec.partition("=")
            name, _, size = name.partition(":")
            key = name.upper()
            if key not in _FIELDS:
                tool.error(f"bad -o {name}")
                return 1
            default_title, width = _FIELDS[key]
            if size.isdigit():
                width = int(size) * (1 if width > 0 else -1)
            fields.append((key, title if _ else default_title, width))
    elif "f" in options:
        for key in ("USER", "PID", "PPID", "C", "STIME", "TTY", "TIME", "CMDLINE"):
            title, width = _FIELDS[key]
            fields.append((key, "UID" if key == "USER" else "CMD" if key == "CMDLINE" else title, width))
    else:
        fields = list(_ANDROID_DEFAULT)
    processes = _all_processes(tool, "ps")
    everyone = bool(options.keys() & {"A", "e"})
    wanted_pids = {p for spec in options.get("p", []) + operands for p in spec.split(",")}
    if wanted_pids:
        if not all(p.isdigit() for p in wanted_pids):
            raise Usage(f"bad -p '{','.join(sorted(wanted_pids))}'")
        processes = [p for p in processes if str(p.pid) in wanted_pids]
    elif "u" in options or "U" in options:
        users = {u for spec in options.get("u", []) + options.get("U", []) for u in spec.split(",")}
        processes = [p for p in processes if user_name(p.uid) in users or str(p.uid) in users]
    elif not everyone:
        processes = [p for p in processes if p.uid == 2000 and p.name in ("sh", "ps")]
    _table(tool, fields, [[_value(p, key) for key, _, _ in fields] for p in processes])
    return 0 if processes or not wanted_pids else 1


def _table(tool: Tool, fields: list[tuple[str, str, int]], rows: list[list[str]]) -> None:
    lines = []
    for cells in [[title for _, title, _ in fields]] + rows:
        parts, extra = [], 0
        for index, ((_, _, width), cell) in enumerate(zip(fields, cells, strict=True)):
            size = abs(width)
            if len(cell) > size:
                extra += len(cell) - size
                size = len(cell)
            elif extra:
                give = min(extra, size - len(cell))
                size -= give
                extra -= give
            last = index == len(fields) - 1
            parts.append(cell if last and width < 0 else (cell.ljust(size) if width < 0 else cell.rjust(size)))
        lines.append(" ".join(parts))
    tool.write("".join(line + "\n" for line in lines))


def pidof(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "sx", valued="o")
    omitted = {p for spec in options.get("o", []) for p in spec.split(",")}
    processes = table_for(tool.phone).snapshot(tool.phone)
    found = []
    for name in operands:
        pids = sorted((p.pid for p in processes if name in (p.name, p.args.split(" ")[0], p.args.split(" ")[0]
                                                             .rsplit("/", 1)[-1]) and str(p.pid) not in omitted),
                      reverse=True)
        found += pids[:1] if "s" in options else pids
    if found:
        tool.write(" ".join(map(str, found)) + "\n")
    return 0 if found else 1


_SIGNALS = ["HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV", "USR2", "PIPE",
            "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG", "XCPU", "XFSZ",
            "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS"]


def kill(tool: Tool, args: list[str]) -> int:
    if args[:1] == ["-l"]:
        tool.write("".join(f"{n:>2}) SIG{name}\n" for n, name in enumerate(_SIGNALS, start=1)))
        return 0
    signal = "TERM"
    if args[:1] == ["-s"] and len(args) > 1:
        signal, args = args[1], args[2:]
    elif args and args[0].startswith("-") and len(args[0]) > 1:
        signal, args = args[0][1:], args[1:]
    name = signal.upper().removeprefix("SIG")
    if not (name.isdigit() and 0 <= int(name) <= 64) and name not in _SIGNALS:
        tool.error(f"Unknown signal '{signal}'")
        return 1
    if not args:
        raise Usage("Needs 1 argument")
    known = {p.pid: p for p in table_for(tool.phone).snapshot(tool.phone)}
    status = 0
    for pid in args:
        if not pid.lstrip("-").isdigit():
            tool.error(f"bad pid '{pid}'")
            status = 1
        elif int(pid) not in known:
            tool.error(f"bad pid '{pid}': No such process")
            status = 1
        elif known[int(pid)].uid != 2000 or int(pid) == ADBD:
            tool.error(f"bad pid '{pid}': Operation not permitted")
            status = 1
    return status


COMMANDS = {"ps": ps, "pidof": pidof, "kill": kill}
