"""The phone's command-line programs by name, with the output formats of a real Android phone.

`run_program(device, argv, stdin)` is called by the shell for every simple command. The programs
themselves live in `system_programs` (one module per tool); their texts, error messages and exit
codes copy what AOSP prints, because the app's device layer and other people's clients (adbutils,
uiautomator2, Appium, scrcpy) are written against those texts and must work on real phones too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import coreutils
from .shell import Result
from .system_programs.activity_manager import program_am, program_monkey
from .system_programs.binder_service import program_service
from .system_programs.common import Program
from .system_programs.common import fail as _fail
from .system_programs.dumpsys import program_dumpsys
from .system_programs.ime import program_ime
from .system_programs.input_cmd import program_input
from .system_programs.logcat import program_logcat
from .system_programs.network import program_ip
from .system_programs.package_manager import program_pm
from .system_programs.properties import program_getprop, program_setprop
from .system_programs.screen import program_screencap, program_uiautomator
from .system_programs.service_cmd import program_cmd, program_svc
from .system_programs.settings_cmd import program_settings
from .system_programs.window_manager import program_wm

if TYPE_CHECKING:
    from .attached_device import AttachedDevice


def program_sh(device: AttachedDevice, argv: list[str], stdin: bytes) -> Result:
    if len(argv) >= 3 and argv[1] == "-c":
        return device.new_shell("sh -c").run_line(argv[2])
    return Result()


PROGRAMS: dict[str, Program] = {
    "input": program_input,
    "screencap": program_screencap,
    "uiautomator": program_uiautomator,
    "wm": program_wm,
    "dumpsys": program_dumpsys,
    "pm": program_pm,
    "cmd": program_cmd,
    "svc": program_svc,
    "service": program_service,
    "monkey": program_monkey,
    "am": program_am,
    "getprop": program_getprop,
    "setprop": program_setprop,
    "settings": program_settings,
    "ime": program_ime,
    "logcat": program_logcat,
    "ip": program_ip,
    "sh": program_sh,
}


def run_program(device: AttachedDevice, argv: list[str], stdin: bytes) -> Result:
    """Run one command on the phone, as /system/bin/sh would find and run it."""
    name = argv[0].rsplit("/", 1)[-1]
    program = PROGRAMS.get(name)
    if program is not None:
        return program(device, argv, stdin)
    if name in coreutils.UTILITIES:
        return coreutils.run_utility(device, argv, stdin)
    return _fail(f"/system/bin/sh: {argv[0]}: inaccessible or not found\n", 127)
