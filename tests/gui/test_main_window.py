"""The desktop window mirrors the phone without blocking the loop."""

from __future__ import annotations

import asyncio

import pytest

from app.gui.main_window import MainWindow


@pytest.mark.asyncio
async def test_window_mirrors_the_attached_phone(qapp, virtual_adb):
    closed = asyncio.Event()
    window = MainWindow(closed)
    window.show()
    try:
        await window.start()
        assert "emulator-5554" in window.status.text()
        for _ in range(100):
            if window.mirror._frame is not None:
                break
            await asyncio.sleep(0.05)
        frame = window.mirror._frame
        assert frame is not None and not frame.isNull()
        assert abs(frame.width() / frame.height() - 1080 / 2400) < 0.01
        rect = window.mirror.frame_rect()
        assert rect.height() <= window.mirror.height() + 0.5 and rect.width() <= window.mirror.width() + 0.5
        window.close()
        assert closed.is_set()
    finally:
        await window.shutdown()
