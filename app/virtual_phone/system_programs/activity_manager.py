"""`am` (start, force-stop, kill, broadcast...) and `monkey -p`: starting activities as
ActivityManagerShellCommand and Monkey do, with their messages, warnings and exit codes."""

from __future__ import annotations

import base64
import copy
import random
from typing import TYPE_CHECKING

from ..apps import LAUNCHER
from ..intents import (
    FLAG_ACTIVITY_NEW_TASK,
    Intent,
    matching_activities,
    parse_intent,
    resolve_component,
    short_component,
)
from ..keyboard import ADB_IME
from ..shell import Result
from .common import Args, ShellCommandError, fail, java_exception, java_int, lines, ok, package_argument

if TYPE_CHECKING:
    from ..attached_device import AttachedDevice
    from ..phone import VirtualPhone

_WHERE = "com.android.server.am.ActivityManagerShellCommand.onCommand"
START_OPTIONS = {"-D": 0, "-N": 0, "-W": 0, "-S": 0, "-P": 1, "--start-profiler": 1, "--sampling": 1,
                 "--streaming": 0, "--attach-agent": 1, "--attach-agent-bind": 1, "-R": 1, "--track-allocation": 0,
                 "--user": 1, "--receiver-permission": 1, "--display": 1, "--windowingMode": 1,
                 "--activityType": 1, "--task": 1, "--task-overlay": 0, "--lock-task": 0,
                 "--allow-background-activity-starts": 0, "--dismiss-keyguard": 0, "--splashscreen-show-icon": 0}
LAUNCH_FLAGS = 0x10200000   # NEW_TASK | RESET_TASK_IF_NEEDED, as the launcher and monkey start apps
DELIVERED_TO_TOP = "Warning: Activity not started, intent has been delivered to currently running top-most instance."
BROUGHT_TO_FRONT = "Warning: Activity not started, its current task has been brought to the front"


def program_am(device: AttachedDevice, argv: list[str], stdin: bytes) -> Result:
    phone = device.phone
    args = Args(argv[1:])
    command = args.next()
    try:
        if command in ("start", "start-activity"):
            return _start(phone, args)
        if command in ("force-stop", "kill"):
            package = package_argument(args)
            if command == "force-stop":
                _force_stop(phone, package)
            return ok()
        if command == "kill-all":
            return ok()
        if command == "broadcast":
            return _broadcast(phone, args)
        if command == "get-current-user":
            return ok("0\n")
        if command == "stack":
            verb = args.next()
            if verb == "list":
                return ok(stack_list(phone))
            if verb == "remove":
                remove_task(phone, java_int(args.next() or ""))
                return ok("")
        if command in (None, "help", "-h"):
            return Result(stdout=_help().encode(), code=255)
        return Result(stdout=f"Unknown command: {command}\n".encode(), code=255)
    except ShellCommandError as exc:
        return java_exception(command or "", str(exc), exc.exception, _WHERE)


def stack_list(phone: VirtualPhone) -> str:
    """`am stack list` (Android 10-14): each running task's root task, its base and top activity, and which
    one shows (visible=true: the app in front, or the home screen's)."""
    with phone.lock:
        front, _ = phone.foreground()
        running = [front] + [p for p in phone.recents if p != front] + ([LAUNCHER] if front != LAUNCHER else [])
        width, height = phone.display_size()
        out = []
        for package in running:
            app = phone.apps[package]
            if package != LAUNCHER and not app.stack:
                continue
            base = app.stack[0].activity if app.stack else app.main_activity
            top = app.stack[-1].activity if app.stack else app.main_activity
            task = phone.system.task_id(package)
            bounds = f"[0,0][{width},{height}]"
            out.append(f"RootTask id={task} bounds={bounds} displayId=0 userId=0")
            visible = "true" if package == front else "false"
            out.append(f"  taskId={task}: {short_component(package, base)} bounds={bounds} userId=0 "
                       f"visible={visible} topActivity=ComponentInfo{{{package}/{top}}}")
            out.append("")
        return lines(out)


def remove_task(phone: VirtualPhone, task: int) -> None:
    """`am stack remove ID`: the task goes (its activities finish, it leaves Recents; the home task stays). An id
    that names no task is logged and ignored, as ActivityTaskManager does."""
    with phone.lock:
        package = next((p for p in phone.recents if phone.apps[p].stack and phone.system.task_id(p) == task), None)
        if package is None:
            phone.system.log.write("W", "ActivityTaskManager", f"removeRootTask: No rootTask with id={task}", 612,
                                   1640, buffer="system")
            return
        phone.force_stop(package)


def _force_stop(phone: VirtualPhone, package: str) -> None:
    record = phone.system.packages.get(package)
    if record is not None:
        phone.system.log.write("I", "ActivityManager", f"Force stopping {package} appid={record.uid} user=0: "
                               "from pid 4242", 612, 1640, buffer="system")
    phone.force_stop(package)


# ---------------------------------------------------------------------------- am start


def _start(phone: VirtualPhone, args: Args) -> Result:
    intent, options = parse_intent(args, START_OPTIONS)
    wait = "-W" in options
    user = options.get("--user", "current")
    if user == "all":
        return fail("Error: Can't start service with user 'all'\n")
    if user not in ("current", "cur"):
        java_int(user or "")   # the phone has one user: any number reads as user 0
    out: list[str] = []
    err: list[str] = []
    if "-S" in options:
        stopped = _stop_target(phone, intent)
        if isinstance(stopped, Result):
            return stopped
        out.append(f"Stopping: {stopped}")
        _force_stop(phone, stopped)
    out.append(f"Starting: {intent}")
    messages = out if wait else err
    started = copy.deepcopy(intent)
    started.flags |= FLAG_ACTIVITY_NEW_TASK
    try:
        target = _resolve(phone, started)
    except ShellCommandError as exc:   # thrown by the start itself, after "Starting:" was printed
        error = java_exception("start", str(exc), exc.exception, _WHERE)
        return Result(chunks=[(1, lines(out).encode()), (2, error.stderr)], code=error.code)
    if isinstance(target, str):
        messages.extend(target.splitlines())
        return _result(out, err)
    package, activity = target
    started.component = (package, activity)
    warning, launch = _launch(phone, started)
    if warning:
        messages.append(warning)
    if wait:
        out.extend(_wait_report(phone, short_component(package, activity), launch, warning == DELIVERED_TO_TOP))
    return _result(out, err)


def _result(out: list[str], err: list[str]) -> Result:
    return Result(stdout=lines(out).encode(), stderr=lines(err).encode())


def _stop_target(phone: VirtualPhone, intent: Intent) -> str | Result:
    if intent.component is not None:
        return intent.component[0]
    found = matching_activities(intent, phone.system.packages, default_only=False)
    if not found:
        return fail(f"Error: Intent does not match any activities: {intent}\n")
    if len({p for p, _ in found}) > 1:
        return fail(f"Error: Intent matches multiple activities; can't stop: {intent}\n")
    return found[0][0]


def _resolve(phone: VirtualPhone, intent: Intent) -> tuple[str, str] | str:
    """The activity to start, or the error text the phone prints."""
    packages = phone.system.packages
    if intent.component is not None:
        found = resolve_component(intent, packages)
        if found is None:
            package, cls = intent.component
            return f"Error type 3\nError: Activity class {{{package}/{cls}}} does not exist."
        record, activity = found
        if not next(a for a in record.activities if a.name == activity).exported:
            raise ShellCommandError(
                f"Permission Denial: starting {intent} from null (pid=4242, uid=2000) not exported from uid "
                f"{record.uid}", "java.lang.SecurityException")
        return record.package, activity
    matches = matching_activities(intent, packages, default_only=True)
    if not matches:
        return f"Error: Activity not started, unable to resolve {intent}"
    return matches[0]


def _launch(phone: VirtualPhone, intent: Intent) -> tuple[str | None, tuple[str, int, bool] | None]:
    """Start the resolved activity; (the warning the phone prints, (component, ms, cold) of the launch)."""
    assert intent.component is not None   # the callers name the resolved activity
    package, activity = intent.component
    app = phone.apps.get(package)
    foreground, top_activity = phone.foreground()
    if package == foreground and activity == top_activity:
        return DELIVERED_TO_TOP, None
    system = phone.system
    if package == LAUNCHER:
        phone.go_home()
        with system.starting(intent.describe()):
            system.activity_started(package, activity)
        return None, system.last_launch
    had_task = app is not None and bool(app.stack)
    resumed_root = had_task and app is not None and activity == app.main_activity
    with system.starting(intent.describe()):
        if not phone.launch(package, activity):
            return f"Error: Activity class {{{package}/{activity}}} does not exist.", None
    return (BROUGHT_TO_FRONT if resumed_root else None), system.last_launch


def _wait_report(phone: VirtualPhone, component: str, launch, delivered: bool) -> list[str]:
    took = launch[1] if launch else 0
    wait_time = took + phone.system.random.randrange(4, 30)
    if phone.profile.sdk < 29:
        report = ["Status: ok", f"Activity: {component}"]
        return report + ([] if delivered else [f"ThisTime: {took}", f"TotalTime: {took}"]) + \
            [f"WaitTime: {wait_time}", "Complete"]
    state = "UNKNOWN (0)" if delivered or launch is None else ("COLD" if launch[2] else "HOT")
    report = ["Status: ok", f"LaunchState: {state}", f"Activity: {component}"]
    return report + ([] if delivered else [f"TotalTime: {took}"]) + [f"WaitTime: {wait_time}", "Complete"]


# ---------------------------------------------------------------------------- am broadcast


def _broadcast(phone: VirtualPhone, args: Args) -> Result:
    intent, _ = parse_intent(args, {"--user": 1, "--receiver-permission": 1,
                                    "--allow-background-activity-starts": 0})
    intent.flags |= 0x400000   # FLAG_RECEIVER_FROM_SHELL
    extras = {k: str(v) for k, v in intent.extras.items()}
    action = intent.action or ""
    if action == "ADB_INPUT_TEXT" and "msg" in extras:
        phone.adb_keyboard_input(extras["msg"])
    elif action == "ADB_INPUT_B64" and "msg" in extras:
        try:
            phone.adb_keyboard_input(base64.b64decode(extras["msg"]).decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            pass  # ADB Keyboard logs and ignores bad base64
    elif action == "ADB_INPUT_CODE" and "code" in extras and phone.current_ime == ADB_IME:
        try:
            phone.key(int(extras["code"]))
        except ValueError:
            pass
    elif action == "ADB_CLEAR_TEXT" and phone.current_ime == ADB_IME:
        phone.clear_focused_text()
    return ok(f"Broadcasting: {intent}\nBroadcast completed: result=0\n")


# ---------------------------------------------------------------------------- monkey


MAX_MONKEY_EVENTS = 500   # a real monkey may run for hours; the virtual one stops here
MONKEY_OPTIONS_WITH_VALUE = {"-p", "-c", "-s", "--throttle", "--pct-touch", "--pct-motion", "--pct-trackball",
                             "--pct-syskeys", "--pct-nav", "--pct-majornav", "--pct-appswitch", "--pct-flip",
                             "--pct-anyevent", "--pct-pinchzoom", "--pct-permission", "--pct-rotation",
                             "--port", "-f", "--setup", "--profile-wait", "--device-sleep-time",
                             "--pkg-blacklist-file", "--pkg-whitelist-file", "--bugreport"}


def program_monkey(device: AttachedDevice, argv: list[str], stdin: bytes) -> Result:
    phone = device.phone
    args = argv[1:]
    out = [f"  bash arg: {a}" for a in args]
    err = [f"args: [{', '.join(args)}]"]
    packages, categories, verbose = [], [], 0
    seed = None
    i = 0
    while i < len(args) and args[i].startswith("-"):
        opt = args[i]
        err.append(f' arg: "{opt}"')
        if opt in MONKEY_OPTIONS_WITH_VALUE:
            if i + 1 >= len(args):
                return _monkey_error(out, err, f"** Error: Missing data for option {opt}")
            value = args[i + 1]
            err.append(f'data="{value}"')
            if opt == "-p":
                packages.append(value)
            elif opt == "-c":
                categories.append(value)
            elif opt == "-s":
                seed = value
            i += 2
            continue
        if opt == "-v":
            verbose += 1
        elif not opt.startswith("--"):
            return _monkey_error(out, err, f"** Error: Unknown option: {opt}")
        i += 1
    if i >= len(args):
        return _monkey_error(out, err, "** Error: Count not specified")
    count_text = args[i]
    err.append(f' arg: "{count_text}"')
    try:
        count = java_int(count_text)
    except ShellCommandError:
        return _monkey_error(out, err, f'** Error: Count is not a number: "{count_text}"')
    categories = categories or ["android.intent.category.LAUNCHER", "android.intent.category.MONKEY"]
    apps = []
    for category in categories:
        query = Intent(action="android.intent.action.MAIN", categories=[category])
        apps += [m for m in matching_activities(query, phone.system.packages, default_only=False)
                 if not packages or m[0] in packages]
    if not apps:
        err.append("** No activities found to run, monkey aborted.")
        return Result(stdout=lines(out).encode(), stderr=lines(err).encode(), code=252)
    rng = phone.system.random if seed is None else random.Random(seed)
    if verbose:
        out.append(f":Monkey: seed={seed or rng.randrange(1 << 40)} count={count}")
        out += [f":AllowPackage: {p}" for p in packages] + [f":IncludeCategory: {c}" for c in categories]
    injected = 0
    if count > 0:
        package, activity = rng.choice(apps)
        launch = Intent(action="android.intent.action.MAIN", categories=["android.intent.category.LAUNCHER"],
                        component=(package, activity), flags=LAUNCH_FLAGS)
        if verbose:
            out.append(f":Switch: #Intent;action=android.intent.action.MAIN;category=android.intent.category.LAUNCHER;"
                       f"launchFlags=0x{LAUNCH_FLAGS:x};component={short_component(package, activity)};end")
        _launch(phone, launch)
        injected = 1
        allowed = {p for p, _ in apps}
        for _ in range(min(count, MAX_MONKEY_EVENTS) - 1):
            width, height = phone.display_size()
            phone.tap(rng.randrange(width), rng.randrange(height))
            if phone.foreground()[0] not in allowed:
                phone.press_back()   # monkey refuses to leave the allowed packages
            injected += 1
    elapsed = 4 + injected * 3
    report = [f"Events injected: {injected}",
              f"## Network stats: elapsed time={elapsed}ms (0ms mobile, 0ms wifi, {elapsed}ms not connected)"]
    # The monkey script echoes its arguments, then Monkey logs its own parsing to stderr.
    arguments = lines(out[:len(args)]).encode()
    return Result(chunks=[(1, arguments), (2, lines(err).encode()), (1, lines(out[len(args):] + report).encode())])


def _monkey_error(out: list[str], err: list[str], message: str) -> Result:
    err.append(message)
    err.append("usage: monkey [-p ALLOWED_PACKAGE [-p ALLOWED_PACKAGE] ...]\n"
               "              [-c MAIN_CATEGORY [-c MAIN_CATEGORY] ...]\n"
               "              [--ignore-crashes] [--ignore-timeouts]\n"
               "              [-s SEED] [-v [-v] ...]\n"
               "              [--throttle MILLISEC] [--randomize-throttle]\n"
               "              COUNT")
    return Result(stdout=lines(out).encode(), stderr=lines(err).encode(), code=255)


def _help() -> str:
    return lines([
        "Activity manager (activity) commands:",
        "  help",
        "      Print this help text.",
        "  start-activity [-D] [-N] [-W] [-P <FILE>] [--start-profiler <FILE>]",
        "          [--sampling INTERVAL] [--streaming] [-R COUNT] [-S]",
        "          [--track-allocation] [--user <USER_ID> | current] <INTENT>",
        "      Start an Activity.  Options are:",
        "      -W: wait for launch to complete",
        "      -S: force stop the target app before starting the activity",
        "  force-stop [--user <USER_ID> | all | current] <PACKAGE>",
        "      Completely stop the given application package.",
        "  kill [--user <USER_ID> | all | current] <PACKAGE>",
        "      Kill all background processes associated with the given application.",
        "  broadcast [--user <USER_ID> | all | current] <INTENT>",
        "      Send a broadcast Intent.",
        "  get-current-user",
        "      Returns id of the current foreground user.",
    ])
