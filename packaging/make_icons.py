#!/usr/bin/env python3
"""Render the Agent Desk icon set from its SVG source.

Run from anywhere:  python3 packaging/make_icons.py

Reads   app/resources/icons/agentdesk.svg
Writes  packaging/icons/png/agentdesk-{16,24,32,48,64,128,256,512,1024}.png
        app/resources/icons/agentdesk-256.png   (runtime fallback window icon)
        packaging/icons/agentdesk.ico            (Windows, 16..256)
        packaging/icons/agentdesk.icns           (macOS, 16@2x..1024)

The SVG is rendered by PySide6's QtSvg onto a transparent QImage at each size (not
downscaled from one big bitmap), so the small sizes stay crisp; Pillow packs the ICO
and ICNS from those renders. Needs no display: QT_QPA_PLATFORM defaults to offscreen.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PIL import Image  # noqa: E402
from PySide6.QtCore import QByteArray, QRectF  # noqa: E402
from PySide6.QtGui import QGuiApplication, QImage, QPainter  # noqa: E402
from PySide6.QtSvg import QSvgRenderer  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parent.parent
SVG_PATH = REPO_ROOT / "app" / "resources" / "icons" / "agentdesk.svg"
RUNTIME_PNG = REPO_ROOT / "app" / "resources" / "icons" / "agentdesk-256.png"
OUT_DIR = REPO_ROOT / "packaging" / "icons"
PNG_DIR = OUT_DIR / "png"

PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512, 1024)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)


def render_png(renderer: QSvgRenderer, size: int, dest: Path) -> None:
    """Render the SVG to a size x size transparent PNG at dest."""
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(0)  # fully transparent
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    dest.parent.mkdir(parents=True, exist_ok=True)
    if not image.save(str(dest), "PNG"):
        raise RuntimeError(f"could not write {dest}")


def main() -> int:
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])   # QImage painting needs one
    del app
    renderer = QSvgRenderer(QByteArray(SVG_PATH.read_bytes()))
    if not renderer.isValid():
        print(f"error: {SVG_PATH} is not a valid SVG", file=sys.stderr)
        return 1

    pngs: dict[int, Path] = {}
    for size in PNG_SIZES:
        pngs[size] = PNG_DIR / f"agentdesk-{size}.png"
        render_png(renderer, size, pngs[size])
    render_png(renderer, 256, RUNTIME_PNG)

    images = {size: Image.open(path).convert("RGBA") for size, path in pngs.items()}

    ico_path = OUT_DIR / "agentdesk.ico"
    images[256].save(
        ico_path,
        format="ICO",
        sizes=[(s, s) for s in ICO_SIZES],
        append_images=[images[s] for s in ICO_SIZES if s != 256],
    )

    icns_path = OUT_DIR / "agentdesk.icns"
    # Pillow writes 32 (16@2x), 64, 128, 256, 512 and 1024; it takes each from
    # append_images when one of that width is given, else resizes the base.
    images[1024].save(
        icns_path,
        format="ICNS",
        append_images=[images[s] for s in (32, 64, 128, 256, 512)],
    )

    for path in [*pngs.values(), RUNTIME_PNG, ico_path, icns_path]:
        print(path.relative_to(REPO_ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
