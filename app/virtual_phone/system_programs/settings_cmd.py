"""`settings get/put/delete/list/reset [--user U] NAMESPACE ...`, as SettingsProvider's shell
command parses it: errors on stderr and exit 255, "null" for a missing key, sorted lists."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..settings_store import NAMESPACES
from ..shell import Result
from .common import fail, lines, ok

if TYPE_CHECKING:
    from ..attached_device import AttachedDevice

VERBS = ("get", "put", "delete", "list", "reset")


def program_settings(device: AttachedDevice, argv: list[str], stdin: bytes) -> Result:
    args = argv[1:]
    if not args or args[0] in ("help", "-h"):
        return Result(stdout=_help().encode(), code=255)
    verb = namespace = key = value = None
    user = None
    extra: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--user" and user is None:
            if i + 1 >= len(args):
                return fail('\nException occurred while executing \'--user\':\n'
                            'java.lang.IllegalArgumentException: Argument expected after "--user"\n', 255)
            user = args[i + 1]
            i += 2
            continue
        if verb is None:
            if arg.lower() not in VERBS:
                return fail(f"Invalid command: {arg}\n", 255)
            verb = arg.lower()
        elif namespace is None:
            if arg.lower() not in NAMESPACES:
                return fail(f"Invalid namespace '{arg}'\n", 255)
            namespace = arg.lower()
            if verb == "list":
                break
        elif key is None:
            key = arg
            if verb in ("get", "delete") and i + 1 < len(args):
                return fail("Too many arguments\n", 255)
        elif value is None and verb == "put":
            value = arg
        else:
            extra.append(arg)
        i += 1
    complete = {"get": key is not None, "delete": key is not None, "list": namespace is not None,
                "put": value is not None, "reset": key is not None}
    if verb is None or not complete[verb] or len(extra) > 2:
        return fail("Bad arguments\n", 255)
    if user is not None:
        if user not in ("current", "cur") and not user.lstrip("-").isdigit():
            return fail(f"\nException occurred while executing '{args[0]}':\njava.lang.NumberFormatException: "
                        f'For input string: "{user}"\n', 255)
        if verb in ("delete", "list"):
            return fail("--user not supported for delete and list.\n", 255)
        if user not in ("current", "cur", "0", "-2"):
            return fail(f"Invalid user: {user}\n", 255)
    phone = device.phone
    assert namespace is not None   # complete[verb]: every verb's arguments start with the namespace
    if verb == "get":
        assert key is not None
        stored = phone.get_setting(namespace, key)
        return ok(("null" if stored is None else stored) + "\n")
    if verb == "put":
        assert key is not None and value is not None
        phone.put_setting(namespace, key, value)
        return ok()
    if verb == "delete":
        assert key is not None
        with phone.lock:
            deleted = phone.settings.delete(namespace, key)
        return ok(f"Deleted {1 if deleted else 0} rows\n")
    if verb == "list":
        with phone.lock:
            items = phone.settings.items(namespace)
        return ok(lines(sorted(f"{k}={v}" for k, v in items)))
    if namespace == "system":
        return fail("Invalid table; no reset performed\n", 0)
    return ok()   # reset: the values the shell put stay (the phone keeps no record of who set what)


def _help() -> str:
    return lines([
        "Settings provider (settings) commands:",
        "  help",
        "      Print this help text.",
        "  get [--user <USER_ID> | current] NAMESPACE KEY",
        "      Retrieve the current value of KEY.",
        "  put [--user <USER_ID> | current] NAMESPACE KEY VALUE [TAG] [default]",
        "      Change the contents of KEY to VALUE.",
        "      TAG to associate with the setting.",
        "      {default} to set as the default, case-insensitive only for global/secure namespace",
        "  delete [--user <USER_ID> | current] NAMESPACE KEY",
        "      Delete the entry for KEY.",
        "  reset [--user <USER_ID> | current] NAMESPACE {PACKAGE_NAME | RESET_MODE}",
        "      Reset the global/secure table for a package with mode.",
        "      RESET_MODE is one of {untrusted_defaults, untrusted_clear, trusted_defaults}, case-insensitive",
        "  list [--user <USER_ID> | current] NAMESPACE",
        "      Print all defined keys.",
        "      NAMESPACE is one of {system, secure, global}, case-insensitive",
    ])
