"""`input`: taps, swipes, drags, key events, text and raw motion events, as InputShellCommand
(Android 10 and later, with `-d DISPLAY`) or the older Input program (Android 9) take them.

Key names are read as KeyEvent.keyCodeFromString does: a number, or an exact upper-case name
with or without KEYCODE_ (`back` is KEYCODE_UNKNOWN and does nothing, as on a phone).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.android.keycodes import KEYCODES, NAMES_BY_CODE

from ..shell import Result
from .common import Args, ShellCommandError, fail, java_exception, java_float, java_hash, java_int, lines, ok

if TYPE_CHECKING:
    from ..attached_device import AttachedDevice
    from ..phone import VirtualPhone

SOURCES = ("keyboard", "dpad", "gamepad", "touchscreen", "mouse", "stylus", "trackball", "touchpad",
           "touchnavigation", "joystick")
INVALID_ARGUMENTS = "Error: Invalid arguments for command: "
MODIFIERS = {"CTRL_LEFT", "CTRL_RIGHT", "ALT_LEFT", "ALT_RIGHT", "SHIFT_LEFT", "SHIFT_RIGHT", "META_LEFT",
             "META_RIGHT"}
KEYCODE_DPAD_CENTER = 23
_MORE_KEYCODES = {"META_LEFT": 117, "META_RIGHT": 118, "FUNCTION": 119, "SYSRQ": 120, "BREAK": 121,
                  "NUMPAD_ENTER": 160, "ZOOM_IN": 168, "ZOOM_OUT": 169, "CUT": 277, "COPY": 278, "PASTE": 279}
_WHERE = "com.android.server.input.InputShellCommand.onCommand"


def keycode(name: str) -> int:
    """KeyEvent.keyCodeFromString: 0 (KEYCODE_UNKNOWN) for anything it does not know."""
    if name.isdigit():
        code = int(name)
        return code if code <= 316 else 0
    name = name.removeprefix("KEYCODE_")
    return KEYCODES.get(name, 0) or _MORE_KEYCODES.get(name, 0)


def program_input(device: AttachedDevice, argv: list[str], stdin: bytes) -> Result:
    phone = device.phone
    if phone.profile.sdk < 29:
        return _legacy_input(phone, argv[1:])
    if "text" in argv[1:-1] and argv[-1] and device.faults.take("dropped_typed_characters"):
        argv = [*argv[:-1], argv[-1][:-1]]   # fault: the phone loses the last character typed
    args = Args(argv[1:])
    command = args.peek()
    try:
        return _input(phone, args)
    except ShellCommandError as exc:
        return java_exception(command or "", str(exc), exc.exception, _WHERE)


def _input(phone: VirtualPhone, args: Args) -> Result:
    arg = args.next()
    source = None
    if arg in SOURCES:
        source, arg = arg, args.required()
    display = -1
    if arg == "-d":
        display = _display_id(args.required())
        arg = args.required()
    handlers = {"text": _text, "keyevent": _keyevent, "tap": _tap, "swipe": _swipe, "draganddrop": _drag,
                "press": _press, "roll": _roll, "motionevent": _motion_event}
    if phone.profile.sdk >= 33:
        handlers["keycombination"] = _key_combination
    if arg is None or arg in ("help", "-h"):
        return ok(_modern_help(phone.profile.sdk))
    handler = handlers.get(arg)
    if handler is None:
        return ok(f"Unknown command: {arg}\n")
    try:
        handler(phone, args, display in (-1, 0), source)
    except ShellCommandError as exc:
        if exc.exception == "java.lang.NumberFormatException":
            raise ShellCommandError(INVALID_ARGUMENTS + arg) from None
        raise
    return ok()


def _display_id(text: str) -> int:
    if text.upper() in ("INVALID_DISPLAY", "DEFAULT_DISPLAY"):
        return -1 if text.upper() == "INVALID_DISPLAY" else 0
    try:
        display = java_int(text)
        return display if display == -1 else max(display, 0)
    except ShellCommandError:
        raise ShellCommandError("Error: Invalid arguments for display ID.") from None


def _point(args: Args) -> tuple[float, float]:
    return java_float(args.required()), java_float(args.required())


def _usable(*values: float) -> bool:
    return all(v == v and abs(v) != float("inf") for v in values)


# ---------------------------------------------------------------------------- commands


def _text(phone: VirtualPhone, args: Args, on_screen: bool, source) -> None:
    text = args.required().replace("%s", " ")
    if any(not (32 <= ord(ch) < 127 or ch in "\n\t") for ch in text):
        # KeyCharacterMap.getEvents() returns null for characters the virtual keyboard cannot type.
        raise ShellCommandError("Attempt to get length of null array", "java.lang.NullPointerException")
    if on_screen and text:
        phone.input_text(text)


def _keyevent(phone: VirtualPhone, args: Args, on_screen: bool, source) -> None:
    arg: str | None = args.required()
    double_tap = False
    while arg is not None and arg.startswith("--"):
        double_tap = double_tap or arg == "--doubletap"
        if arg == "--delay":
            java_int(args.required())
        arg = args.next()
    while arg is not None:
        code = keycode(arg)
        for _ in range(2 if double_tap else 1):
            if on_screen and code:
                phone.key(code)  # a long press acts as one press on the virtual phone
        arg = args.next()


def _key_combination(phone: VirtualPhone, args: Args, on_screen: bool, source) -> None:
    arg: str | None = args.required()
    if arg == "-t":
        java_int(args.required())
        arg = args.required()
    codes = []
    while arg is not None:
        code = keycode(arg)
        if code == 0:
            raise ShellCommandError(f"Unknown keycode: {arg}")
        codes.append(code)
        arg = args.next()
    if len(codes) < 2:
        raise ShellCommandError("keycombination requires at least 2 keycodes")
    keys = [c for c in codes if NAMES_BY_CODE.get(c) not in MODIFIERS and c not in (117, 118)]
    if on_screen and len(keys) == 1:  # modifiers + one key; system chords (power + volume) do nothing here
        phone.key(keys[0])


def _tap(phone: VirtualPhone, args: Args, on_screen: bool, source) -> None:
    x, y = _point(args)
    if on_screen and _usable(x, y):
        phone.tap(round(x), round(y))


def _swipe_args(args: Args) -> tuple[float, float, float, float, int]:
    x1, y1 = _point(args)
    x2, y2 = _point(args)
    duration_arg = args.next()
    duration = java_int(duration_arg) if duration_arg is not None else -1
    return x1, y1, x2, y2, duration if duration >= 0 else 300


def _swipe(phone: VirtualPhone, args: Args, on_screen: bool, source) -> None:
    x1, y1, x2, y2, duration = _swipe_args(args)
    if on_screen and _usable(x1, y1, x2, y2):
        phone.swipe(round(x1), round(y1), round(x2), round(y2), duration)


def _drag(phone: VirtualPhone, args: Args, on_screen: bool, source) -> None:
    """Touch, hold for the long-press time, then move: a long-clickable view starts a drag, others scroll."""
    x1, y1, x2, y2, duration = _swipe_args(args)
    if not (on_screen and _usable(x1, y1, x2, y2)):
        return
    start = (round(x1), round(y1))
    if phone.hit_test(*start, want="long") is not None:
        phone.long_press(*start, round(phone.long_press_seconds * 1000))
    else:
        phone.swipe(*start, round(x2), round(y2), duration + round(phone.long_press_seconds * 1000))


def _press(phone: VirtualPhone, args: Args, on_screen: bool, source) -> None:
    if on_screen:
        phone.key(KEYCODE_DPAD_CENTER)  # a trackball click


def _roll(phone: VirtualPhone, args: Args, on_screen: bool, source) -> None:
    _point(args)  # trackball motion moves focus; the virtual phone's apps have no focus navigation


def _motion_event(phone: VirtualPhone, args: Args, on_screen: bool, source) -> None:
    action = args.required()
    if action.upper() not in ("DOWN", "UP", "MOVE", "CANCEL"):
        raise ShellCommandError(f"Unknown action: {action}")
    action = action.upper()
    if action == "CANCEL":
        x_arg, y_arg = args.next(), args.next()
        if x_arg is not None and y_arg is not None:
            java_float(x_arg), java_float(y_arg)
        phone.touch_cancel()
        return
    x, y = _point(args)
    if not (on_screen and _usable(x, y)):
        return
    point = (round(x), round(y))
    if action == "DOWN":
        phone.touch_down(*point)
    elif action == "MOVE":
        phone.touch_move(*point)
    else:
        phone.touch_up(*point)          # a tap, a long press, or the end of a drag (a fling when fast)


# ---------------------------------------------------------------------------- help texts


def _modern_help(sdk: int) -> str:
    sources = sorted(SOURCES, key=java_hash)  # ArrayMap lists its keys by hash code
    text = ["Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]", "", "The sources are: "]
    text += [f"      {s}" for s in sources]
    text += ["", "-d: specify the display ID.",
             "      (Default: -1 for key event, 0 for motion event if not specified.)",
             "The commands and default sources are:",
             "      text <string> (Default: touchscreen)",
             "      keyevent [--longpress|--doubletap|--async|--delay <duration between keycodes in ms>] "
             "<key code number or name> ... (Default: keyboard)",
             "      tap <x> <y> (Default: touchscreen)",
             "      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)",
             "      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)",
             "      press (Default: trackball)",
             "      roll <dx> <dy> (Default: trackball)",
             "      motionevent <DOWN|UP|MOVE|CANCEL> <x> <y> (Default: touchscreen)"]
    if sdk >= 33:
        text.append("      keycombination [-t duration(ms)] <key code 1> <key code 2> ... "
                    "(Default: keyboard, the key order is important here.)")
    return lines(text)


def _legacy_usage() -> str:
    buckets = sorted(enumerate(SOURCES), key=lambda item: (_hash_map_bucket(item[1]), item[0]))
    text = ["Usage: input [<source>] <command> [<arg>...]", "", "The sources are: "]
    text += [f"      {s}" for _, s in buckets]
    text += ["", "The commands and default sources are:",
             "      text <string> (Default: touchscreen)",
             "      keyevent [--longpress] <key code number or name> ... (Default: keyboard)",
             "      tap <x> <y> (Default: touchscreen)",
             "      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)",
             "      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)",
             "      press (Default: trackball)",
             "      roll <dx> <dy> (Default: trackball)"]
    return lines(text)


def _hash_map_bucket(key: str) -> int:
    h = java_hash(key) & 0xFFFFFFFF
    return (h ^ (h >> 16)) & 15


# ---------------------------------------------------------------------------- Android 9


def _legacy_input(phone: VirtualPhone, args: list[str]) -> Result:
    """Android 9's Input: exact argument counts; mistakes print the usage on stderr and exit 0."""
    if not args:
        return fail(_legacy_usage(), 0)
    command, rest = args[0], args[1:]
    if command in SOURCES and rest:
        command, rest = rest[0], rest[1:]
    known = {"text": (1, 1), "keyevent": (1, None), "tap": (2, 2), "swipe": (4, 5), "draganddrop": (4, 5),
             "press": (0, 0), "roll": (2, 2)}
    if command not in known:
        return fail(f"Error: Unknown command: {command}\n" + _legacy_usage(), 0)
    low, high = known[command]
    if command == "keyevent" and rest[:1] == ["--longpress"]:
        rest = rest[1:]
    if low <= len(rest) and (high is None or len(rest) <= high):
        try:
            return _legacy_run(phone, command, rest)
        except ShellCommandError as exc:
            if exc.exception == "java.lang.NullPointerException":
                return fail(f'Exception in thread "main" {exc.exception}: {exc}\n'
                            "\tat com.android.commands.input.Input.sendText(Input.java:191)\n"
                            "\tat com.android.commands.input.Input.run(Input.java:98)\n"
                            "\tat com.android.commands.input.Input.main(Input.java:71)\n", 1)
    return fail(INVALID_ARGUMENTS + command + "\n" + _legacy_usage(), 0)


def _legacy_run(phone: VirtualPhone, command: str, rest: list[str]) -> Result:
    if command == "keyevent":
        for name in rest:
            code = keycode(name)
            if code:
                phone.key(code)
        return ok()
    handler = {"text": _text, "tap": _tap, "swipe": _swipe, "draganddrop": _drag, "press": _press,
               "roll": _roll}[command]
    handler(phone, Args(rest), True, None)
    return ok()
