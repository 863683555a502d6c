"""The Agent Desk application icon, loaded from the package's own resources.

The source is ``app/resources/icons/agentdesk.svg``; it is rendered with QtSvg to a few
pixmap sizes so every window-manager size looks sharp. If the SVG cannot be read or
rendered, the pre-rendered ``agentdesk-256.png`` next to it is used instead.

Files are read through ``importlib.resources`` only (never paths relative to
``__file__``), so this works from a checkout, an installed wheel and a PyInstaller
bundle alike. A QGuiApplication must exist before ``app_icon()`` is called.
"""

from __future__ import annotations

from importlib.resources import files

from PySide6.QtCore import QByteArray, QRectF, Qt
from PySide6.QtGui import QIcon, QImage, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer

ICON_SIZES = (16, 24, 32, 48, 64, 128, 256)


def _read_icon(name: str) -> bytes | None:
    try:
        return (files("app.resources") / "icons" / name).read_bytes()
    except (OSError, ModuleNotFoundError):
        return None


def _icon_from_svg(data: bytes) -> QIcon:
    renderer = QSvgRenderer(QByteArray(data))
    icon = QIcon()
    if not renderer.isValid():
        return icon
    for size in ICON_SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter, QRectF(0, 0, size, size))
        painter.end()
        icon.addPixmap(QPixmap.fromImage(image))
    return icon


def app_icon() -> QIcon:
    """The app's window/taskbar icon: the SVG at several sizes, else the 256 px PNG."""
    svg = _read_icon("agentdesk.svg")
    if svg:
        icon = _icon_from_svg(svg)
        if not icon.isNull():
            return icon
    png = _read_icon("agentdesk-256.png")
    if png:
        pixmap = QPixmap()
        if pixmap.loadFromData(png, "PNG"):
            return QIcon(pixmap)
    return QIcon()
