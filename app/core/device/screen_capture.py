"""Screenshots: the raw `screencap` format and PNG, decoded with Pillow."""

from __future__ import annotations

import io
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from PIL import Image

from .errors import ScreenshotFailed

RAW_METHOD = "raw"
PNG_METHOD = "png"
# services that print the screen to stdout; exec: keeps binary data intact (no tty).
CAPTURE_SERVICES = {RAW_METHOD: "exec:screencap", PNG_METHOD: "exec:screencap -p"}

# android.graphics.PixelFormat values screencap may report, with Pillow's raw mode for each.
_RAW_FORMATS = {1: ("RGBX", 4), 2: ("RGBX", 4), 3: ("RGB", 3), 5: ("BGRX", 4)}
_RGB565 = 4


@dataclass(frozen=True)
class PackedPixels:
    """The same picture as 32-bit BGRX rows (`stride` bytes each), as a video decoder gives it:
    what the mirror wraps as a QImage (`Format_RGB32`) without converting a pixel."""

    data: bytes
    width: int
    height: int
    stride: int


def shrink_factor(width: int, height: int, view_width: int, view_height: int) -> int:
    """The whole factor a picture can shrink by and stay at least as large as a view (1: none): the
    mirror shows it so, scaled by the painter the rest of the way."""
    return max(1, min(width // max(1, view_width), height // max(1, view_height)))


@dataclass
class Screenshot:
    """One decoded screen image (RGB) and what it cost to get it."""

    image: Image.Image
    method: str
    fetch_ms: float
    decode_ms: float
    taken_at: float = field(default_factory=time.time)
    pixels: PackedPixels | None = None
    """The picture as BGRX rows too, when its source gave them (the stream); None otherwise."""
    lossy: bool = False
    """Through a video codec (the stream): two pictures of one still screen may differ by its noise, as
    the phone's encoder sharpens a picture it repeats."""

    @property
    def size(self) -> tuple[int, int]:
        return self.image.size


class StreamShot(Screenshot):
    """A picture of the video stream whose RGB image is made on first use (~1.2 ms for 576×1280): the mirror
    shows its BGRX rows (`pixels`) and never asks, so a frame that is only mirrored costs no RGB picture."""

    def __init__(self, make_image: Callable[[], Image.Image], size: tuple[int, int], method: str,
                 decode_ms: float, pixels: PackedPixels | None = None) -> None:
        self._make_image: Callable[[], Image.Image] | None = make_image
        self._image: Image.Image | None = None
        self._size = size
        self._lock = threading.Lock()
        super().__init__(None, method, 0.0, decode_ms, pixels=pixels, lossy=True)  # type: ignore[arg-type]

    @property
    def image(self) -> Image.Image:
        with self._lock:        # the loop and a worker thread may both ask
            if self._image is None:
                make, self._make_image = self._make_image, None
                assert make is not None
                self._image = make()
            return self._image

    @image.setter
    def image(self, value: Image.Image | None) -> None:
        if value is not None:
            self._image = value

    @property
    def size(self) -> tuple[int, int]:
        return self._size


def decode_raw(data: bytes) -> Image.Image:
    """Decode `screencap` raw output: a 12-byte (before Android 9) or 16-byte header, then pixels."""
    if len(data) < 12:
        raise ScreenshotFailed("The phone sent an empty screenshot. Is the screen on and unlocked?")
    width, height, pixel_format = struct.unpack_from("<III", data)
    if not (0 < width <= 16384 and 0 < height <= 16384):
        raise ScreenshotFailed(f"The phone sent a screenshot with an impossible size ({width}x{height}).")
    if pixel_format == _RGB565:
        bytes_per_pixel, mode = 2, "BGR;16"
    elif pixel_format in _RAW_FORMATS:
        mode, bytes_per_pixel = _RAW_FORMATS[pixel_format]
    else:
        raise ScreenshotFailed(f"The phone sent a screenshot in an unknown pixel format ({pixel_format}).")
    pixels = width * height * bytes_per_pixel
    header = len(data) - pixels
    if header not in (12, 16):
        got = len(data) - 16
        raise ScreenshotFailed(f"The screenshot was cut short ({max(got, 0)} of {pixels} bytes): "
                               "the connection may have dropped.")
    # Pillow unpacks RGBX/BGRX/565 straight to RGB in one pass (~4 ms for 1080x2400).
    return Image.frombytes("RGB", (width, height), memoryview(data)[header:], "raw", mode)


def decode_png(data: bytes) -> Image.Image:
    """Decode `screencap -p` output (a PNG, possibly after a warning line)."""
    start = data.find(b"\x89PNG")
    if start < 0:
        text = data[:200].decode("utf-8", "replace").strip()
        raise ScreenshotFailed(f"The phone did not send a PNG screenshot{': ' + text if text else ''}.")
    try:
        image = Image.open(io.BytesIO(data[start:]))
        image.load()
    except (OSError, SyntaxError) as exc:
        raise ScreenshotFailed(f"The PNG screenshot could not be read ({exc}): "
                               "the connection may have dropped.") from exc
    return image.convert("RGB") if image.mode != "RGB" else image


DECODERS = {RAW_METHOD: decode_raw, PNG_METHOD: decode_png}
