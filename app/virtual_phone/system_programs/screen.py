"""`screencap` and `uiautomator dump`: the screen as pixels and as a view hierarchy."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from ..hostile_dumps import hostile_dump
from ..shell import Result
from .common import fail, ok

if TYPE_CHECKING:
    from ..attached_device import AttachedDevice

RAW_SCREENCAP_FORMAT_RGBA_8888 = 1
RAW_SCREENCAP_DATASPACE_SRGB = 1
PHYSICAL_DISPLAY_ID = 4619827259835644672   # what SurfaceFlinger calls the built-in display (Android 10+)
TO_STDOUT = ("/dev/tty", "/dev/stdout", "/proc/self/fd/1")
DUMP_REFUSED_TRACE = "".join(f"\tat {frame}\n" for frame in (
    "android.app.UiAutomationConnection.registerUiTestAutomationServiceLocked(UiAutomationConnection.java)",
    "android.app.UiAutomationConnection.connect(UiAutomationConnection.java)",
    "android.app.UiAutomation.connect(UiAutomation.java)",
    "com.android.uiautomator.core.UiAutomationShellWrapper.connect(UiAutomationShellWrapper.java)",
    "com.android.commands.uiautomator.DumpCommand.run(DumpCommand.java)",
    "com.android.commands.uiautomator.Launcher.main(Launcher.java)"))


def display_ids(device: AttachedDevice) -> tuple[str, ...]:
    """The ids `screencap -d` accepts: the logical display 0 and, since Android 10, its physical id."""
    return ("0", str(PHYSICAL_DISPLAY_ID)) if device.phone.profile.sdk >= 29 else ("0",)


def program_screencap(device: AttachedDevice, argv: list[str], stdin: bytes) -> Result:
    args = argv[1:]
    as_png = as_jpeg = False
    paths = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-d":
            if i + 1 >= len(args):
                return fail("screencap: option requires an argument -- d\n" + _usage())
            if args[i + 1] not in display_ids(device):
                return fail(f"Invalid display ID: {args[i + 1]}\n")
            i += 1
        elif arg == "-p":
            as_png = True
        elif arg == "-j" and device.phone.profile.sdk >= 34:
            as_jpeg = True
        elif arg == "-h" or (arg.startswith("-") and len(arg) > 1):
            return fail(_usage(), 0 if arg == "-h" else 1)
        else:
            paths.append(arg)
        i += 1
    path = paths[0] if paths else None
    if path and path.endswith(".png"):
        as_png = True
    image = device.phone.screenshot()
    if as_png or as_jpeg:
        buffer = io.BytesIO()
        if as_jpeg:
            image.convert("RGB").save(buffer, format="JPEG", quality=80)
        else:
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
            return fail(f"Error opening file: {path} (No such file or directory)\n")
        return ok()
    return Result(stdout=data)


def _usage() -> str:
    return ("usage: screencap [-hp] [-d display-id] [FILENAME]\n"
            "   -h: this message\n"
            "   -p: save the file as a png.\n"
            "   -d: specify the display ID to capture (default: 0)\n"
            "       see \"dumpsys SurfaceFlinger --display-id\" for valid display IDs.\n"
            "If FILENAME ends with .png it will be saved as a png.\n"
            "If FILENAME is not given, the results will be printed to stdout.\n")


def program_uiautomator(device: AttachedDevice, argv: list[str], stdin: bytes) -> Result:
    args = argv[1:]
    if not args or args[0] != "dump":
        return fail("Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\n"
                    "help: displays help message\n\nruntest: executes UI automation tests\n\n"
                    "dump: creates an XML dump of current UI hierarchy\n\nevents: prints out accessibility events\n")
    paths = [a for a in args[1:] if not a.startswith("-")]
    path = paths[-1] if paths else "/sdcard/window_dump.xml"
    if device.ui_automation.holder is not None:
        # Another client (uiautomator2's server) holds the phone's one UiAutomation: the dump's own
        # registration is refused and the uncaught exception ends it (openatx/uiautomator2#298:
        # "adb shell uiautomator dump not working when the server is started"; the refusal is
        # the one xiaocong/uiautomator#218 shows for the uiautomator command).
        return fail(device.ui_automation.already_registered() + "\n" + DUMP_REFUSED_TRACE, 1)
    if device.faults.take("failing_dumps"):
        # DumpCommand prints the error and returns normally: the process exits 0.
        return fail("ERROR: could not get idle state.\n", 0)
    xml = device.phone.dump_hierarchy()
    if device.faults.hostile_dumps:
        xml = hostile_dump(xml, device.faults.hostile_dumps.pop(0))
    data = xml.encode("utf-8")
    message = f"UI hierchary dumped to: {path}\n".encode()
    if path in TO_STDOUT:
        return Result(stdout=data + message)
    # A file that cannot be written is only logged by the dumper: the phone still reports success.
    device.storage.write(path, data)
    return Result(stdout=message)
