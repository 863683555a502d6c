"""Starting scrcpy's server 3.3.4: the shell command the client runs, and its parser.

The client pushes the server to DEVICE_SERVER_PATH and runs, through `adb shell`:
    CLASSPATH=/data/local/tmp/scrcpy-server.jar app_process / com.genymobile.scrcpy.Server \
        3.3.4 scid=1a2b3c4d log_level=info … key=value
The first argument must be the server's own version; the rest are key=value pairs, parsed
as the server's `Options.java` does (defaults, Java's boolean and number rules, and its
error messages). The socket the server listens on is `socket_name(scid)`.
"""

from __future__ import annotations

import dataclasses
import re
import secrets
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .protocol import SERVER_VERSION
from .video import VIDEO_CODEC_IDS

DEVICE_SERVER_PATH = "/data/local/tmp/scrcpy-server.jar"
# The SHA-256 scrcpy publishes for scrcpy-server-v3.3.4 (doc/build.md, install_release.sh at v3.3.4):
# the client checks its file against it, the virtual phone runs only a file that matches it.
SERVER_SHA256 = "8588238c9a5a00aa542906b6ec7e6d5541d9ffb9b5d0f6e1bc0e365e2303079e"
SERVER_CLASS = "com.genymobile.scrcpy.Server"
SOCKET_NAME_PREFIX = "scrcpy"
NO_SCID = -1
"""scid -1: the socket is plain "scrcpy" (running the server by hand)."""

LOG_LEVELS = ("verbose", "debug", "info", "warn", "error")

# Every key Options.java knows; those not modelled below are kept as text in `other`.
_OTHER_KEYS = frozenset({
    "audio_codec", "video_source", "audio_source", "audio_dup", "audio_bit_rate", "angle", "crop",
    "video_codec_options", "audio_codec_options", "video_encoder", "audio_encoder",
    "list_encoders", "list_displays", "list_cameras", "list_camera_sizes", "list_apps",
    "camera_id", "camera_size", "camera_facing", "camera_ar", "camera_fps", "camera_high_speed",
    "new_display", "vd_destroy_content", "vd_system_decorations", "capture_orientation",
    "display_ime_policy",
})


class ServerArgumentError(ValueError):
    """The server refuses its command line; the message is the one the real server prints
    (after "[server] ERROR: ") before it exits with status 1."""


@dataclass(frozen=True)
class ServerOptions:
    """The server's options, with the server's own defaults (Options.java)."""

    scid: int = NO_SCID
    log_level: str = "debug"
    video: bool = True
    audio: bool = True
    control: bool = True
    video_codec: str = "h264"
    max_size: int = 0
    max_fps: float = 0.0
    video_bit_rate: int = 8_000_000
    tunnel_forward: bool = False
    display_id: int = 0
    show_touches: bool = False
    stay_awake: bool = False
    screen_off_timeout: int = -1
    power_off_on_close: bool = False
    clipboard_autosync: bool = True
    downsize_on_error: bool = True
    cleanup: bool = True
    power_on: bool = True
    send_device_meta: bool = True
    send_frame_meta: bool = True
    send_dummy_byte: bool = True
    send_codec_meta: bool = True
    other: dict[str, str] = field(default_factory=dict, hash=False)
    """Known keys this module does not model (crop, camera_*, …), as given."""
    unknown_keys: tuple[str, ...] = ()
    """Keys the server does not know: it warns "Unknown server option: KEY" and goes on."""

    def __post_init__(self):
        if not (self.scid == NO_SCID or 0 <= self.scid <= 0x7FFFFFFF):
            raise ValueError(f"scid must be a 31-bit number (or -1), not {self.scid}")
        if self.log_level not in LOG_LEVELS:
            raise ValueError(f"log_level must be one of {', '.join(LOG_LEVELS)}")
        if self.video_codec not in VIDEO_CODEC_IDS:
            raise ValueError(f"video_codec must be one of {', '.join(VIDEO_CODEC_IDS)}")
        if self.max_size < 0:
            raise ValueError(f"max_size may not be negative, not {self.max_size}")
        if self.max_fps < 0 or self.video_bit_rate < 0:
            raise ValueError("max_fps and video_bit_rate may not be negative")

    @classmethod
    def for_mirror(cls, **overrides) -> ServerOptions:
        """What our client asks for: a fresh scid, forward tunnel (the client connects to
        the phone's socket through ADB), video only, control on, log level info."""
        values: dict[str, Any] = {"scid": generate_scid(), "log_level": "info", "audio": False,
                  "tunnel_forward": True}
        values.update(overrides)
        return cls(**values)

    @property
    def socket_name(self) -> str:
        return socket_name(self.scid)


_DEFAULTS = ServerOptions()


def generate_scid() -> int:
    """A random 31-bit session id (31 bits: the server reads it as a signed int)."""
    return secrets.randbits(31)


def socket_name(scid: int) -> str:
    """The abstract socket the server listens on: "scrcpy_%08x", or "scrcpy" for no scid."""
    return SOCKET_NAME_PREFIX if scid == NO_SCID else f"{SOCKET_NAME_PREFIX}_{scid:08x}"


def server_arguments(options: ServerOptions) -> list[str]:
    """The version and key=value arguments: scid (unless none), log_level and video_bit_rate
    as scrcpy sends them, then every option that differs from the server's default."""
    args = [SERVER_VERSION]
    if options.scid != NO_SCID:
        args.append(f"scid={options.scid:08x}")
    args += [f"log_level={options.log_level}", f"video_bit_rate={options.video_bit_rate}"]
    for f in dataclasses.fields(ServerOptions):
        if f.name in ("scid", "log_level", "video_bit_rate", "other", "unknown_keys"):
            continue
        value = getattr(options, f.name)
        if value != getattr(_DEFAULTS, f.name):
            args.append(f"{f.name}={_format_value(value)}")
    for key, value in options.other.items():
        args.append(f"{key}={value}")
    for arg in args:
        if not _SAFE_ARGUMENT.fullmatch(arg):
            raise ValueError(f"server argument {arg!r} holds a character the shell would read")
    return args


def server_command(options: ServerOptions, *, server_path: str = DEVICE_SERVER_PATH) -> str:
    """The whole `adb shell` command line that starts the server."""
    return " ".join([f"CLASSPATH={server_path}", "app_process", "/", SERVER_CLASS,
                     *server_arguments(options)])


@dataclass(frozen=True)
class ServerCommand:
    """An `app_process` command line for the scrcpy server, parsed."""

    classpath: str
    options: ServerOptions


def is_server_command(command: str | Sequence[str]) -> bool:
    """Whether a shell command runs scrcpy's server (whatever its arguments)."""
    try:
        words = shlex.split(command) if isinstance(command, str) else list(command)
    except ValueError:
        return False
    return "app_process" in words and SERVER_CLASS in words


def parse_server_command(command: str | Sequence[str]) -> ServerCommand:
    """Read a command built like `server_command` (as a shell would split it). Raises
    ValueError when it does not run the scrcpy server, ServerArgumentError when the server
    refuses its arguments (a different version among them)."""
    words = shlex.split(command) if isinstance(command, str) else list(command)
    classpath = ""
    while words and "=" in words[0] and not words[0].startswith("-"):
        name, _, value = words.pop(0).partition("=")
        if name == "CLASSPATH":
            classpath = value
    if not words or words[0] != "app_process" or SERVER_CLASS not in words:
        raise ValueError(f"not a command that starts the scrcpy server ({SERVER_CLASS})")
    if not classpath:
        raise ValueError("the command sets no CLASSPATH for app_process")
    args = words[words.index(SERVER_CLASS) + 1:]
    return ServerCommand(classpath=classpath, options=parse_server_arguments(args))


def parse_server_arguments(args: Sequence[str]) -> ServerOptions:
    """What `Options.parse` makes of the arguments after the class name."""
    if not args:
        raise ServerArgumentError("Missing client version")
    if args[0] != SERVER_VERSION:
        raise ServerArgumentError(f"The server version ({SERVER_VERSION}) does not match the "
                                  f"client ({args[0]})")
    values: dict = {}
    other: dict[str, str] = {}
    unknown: list[str] = []
    for arg in args[1:]:
        key, equal, value = arg.partition("=")
        if not equal:
            raise ServerArgumentError(f'Invalid key=value pair: "{arg}"')
        if key == "scid":
            scid = _java_int(value, 16)
            if scid < -1:
                raise ServerArgumentError(f"scid may not be negative (except -1 for 'none'): {scid}")
            values["scid"] = scid
        elif key == "log_level":
            if value.lower() not in LOG_LEVELS:
                raise ServerArgumentError(
                    f"No enum constant com.genymobile.scrcpy.util.Ln.Level.{value.upper()}")
            values["log_level"] = value.lower()
        elif key == "video_codec":
            if value not in VIDEO_CODEC_IDS:
                raise ServerArgumentError(f"Video codec {value} not supported")
            values["video_codec"] = value
        elif key == "max_size":
            values["max_size"] = _java_int(value) & ~7  # a multiple of 8, as the server does
        elif key == "max_fps":
            values["max_fps"] = _java_float(key, value)
        elif key in ("video_bit_rate", "display_id"):
            values[key] = _java_int(value)
        elif key == "screen_off_timeout":
            values[key] = _java_int(value)
            if values[key] < -1:
                raise ServerArgumentError(f"Invalid screen off timeout: {values[key]}")
        elif key == "raw_stream":
            if _java_bool(value):
                values.update(send_device_meta=False, send_frame_meta=False,
                              send_dummy_byte=False, send_codec_meta=False)
        elif key in _BOOLEAN_KEYS:
            values[key] = _java_bool(value)
        elif key in _OTHER_KEYS:
            other[key] = value
            if key == "audio_encoder":
                # Options.java 3.3.4 has no `break` here: it falls into power_off_on_close.
                values["power_off_on_close"] = _java_bool(value)
        else:
            unknown.append(key)
    try:
        return ServerOptions(**values, other=other, unknown_keys=tuple(unknown))
    except ValueError as error:  # a value Java accepts but this module does not model
        raise ServerArgumentError(str(error)) from None


_BOOLEAN_KEYS = frozenset(f.name for f in dataclasses.fields(ServerOptions) if f.type == "bool")
_SAFE_ARGUMENT = re.compile(r"[A-Za-z0-9_.,:=@/+%-]+")  # no shell metacharacters (server.c)


def _java_bool(value: str) -> bool:
    """Boolean.parseBoolean: "true" in any case is true, anything else false."""
    return value.lower() == "true"


def _java_int(value: str, radix: int = 10) -> int:
    """Integer.parseInt: an optional sign and digits of the radix, within 32 bits."""
    digits = "[0-9a-fA-F]" if radix == 16 else "[0-9]"
    if re.fullmatch(f"[+-]?{digits}+", value):
        number = int(value, radix)
        if -(1 << 31) <= number < (1 << 31):
            return number
    suffix = f" under radix {radix}" if radix != 10 else ""
    raise ServerArgumentError(f'For input string: "{value}"{suffix}')


def _java_float(key: str, value: str) -> float:
    """Float.parseFloat, with Options.java's message for a value it refuses."""
    if re.fullmatch(r"\s*[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?)\s*", value):
        return float(value.strip().rstrip("fFdD"))
    raise ServerArgumentError(f'Invalid float value for {key}: "{value}"')


def _format_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)
