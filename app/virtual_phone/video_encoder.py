"""The virtual phone's screen as a video stream, encoded the way scrcpy's server streams a real screen.

A real phone's scrcpy server feeds the display to MediaCodec and sends what comes out: a codec
configuration packet first (H.264: the SPS and PPS), then one packet per new frame — and nothing
while the screen is still. `ScreenEncoder` does the same with PyAV's encoders: H.264 through
libx264 (ultrafast, zerolatency) or AV1 through SVT-AV1 in its low-delay real-time mode, one
packet out for every picture in, at once (no frame is held back for look-ahead).

The video size follows scrcpy's server: the display scaled so its longer side is at most
`max_size` (0: no limit), both sides rounded down to a multiple of 8.
"""

from __future__ import annotations

import fractions
import os
import sys
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PIL import Image

if TYPE_CHECKING:
    from av import VideoCodecContext, VideoFrame

ENCODERS: dict[str, tuple[str, dict[str, str]]] = {
    # scrcpy's codec name → PyAV encoder and the options that make it emit each frame at once
    "h264": ("libx264", {"preset": "ultrafast", "tune": "zerolatency"}),
    "av1": ("libsvtav1", {"preset": "10", "svtav1-params": "pred-struct=1:rtc=1:rc=2"}),
}
MICROSECONDS = fractions.Fraction(1, 1_000_000)
_PIXEL_FORMATS = {"RGBA": ("rgba", 4), "RGB": ("rgb24", 3)}   # Pillow mode → PyAV format, bytes a pixel


PHONE_NICENESS = 10
"""How much lower than the app's the priority of the thread that renders and encodes the stream is: a real
phone draws and encodes on its own chips, so on the machine's shared cores the app's work comes first."""


def yield_cores_to_the_app() -> bool:
    """Lower the calling thread's CPU priority by PHONE_NICENESS (Linux threads have their own nice value);
    False where that cannot be done (another system, or a limit)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        thread = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, thread, min(19, os.getpriority(os.PRIO_PROCESS, thread) + PHONE_NICENESS))
    except (OSError, AttributeError):
        return False
    return True


class EncoderUnavailable(RuntimeError):
    """The codec asked for cannot be encoded here (PyAV missing, or built without that encoder)."""


@dataclass(frozen=True)
class EncodedPacket:
    """One packet of the stream: `config` carries the codec's set-up (sent first, no picture)."""

    data: bytes
    pts_us: int
    key_frame: bool = False
    config: bool = False


def video_size(display: tuple[int, int], max_size: int = 0) -> tuple[int, int]:
    """The stream's size for a display, as scrcpy's server computes it: the longer side at most
    `max_size` (aspect kept), both sides a multiple of 8."""
    width, height = display
    longer = max(width, height)
    if max_size and longer > max_size:
        scale = max_size / longer
        width, height = round(width * scale), round(height * scale)
    return max(8, width & ~7), max(8, height & ~7)


class ScreenEncoder:
    """Encodes screen pictures into packets of one codec at one size; not thread-safe (one stream owns it)."""

    def __init__(self, codec: str, size: tuple[int, int], *, bit_rate: int = 8_000_000, max_fps: int = 60):
        if codec not in ENCODERS:
            raise EncoderUnavailable(f"the virtual phone cannot stream {codec!r}; it streams {', '.join(ENCODERS)}")
        try:
            import av
        except ImportError as error:     # the app can run without PyAV: the mirror then polls screenshots
            raise EncoderUnavailable(f"PyAV is not installed ({error})") from None
        name, options = ENCODERS[codec]
        try:
            context = av.CodecContext.create(name, "w")
        except (av.FFmpegError, ValueError) as error:
            raise EncoderUnavailable(f"this PyAV has no {name} encoder ({error})") from None
        if not isinstance(context, av.VideoCodecContext):
            raise EncoderUnavailable(f"this PyAV's {name} is not a video encoder")
        os.environ.setdefault("SVT_LOG", "1")      # SVT-AV1 prints its whole configuration at level 3
        context.width, context.height = size
        context.pix_fmt = "yuv420p"
        context.time_base = MICROSECONDS
        context.framerate = fractions.Fraction(max(1, max_fps), 1)
        context.bit_rate = bit_rate
        context.options = dict(options)
        if codec == "h264":      # the SPS and PPS once, as scrcpy's config packet, not inside every key frame
            context.flags |= av.codec.context.Flags.global_header
        try:
            context.open()
        except (av.FFmpegError, ValueError) as error:   # the Linux bundle's libx264 stand-in refuses here
            raise EncoderUnavailable(f"the {name} encoder does not open ({error})") from None
        self.codec = codec
        self.size = size
        self._context: VideoCodecContext | None = context
        self._frame_type = av.VideoFrame
        self._config_sent = False
        self._last_pts = -1
        self._source: VideoFrame | None = None         # a reused frame the pictures are copied into
        self._source_view: Image.Image | None = None   # that frame's memory seen as a Pillow image

    def encode(self, picture: Image.Image, pts_us: int) -> list[EncodedPacket]:
        """The packets for one picture (scaled to the stream's size); the first call starts with the config."""
        pts_us = max(pts_us, self._last_pts + 1)       # presentation times must grow
        self._last_pts = pts_us
        context = self._context
        if context is None:
            raise RuntimeError("the encoder is closed")
        frame = self._frame_for(picture)
        frame.pts = pts_us
        packets: list[EncodedPacket] = []
        if not self._config_sent:
            self._config_sent = True
            extradata = context.extradata
            if extradata:
                packets.append(EncodedPacket(bytes(extradata), pts_us, config=True))
        for packet in context.encode(frame):
            packets.append(EncodedPacket(bytes(packet), int(packet.pts if packet.pts is not None else pts_us),
                                         key_frame=bool(packet.is_keyframe)))
        return packets

    def _frame_for(self, picture: Image.Image):
        """The picture as a YUV frame at the stream's size: its pixels copied into a reused RGB(A)
        frame, then scaled and converted in one swscale pass (~8 ms for 1080×2400, where PyAV's
        from_image plus a Pillow resize take ~40 ms)."""
        if picture.mode not in _PIXEL_FORMATS:
            picture = picture.convert("RGB")
        pixel_format, depth = _PIXEL_FORMATS[picture.mode]
        source = self._source
        if source is None or (source.width, source.height, source.format.name) != (*picture.size, pixel_format):
            source = self._source = self._frame_type(picture.width, picture.height, pixel_format)
            self._source_view = None
        plane = source.planes[0]
        if self._copy_into(source, picture):
            pass
        elif plane.line_size == picture.width * depth:
            plane.update(picture.tobytes())
        else:                                   # rows padded: let PyAV copy row by row
            source = self._frame_type.from_image(picture)
            self._source = None
        return source.reformat(self.size[0], self.size[1], "yuv420p", interpolation="FAST_BILINEAR")

    def _copy_into(self, source, picture: Image.Image) -> bool:
        """Copy the picture's rows straight into the reused frame's memory, seen as a Pillow image (one
        copy, ~1 ms for 1080×2400, where tobytes() and update() copy twice, 5-20 ms). False when this
        Pillow cannot (the caller copies the slower way)."""
        if picture.mode != "RGBA":           # Pillow maps 4-byte modes only; an RGB view would be a copy
            return False
        try:
            view = self._source_view
            if view is None:
                plane = source.planes[0]
                view = Image.frombuffer("RGBA", picture.size, plane, "raw", "RGBA", plane.line_size, 1)
                if not view.readonly:            # a copy, not the frame's memory
                    return False
                self._source_view = view
            view.im.paste(picture.im, (0, 0, *picture.size))     # the core's paste: the view is read-only
        except (AttributeError, TypeError, ValueError):
            self._source_view = None
            return False
        return True

    def close(self) -> None:
        """Flush the encoder (SVT-AV1 complains when it is not told the stream ended)."""
        context, self._context = self._context, None
        if context is not None:
            try:
                context.encode(None)
            except Exception:     # noqa: BLE001 - a stream that never started has nothing to flush
                pass
