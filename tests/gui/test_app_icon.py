"""The app icon: loads from package resources, and the generated packaging icon set is sound."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image
from PySide6.QtCore import QSize

from app.gui.app_icon import app_icon

REPO_ROOT = Path(__file__).resolve().parents[2]
ICONS_DIR = REPO_ROOT / "packaging" / "icons"
PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512, 1024)


def _has_opaque_pixels(pixmap) -> bool:
    image = pixmap.toImage()
    return any(
        image.pixelColor(x, y).alpha() > 0
        for y in range(image.height())
        for x in range(image.width())
    )


@pytest.mark.parametrize("size", [16, 256])
def test_app_icon_has_visible_pixmaps(qapp, size):
    icon = app_icon()
    assert not icon.isNull()
    pixmap = icon.pixmap(QSize(size, size))
    assert not pixmap.isNull()
    assert pixmap.width() == size and pixmap.height() == size
    assert _has_opaque_pixels(pixmap)


def test_generated_pngs_exist():
    for size in PNG_SIZES:
        path = ICONS_DIR / "png" / f"agentdesk-{size}.png"
        assert path.is_file(), path
        with Image.open(path) as im:
            assert im.size == (size, size)
            assert im.mode == "RGBA"
    with Image.open(REPO_ROOT / "app" / "resources" / "icons" / "agentdesk-256.png") as im:
        assert im.size == (256, 256)


def test_ico_has_windows_sizes():
    with Image.open(ICONS_DIR / "agentdesk.ico") as ico:
        assert ico.format == "ICO"
        assert {(s, s) for s in (16, 24, 32, 48, 64, 128, 256)} <= set(ico.info["sizes"])


def test_icns_has_mac_sizes():
    with Image.open(ICONS_DIR / "agentdesk.icns") as icns:
        assert icns.format == "ICNS"
        sizes = {(w * scale, h * scale) for w, h, scale in icns.info["sizes"]}
        assert {(s, s) for s in (32, 64, 128, 256, 512, 1024)} <= sizes
