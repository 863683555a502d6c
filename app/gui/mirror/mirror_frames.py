"""The phone's frames on their way to the mirror: shrunk and packed in a worker thread
(`frame_for_view`) unless the stream's decoder gave them ready (`ready_for_view`), wrapped as a
QImage without a copy (`qimage_from_rgb`, `qimage_from_pixels`), fitted into the
view with their aspect ratio kept (`fitted_rect`) and drawn (`paint_frame`).
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize
from PySide6.QtGui import QImage, QPainter

from app.core.device.screen_capture import PackedPixels, Screenshot, shrink_factor

SMOOTH_SCALING_LIMIT = 1.5
"""32-bit frames at most this many times larger than their drawn size are scaled smoothly
(other formats and larger frames cost too much to smooth on every paint)."""
_FAST_FORMATS = (QImage.Format.Format_RGB32, QImage.Format.Format_ARGB32_Premultiplied)


class BufferedImage(QImage):
    """A QImage over bytes it does not own: it keeps them alive as long as it lives."""

    _keepalive: bytes


def qimage_from_rgb(data: bytes, width: int, height: int) -> QImage:
    """Wrap packed pixels: RGB888 (3 bytes a pixel) or, from `frame_for_view`, 32-bit BGRX
    (`Format_RGB32`, which Qt paints several times faster). The QImage keeps a reference
    so the bytes stay alive."""
    if len(data) == width * height * 4:
        image = BufferedImage(data, width, height, width * 4, QImage.Format.Format_RGB32)
    else:
        image = BufferedImage(data, width, height, width * 3, QImage.Format.Format_RGB888)
    image._keepalive = data  # QImage does not own the buffer
    return image


def qimage_from_pixels(pixels: PackedPixels) -> QImage:
    """Wrap a video decoder's BGRX rows as they are (no copy, no conversion)."""
    image = BufferedImage(pixels.data, pixels.width, pixels.height, pixels.stride, QImage.Format.Format_RGB32)
    image._keepalive = pixels.data
    return image


def ready_for_view(shot: Screenshot, view_size: QSize) -> QImage | None:
    """The frame as the mirror shows it, when it needs no work: the stream's BGRX rows, made for this
    view by the decoder (`ScrcpySession.view_size`). None: `frame_for_view` must shrink or pack it."""
    pixels = shot.pixels
    if pixels is None or shrink_factor(pixels.width, pixels.height, view_size.width(), view_size.height()) > 1:
        return None
    return qimage_from_pixels(pixels)


def frame_for_view(image, view_size: QSize) -> tuple[bytes, tuple[int, int]]:
    """Shrink a frame by a whole factor while it stays larger than the view, as BGRX bytes for
    `qimage_from_rgb` (runs in a worker thread, so the GUI thread never converts pixels)."""
    factor = shrink_factor(image.width, image.height, view_size.width(), view_size.height())
    small = image.reduce(factor) if factor > 1 else image
    if small.mode != "RGB":
        small = small.convert("RGB")
    return small.tobytes("raw", "BGRX"), small.size


def fitted_rect(frame: QImage | None, area: QSize) -> QRectF:
    """Where a frame is drawn in an area of this size (aspect kept, centred); empty without a frame."""
    if frame is None or frame.isNull():
        return QRectF()
    scale = min(area.width() / frame.width(), area.height() / frame.height())
    w, h = frame.width() * scale, frame.height() * scale
    return QRectF((area.width() - w) / 2, (area.height() - h) / 2, w, h)


def paint_frame(painter: QPainter, frame: QImage, rect: QRectF) -> None:
    """Draw the frame scaled into `rect`, smoothly only where that is cheap (`SMOOTH_SCALING_LIMIT`)."""
    smooth = frame.format() in _FAST_FORMATS and frame.width() <= rect.width() * SMOOTH_SCALING_LIMIT
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, smooth)
    painter.drawImage(rect, frame)
