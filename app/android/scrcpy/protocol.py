"""What every part of scrcpy 3.3.4's wire format shares: the error, the size limits, the
fixed-point numbers and the UTF-8 truncation.

Everything is big-endian, as Java's DataInputStream/DataOutputStream on the server and
`sc_write*be` on the client. Pure functions over bytes: no sockets, no threads.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from typing import ClassVar

SERVER_VERSION = "3.3.4"
"""The one server version this module speaks (the wire format changed in 4.x)."""

MESSAGE_MAX_SIZE = 1 << 18
"""Largest control or device message either side buffers (256 KiB)."""

INJECT_TEXT_MAX_LENGTH = 300
"""Largest text (UTF-8 bytes) in one inject-text message."""

CLIPBOARD_TEXT_MAX_LENGTH = MESSAGE_MAX_SIZE - 14
"""Largest text in a set-clipboard message: type 1 + sequence 8 + paste 1 + length 4."""

DEVICE_CLIPBOARD_TEXT_MAX_LENGTH = MESSAGE_MAX_SIZE - 5
"""Largest text in a device clipboard message: type 1 + length 4."""


class ProtocolError(ValueError):
    """Bytes that are not scrcpy 3.3.4's wire format (unknown type, a length past the limit).

    The connection they came on cannot be trusted any further: close it.
    """


class StreamDisabled(ProtocolError):
    """The server sent a codec id of 0 or 1 instead of a stream: no video will come.

    `configuration_error` is True for code 1 (the server could not configure the stream, the
    client must stop), False for code 0 (the stream was explicitly disabled).
    """

    def __init__(self, configuration_error: bool):
        self.configuration_error = configuration_error
        if configuration_error:
            super().__init__("The scrcpy server could not configure the video stream (codec id 1).")
        else:
            super().__init__("The scrcpy server disabled the video stream (codec id 0).")


def float_to_u16_fixed_point(value: float) -> int:
    """A float in [0, 1] as scrcpy's unsigned 16-bit fixed point (pressure): 1.0 is 0xffff.

    Computed on the value rounded to a 32-bit float and truncated, as the C client does,
    so the bytes are the ones scrcpy itself would send.
    """
    f = _as_float32(value, "pressure")
    if not 0.0 <= f <= 1.0:
        raise ValueError(f"pressure must be between 0 and 1, not {value!r}")
    return min(int(f * 0x10000), 0xFFFF)


def u16_fixed_point_to_float(raw: int) -> float:
    """The server's reading of an unsigned 16-bit fixed point: 0xffff is exactly 1.0."""
    return 1.0 if raw == 0xFFFF else raw / 0x10000


def float_to_i16_fixed_point(value: float) -> int:
    """A float in [-1, 1] as scrcpy's signed 16-bit fixed point: 1.0 is 0x7fff, -1.0 is -0x8000."""
    f = _as_float32(value, "value")
    if not -1.0 <= f <= 1.0:
        raise ValueError(f"value must be between -1 and 1, not {value!r}")
    return min(int(f * 0x8000), 0x7FFF)


def i16_fixed_point_to_float(raw: int) -> float:
    """The server's reading of a signed 16-bit fixed point: 0x7fff is exactly 1.0."""
    return 1.0 if raw == 0x7FFF else raw / 0x8000


def utf8_truncation_index(data: bytes, max_length: int) -> int:
    """How many bytes of UTF-8 `data` fit in `max_length` without cutting a character.

    The same rule as scrcpy's `getUtf8TruncationIndex` / `sc_str_utf8_truncation_index`: back
    off over continuation bytes (10xxxxxx) so the cut falls on a character start.
    """
    if len(data) <= max_length:
        return len(data)
    index = max_length
    while index > 0 and (data[index] & 0xC0) == 0x80:
        index -= 1
    return index


def truncate_utf8(text: str, max_length: int) -> bytes:
    """`text` as UTF-8, cut to at most `max_length` bytes on a character boundary (what the
    real server does to a device name or a clipboard too long for its field)."""
    data = text.encode("utf-8")
    return data[: utf8_truncation_index(data, max_length)]


def split_utf8(text: str, max_length: int) -> list[str]:
    """`text` cut into pieces of at most `max_length` UTF-8 bytes, never inside a character,
    so a long text can go as several inject-text messages and lose nothing."""
    if max_length < 4:
        raise ValueError("max_length must hold at least one character (4 bytes)")
    pieces: list[str] = []
    data = text.encode("utf-8")
    while data:
        cut = utf8_truncation_index(data, max_length)
        pieces.append(data[:cut].decode("utf-8"))
        data = data[cut:]
    return pieces


def decode_utf8(data: bytes) -> str:
    """Bytes from the wire as text, malformed sequences replaced (as Java's `new String(…,
    UTF_8)` does) rather than refused: the server accepts them, so must we."""
    return bytes(data).decode("utf-8", errors="replace")


def check_int(name: str, value: int, low: int, high: int) -> None:
    """Refuse a field value that does not fit its wire type, naming the field."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an integer, not {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be between {low} and {high}, not {value}")


def check_text(what: str, text: str, limit: int) -> None:
    """Refuse text whose UTF-8 form is longer than its field holds (nothing is cut silently)."""
    if not isinstance(text, str):
        raise ValueError(f"{what} must be a string, not {type(text).__name__}")
    size = len(text.encode("utf-8"))
    if size > limit:
        raise ValueError(f"{what} is {size} UTF-8 bytes, more than the {limit} one message holds")


def check_blob(what: str, data: bytes, limit: int = 0xFFFF) -> None:
    """Refuse bytes longer than their 16-bit length field holds."""
    if not isinstance(data, (bytes, bytearray)):
        raise ValueError(f"{what} must be bytes, not {type(data).__name__}")
    if len(data) > limit:
        raise ValueError(f"{what} is {len(data)} bytes, more than the {limit} one message holds")


class TypedMessage:
    """A message that starts with its type byte: `to_bytes()` is the type, then the payload
    (control messages one way, device messages the other)."""

    TYPE: ClassVar[int]

    def to_bytes(self) -> bytes:
        return bytes([self.TYPE]) + self._payload()

    def _payload(self) -> bytes:
        return b""


class Incomplete(Exception):
    """The buffer ends before the message does (internal to the readers)."""


class Cursor:
    """Reads big-endian fields off a buffer, raising Incomplete when it runs out."""

    def __init__(self, view: memoryview):
        self.view = view
        self.position = 0

    def take(self, size: int) -> bytes:
        end = self.position + size
        if end > len(self.view):
            raise Incomplete
        data = bytes(self.view[self.position:end])
        self.position = end
        return data

    def u8(self) -> int:
        return self.take(1)[0]

    def unpack(self, fmt: str) -> tuple:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))

    def sized(self, length_bytes: int, limit: int, what: str) -> bytes:
        """A length-prefixed field, refused as soon as its length passes `limit`."""
        length = int.from_bytes(self.take(length_bytes), "big")
        if length > limit:
            raise ProtocolError(f"{what} of {length} bytes is longer than the {limit} allowed")
        return self.take(length)


def read_with(parse: Callable[[Cursor], object], buffer, offset: int):
    """Run `parse` on `buffer[offset:]`: (result, bytes used), or None while incomplete."""
    whole = memoryview(buffer)
    cursor = Cursor(whole[offset:])
    try:
        result = parse(cursor)
    except Incomplete:
        return None
    finally:  # let a bytearray behind the views be resized again, even after an error
        cursor.view.release()
        whole.release()
    return result, cursor.position


class StreamReader:
    """Messages out of a byte stream fed in any pieces; subclasses name `_read_one`
    (buffer, offset) -> (message, used) | None.

    After a ProtocolError the reader refuses further input: the stream is out of step.
    """

    _read_one: Callable

    def __init__(self):
        self._buffer = bytearray()
        self._failed: ProtocolError | None = None

    def feed(self, data: bytes) -> list:
        """Add bytes; return every message now whole, in order."""
        if self._failed is not None:
            raise ProtocolError(f"the stream already failed: {self._failed}")
        self._buffer += data
        messages = []
        start = 0
        try:
            while (found := self._read_one(self._buffer, start)) is not None:
                message, used = found
                messages.append(message)
                start += used
        except ProtocolError as error:
            self._failed = error
            raise
        finally:
            del self._buffer[:start]
        return messages

    @property
    def pending(self) -> int:
        """Bytes received that do not make a whole message yet."""
        return len(self._buffer)


def _as_float32(value: float, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise ValueError(f"{name} must be a number, not {value!r}")
    try:
        return struct.unpack(">f", struct.pack(">f", value))[0]
    except OverflowError:  # beyond float32: out of every range checked here
        return math.copysign(math.inf, value)


U8 = (0, 0xFF)
U16 = (0, 0xFFFF)
I32 = (-(1 << 31), (1 << 31) - 1)
U32 = (0, (1 << 32) - 1)
I64 = (-(1 << 63), (1 << 63) - 1)
U64 = (0, (1 << 64) - 1)
