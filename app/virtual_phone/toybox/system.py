"""Toybox's commands about the system and other commands: date, sleep, id, uname, env, which,
test, xargs and friends. `date` reads the phone's clock; `uname` describes the phone's kernel."""

from __future__ import annotations

import posixpath
import re
import shlex
import time
from datetime import UTC, datetime

from ..profiles import ANDROID_14
from ..shell_conditions import run_test
from ..shell_io import CPU_LIMIT, LimitExceeded
from ..storage import StorageError
from ..storage_system import kernel_release, kernel_version
from .context import Tool, Usage, number, parse_options


def _now(tool: Tool) -> datetime:
    return tool.phone.now() if tool.phone is not None else datetime.now(UTC).replace(tzinfo=None)


def date(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "uR", valued="drDI")
    moment = _now(tool).replace(tzinfo=UTC)
    if "r" in options:
        try:
            moment = datetime.fromtimestamp(tool.storage.lstat(tool.path(options["r"][-1]), True).mtime, UTC)
        except StorageError as exc:
            tool.fail(options["r"][-1], exc)
            return 1
    if "d" in options:
        text = options["d"][-1]
        parsed = _parse_date(text)
        if parsed is None:
            tool.error(f"bad date '{text}'")
            return 1
        moment = parsed
    fmt = "%a %b %e %H:%M:%S %Z %Y"
    for operand in operands:
        if operand.startswith("+"):
            fmt = operand[1:]
            continue
        setting = _settable_date(operand, moment)
        if setting is None:
            tool.error(f"bad date '{operand}'")
            return 1
        if not _as_root(tool) or tool.phone is None:
            tool.error("cannot set date: Operation not permitted")
            return 1
        tool.phone.set_clock(setting.replace(tzinfo=None))
        moment = setting
    if "R" in options:
        fmt = "%a, %d %b %Y %H:%M:%S %z"
    text = moment.strftime(fmt.replace("%Z", "GMT").replace("%N", "000000000").replace("%s",
                                                                                       str(int(moment.timestamp()))))
    tool.write(text + "\n")
    return 0


def _settable_date(text: str, now: datetime) -> datetime | None:
    """toybox date's setting form, MMDDhhmm[[CC]YY][.ss] (what AndroidWorld's set-up sends)."""
    match = re.fullmatch(r"(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)?(\d\d)?(?:\.(\d\d))?", text)
    if match is None:
        return None
    month, day, hour, minute, first, second, seconds = match.groups()
    if first is None:
        year = now.year
    elif second is None:
        year = 2000 + int(first)
    else:
        year = int(first + second)
    try:
        return datetime(year, int(month), int(day), int(hour), int(minute), int(seconds or 0), tzinfo=UTC)
    except ValueError:
        return None


def _parse_date(text: str) -> datetime | None:
    if text.startswith("@") and re.fullmatch(r"-?\d+", text[1:]):
        return datetime.fromtimestamp(int(text[1:]), UTC)
    for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d", "%H:%M:%S", "%H:%M"):
        try:
            return datetime.strptime(text, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def sleep(tool: Tool, args: list[str]) -> int:
    if not args:
        raise Usage("Needs 1 argument")
    total = 0.0
    for arg in args:
        match = re.fullmatch(r"(\d*\.?\d+)([smhd]?)", arg)
        if not match:
            tool.error(f"invalid number '{arg}'")
            return 1
        total += float(match.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[match.group(2)]
    budget = tool.process.budget
    if total > budget.remaining():
        time.sleep(budget.remaining())
        raise LimitExceeded(*CPU_LIMIT)
    time.sleep(total)
    return 0


def _as_root(tool: Tool) -> bool:
    """The shell runs as root: adbd was restarted as root (`adb root`)."""
    return tool.phone is not None and tool.phone.adbd_root


def id_(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "nGgruZ")
    if not operands and _as_root(tool):
        operands = ["root"]
    if operands and operands[0] in ("root", "0"):
        if "u" in options or "g" in options:
            tool.write("root\n" if "n" in options else "0\n")
            return 0
        tool.write("uid=0(root) gid=0(root) groups=0(root) context=u:r:shell:s0\n")
        return 0
    if operands and operands[0] not in ("shell", "2000"):
        tool.error(f"unknown user '{operands[0]}'")
        return 1
    if "u" in options:
        tool.write("shell\n" if "n" in options else "2000\n")
    elif "g" in options:
        tool.write("shell\n" if "n" in options else "2000\n")
    elif "G" in options:
        names = ("shell input log adb sdcard_rw sdcard_r ext_data_rw ext_obb_rw net_bt_admin net_bt inet net_bw_stats"
                 " readproc uhid readtracefs")
        numbers = "2000 1004 1007 1011 1015 1028 1078 1079 3001 3002 3003 3006 3009 3011 3012"
        tool.write((names if "n" in options else numbers) + "\n")
    elif "Z" in options:
        tool.write("u:r:shell:s0\n")
    else:
        tool.write("uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),"
                   "1015(sdcard_rw),1028(sdcard_r),1078(ext_data_rw),1079(ext_obb_rw),3001(net_bt_admin),"
                   "3002(net_bt),3003(inet),3006(net_bw_stats),3009(readproc),3011(uhid),3012(readtracefs) "
                   "context=u:r:shell:s0\n")
    return 0


def whoami(tool: Tool, args: list[str]) -> int:
    tool.write("root\n" if _as_root(tool) else "shell\n")
    return 0


def uname(tool: Tool, args: list[str]) -> int:
    options, _ = parse_options(args, "asnrvmop")
    profile = tool.phone.profile if tool.phone is not None else ANDROID_14
    fields = [("s", "Linux"), ("n", "localhost"), ("r", kernel_release(profile)), ("v", kernel_version(profile)),
              ("m", "x86_64"), ("o", "Toybox")]
    chosen = [value for flag, value in fields if flag in options or "a" in options] or ["Linux"]
    tool.write(" ".join(chosen) + "\n")
    return 0


def hostname(tool: Tool, args: list[str]) -> int:
    if args:
        tool.error("sethostname: Operation not permitted")
        return 1
    tool.write("localhost\n")
    return 0


def nproc(tool: Tool, args: list[str]) -> int:
    profile = tool.phone.profile if tool.phone is not None else ANDROID_14
    tool.write(("8" if profile.sdk >= 34 else "4") + "\n")
    return 0


def uptime(tool: Tool, args: list[str]) -> int:
    seconds = float(tool.storage.read_file("/proc/uptime").split()[0])
    hours, minutes = int(seconds // 3600), int(seconds % 3600 // 60)
    tool.write(f" {_now(tool):%H:%M:%S} up {hours}:{minutes:02d},  0 users,  load average: 0.52, 0.61, 0.58\n")
    return 0


def env(tool: Tool, args: list[str]) -> int:
    environment = dict(tool.process.env)
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in ("-i", "-"):
            environment = {}
        elif arg == "-u" and index + 1 < len(args):
            environment.pop(args[index + 1], None)
            index += 1
        elif "=" in arg and not arg.startswith("="):
            name, _, value = arg.partition("=")
            environment[name] = value
        else:
            break
        index += 1
    command = args[index:]
    if not command:
        tool.write("".join(f"{k}={v}\n" for k, v in environment.items()))
        return 0
    result = tool.process.run(command, tool.stdin, environment)
    for fd, data in result.chunks:
        tool.write(data, fd)
    return result.code


def printenv(tool: Tool, args: list[str]) -> int:
    environment = tool.process.env
    if not args:
        tool.write("".join(f"{k}={v}\n" for k, v in environment.items()))
        return 0
    found = [environment[name] for name in args if name in environment]
    tool.write("".join(value + "\n" for value in found))
    return 0 if len(found) == len(args) else 1


def which(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "a")
    status = 0
    for name in operands:
        hits = []
        folders = [name] if "/" in name else [posixpath.join(folder, name) for folder in
                                              tool.process.env.get("PATH", "").split(":") if folder]
        for candidate in folders:
            try:
                found = tool.storage.lstat(tool.path(candidate), follow=True)
            except StorageError:
                continue
            if not found.is_dir and found.mode & 0o111:
                hits.append(candidate)
        if not hits:
            status = 1
        tool.write("".join(hit + "\n" for hit in (hits if "a" in options else hits[:1])))
    return status


def true(tool: Tool, args: list[str]) -> int:
    return 0


def false(tool: Tool, args: list[str]) -> int:
    return 1


def test(tool: Tool, args: list[str]) -> int:
    status, error = run_test(tool.name, args, tool.storage, tool.path)
    if error:
        tool.write(error, 2)
    return status


def xargs(tool: Tool, args: list[str]) -> int:
    options, operands = parse_options(args, "0prtx", valued="nsEI", stop_at_operand=True)
    command = operands or ["echo"]
    text = tool.stdin.decode("utf-8", "surrogateescape")
    if "0" in options:
        items = [item for item in text.split("\0") if item]
    else:
        try:
            items = shlex.split(text, posix=True)
        except ValueError:
            tool.error("unterminated quote")
            return 1
    if "r" in options and not items:
        return 0
    per_call = number(options["n"][-1]) if "n" in options else max(1, len(items))
    replace = options.get("I", [None])[-1]
    batches = [[item] for item in items] if replace else \
        [items[i:i + per_call] for i in range(0, len(items), per_call)] or [[]]
    status = 0
    for batch in batches:
        argv = [part.replace(replace, batch[0]) for part in command] if replace else command + batch
        if "t" in options:
            tool.write(" ".join(argv) + "\n", 2)
        result = tool.process.run(argv, b"")
        for fd, data in result.chunks:
            tool.write(data, fd)
        if result.code == 255:
            return 124
        if result.code in (126, 127):
            return result.code
        if result.code:
            status = 123
    return status


COMMANDS = {"date": date, "sleep": sleep, "id": id_, "whoami": whoami, "uname": uname, "hostname": hostname,
            "nproc": nproc, "uptime": uptime, "env": env, "printenv": printenv, "which": which, "true": true,
            "false": false, "test": test, "[": test, "xargs": xargs}
