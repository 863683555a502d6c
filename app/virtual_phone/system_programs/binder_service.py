"""`service`: the binder services' command line (list, check, call). Of `service call` the virtual phone
answers the call AndroidWorld's set-up makes, `service call alarm 3 s16 ZONE` (AlarmManager.setTimeZone, as
on Android 10-14): the phone's time zone (persist.sys.timezone) becomes ZONE. Any other call says it is not
simulated, with exit 1, rather than pretending to have done something."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..shell import Result
from .common import fail, lines, ok

if TYPE_CHECKING:
    from ..attached_device import AttachedDevice

SERVICES = ("activity", "alarm", "bluetooth_manager", "clipboard", "connectivity", "input", "input_method",
            "location", "package", "phone", "settings", "statusbar", "telephony.registry", "wifi", "window")
SET_TIME_ZONE = "3"
EMPTY_REPLY = "Result: Parcel(00000000    '....')\n"
USAGE = ("Usage: service [-h|-?]\n"
         "       service list\n"
         "       service check SERVICE\n"
         "       service call SERVICE CODE [i32 N | i64 N | f N | d N | s16 STR | null | fd f ] ...\n")


def program_service(device: AttachedDevice, argv: list[str], stdin: bytes) -> Result:
    args = argv[1:]
    if not args or args[0] in ("-h", "-?"):
        return ok(USAGE) if args else fail(USAGE)
    if args[0] == "list":
        return ok(f"Found {len(SERVICES)} services:\n" + lines(f"{i}\t{name}: [{_interface(name)}]"
                                                              for i, name in enumerate(SERVICES)))
    if args[0] == "check" and len(args) == 2:
        return ok(f"Service {args[1]}: {'found' if args[1] in SERVICES else 'not found'}\n")
    if args[0] == "call" and len(args) >= 3:
        return _call(device, args[1], args[2], args[3:])
    return fail(USAGE)


def _interface(name: str) -> str:
    return "android.app.IAlarmManager" if name == "alarm" else f"android.{name}"


def _call(device: AttachedDevice, service: str, code: str, arguments: list[str]) -> Result:
    if service not in SERVICES:
        return fail(f"service: Service {service} does not exist\n", 255)
    if service == "alarm" and code == SET_TIME_ZONE and arguments[:1] == ["s16"] and len(arguments) == 2:
        zone = arguments[1]
        if not re.fullmatch(r"[A-Za-z_]+(?:/[A-Za-z0-9_+\-]+)*|(?:GMT|UTC)(?:[+-]\d{1,2}(?::?\d\d)?)?", zone):
            # AlarmManagerService throws IllegalArgumentException("Timezone: … is not an Olson ID")
            return ok("Result: Parcel(fffffffd 00000000 '........')\n")
        device.phone.system.properties["persist.sys.timezone"] = zone
        return ok(EMPTY_REPLY)
    return fail(f"service: the virtual phone does not simulate `service call {service} {code}`\n")
