"""Device messages of scrcpy 3.3.4: what the server sends back on the control socket.

Layouts of the server's `DeviceMessageWriter.java` and the client's `device_msg.c`: the
phone's clipboard, the acknowledgement of a set-clipboard, and a UHID output report.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from .protocol import (
    DEVICE_CLIPBOARD_TEXT_MAX_LENGTH,
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
    read_with,
)

DEVICE_TYPE_CLIPBOARD = 0
DEVICE_TYPE_ACK_CLIPBOARD = 1
DEVICE_TYPE_UHID_OUTPUT = 2


class DeviceMessage(TypedMessage):
    """Base of every device message (server → client); `TYPE` is its type byte."""


@dataclass(frozen=True)
class DeviceClipboard(DeviceMessage):
    """The phone's clipboard text (sent when it changes, or when asked by GetClipboard).

    At most DEVICE_CLIPBOARD_TEXT_MAX_LENGTH UTF-8 bytes; the real server cuts longer text
    on a character boundary first: `truncate_utf8(text, DEVICE_CLIPBOARD_TEXT_MAX_LENGTH)`.
    """

    TYPE: ClassVar[int] = DEVICE_TYPE_CLIPBOARD
    text: str

    def __post_init__(self):
        check_text("clipboard text", self.text, DEVICE_CLIPBOARD_TEXT_MAX_LENGTH)

    def _payload(self) -> bytes:
        data = self.text.encode("utf-8")
        return struct.pack(">I", len(data)) + data


@dataclass(frozen=True)
class AckClipboard(DeviceMessage):
    """The set-clipboard with this sequence number has been applied."""

    TYPE: ClassVar[int] = DEVICE_TYPE_ACK_CLIPBOARD
    sequence: int

    def __post_init__(self):
        check_int("sequence", self.sequence, *U64)

    def _payload(self) -> bytes:
        return struct.pack(">Q", self.sequence)


@dataclass(frozen=True)
class UhidOutput(DeviceMessage):
    """An output report for a virtual HID device (keyboard LEDs, gamepad rumble)."""

    TYPE: ClassVar[int] = DEVICE_TYPE_UHID_OUTPUT
    id: int
    data: bytes

    def __post_init__(self):
        check_int("id", self.id, *U16)
        check_blob("data", self.data)

    def _payload(self) -> bytes:
        return struct.pack(">HH", self.id, len(self.data)) + bytes(self.data)


def read_device_message(buffer: bytes | bytearray | memoryview,
                        offset: int = 0) -> tuple[DeviceMessage, int] | None:
    """The first device message in `buffer` from `offset` and the bytes it took, or None
    while it is not whole. Raises ProtocolError on an unknown type (the client cannot
    recover from one) or a clipboard longer than the server ever sends."""
    return read_with(_parse, buffer, offset)


class DeviceMessageReader(StreamReader):
    """Device messages out of a byte stream fed in any pieces (the client's side)."""

    _read_one = staticmethod(read_device_message)


def _parse(c: Cursor) -> DeviceMessage:
    kind = c.u8()
    if kind == DEVICE_TYPE_CLIPBOARD:
        data = c.sized(4, DEVICE_CLIPBOARD_TEXT_MAX_LENGTH, "clipboard text")
        message = object.__new__(DeviceClipboard)  # malformed UTF-8 may decode longer
        object.__setattr__(message, "text", decode_utf8(data))
        return message
    if kind == DEVICE_TYPE_ACK_CLIPBOARD:
        return AckClipboard(*c.unpack(">Q"))
    if kind == DEVICE_TYPE_UHID_OUTPUT:
        (uhid_id,) = c.unpack(">H")
        return UhidOutput(uhid_id, c.sized(2, 0xFFFF, "uhid output"))
    raise ProtocolError(f"Unknown device message type: {kind}")
