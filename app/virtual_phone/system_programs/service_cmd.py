"""`cmd SERVICE ...` (the binder shell-command entry the am/pm/wm/input/ime/settings scripts use)
and `svc`: Wi-Fi, mobile data, Bluetooth, airplane mode, location and the status bar.

An unknown service answers as cmd does: "cmd: Can't find service: X", exit 20.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..shell import Result
from .common import fail, lines, ok

if TYPE_CHECKING:
    from ..attached_device import AttachedDevice
    from ..phone import VirtualPhone

CMD_SERVICES = ("activity", "bluetooth_manager", "connectivity", "input", "input_method", "location", "package",
                "phone", "settings", "statusbar", "wifi", "window")


def program_cmd(device: AttachedDevice, argv: list[str], stdin: bytes) -> Result:
    from ..programs import PROGRAMS  # the tools cmd stands behind; imported late (programs imports this module)

    args = argv[1:]
    while args and args[0] == "-w":   # wait for the service to be published: it always is
        args = args[1:]
    if not args:
        return fail("cmd: No service specified; use -l to list all running services. Use -w to start and wait "
                    "for a service.\n", 20)
    if args[0] == "-l":
        return ok("Currently running services:\n" + lines(f"  {name}" for name in CMD_SERVICES))
    service, rest = args[0], args[1:]
    tools = {"activity": "am", "package": "pm", "window": "wm", "input": "input", "settings": "settings"}
    if service in tools:
        return PROGRAMS[tools[service]](device, [tools[service], *rest], stdin)
    if service == "input_method":
        return PROGRAMS["ime"](device, ["ime", *(rest[1:] if rest[:1] == ["ime"] else rest)], stdin)
    handler = {"wifi": _wifi, "connectivity": _connectivity, "bluetooth_manager": _bluetooth,
               "location": _location, "statusbar": _statusbar, "phone": _phone_data}.get(service)
    if handler is None:
        return fail(f"cmd: Can't find service: {service}\n", 20)
    return handler(device.phone, rest)


def _switch(phone: VirtualPhone, namespace: str, key: str, on: bool) -> None:
    phone.put_setting(namespace, key, "1" if on else "0")


def _wifi(phone: VirtualPhone, args: list[str]) -> Result:
    if args[:1] == ["set-wifi-enabled"] and args[1:2] in (["enabled"], ["disabled"]):
        _switch(phone, "global", "wifi_on", args[1] == "enabled")
        return ok()
    if args[:1] == ["status"]:
        on = phone.settings.flag("global", "wifi_on")
        return ok("Wifi is enabled\n" if on else "Wifi is disabled\n")
    return Result(stdout=b"Wi-Fi (wifi) commands:\n  set-wifi-enabled enabled|disabled\n  status\n", code=255)


def _connectivity(phone: VirtualPhone, args: list[str]) -> Result:
    if args[:1] == ["airplane-mode"]:
        if len(args) == 1:
            return ok("enabled\n" if phone.settings.flag("global", "airplane_mode_on") else "disabled\n")
        if args[1] in ("enable", "disable"):
            _switch(phone, "global", "airplane_mode_on", args[1] == "enable")
            return ok()
    return Result(stdout=b"Connectivity service commands:\n  airplane-mode [enable|disable]\n", code=255)


def _bluetooth(phone: VirtualPhone, args: list[str]) -> Result:
    if args[:1] in (["enable"], ["disable"]):
        _switch(phone, "global", "bluetooth_on", args[0] == "enable")
        return ok()
    return Result(stdout=b"Bluetooth Manager Commands:\n  enable\n  disable\n", code=255)


def _location(phone: VirtualPhone, args: list[str]) -> Result:
    if args[:1] == ["is-location-enabled"]:
        return ok("true\n" if phone.settings.as_int("secure", "location_mode") else "false\n")
    if args[:1] == ["set-location-enabled"] and args[1:2] in (["true"], ["false"]):
        phone.put_setting("secure", "location_mode", "3" if args[1] == "true" else "0")
        return ok()
    return Result(stdout=b"Location service commands:\n  is-location-enabled\n  set-location-enabled true|false\n",
                  code=255)


def _statusbar(phone: VirtualPhone, args: list[str]) -> Result:
    # The virtual phone draws no notification shade: expanding it shows nothing new.
    if args[:1] in (["expand-notifications"], ["expand-settings"], ["collapse"]):
        return ok()
    return Result(stdout=b"Status bar commands:\n  expand-notifications\n  expand-settings\n  collapse\n", code=255)


def _phone_data(phone: VirtualPhone, args: list[str]) -> Result:
    if args[:1] == ["data"] and args[1:2] in (["enable"], ["disable"]):
        _switch(phone, "global", "mobile_data", args[1] == "enable")
        return ok()
    return Result(stdout=b"Telephony Commands:\n  data enable|disable\n", code=255)


def program_svc(device: AttachedDevice, argv: list[str], stdin: bytes) -> Result:
    phone = device.phone
    keys = {"wifi": ("global", "wifi_on"), "data": ("global", "mobile_data"), "bluetooth": ("global", "bluetooth_on")}
    if len(argv) == 3 and argv[1] in keys and argv[2] in ("enable", "disable"):
        _switch(phone, *keys[argv[1]], argv[2] == "enable")
        return ok()
    if len(argv) >= 3 and argv[1] == "power" and argv[2] == "stayon":
        value = argv[3] if len(argv) > 3 else ""
        modes = {"true": 7, "false": 0, "usb": 2, "ac": 1, "wireless": 4}
        if value in modes:
            phone.put_setting("global", "stay_on_while_plugged_in", str(modes[value]))
            return ok()
    return ok(lines(["Available commands:",
                     "    help     Show information about the subcommands",
                     "    power    Control the power manager",
                     "    data     Control mobile data connectivity",
                     "    wifi     Control the Wi-Fi manager",
                     "    usb      Control Usb state",
                     "    nfc      Control NFC functions",
                     "    bluetooth Control Bluetooth service"]))
