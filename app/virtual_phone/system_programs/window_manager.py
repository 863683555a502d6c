"""`wm`: display size and density, with overrides as WindowManagerShellCommand sets them, and
user rotation (`wm user-rotation`, Android 12 and later)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..shell import Result
from .common import Args, ShellCommandError, fail, java_exception, java_int, lines, ok

if TYPE_CHECKING:
    from ..attached_device import AttachedDevice
    from ..phone import VirtualPhone

MIN_SIZE, MAX_SCALE, MIN_DENSITY, DENSITY_DEFAULT = 200, 2, 72, 160


def program_wm(device: AttachedDevice, argv: list[str], stdin: bytes) -> Result:
    phone = device.phone
    args = Args(argv[1:])
    command = args.next()
    try:
        if command == "size":
            return _size(phone, args)
        if command == "density":
            return _density(phone, args)
        if command == "dismiss-keyguard":
            phone.dismiss_keyguard()
            return ok()
        if command == "user-rotation" and phone.profile.sdk >= 31:
            return _user_rotation(phone, args)
        if command in (None, "help", "-h"):
            return Result(stdout=_help().encode(), code=255)
        return Result(stdout=f"Unknown command: {command}\n".encode(), code=255)
    except ShellCommandError as exc:
        return java_exception(command or "", str(exc), exc.exception,
                              "com.android.server.wm.WindowManagerShellCommand.onCommand")


def _display_option(args: Args, value: str | None) -> str | None:
    """`-d DISPLAY_ID` may come before the value; display 0 is the only display."""
    if value == "-d":
        java_int(args.required())
        return args.next()
    return value


def _size(phone: VirtualPhone, args: Args) -> Result:
    physical_w, physical_h, _ = phone.system.physical
    value = _display_option(args, args.next())
    if value is None:
        text = f"Physical size: {physical_w}x{physical_h}\n"
        if (phone.width, phone.height) != (physical_w, physical_h):
            text += f"Override size: {phone.width}x{phone.height}\n"
        return ok(text)
    if value == "reset":
        phone.system.set_display(physical_w, physical_h)
        return ok()
    div = value.find("x")
    if div <= 0 or div >= len(value) - 1:
        return fail(f"Error: bad size {value}\n", 255)
    try:
        width, height = _dimension(phone, value[:div]), _dimension(phone, value[div + 1:])
    except ValueError as exc:
        return fail(f'Error: bad number java.lang.NumberFormatException: For input string: "{exc}"\n', 255)
    if width < 0 or height < 0:
        phone.system.set_display(physical_w, physical_h)
        return ok()
    phone.system.set_display(min(max(width, MIN_SIZE), physical_w * MAX_SCALE),
                             min(max(height, MIN_SIZE), physical_h * MAX_SCALE))
    return ok()


def _dimension(phone: VirtualPhone, text: str) -> int:
    number = text[:-2] if text.endswith(("px", "dp")) else text
    if not number.lstrip("-").isdigit():
        raise ValueError(number)
    value = int(number)
    return value * phone.density // DENSITY_DEFAULT if text.endswith("dp") else value


def _density(phone: VirtualPhone, args: Args) -> Result:
    physical = phone.system.physical[2]
    value = _display_option(args, args.next())
    if value is None:
        text = f"Physical density: {physical}\n"
        if phone.density != physical:
            text += f"Override density: {phone.density}\n"
        return ok(text)
    if value == "reset":
        phone.system.set_display(density=physical)
        return ok()
    if not value.lstrip("-").isdigit():
        return fail(f'Error: bad number java.lang.NumberFormatException: For input string: "{value}"\n', 255)
    if int(value) < MIN_DENSITY:
        return fail(f"Error: density must be >= {MIN_DENSITY}\n", 255)
    phone.system.set_display(density=int(value))
    return ok()


def _user_rotation(phone: VirtualPhone, args: Args) -> Result:
    mode = _display_option(args, args.next())
    if mode is None:
        locked = not phone.settings.flag("system", "accelerometer_rotation")
        return ok(f"lock {phone.rotation}\n" if locked else "free\n")
    if mode == "free":
        phone.put_setting("system", "accelerometer_rotation", "1")
        return ok()
    if mode != "lock":
        return fail("Error: argument needs to be either -d, free or lock.\n", 255)
    value = args.next()
    rotation = java_int(value) if value is not None else phone.rotation
    if not 0 <= rotation <= 3:
        return fail(f"Error: Rotation needs to be in [0, 3] but was {rotation}\n", 255)
    phone.put_setting("system", "accelerometer_rotation", "0")
    phone.put_setting("system", "user_rotation", str(rotation))
    return ok()


def _help() -> str:
    return lines([
        "Window manager (window) commands:",
        "  help",
        "      Print this help text.",
        "  size [reset|WxH|WdpxHdp] [-d DISPLAY_ID]",
        "    Return or override display size.",
        "    width and height in pixels unless suffixed with 'dp'.",
        "  density [reset|DENSITY] [-d DISPLAY_ID]",
        "    Return or override display density.",
        "  dismiss-keyguard",
        "    Dismiss the keyguard, prompting user for auth if necessary.",
        "  user-rotation [-d DISPLAY_ID] [free|lock] [rotation]",
        "    Print or set user rotation mode and user rotation.",
    ])
