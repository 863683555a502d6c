"""Control messages of scrcpy 3.3.4: what the client sends the server on the control socket.

Each message is a frozen dataclass with `to_bytes()`; `read_control_message(buffer)` parses
the first message of a buffer (None until it is whole) and `ControlMessageReader` does the
same for a stream fed in pieces. Type numbers and layouts are those of the server's
`ControlMessage.java` / `ControlMessageReader.java` and the client's `control_msg.c`.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from .protocol import (
    CLIPBOARD_TEXT_MAX_LENGTH,
    I32,
    I64,
    INJECT_TEXT_MAX_LENGTH,
    U8,
    U16,
    U64,
    Cursor,
    ProtocolError,
    StreamReader,
    TypedMessage,
    check_blob,
    check_int,
    check_text,
    decode_utf8,
    float_to_i16_fixed_point,
    float_to_u16_fixed_point,
    i16_fixed_point_to_float,
    read_with,
    u16_fixed_point_to_float,
)

TYPE_INJECT_KEYCODE = 0
TYPE_INJECT_TEXT = 1
TYPE_INJECT_TOUCH_EVENT = 2
TYPE_INJECT_SCROLL_EVENT = 3
TYPE_BACK_OR_SCREEN_ON = 4
TYPE_EXPAND_NOTIFICATION_PANEL = 5
TYPE_EXPAND_SETTINGS_PANEL = 6
TYPE_COLLAPSE_PANELS = 7
TYPE_GET_CLIPBOARD = 8
TYPE_SET_CLIPBOARD = 9
TYPE_SET_DISPLAY_POWER = 10
TYPE_ROTATE_DEVICE = 11
TYPE_UHID_CREATE = 12
TYPE_UHID_INPUT = 13
TYPE_UHID_DESTROY = 14
TYPE_OPEN_HARD_KEYBOARD_SETTINGS = 15
TYPE_START_APP = 16
TYPE_RESET_VIDEO = 17

COPY_KEY_NONE = 0
COPY_KEY_COPY = 1
COPY_KEY_CUT = 2

SEQUENCE_INVALID = 0
"""A set-clipboard sequence of 0 asks for no acknowledgement."""

POINTER_ID_MOUSE = -1
POINTER_ID_GENERIC_FINGER = -2
POINTER_ID_VIRTUAL_FINGER = -3
"""Well-known pointer ids (the client's UINT64_C(-1)…, read by the server as a signed long)."""

SCROLL_MAX = 16.0
"""Scroll amounts travel as i16 fixed point over [-16, 16]."""

UHID_NAME_MAX_LENGTH = 255
START_APP_NAME_MAX_LENGTH = 255


class ControlMessage(TypedMessage):
    """Base of every control message (client → server); `TYPE` is its type byte."""


@dataclass(frozen=True)
class Position:
    """A point on the screen as the client sees it, with the size of the picture it was
    measured on (the server drops touches whose size does not match its video size)."""

    x: int
    y: int
    screen_width: int
    screen_height: int

    def __post_init__(self):
        check_int("x", self.x, *I32)
        check_int("y", self.y, *I32)
        check_int("screen_width", self.screen_width, *U16)
        check_int("screen_height", self.screen_height, *U16)

    def to_bytes(self) -> bytes:
        return struct.pack(">iiHH", self.x, self.y, self.screen_width, self.screen_height)


@dataclass(frozen=True)
class InjectKeycode(ControlMessage):
    """A key event: action (0 down, 1 up), Android key code, repeat count, meta state."""

    TYPE: ClassVar[int] = TYPE_INJECT_KEYCODE
    action: int
    keycode: int
    repeat: int = 0
    meta_state: int = 0

    def __post_init__(self):
        check_int("action", self.action, *U8)
        for name in ("keycode", "repeat", "meta_state"):
            check_int(name, getattr(self, name), *I32)

    def _payload(self) -> bytes:
        return struct.pack(">Biii", self.action, self.keycode, self.repeat, self.meta_state)


@dataclass(frozen=True)
class InjectText(ControlMessage):
    """Text typed as key events; at most INJECT_TEXT_MAX_LENGTH UTF-8 bytes (use
    `split_utf8` for longer text: nothing is cut silently)."""

    TYPE: ClassVar[int] = TYPE_INJECT_TEXT
    text: str

    def __post_init__(self):
        check_text("inject text", self.text, INJECT_TEXT_MAX_LENGTH)

    def _payload(self) -> bytes:
        data = self.text.encode("utf-8")
        return struct.pack(">I", len(data)) + data


@dataclass(frozen=True)
class InjectTouchEvent(ControlMessage):
    """A touch or mouse event: MotionEvent action, pointer id, position, pressure in [0, 1],
    action button and buttons (MotionEvent.BUTTON_* bits)."""

    TYPE: ClassVar[int] = TYPE_INJECT_TOUCH_EVENT
    action: int
    pointer_id: int
    position: Position
    pressure: float = 1.0
    action_button: int = 0
    buttons: int = 0

    def __post_init__(self):
        check_int("action", self.action, *U8)
        check_int("pointer_id", self.pointer_id, *I64)
        float_to_u16_fixed_point(self.pressure)  # refuses a pressure outside [0, 1]
        check_int("action_button", self.action_button, *I32)
        check_int("buttons", self.buttons, *I32)

    def _payload(self) -> bytes:
        return (struct.pack(">Bq", self.action, self.pointer_id) + self.position.to_bytes()
                + struct.pack(">Hii", float_to_u16_fixed_point(self.pressure),
                              self.action_button, self.buttons))


@dataclass(frozen=True)
class InjectScrollEvent(ControlMessage):
    """A scroll: position, horizontal and vertical amounts in [-16, 16], buttons."""

    TYPE: ClassVar[int] = TYPE_INJECT_SCROLL_EVENT
    position: Position
    hscroll: float
    vscroll: float
    buttons: int = 0

    def __post_init__(self):
        for name in ("hscroll", "vscroll"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not -SCROLL_MAX <= value <= SCROLL_MAX:
                raise ValueError(f"{name} must be between -16 and 16, not {value!r}")
        check_int("buttons", self.buttons, *I32)

    def _payload(self) -> bytes:
        # The C client divides by 16 in float before the fixed point: same bytes here.
        hscroll = float_to_i16_fixed_point(self.hscroll / SCROLL_MAX)
        vscroll = float_to_i16_fixed_point(self.vscroll / SCROLL_MAX)
        return self.position.to_bytes() + struct.pack(">hhi", hscroll, vscroll, self.buttons)


@dataclass(frozen=True)
class BackOrScreenOn(ControlMessage):
    """Back, or turn the screen on when it is off (only on action down, 0)."""

    TYPE: ClassVar[int] = TYPE_BACK_OR_SCREEN_ON
    action: int

    def __post_init__(self):
        check_int("action", self.action, *U8)

    def _payload(self) -> bytes:
        return bytes([self.action])


@dataclass(frozen=True)
class ExpandNotificationPanel(ControlMessage):
    TYPE: ClassVar[int] = TYPE_EXPAND_NOTIFICATION_PANEL


@dataclass(frozen=True)
class ExpandSettingsPanel(ControlMessage):
    TYPE: ClassVar[int] = TYPE_EXPAND_SETTINGS_PANEL


@dataclass(frozen=True)
class CollapsePanels(ControlMessage):
    TYPE: ClassVar[int] = TYPE_COLLAPSE_PANELS


@dataclass(frozen=True)
class GetClipboard(ControlMessage):
    """Ask for the phone's clipboard, after pressing copy (1) or cut (2) first, or not (0)."""

    TYPE: ClassVar[int] = TYPE_GET_CLIPBOARD
    copy_key: int = COPY_KEY_NONE

    def __post_init__(self):
        check_int("copy_key", self.copy_key, *U8)

    def _payload(self) -> bytes:
        return bytes([self.copy_key])


@dataclass(frozen=True)
class SetClipboard(ControlMessage):
    """Set the phone's clipboard, and paste it when `paste`; a non-zero `sequence` asks the
    server to acknowledge with the same number."""

    TYPE: ClassVar[int] = TYPE_SET_CLIPBOARD
    sequence: int
    text: str
    paste: bool = False

    def __post_init__(self):
        check_int("sequence", self.sequence, *U64)
        check_text("clipboard text", self.text, CLIPBOARD_TEXT_MAX_LENGTH)

    def _payload(self) -> bytes:
        data = self.text.encode("utf-8")
        return struct.pack(">QBI", self.sequence, 1 if self.paste else 0, len(data)) + data


@dataclass(frozen=True)
class SetDisplayPower(ControlMessage):
    """Turn the phone's display on or off while mirroring goes on."""

    TYPE: ClassVar[int] = TYPE_SET_DISPLAY_POWER
    on: bool

    def _payload(self) -> bytes:
        return bytes([1 if self.on else 0])


@dataclass(frozen=True)
class RotateDevice(ControlMessage):
    TYPE: ClassVar[int] = TYPE_ROTATE_DEVICE


@dataclass(frozen=True)
class UhidCreate(ControlMessage):
    """Create a virtual HID device (keyboard, mouse, gamepad) with its report descriptor."""

    TYPE: ClassVar[int] = TYPE_UHID_CREATE
    id: int
    vendor_id: int
    product_id: int
    name: str
    report_desc: bytes

    def __post_init__(self):
        for field_name in ("id", "vendor_id", "product_id"):
            check_int(field_name, getattr(self, field_name), *U16)
        check_text("uhid name", self.name, UHID_NAME_MAX_LENGTH)
        check_blob("report_desc", self.report_desc)

    def _payload(self) -> bytes:
        name = self.name.encode("utf-8")
        return (struct.pack(">HHHB", self.id, self.vendor_id, self.product_id, len(name)) + name
                + struct.pack(">H", len(self.report_desc)) + bytes(self.report_desc))


@dataclass(frozen=True)
class UhidInput(ControlMessage):
    """An input report for a virtual HID device."""

    TYPE: ClassVar[int] = TYPE_UHID_INPUT
    id: int
    data: bytes

    def __post_init__(self):
        check_int("id", self.id, *U16)
        check_blob("data", self.data)

    def _payload(self) -> bytes:
        return struct.pack(">HH", self.id, len(self.data)) + bytes(self.data)


@dataclass(frozen=True)
class UhidDestroy(ControlMessage):
    TYPE: ClassVar[int] = TYPE_UHID_DESTROY
    id: int

    def __post_init__(self):
        check_int("id", self.id, *U16)

    def _payload(self) -> bytes:
        return struct.pack(">H", self.id)


@dataclass(frozen=True)
class OpenHardKeyboardSettings(ControlMessage):
    TYPE: ClassVar[int] = TYPE_OPEN_HARD_KEYBOARD_SETTINGS


@dataclass(frozen=True)
class StartApp(ControlMessage):
    """Start an app by package name (scrcpy's `--start-app`; a leading '+' or '?' are
    the client's flags, kept in the name as sent)."""

    TYPE: ClassVar[int] = TYPE_START_APP
    name: str

    def __post_init__(self):
        check_text("app name", self.name, START_APP_NAME_MAX_LENGTH)

    def _payload(self) -> bytes:
        name = self.name.encode("utf-8")
        return bytes([len(name)]) + name


@dataclass(frozen=True)
class ResetVideo(ControlMessage):
    TYPE: ClassVar[int] = TYPE_RESET_VIDEO


def read_control_message(buffer: bytes | bytearray | memoryview,
                         offset: int = 0) -> tuple[ControlMessage, int] | None:
    """The first control message in `buffer` from `offset` and the number of bytes it took,
    or None while it is not whole. Raises ProtocolError on an unknown type or a length past
    the limit, as soon as the bytes that say so have arrived."""
    return read_with(_parse, buffer, offset)


class ControlMessageReader(StreamReader):
    """Control messages out of a byte stream fed in any pieces (the server's side)."""

    _read_one = staticmethod(read_control_message)


_EMPTY_TYPES: dict[int, type[ControlMessage]] = {
    cls.TYPE: cls for cls in (ExpandNotificationPanel, ExpandSettingsPanel, CollapsePanels,
                              RotateDevice, OpenHardKeyboardSettings, ResetVideo)
}


def _parse(c: Cursor) -> ControlMessage:
    kind = c.u8()
    if kind in _EMPTY_TYPES:
        return _EMPTY_TYPES[kind]()
    if kind == TYPE_INJECT_KEYCODE:
        action, keycode, repeat, meta_state = c.unpack(">Biii")
        return InjectKeycode(action, keycode, repeat, meta_state)
    if kind == TYPE_INJECT_TEXT:
        return _unchecked(InjectText,
                          text=decode_utf8(c.sized(4, INJECT_TEXT_MAX_LENGTH, "inject text")))
    if kind == TYPE_INJECT_TOUCH_EVENT:
        action, pointer_id = c.unpack(">Bq")
        position = Position(*c.unpack(">iiHH"))
        pressure, action_button, buttons = c.unpack(">Hii")
        return InjectTouchEvent(action, pointer_id, position, u16_fixed_point_to_float(pressure),
                                action_button, buttons)
    if kind == TYPE_INJECT_SCROLL_EVENT:
        position = Position(*c.unpack(">iiHH"))
        hscroll, vscroll, buttons = c.unpack(">hhi")
        return InjectScrollEvent(position, i16_fixed_point_to_float(hscroll) * SCROLL_MAX,
                                 i16_fixed_point_to_float(vscroll) * SCROLL_MAX, buttons)
    if kind == TYPE_BACK_OR_SCREEN_ON:
        return BackOrScreenOn(c.u8())
    if kind == TYPE_GET_CLIPBOARD:
        return GetClipboard(c.u8())
    if kind == TYPE_SET_CLIPBOARD:
        sequence, paste = c.unpack(">QB")
        text = decode_utf8(c.sized(4, CLIPBOARD_TEXT_MAX_LENGTH, "clipboard text"))
        return _unchecked(SetClipboard, sequence=sequence, text=text, paste=paste != 0)
    if kind == TYPE_SET_DISPLAY_POWER:
        return SetDisplayPower(c.u8() != 0)
    if kind == TYPE_UHID_CREATE:
        uhid_id, vendor_id, product_id = c.unpack(">HHH")
        name = decode_utf8(c.sized(1, UHID_NAME_MAX_LENGTH, "uhid name"))
        return _unchecked(UhidCreate, id=uhid_id, vendor_id=vendor_id, product_id=product_id,
                          name=name, report_desc=c.sized(2, 0xFFFF, "report descriptor"))
    if kind == TYPE_UHID_INPUT:
        (uhid_id,) = c.unpack(">H")
        return UhidInput(uhid_id, c.sized(2, 0xFFFF, "uhid input"))
    if kind == TYPE_UHID_DESTROY:
        return UhidDestroy(*c.unpack(">H"))
    if kind == TYPE_START_APP:
        return _unchecked(StartApp,
                          name=decode_utf8(c.sized(1, START_APP_NAME_MAX_LENGTH, "app name")))
    raise ProtocolError(f"Unknown event type: {kind}")


def _unchecked(cls: type[ControlMessage], **fields) -> ControlMessage:
    """A message from the wire, built without the writer's checks: its length was checked on
    the wire, but malformed UTF-8 decodes to U+FFFD (3 bytes each), so the text may now be
    longer than the limit. The server takes such text; so does this reader."""
    message = object.__new__(cls)
    for name, value in fields.items():
        object.__setattr__(message, name, value)
    return message
