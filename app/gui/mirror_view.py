"""The phone's screen, scaled to fit with its aspect ratio kept."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QSizePolicy, QWidget


def qimage_from_rgb(data: bytes, width: int, height: int) -> QImage:
    """Wrap packed RGB888 bytes; the QImage keeps a reference so the bytes stay alive."""
    image = QImage(data, width, height, width * 3, QImage.Format.Format_RGB888)
    image._keepalive = data  # QImage does not own the buffer
    return image


def frame_for_view(image, view_size: QSize) -> tuple[bytes, tuple[int, int]]:
    """Shrink a frame by a whole factor while it stays larger than the view (runs in a worker thread)."""
    factor = max(1, min(image.width // max(1, view_size.width()), image.height // max(1, view_size.height())))
    small = image.reduce(factor) if factor > 1 else image
    return small.tobytes(), small.size


class MirrorView(QWidget):
    """Paints the latest frame; a new frame replaces the old one (nothing is queued)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._frame: QImage | None = None
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(200, 300)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)

    def sizeHint(self) -> QSize:
        return QSize(420, 900)

    def set_frame(self, frame: QImage) -> None:
        self._frame = frame
        self.update()

    def frame_rect(self) -> QRectF:
        """Where the frame is drawn inside the widget (aspect kept, centred)."""
        if self._frame is None or self._frame.isNull():
            return QRectF()
        scale = min(self.width() / self._frame.width(), self.height() / self._frame.height())
        w, h = self._frame.width() * scale, self._frame.height() * scale
        return QRectF((self.width() - w) / 2, (self.height() - h) / 2, w, h)

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor(24, 26, 30))
        if self._frame is not None:
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
            painter.drawImage(self.frame_rect(), self._frame)
        else:
            painter.setPen(QColor(180, 180, 190))
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "Connecting to the phone…")
        painter.end()
