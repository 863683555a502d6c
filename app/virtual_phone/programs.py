"""The phone's command-line programs, with the output formats of a real Android 14 phone.

`run_program(device, argv, stdin)` is called by the shell for every simple command.
The outputs (texts, error messages, exit codes) copy what AOSP prints, because the app's
device layer is written against those texts and must work on real phones too.
"""

from __future__ import annotations

import base64
import io
from typing import TYPE_CHECKING, Callable

from app.android.keycodes import keycode_from_string

from . import coreutils
from .shell import Result

if TYPE_CHECKING:
    from .attached_device import AttachedDevice

ADB_KEYBOARD_IME = "com.android.adbkeyboard/.AdbIME"
RAW_SCREENCAP_FORMAT_RGBA_8888 = 1
RAW_SCREENCAP_DATASPACE_SRGB = 1

Program = Callable[["AttachedDevice", list[str], bytes], Result]


def _ok(text: str = "") -> Result:
    return Result(stdout=text.encode("utf-8"))


def _fail(text: str, code: int = 1) -> Result:
    return Result(stderr=text.encode("utf-8"), code=code)


def _java_exception(command: str, exception: str) -> Result:
    return _fail(f"Exception occurred while executing '{command}':\n{exception}\n", 255)


# ---------------------------------------------------------------------------- input


def _parse_coordinate(value: str) -> int:
    return int(round(float(value)))


_INPUT_SOURCES = {"keyboard", "mouse", "joystick", "touchnavigation", "touchpad", "trackball",
                  "dpad", "stylus", "gamepad", "touchscreen", "rotaryencoder"}

# What KeyCharacterMap.VIRTUAL_KEYBOARD can type: printable ASCII, newline and tab.
_TYPABLE = {chr(c) for c in range(32, 127)} | {"\n", "\t"}


def program_input(device: "AttachedDevice", argv: list[str], stdin: bytes) -> Result:
    args = argv[1:]
    if args and args[0] in _INPUT_SOURCES:
        args = args[1:]
    if len(args) >= 2 and args[0] == "-d":
        args = args[2:]
    if not args:
        return _fail("Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n")
    command, rest = args[0], args[1:]
    phone = device.phone
    try:
        if command == "tap" and len(rest) >= 2:
            phone.tap(_parse_coordinate(rest[0]), _parse_coordinate(rest[1]))
        elif command in ("swipe", "draganddrop") and len(rest) >= 4:
            duration = int(float(rest[4])) if len(rest) > 4 else 300
            x1, y1, x2, y2 = (_parse_coordinate(v) for v in rest[:4])
            phone.swipe(x1, y1, x2, y2, duration if duration >= 0 else 300)
        elif command == "text" and rest:
            return _input_text(device, rest[0])
        elif command == "keyevent" and rest:
            # --longpress / --doubletap act as one press on the virtual phone.
            for name in (a for a in rest if not a.startswith("--")):
                code = keycode_from_string(name)
                if code is not None:  # else Android injects KEYCODE_UNKNOWN: nothing happens
                    phone.key(code)
        elif command == "press":
            phone.key(23)
        elif command == "motionevent" and len(rest) >= 3:
            if rest[0].upper() == "UP":
                phone.tap(_parse_coordinate(rest[1]), _parse_coordinate(rest[2]))
        else:
            return _fail(f"Error: Invalid arguments for command: {command}\n"
                         "Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n")
    except ValueError as exc:
        return _java_exception(command, f'java.lang.NumberFormatException: For input string: "{exc}"')
    return _ok()


def _input_text(device: "AttachedDevice", text: str) -> Result:
    text = text.replace("%s", " ")
    if any(ch not in _TYPABLE for ch in text):
        # KeyCharacterMap.getEvents() returns null for characters it cannot map.
        return _java_exception("text", "java.lang.NullPointerException: Attempt to get length of null array")
    device.phone.input_text(text)
    return _ok()


# ---------------------------------------------------------------------------- screen


def program_screencap(device: "AttachedDevice", argv: list[str], stdin: bytes) -> Result:
    args = argv[1:]
    as_png = "-p" in args
    paths = [a for a in args if not a.startswith("-")]
    if "-d" in args:
        index = args.index("-d")
        paths = [a for a in args[index + 2:] if not a.startswith("-")]
    path = paths[0] if paths else None
    if path and path.endswith(".png"):
        as_png = True
    image = device.phone.screenshot()
    if as_png:
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", compress_level=1)
        data = buffer.getvalue()
    else:
        rgba = image if image.mode == "RGBA" else image.convert("RGBA")
        header = b"".join(v.to_bytes(4, "little") for v in (
            rgba.width, rgba.height, RAW_SCREENCAP_FORMAT_RGBA_8888, RAW_SCREENCAP_DATASPACE_SRGB))
        data = header + rgba.tobytes()
    if device.faults.take("truncated_screenshots"):
        data = data[: len(data) // 2]
    if path:
        if not device.storage.write(path, data):
            return _fail(f"Error opening file: {path} (No such file or directory)\n")
        return _ok()
    return Result(stdout=data)


def program_uiautomator(device: "AttachedDevice", argv: list[str], stdin: bytes) -> Result:
    args = argv[1:]
    if not args or args[0] != "dump":
        return _fail("Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\n"
                     "help: displays help message\n\nruntest: executes UI automation tests\n\n"
                     "dump: creates an XML dump of current UI hierarchy\n\nevents: prints out accessibility events\n")
    paths = [a for a in args[1:] if not a.startswith("--")]
    path = paths[0] if paths else "/sdcard/window_dump.xml"
    if device.faults.take("failing_dumps"):
        return _fail("ERROR: could not get idle state.\n")
    xml = device.phone.dump_hierarchy().encode("utf-8")
    message = f"UI hierchary dumped to: {path}\n".encode()
    if path in ("/dev/tty", "/dev/stdout", "/proc/self/fd/1"):
        return Result(stdout=xml + message)
    if not device.storage.write(path, xml):
        return _fail(f"ERROR: could not write {path}: No such file or directory\n")
    return Result(stdout=message)


def program_wm(device: "AttachedDevice", argv: list[str], stdin: bytes) -> Result:
    phone = device.phone
    sub = argv[1] if len(argv) > 1 else ""
    if sub == "size" and len(argv) == 2:
        return _ok(f"Physical size: {phone.width}x{phone.height}\n")
    if sub == "density" and len(argv) == 2:
        return _ok(f"Physical density: {phone.density}\n")
    if sub in ("size", "density"):
        return _fail("wm: changing the display size or density is not supported on the virtual phone\n")
    return _fail("Window manager (window) commands:\n  size [reset|WxH|WdpxHdp]\n  density [reset|DENSITY]\n")


def _component(package: str, activity: str, short: bool) -> str:
    if short and activity.startswith(package + "."):
        activity = activity[len(package):]
    return f"{package}/{activity}"


def program_dumpsys(device: "AttachedDevice", argv: list[str], stdin: bytes) -> Result:
    phone = device.phone
    service = argv[1] if len(argv) > 1 else ""
    package, activity = phone.foreground()
    rotation = phone.rotation
    if service == "window":
        return _ok(
            "WINDOW MANAGER WINDOWS (dumpsys window windows)\n"
            f"  Window #0 Window{{3c1d2e8 u0 {_component(package, activity, False)}}}:\n"
            f"  mCurrentFocus=Window{{3c1d2e8 u0 {_component(package, activity, False)}}}\n"
            f"  mFocusedApp=ActivityRecord{{9a4b1f2 u0 {_component(package, activity, True)} t17}}\n"
            "WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n"
            f"  Display: mDisplayId=0 rotation={rotation}\n"
            f"    init={phone.width}x{phone.height} {phone.density}dpi\n"
            f"    mCurrentRotation=ROTATION_{rotation * 90}\n"
            f"  mInputMethodWindow={'Window{5e6f7a8 u0 InputMethod}' if phone.keyboard_visible else 'null'}\n")
    if service == "activity":
        record = f"ActivityRecord{{9a4b1f2 u0 {_component(package, activity, True)} t17}}"
        return _ok(f"ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n"
                   f"  mResumedActivity: {record}\n  ResumedActivity: {record}\n")
    if service == "input":
        return _ok(f"INPUT MANAGER (dumpsys input)\n  Viewport INTERNAL: displayId=0, orientation={rotation}\n"
                   f"    SurfaceOrientation: {rotation}\n")
    if service == "input_method":
        return _ok(f"  mCurMethodId={phone.current_ime}\n  mInputShown={str(phone.keyboard_visible).lower()}\n")
    return _ok("")


# ---------------------------------------------------------------------------- packages and activities


def program_pm(device: "AttachedDevice", argv: list[str], stdin: bytes) -> Result:
    phone = device.phone
    args = argv[1:]
    if args[:1] == ["list"] and args[1:2] == ["packages"]:
        flags = [a for a in args[2:] if a.startswith("-")]
        text_filter = next((a for a in args[2:] if not a.startswith("-")), "")
        third_party = phone.installed_packages(third_party_only=True)
        packages = third_party if "-3" in flags else phone.installed_packages()
        if "-s" in flags:
            packages = [p for p in packages if p not in third_party]
        lines = [f"package:{p}" for p in packages if text_filter in p]
        return _ok("".join(line + "\n" for line in lines))
    if args[:1] == ["path"] and len(args) > 1:
        if args[1] not in phone.installed_packages():
            return Result(code=1)
        folder = "data/app" if args[1] in phone.installed_packages(third_party_only=True) else "system/app"
        return _ok(f"package:/{folder}/{args[1]}/base.apk\n")
    if args[:1] == ["clear"] and len(args) > 1:
        return _ok("Success\n")
    return _fail("pm: unknown command; try 'pm list packages'\n")


def program_cmd(device: "AttachedDevice", argv: list[str], stdin: bytes) -> Result:
    if argv[1:2] == ["package"]:
        return program_pm(device, ["pm", *argv[2:]], stdin)
    if argv[1:3] == ["wifi", "set-wifi-enabled"] and len(argv) > 3:
        device.phone.put_setting("global", "wifi_on", "1" if argv[3] == "enabled" else "0")
        return _ok()
    return _fail(f"cmd: Can't find service: {argv[1] if len(argv) > 1 else ''}\n", 20)


def program_svc(device: "AttachedDevice", argv: list[str], stdin: bytes) -> Result:
    keys = {"wifi": "wifi_on", "bluetooth": "bluetooth_on"}
    if len(argv) == 3 and argv[1] in keys and argv[2] in ("enable", "disable"):
        device.phone.put_setting("global", keys[argv[1]], "1" if argv[2] == "enable" else "0")
        return _ok()
    return _fail("Available commands:\n    wifi\n    bluetooth\n")


def program_monkey(device: "AttachedDevice", argv: list[str], stdin: bytes) -> Result:
    args = argv[1:]
    package = args[args.index("-p") + 1] if "-p" in args and args.index("-p") + 1 < len(args) else None
    if package is None or not device.phone.launch(package):
        return _fail("** No activities found to run, monkey aborted.\n", 252)
    return _ok("Events injected: 1\n## Network stats: elapsed time=9ms (0ms mobile, 0ms wifi, 9ms not connected)\n")


def _option(args: list[str], name: str) -> str | None:
    return args[args.index(name) + 1] if name in args and args.index(name) + 1 < len(args) else None


def program_am(device: "AttachedDevice", argv: list[str], stdin: bytes) -> Result:
    phone = device.phone
    args = argv[1:]
    sub = args[0] if args else ""
    if sub in ("start", "start-activity"):
        component = _option(args, "-n")
        if component is None:
            package = next((a for a in reversed(args[1:]) if "." in a and not a.startswith("-")
                            and a != _option(args, "-a") and a != _option(args, "-c")), None)
            if package and phone.launch(package):
                return _ok(f"Starting: Intent {{ pkg={package} }}\n")
            return _fail("Error: Activity not started, unable to resolve Intent\n")
        package, _, activity = component.partition("/")
        full_activity = package + activity if activity.startswith(".") else activity
        if not phone.launch(package, full_activity or None):
            return _fail(f"Starting: Intent {{ cmp={component} }}\nError type 3\n"
                         f"Error: Activity class {{{package}/{full_activity}}} does not exist.\n")
        return _ok(f"Starting: Intent {{ cmp={component} }}\n")
    if sub == "force-stop" and len(args) > 1:
        phone.force_stop(args[1])
        return _ok()
    if sub == "broadcast":
        return _broadcast(device, args[1:])
    return _fail("usage: am [start|force-stop|broadcast] ...\n")


def _broadcast(device: "AttachedDevice", args: list[str]) -> Result:
    action = _option(args, "-a") or ""
    extras: dict[str, str] = {}
    for flag in ("--es", "--ei", "--eia"):
        for i, arg in enumerate(args):
            if arg == flag and i + 2 < len(args):
                extras[args[i + 1]] = args[i + 2]
    phone = device.phone
    if action == "ADB_INPUT_TEXT" and "msg" in extras:
        phone.adb_keyboard_input(extras["msg"])
    elif action == "ADB_INPUT_B64" and "msg" in extras:
        try:
            phone.adb_keyboard_input(base64.b64decode(extras["msg"]).decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            pass  # ADB Keyboard logs and ignores bad base64
    elif action == "ADB_INPUT_CODE" and "code" in extras and phone.current_ime == ADB_KEYBOARD_IME:
        phone.key(int(extras["code"]))
    elif action == "ADB_CLEAR_TEXT" and phone.current_ime == ADB_KEYBOARD_IME:
        clear = getattr(phone, "clear_focused_text", None)
        if clear:
            clear()
    has_extras = " (has extras)" if extras else ""
    return _ok(f"Broadcasting: Intent {{ act={action} flg=0x400000{has_extras} }}\nBroadcast completed: result=0\n")


# ---------------------------------------------------------------------------- properties and settings


def _properties(device: "AttachedDevice") -> dict[str, str]:
    phone = device.phone
    return {
        "ro.product.model": phone.model,
        "ro.product.manufacturer": "AgentDesk",
        "ro.product.brand": "agentdesk",
        "ro.product.name": "agentdesk_virtual",
        "ro.product.device": "virtual",
        "ro.product.cpu.abi": "x86_64",
        "ro.build.version.release": "14",
        "ro.build.version.sdk": "34",
        "ro.build.fingerprint": "agentdesk/virtual/virtual:14/AD1A.241121.001/1:userdebug/test-keys",
        "ro.serialno": phone.serial,
        "ro.sf.lcd_density": str(phone.density),
        "ro.debuggable": "1",
        "sys.boot_completed": "1",
        "persist.sys.locale": "en-US",
    }


def program_getprop(device: "AttachedDevice", argv: list[str], stdin: bytes) -> Result:
    props = _properties(device)
    if len(argv) > 1:
        return _ok(props.get(argv[1], argv[2] if len(argv) > 2 else "") + "\n")
    return _ok("".join(f"[{k}]: [{v}]\n" for k, v in sorted(props.items())))


def program_settings(device: "AttachedDevice", argv: list[str], stdin: bytes) -> Result:
    args = argv[1:]
    if args[:1] == ["--user"]:
        args = args[2:]
    if len(args) < 2 or args[1] not in ("global", "system", "secure"):
        return _fail("usage:  settings [--user <USER_ID> | current] get namespace key\n"
                     "        settings [--user <USER_ID> | current] put namespace key value\n")
    verb, namespace = args[0], args[1]
    phone = device.phone
    if verb == "get" and len(args) >= 3:
        value = phone.get_setting(namespace, args[2])
        return _ok(("null" if value is None else value) + "\n")
    if verb == "put" and len(args) >= 4:
        phone.put_setting(namespace, args[2], args[3])
        return _ok()
    if verb == "list":
        listing = getattr(phone, "list_settings", None)
        items = listing(namespace) if listing else {}
        return _ok("".join(f"{k}={v}\n" for k, v in sorted(items.items())))
    return _fail(f"settings: bad arguments for '{verb}'\n")


def program_ime(device: "AttachedDevice", argv: list[str], stdin: bytes) -> Result:
    phone = device.phone
    args = argv[1:]
    sub = args[0] if args else ""
    if sub == "list":
        ids = list(phone.ime_ids)
        if "-s" in args:
            return _ok("".join(i + "\n" for i in ids))
        return _ok("".join(f"{i}:\n  mId={i} mSettingsActivityName=null\n" for i in ids))
    if sub in ("enable", "disable") and len(args) > 1:
        if args[1] not in phone.ime_ids:
            return _fail(f"Unknown input method {args[1]} cannot be enabled for user #0\n")
        return _ok(f"Input method {args[1]}: {'now enabled' if sub == 'enable' else 'now disabled'} for user #0\n")
    if sub == "set" and len(args) > 1:
        if phone.set_ime(args[1]):
            return _ok(f"Input method {args[1]} selected for user #0\n")
        return _fail(f"Unknown input method {args[1]} cannot be selected for user #0\n")
    return _fail("ime <command>:\n  list [-a] [-s]\n  enable ID\n  disable ID\n  set ID\n")


def program_sh(device: "AttachedDevice", argv: list[str], stdin: bytes) -> Result:
    if len(argv) >= 3 and argv[1] == "-c":
        return device.new_shell("sh -c").run_line(argv[2])
    return _ok()


PROGRAMS: dict[str, Program] = {
    "input": program_input,
    "screencap": program_screencap,
    "uiautomator": program_uiautomator,
    "wm": program_wm,
    "dumpsys": program_dumpsys,
    "pm": program_pm,
    "cmd": program_cmd,
    "svc": program_svc,
    "monkey": program_monkey,
    "am": program_am,
    "getprop": program_getprop,
    "settings": program_settings,
    "ime": program_ime,
    "sh": program_sh,
}


def run_program(device: "AttachedDevice", argv: list[str], stdin: bytes) -> Result:
    """Run one command on the phone, as /system/bin/sh would find and run it."""
    name = argv[0].rsplit("/", 1)[-1]
    program = PROGRAMS.get(name)
    if program is not None:
        return program(device, argv, stdin)
    utility = coreutils.UTILITIES.get(name)
    if utility is not None:
        return utility(device.storage, argv, stdin)
    return _fail(f"/system/bin/sh: {argv[0]}: inaccessible or not found\n", 127)
