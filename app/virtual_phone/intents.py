"""Intents as `am`, `monkey` and `cmd package resolve-activity` build and resolve them.

`parse_intent` reads Intent.parseCommandArgs' options (-a -d -t -c -n -p -f -e/--es/--ei/...);
`Intent.__str__` prints as Intent.toString() does ("Intent { act=... cmp=... }", with a data
URI shortened the way Uri.toSafeString() shortens it); `resolve` finds the activities an
intent matches among the phone's packages, as the package manager's intent resolver does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from .system_programs.common import Args, ShellCommandError, java_float, java_int

if TYPE_CHECKING:
    from .packages import PackageManager, PackageRecord

ACTION_MAIN, ACTION_VIEW = "android.intent.action.MAIN", "android.intent.action.VIEW"
CATEGORY_DEFAULT = "android.intent.category.DEFAULT"
FLAG_ACTIVITY_NEW_TASK = 0x10000000
RESOLVER_ACTIVITY = ("android", "com.android.internal.app.ResolverActivity")

# Options that take a key and a value, and what the value must parse as.
_EXTRAS = {"-e": str, "--es": str, "--esn": None, "--ei": int, "--el": int, "--ef": float, "--ed": float,
           "--eu": str, "--ecn": str, "--ez": bool, "--eia": "ints", "--eial": "ints", "--ela": "ints",
           "--elal": "ints", "--efa": "floats", "--efal": "floats", "--esa": str, "--esal": str}
_FLAG_OPTIONS = {"--grant-read-uri-permission": 0x1, "--grant-write-uri-permission": 0x2,
                 "--grant-persistable-uri-permission": 0x40, "--grant-prefix-uri-permission": 0x80,
                 "--exclude-stopped-packages": 0x10, "--include-stopped-packages": 0x20,
                 "--debug-log-resolution": 0x8, "--activity-brought-to-front": 0x400000,
                 "--activity-clear-top": 0x4000000, "--activity-clear-when-task-reset": 0x80000,
                 "--activity-exclude-from-recents": 0x800000, "--activity-launched-from-history": 0x100000,
                 "--activity-multiple-task": 0x8000000, "--activity-no-animation": 0x10000,
                 "--activity-no-history": 0x40000000, "--activity-no-user-action": 0x40000,
                 "--activity-previous-is-top": 0x1000000, "--activity-reorder-to-front": 0x20000,
                 "--activity-reset-task-if-needed": 0x200000, "--activity-single-top": 0x20000000,
                 "--activity-clear-task": 0x8000, "--activity-task-on-home": 0x4000,
                 "--activity-match-external": 0x800, "--receiver-registered-only": 0x40000000,
                 "--receiver-replace-pending": 0x20000000, "--receiver-foreground": 0x10000000,
                 "--receiver-no-abort": 0x8000000, "--receiver-include-background": 0x1000000}


@dataclass
class Intent:
    action: str | None = None
    categories: list[str] = field(default_factory=list)
    data: str | None = None
    mime_type: str | None = None
    package: str | None = None
    component: tuple[str, str] | None = None     # (package, fully qualified class)
    flags: int = 0
    extras: dict[str, object] = field(default_factory=dict)

    @property
    def has_info(self) -> bool:
        return bool(self.action or self.categories or self.data or self.mime_type or self.package
                    or self.component or self.flags or self.extras)

    def short_component(self) -> str | None:
        if self.component is None:
            return None
        return short_component(*self.component)

    def describe(self) -> str:
        """The inside of Intent.toString()'s braces (also what the log prints after START u0)."""
        parts = []
        if self.action:
            parts.append(f"act={self.action}")
        if self.categories:
            parts.append(f"cat=[{','.join(self.categories)}]")
        if self.data is not None:
            parts.append(f"dat={safe_uri(self.data)}")
        if self.mime_type:
            parts.append(f"typ={self.mime_type}")
        if self.flags:
            parts.append(f"flg=0x{self.flags:x}")
        if self.package:
            parts.append(f"pkg={self.package}")
        if self.component:
            parts.append(f"cmp={self.short_component()}")
        if self.extras:
            parts.append("(has extras)")
        return " ".join(parts)

    def __str__(self) -> str:
        return f"Intent {{ {self.describe()} }}"


def short_component(package: str, cls: str) -> str:
    """ComponentName.flattenToShortString(): the class relative to the package when it is inside it."""
    return f"{package}/{cls[len(package):]}" if cls.startswith(package + ".") else f"{package}/{cls}"


def unflatten_component(text: str) -> tuple[str, str] | None:
    """ComponentName.unflattenFromString: "pkg/.Cls" or "pkg/full.Cls"; None without a '/'."""
    package, sep, cls = text.partition("/")
    if not sep or not package or not cls:
        return None
    return package, package + cls if cls.startswith(".") else cls


def safe_uri(uri: str) -> str:
    """Uri.toSafeString(): phone numbers and addresses masked, web URLs cut to scheme://host/..."""
    scheme, sep, rest = uri.partition(":")
    if not sep:
        return uri
    lower = scheme.lower()
    if lower in ("tel", "sip", "sms", "smsto", "mailto", "nfc"):
        return scheme + ":" + "".join(c if c in "-@." else "x" for c in rest)
    if lower in ("http", "https", "ftp", "rtsp"):
        parts = urlsplit(uri)
        port = f":{parts.port}" if _port(parts) else ""
        return f"{scheme}://{parts.hostname or ''}{port}/..."
    return uri.split("?")[0].split("#")[0]


def _port(parts) -> int | None:
    try:
        return parts.port
    except ValueError:
        return None


def parse_intent(args: Args, own_options: dict[str, int] | None = None) -> tuple[Intent, dict[str, str | None]]:
    """Intent.parseCommandArgs: returns the intent and the command's own options it met
    (`own_options` maps each to its argument count, 0 or 1). Raises ShellCommandError as the phone would."""
    own_options = own_options or {}
    intent = Intent()
    options: dict[str, str | None] = {}
    while (opt := args.option()) is not None:
        if opt == "-a":
            intent.action = args.required()
        elif opt == "-d":
            intent.data = args.required()
        elif opt == "-t":
            intent.mime_type = args.required()
        elif opt == "-c":
            category = args.required()
            if category not in intent.categories:
                intent.categories.append(category)
        elif opt == "-n":
            text = args.required()
            component = unflatten_component(text)
            if component is None:
                raise ShellCommandError(f"Bad component name: {text}")
            intent.component = component
        elif opt == "-p":
            intent.package = args.required()
        elif opt == "-f":
            intent.flags = _decode_int(args.required())
        elif opt == "-i":
            args.required()
        elif opt in _EXTRAS:
            _extra(intent, opt, args)
        elif opt in _FLAG_OPTIONS:
            intent.flags |= _FLAG_OPTIONS[opt]
        elif opt == "--selector":
            pass
        elif opt in own_options:
            options[opt] = args.required() if own_options[opt] else None
        else:
            raise ShellCommandError(f"Unknown option: {opt}")
    target = args.next()
    if target is not None:
        if "#Intent;" in target:
            _parse_intent_uri(intent, target)
        elif ":" in target:
            intent.data = target
            intent.action = intent.action or ACTION_VIEW
        elif "/" in target:
            intent.component = unflatten_component(target)
            if intent.component is None:
                raise ShellCommandError(f"Bad component name: {target}")
        else:
            intent.package = target
    elif not intent.has_info:
        raise ShellCommandError("No intent supplied")
    return intent, options


def _parse_intent_uri(intent: Intent, uri: str) -> None:
    """An intent: URI (Intent.toUri): "intent:DATA#Intent;action=...;component=...;S.key=value;end"."""
    data, _, body = uri.partition("#Intent;")
    if data.removeprefix("intent:"):
        intent.data = data.removeprefix("intent:")
    for item in body.split(";"):
        key, _, value = item.partition("=")
        if key == "action":
            intent.action = value
        elif key == "category":
            intent.categories.append(value)
        elif key == "component":
            intent.component = unflatten_component(value)
        elif key == "package":
            intent.package = value
        elif key == "launchFlags":
            intent.flags = _decode_int(value)
        elif key[1:2] == "." and key[:1] in "SBbcdfilsz":
            intent.extras[key[2:]] = value
        elif item and item != "end" and key not in ("scheme", "type", "sourceBounds"):
            raise ShellCommandError(f"unknown intent URI part: {item}", "java.net.URISyntaxException")


def _decode_int(text: str) -> int:
    """Integer.decode: decimal, 0x hex or 0 octal."""
    body = text.strip()
    try:
        if body.lower().startswith(("0x", "-0x")):
            return int(body, 16) & 0xFFFFFFFF
        return int(body, 8 if len(body) > 1 and body.startswith("0") else 10) & 0xFFFFFFFF
    except ValueError:
        raise ShellCommandError(f'For input string: "{text}"', "java.lang.NumberFormatException") from None


def _extra(intent: Intent, opt: str, args: Args) -> None:
    key = args.required()
    kind = _EXTRAS[opt]
    if kind is None:
        intent.extras[key] = None
        return
    value = args.required()
    if kind is int:
        intent.extras[key] = java_int(value)
    elif kind is float:
        intent.extras[key] = java_float(value)
    elif kind is bool:
        lowered = value.lower()
        if lowered in ("true", "t", "1"):
            intent.extras[key] = True
        elif lowered in ("false", "f", "0"):
            intent.extras[key] = False
        else:
            raise ShellCommandError(f'Invalid boolean value: "{value}"')
    elif kind == "ints":
        intent.extras[key] = [java_int(v) for v in value.split(",")]
    elif kind == "floats":
        intent.extras[key] = [java_float(v) for v in value.split(",")]
    else:
        intent.extras[key] = value


# ---------------------------------------------------------------------------- resolution


def matching_activities(intent: Intent, packages: PackageManager, default_only: bool) -> list[tuple[str, str]]:
    """(package, activity) of every activity whose intent filters match; `default_only` is
    MATCH_DEFAULT_ONLY (what startActivity uses: the filter must list CATEGORY_DEFAULT)."""
    scheme = intent.data.partition(":")[0].lower() if intent.data and ":" in intent.data else None
    found = []
    for record in packages.records():
        if intent.package and record.package != intent.package:
            continue
        for activity in record.activities:
            for f in activity.filters:
                if intent.action is not None and intent.action not in f.actions:
                    continue
                if intent.action is None and not f.actions:
                    continue
                wanted = set(intent.categories) | ({CATEGORY_DEFAULT} if default_only else set())
                if not wanted <= set(f.categories):
                    continue
                if (scheme not in f.schemes) if scheme else bool(f.schemes):
                    continue
                found.append((record.package, activity.name))
                break
    return found


def resolve_component(intent: Intent, packages: PackageManager) -> tuple[PackageRecord, str] | None:
    """The record and activity an explicit intent names, if that activity exists."""
    assert intent.component is not None
    package, cls = intent.component
    record = packages.get(package)
    if record is None or all(a.name != cls for a in record.activities):
        return None
    return record, cls
