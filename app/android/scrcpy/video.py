"""The video socket of scrcpy 3.3.4: what comes before the stream, and the packet framing.

On the first socket (the video one when video is on) the server writes, in order:
  1. one dummy byte 0, in forward-tunnel mode with send_dummy_byte (so the client's first
     read fails at once if the connection did not work);
  2. the device name, DEVICE_NAME_FIELD_LENGTH bytes, UTF-8, NUL-padded (send_device_meta);
  3. the codec meta (send_codec_meta): codec id (4 ASCII bytes as a u32, "h264"), width,
     height, all u32 — or just a codec id 0 (stream disabled) or 1 (configuration error);
  4. packets, each after a 12-byte header (send_frame_meta): u64 pts whose bit 63 marks a
     config packet (SPS/PPS, no pts) and bit 62 a key frame, then the u32 packet size.
Layouts of the server's `DesktopConnection.java` / `Streamer.java` and the client's `demuxer.c`.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from .protocol import U32, ProtocolError, StreamDisabled, check_int, decode_utf8, truncate_utf8

DUMMY_BYTE = b"\x00"
DEVICE_NAME_FIELD_LENGTH = 64

CODEC_ID_STREAM_DISABLED = 0
CODEC_ID_CONFIGURATION_ERROR = 1
CODEC_ID_H264 = 0x68323634  # "h264"
CODEC_ID_H265 = 0x68323635  # "h265"
CODEC_ID_AV1 = 0x00617631  # "\0av1"
VIDEO_CODEC_IDS: dict[str, int] = {"h264": CODEC_ID_H264, "h265": CODEC_ID_H265, "av1": CODEC_ID_AV1}
"""The video codecs by the name the server's `video_codec=` option takes."""

CODEC_META_SIZE = 12
PACKET_HEADER_SIZE = 12
PACKET_FLAG_CONFIG = 1 << 63
PACKET_FLAG_KEY_FRAME = 1 << 62
PACKET_PTS_MASK = PACKET_FLAG_KEY_FRAME - 1

DEFAULT_MAX_PACKET_SIZE = 32 * 1024 * 1024
"""A packet larger than this is taken for a stream out of step (a 4K key frame is a few MB)."""


def encode_device_name(name: str) -> bytes:
    """The device-name field: at most 63 UTF-8 bytes cut on a character, NUL-padded to 64."""
    return truncate_utf8(name, DEVICE_NAME_FIELD_LENGTH - 1).ljust(DEVICE_NAME_FIELD_LENGTH, b"\0")


def decode_device_name(field: bytes | bytearray) -> str:
    """The name in a device-name field: the bytes before the first NUL (the client forces
    the last byte to NUL, so at most 63)."""
    if len(field) != DEVICE_NAME_FIELD_LENGTH:
        raise ProtocolError(f"a device name field is {DEVICE_NAME_FIELD_LENGTH} bytes, not {len(field)}")
    return decode_utf8(bytes(field[: DEVICE_NAME_FIELD_LENGTH - 1]).split(b"\0", 1)[0])


def codec_name(codec_id: int) -> str | None:
    """"h264" for CODEC_ID_H264…; None for an id that is no video codec of scrcpy."""
    return next((name for name, value in VIDEO_CODEC_IDS.items() if value == codec_id), None)


def encode_stream_disabled(configuration_error: bool) -> bytes:
    """What the server writes instead of the codec meta when it has no stream to send."""
    code = CODEC_ID_CONFIGURATION_ERROR if configuration_error else CODEC_ID_STREAM_DISABLED
    return struct.pack(">I", code)


@dataclass(frozen=True)
class DeviceMeta:
    """The device name, first thing on the first socket (send_device_meta)."""

    name: str

    def to_bytes(self) -> bytes:
        return encode_device_name(self.name)


@dataclass(frozen=True)
class VideoCodecMeta:
    """The codec and the size of the video the packets will decode to."""

    codec_id: int
    width: int
    height: int

    def __post_init__(self):
        if codec_name(self.codec_id) is None:
            raise ValueError(f"codec id 0x{self.codec_id:08x} is not a scrcpy video codec")
        check_int("width", self.width, *U32)
        check_int("height", self.height, *U32)

    @property
    def codec(self) -> str:
        name = codec_name(self.codec_id)
        assert name is not None, "__post_init__ refuses an unknown codec id"
        return name

    def to_bytes(self) -> bytes:
        return struct.pack(">III", self.codec_id, self.width, self.height)


@dataclass(frozen=True)
class VideoPacket:
    """One encoded packet. A config packet (codec parameters, e.g. H.264 SPS/PPS) has no
    pts and must be decoded with the packet after it; a media packet has a pts in
    microseconds and may be a key frame."""

    data: bytes
    pts: int | None
    config: bool = False
    key_frame: bool = False

    def __post_init__(self):
        if not self.data:
            raise ValueError("a video packet must hold at least one byte")
        if self.config:
            if self.pts is not None or self.key_frame:
                raise ValueError("a config packet has no pts and is no key frame")
        elif self.pts is None:
            raise ValueError("a media packet needs a pts")
        else:
            check_int("pts", self.pts, 0, PACKET_PTS_MASK)

    def header(self) -> bytes:
        return encode_packet_header(len(self.data), self.pts, config=self.config,
                                    key_frame=self.key_frame)

    def to_bytes(self) -> bytes:
        return self.header() + bytes(self.data)


@dataclass(frozen=True)
class PacketHeader:
    """A decoded 12-byte packet header: pts (None for a config packet), flags, size."""

    pts: int | None
    config: bool
    key_frame: bool
    size: int


def encode_packet_header(size: int, pts: int | None, *, config: bool = False,
                         key_frame: bool = False) -> bytes:
    """The 12-byte header the server writes before a packet of `size` bytes. A config
    packet carries only the config flag (the server drops its pts and key flag)."""
    check_int("size", size, 1, U32[1])
    if config:
        pts_and_flags = PACKET_FLAG_CONFIG
    else:
        if pts is None:
            raise ValueError("a media packet needs a pts")
        check_int("pts", pts, 0, PACKET_PTS_MASK)
        pts_and_flags = pts | (PACKET_FLAG_KEY_FRAME if key_frame else 0)
    return struct.pack(">QI", pts_and_flags, size)


def decode_packet_header(header: bytes) -> PacketHeader:
    """Read a 12-byte packet header as the client does; a size of 0 is refused."""
    if len(header) != PACKET_HEADER_SIZE:
        raise ProtocolError(f"a packet header is {PACKET_HEADER_SIZE} bytes, not {len(header)}")
    pts_and_flags, size = struct.unpack(">QI", header)
    if size == 0:
        raise ProtocolError("a video packet header announces an empty packet")
    config = bool(pts_and_flags & PACKET_FLAG_CONFIG)
    return PacketHeader(
        pts=None if config else pts_and_flags & PACKET_PTS_MASK,
        config=config,
        key_frame=bool(pts_and_flags & PACKET_FLAG_KEY_FRAME) and not config,
        size=size,
    )


def encode_stream_prologue(*, device_name: str | None, codec_meta: VideoCodecMeta | None,
                           dummy_byte: bool) -> bytes:
    """Everything the server writes on the video socket before the first packet (the
    parts left out by the options are None / False)."""
    return ((DUMMY_BYTE if dummy_byte else b"")
            + (encode_device_name(device_name) if device_name is not None else b"")
            + (codec_meta.to_bytes() if codec_meta is not None else b""))


class VideoStreamReader:
    """The video socket, fed in any pieces: `feed(data)` returns, in order, the DeviceMeta
    (if `device_meta`), the VideoCodecMeta (if `codec_meta`), then every whole VideoPacket.

    Raises StreamDisabled when the server sends codec id 0 or 1, ProtocolError on an
    unknown codec, an empty packet or one over `max_packet_size`; after an error it
    refuses more input. Packets need the frame meta (send_frame_meta, the default).
    """

    def __init__(self, *, dummy_byte: bool = True, device_meta: bool = True,
                 codec_meta: bool = True, max_packet_size: int = DEFAULT_MAX_PACKET_SIZE):
        self._steps = [step for step, wanted in (("dummy", dummy_byte), ("device", device_meta),
                                                 ("codec", codec_meta)) if wanted]
        self._max_packet_size = max_packet_size
        self._buffer = bytearray()
        self._header: PacketHeader | None = None
        self._failed: ProtocolError | None = None
        self.device_name: str | None = None
        self.codec_meta: VideoCodecMeta | None = None

    def feed(self, data: bytes) -> list[DeviceMeta | VideoCodecMeta | VideoPacket]:
        if self._failed is not None:
            raise ProtocolError(f"the video stream already failed: {self._failed}")
        self._buffer += data
        events: list[DeviceMeta | VideoCodecMeta | VideoPacket] = []
        start = 0
        try:
            while (found := self._next(start)) is not None:
                event, start = found
                if event is not None:
                    events.append(event)
        except ProtocolError as error:
            self._failed = error
            raise
        finally:
            del self._buffer[:start]
        return events

    @property
    def pending(self) -> int:
        """Bytes received that are not part of a returned event yet."""
        return len(self._buffer)

    def _next(self, start: int):
        """(event or None, new start) for the next whole item at `start`, or None."""
        available = len(self._buffer) - start
        if self._steps:
            step = self._steps[0]
            if step == "dummy":
                if available < 1:
                    return None
                self._steps.pop(0)
                return None, start + 1
            if step == "device":
                if available < DEVICE_NAME_FIELD_LENGTH:
                    return None
                self._steps.pop(0)
                end = start + DEVICE_NAME_FIELD_LENGTH
                self.device_name = decode_device_name(self._buffer[start:end])
                return DeviceMeta(self.device_name), end
            return self._codec_meta(start, available)
        if self._header is None:
            if available < PACKET_HEADER_SIZE:
                return None
            header = decode_packet_header(bytes(self._buffer[start:start + PACKET_HEADER_SIZE]))
            if header.size > self._max_packet_size:
                raise ProtocolError(f"a video packet of {header.size} bytes is larger than the "
                                    f"{self._max_packet_size} accepted; the stream is out of step")
            self._header = header
            return None, start + PACKET_HEADER_SIZE
        header = self._header
        if available < header.size:
            return None
        self._header = None
        end = start + header.size
        return VideoPacket(bytes(self._buffer[start:end]), header.pts, header.config,
                           header.key_frame), end

    def _codec_meta(self, start: int, available: int):
        if available < 4:
            return None
        (codec_id,) = struct.unpack_from(">I", self._buffer, start)
        if codec_id in (CODEC_ID_STREAM_DISABLED, CODEC_ID_CONFIGURATION_ERROR):
            raise StreamDisabled(configuration_error=codec_id == CODEC_ID_CONFIGURATION_ERROR)
        if codec_name(codec_id) is None:
            raise ProtocolError(f"Unknown codec id 0x{codec_id:08x} on the video socket")
        if available < CODEC_META_SIZE:
            return None
        self._steps.pop(0)
        self.codec_meta = VideoCodecMeta(*struct.unpack_from(">III", self._buffer, start))
        return self.codec_meta, start + CODEC_META_SIZE
