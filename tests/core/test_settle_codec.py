"""The settle wait on a stream's pictures: a video codec's noise, and its repeats of a still picture, are no
motion (app/core/device/settle.py)."""

from __future__ import annotations

import asyncio
import time

import pytest
from PIL import Image

from app.core.device.frames import Frame
from app.core.device.screen_capture import Screenshot
from app.core.device.settle import CODEC_CHANGE_TOLERANCE, same_screen, wait_until_still
from tests.core.test_settle import ChangesOnly, screen


def shifted(picture: Image.Image, by: int, box: tuple[int, int, int, int] = (20, 40, 60, 100)) -> Image.Image:
    """`picture` with one patch lighter by `by` (a codec's sharpening, or a real change when large)."""
    changed = picture.copy()
    changed.paste(changed.crop(box).point(lambda value: min(255, value + by)), box)
    return changed


def test_pictures_through_a_codec_are_the_same_screen_but_for_its_noise():
    settled = screen(100)
    sharper, changed = shifted(settled, CODEC_CHANGE_TOLERANCE // 2), shifted(settled, 3 * CODEC_CHANGE_TOLERANCE)
    def frame(picture: Image.Image, lossy: bool) -> Frame:
        return Frame(Screenshot(picture, "stream", 0.0, 0.0, lossy=lossy), 0.0, 0.0)
    assert same_screen(frame(settled, True), frame(sharper, True))
    assert not same_screen(frame(settled, False), frame(sharper, False)), "a lossless picture: every change counts"
    assert not same_screen(frame(settled, True), frame(changed, True))
    one = frame(settled, True)
    assert same_screen(one, one)


@pytest.mark.asyncio
async def test_a_still_picture_sent_again_sharper_does_not_keep_the_wait_going():
    """A phone's encoder repeats a still picture ten times, 100 ms apart, each a little sharper (MediaCodec's
    frame repeat): the wait ends a quiet period after the screen stopped, not after the repeats."""
    stream = ChangesOnly()
    started = time.monotonic()
    stream.push(screen(100), lossy=True)

    async def sharpen() -> None:
        for step in range(1, 11):
            await asyncio.sleep(0.03)
            stream.push(shifted(screen(100), step % 4 * 2), lossy=True)
    task = asyncio.create_task(sharpen())
    try:
        result = await wait_until_still(stream, quiet_seconds=0.1, cap_seconds=2.0, started=started)
    finally:
        task.cancel()
    assert not result.capped and result.waited_seconds < 0.25, result


@pytest.mark.asyncio
async def test_the_same_lossy_difference_is_motion_on_a_lossless_source():
    stream = ChangesOnly()
    started = time.monotonic()
    stream.push(screen(100))

    async def change() -> None:
        for step in range(1, 11):
            await asyncio.sleep(0.03)
            stream.push(shifted(screen(100), step % 4 * 2))
    task = asyncio.create_task(change())
    try:
        result = await wait_until_still(stream, quiet_seconds=0.1, cap_seconds=2.0, started=started)
    finally:
        task.cancel()
    assert result.waited_seconds >= 0.3, result


class StillStream:
    """As PhoneFrames on a still stream: every ask is answered at once with the picture sent last, dated now."""

    changes_only = False

    def __init__(self) -> None:
        self.shot = Screenshot(screen(100), "stream", 0.0, 0.0, lossy=True)
        self.asked = 0

    def latest(self) -> Frame | None:
        return None

    async def frame_after(self, moment: float | None = None) -> Frame:
        self.asked += 1
        await asyncio.sleep(0)
        now = time.monotonic()
        return Frame(self.shot, max(now, moment or now), now)


@pytest.mark.asyncio
async def test_a_source_answering_with_the_same_picture_is_not_asked_in_a_spin():
    stream = StillStream()
    result = await wait_until_still(stream, quiet_seconds=0.2, cap_seconds=1.0)
    assert not result.capped and 0.2 <= result.waited_seconds < 0.3
    assert stream.asked <= 0.3 * 60 + 2, f"asked {stream.asked} times in {result.waited_seconds:.2f} s"
