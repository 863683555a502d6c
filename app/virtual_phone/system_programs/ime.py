"""`ime list [-a] [-s]`, `ime enable/disable/set/reset`, as InputMethodManagerService answers:
`list` shows the enabled IMEs (-a: all installed), `set` only selects an enabled one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..keyboard import LATIN_IME
from ..shell import Result
from .common import fail, lines, ok

if TYPE_CHECKING:
    from ..attached_device import AttachedDevice
    from ..phone import VirtualPhone

_SETTINGS_ACTIVITIES = {LATIN_IME: "com.android.inputmethod.latin.settings.SettingsActivity"}


def enabled_imes(phone: VirtualPhone) -> list[str]:
    listed = (phone.get_setting("secure", "enabled_input_methods") or "").split(":")
    return [ime for ime in phone.ime_ids if ime in {entry.split(";")[0] for entry in listed}]


def _set_enabled(phone: VirtualPhone, ime: str, enabled: bool) -> None:
    ids = [i for i in enabled_imes(phone) if i != ime] + ([ime] if enabled else [])
    phone.settings.put("secure", "enabled_input_methods", ":".join(ids), notify=False)
    if not enabled and phone.current_ime == ime and ids:
        phone.set_ime(ids[0])


def program_ime(device: AttachedDevice, argv: list[str], stdin: bytes) -> Result:
    phone = device.phone
    args = [a for a in argv[1:]]
    command = args[0] if args else None
    options = [a for a in args[1:] if a.startswith("-")]
    targets = [a for a in args[1:] if not a.startswith("-")]
    if "--user" in options:  # `--user 0`: the value is not an option; drop it from the targets
        targets = targets[1:]
    with phone.lock:
        if command == "list":
            ids = phone.ime_ids if "-a" in options else enabled_imes(phone)
            if "-s" in options:
                return ok(lines(ids))
            return ok("".join(_describe(phone, ime) for ime in ids))
        if command in ("enable", "disable") and targets:
            ime = targets[0]
            if command == "enable" and ime not in phone.ime_ids:    # no installed APK declares it
                phone.system.log.write("E", "InputMethodManagerService", f'"ime enable {ime}" for user #0 failed '
                                       "due to its unrecognized IME ID.", 612, 690, buffer="system")
                return fail(f"Unknown input method {ime} cannot be enabled for user #0\n", 255)
            was = ime in enabled_imes(phone)
            _set_enabled(phone, ime, command == "enable")
            state = "already" if was == (command == "enable") else "now"
            return ok(f"Input method {ime}: {state} {command}d for user #0\n")
        if command == "set" and targets:
            ime = targets[0]
            if ime not in enabled_imes(phone) or not phone.set_ime(ime):
                return fail(f"Unknown input method {ime} cannot be selected for user #0\n", 255)
            return ok(f"Input method {ime} selected for user #0\n")
        if command == "reset":
            default = phone.ime_ids[0]
            phone.settings.put("secure", "enabled_input_methods", default, notify=False)
            phone.set_ime(default)
            return ok(f"Reset current and enabled IMEs for user #0\n  Selected: {default}\n   Enabled: {default}\n")
    return Result(stdout=_help().encode(), code=255)


def _describe(phone: VirtualPhone, ime: str) -> str:
    package, _, short = ime.partition("/")
    service = package + short if short.startswith(".") else short
    return lines([
        f"{ime}:",
        f"  mId={ime} mSettingsActivityName={_SETTINGS_ACTIVITIES.get(ime, 'null')} mIsVrOnly=false "
        "mSupportsSwitchingToNextInputMethod=false",
        "  mIsDefaultResId=0x0",
        "  Service:",
        "    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false",
        "    ServiceInfo:",
        f"      name={service}",
        f"      packageName={package}",
        "      enabled=true exported=true directBootAware=false",
        "      permission=android.permission.BIND_INPUT_METHOD",
        "      flags=0x0",
    ])


def _help() -> str:
    return lines([
        "ime <command>:",
        "  list [-a] [-s]",
        "    prints all enabled input methods.",
        "      -a: see all input methods",
        "      -s: only a single summary line of each",
        "  enable [--user <USER_ID>] <ID>",
        "    allows the given input method ID to be used.",
        "  disable [--user <USER_ID>] <ID>",
        "    disallows the given input method ID to be used.",
        "  set [--user <USER_ID>] <ID>",
        "    switches to the given input method ID.",
        "  reset [--user <USER_ID>]",
        "    reset currently selected/enabled IMEs to the default ones as if the device is initially booted",
        "    with the current locale.",
    ])
