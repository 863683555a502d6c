"""Waiting for the screen to stand still after an action (app/core/device/settle.py)."""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest
from PIL import Image

from app.core.device.errors import ScreenshotFailed
from app.core.device.frames import Frame, ScreenshotPolling
from app.core.device.screen_capture import Screenshot
from app.core.device.settle import (
    STREAM_QUIET_SECONDS,
    StillHint,
    newest_picture,
    pictures_differ,
    thumbnail,
    wait_until_still,
)

SIZE = (108, 240)


def screen(shade: int) -> Image.Image:
    return Image.new("RGB", SIZE, (shade, 255 - shade, 128))


class MovingScreen:
    """A screenshot capture (`capture_seconds` each) of a screen that moves until `still_at`
    (every capture shows another picture), then shows `final`; can fail while `failing`."""

    def __init__(self, moving_seconds: float = 0.0, capture_seconds: float = 0.01) -> None:
        self.still_at = time.monotonic() + moving_seconds
        self.capture_seconds = capture_seconds
        self.final = screen(200)
        self.calls = 0
        self.failing = False

    async def __call__(self) -> Screenshot:
        self.calls += 1
        moving = time.monotonic() < self.still_at
        picture = screen(self.calls * 7 % 150) if moving else self.final
        await asyncio.sleep(self.capture_seconds)
        if self.failing:
            raise ScreenshotFailed("the phone sent an empty screenshot")
        return Screenshot(picture, "raw", 1.0, 1.0)


@contextlib.asynccontextmanager
async def polling(camera: MovingScreen):
    source = ScreenshotPolling(camera)
    try:
        yield source
    finally:
        await source.close()


class ChangesOnly:
    """A stream-like source: a frame only when the screen changes; the test pushes them."""

    changes_only = True

    def __init__(self) -> None:
        self.frames: list[Frame] = []
        self.pushed = asyncio.Event()
        self.readers = 0

    def latest(self) -> Frame | None:
        return self.frames[-1] if self.frames else None

    def subscribe(self):
        raise AssertionError("the settle wait asks for frames one at a time")

    async def frame_after(self, moment: float | None = None) -> Frame:
        self.readers += 1
        try:
            while True:
                newer = [frame for frame in self.frames if frame.captured_at >= moment]
                if newer:
                    return newer[0]
                self.pushed.clear()
                await self.pushed.wait()
        finally:
            self.readers -= 1

    def push(self, picture: Image.Image, lossy: bool = False) -> None:
        now = time.monotonic()
        self.frames.append(Frame(Screenshot(picture, "stream", 0.0, 0.0, lossy=lossy), now, now))
        self.pushed.set()


@pytest.mark.asyncio
async def test_a_screen_that_does_not_move_is_still_after_the_quiet_period():
    async with polling(MovingScreen()) as frames:
        result = await wait_until_still(frames, quiet_seconds=0.05, cap_seconds=2.0)
    assert not result.capped
    assert 0.05 <= result.waited_seconds < 1.0
    assert result.frames_compared >= 2 and result.errors == 0


@pytest.mark.asyncio
async def test_a_screen_that_animates_is_waited_for_until_it_has_settled():
    camera = MovingScreen(moving_seconds=0.2)
    async with polling(camera) as frames:
        started = time.monotonic()
        result = await wait_until_still(frames, quiet_seconds=0.05, cap_seconds=2.0, started=started)
    assert not result.capped
    assert result.waited_seconds >= 0.2 + 0.05 - 0.02      # the animation, then the quiet period
    assert result.frames_compared > 5
    assert result.frame.captured_at >= camera.still_at
    assert not pictures_differ(thumbnail(result.frame.image), thumbnail(camera.final))


@pytest.mark.asyncio
async def test_a_screen_that_never_stops_moving_ends_the_wait_at_the_cap():
    async with polling(MovingScreen(moving_seconds=60)) as frames:
        result = await wait_until_still(frames, quiet_seconds=0.05, cap_seconds=0.25)
    assert result.capped
    assert 0.25 <= result.waited_seconds < 0.25 + 0.1
    assert result.waited_ms == round(result.waited_seconds * 1000, 1)


@pytest.mark.asyncio
async def test_a_polling_source_slower_than_the_quiet_period_needs_two_equal_frames():
    """A capture that takes longer than the quiet period is not mistaken for stillness."""
    camera = MovingScreen(moving_seconds=0.15, capture_seconds=0.1)
    async with polling(camera) as frames:
        result = await wait_until_still(frames, quiet_seconds=0.05, cap_seconds=2.0)
    assert not result.capped
    assert result.frame.captured_at >= camera.still_at
    assert result.frames_compared >= 3


@pytest.mark.asyncio
async def test_frames_taken_before_the_action_ended_do_not_count():
    camera = MovingScreen()
    async with polling(camera) as frames:
        before = await frames.frame_after()
        result = await wait_until_still(frames, quiet_seconds=0.03, cap_seconds=2.0, started=time.monotonic())
    assert result.frame is not before and result.frame.captured_at > before.captured_at


@pytest.mark.asyncio
async def test_a_source_that_sends_only_changes_is_still_when_no_frame_comes():
    stream = ChangesOnly()
    waiting = asyncio.ensure_future(wait_until_still(stream, quiet_seconds=0.1, cap_seconds=2.0))
    for shade in (10, 20, 30):         # an animation of three frames, then nothing
        await asyncio.sleep(0.04)
        stream.push(screen(shade))
    pushed_last = time.monotonic()
    result = await waiting
    assert not result.capped and result.frames_compared == 3
    assert time.monotonic() - pushed_last >= 0.1 - 0.01
    assert 0.12 + 0.1 - 0.02 <= result.waited_seconds < 1.0
    assert stream.readers == 0                                   # it stopped reading


@pytest.mark.asyncio
async def test_a_source_that_sends_only_changes_and_sends_nothing_is_still_after_the_quiet_period():
    result = await wait_until_still(ChangesOnly(), quiet_seconds=0.05, cap_seconds=2.0)
    assert not result.capped and result.frames_compared == 0 and result.frame is None
    assert 0.05 - 0.01 <= result.waited_seconds < 0.5


@pytest.mark.asyncio
async def test_a_stream_that_keeps_changing_ends_at_the_cap():
    stream = ChangesOnly()
    waiting = asyncio.ensure_future(wait_until_still(stream, quiet_seconds=0.1, cap_seconds=0.3))
    shade = 0
    while not waiting.done():
        shade += 1
        stream.push(screen(shade * 7 % 200))
        await asyncio.sleep(0.02)
    result = waiting.result()
    assert result.capped and result.frames_compared > 5
    assert 0.3 <= result.waited_seconds < 0.4


@pytest.mark.asyncio
async def test_stopping_the_wait_stops_reading_frames_at_once():
    camera = MovingScreen(moving_seconds=60)
    async with polling(camera) as frames:
        waiting = asyncio.ensure_future(wait_until_still(frames, quiet_seconds=0.05, cap_seconds=5.0))
        for _ in range(100):               # the wait starts the captures (on a busy machine, after a while)
            await asyncio.sleep(0.02)
            if frames.capturing and camera.calls >= 2:
                break
        assert frames.capturing
        stopped = time.monotonic()
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert time.monotonic() - stopped < 0.05
        await asyncio.sleep(0.05)
        assert not frames.capturing                  # nobody reads: the captures stopped


@pytest.mark.asyncio
async def test_capture_errors_do_not_end_the_wait_before_the_cap():
    camera = MovingScreen()
    camera.failing = True
    async with polling(camera) as frames:
        result = await wait_until_still(frames, quiet_seconds=0.05, cap_seconds=0.2)
    assert result.capped and result.errors >= 1 and result.frames_compared == 0


@pytest.mark.asyncio
async def test_no_cap_means_no_wait_and_negative_times_are_refused():
    camera = MovingScreen()
    async with polling(camera) as frames:
        result = await wait_until_still(frames, quiet_seconds=0.05, cap_seconds=0)
        assert result.capped and result.waited_seconds < 0.01 and camera.calls == 0
        with pytest.raises(ValueError, match="must not be negative"):
            await wait_until_still(frames, quiet_seconds=-1, cap_seconds=1)


def test_one_changed_pixel_is_a_change_and_the_same_picture_is_not():
    before = Image.new("RGB", (1080, 2400), (240, 240, 240))
    after = before.copy()
    after.putpixel((500, 1200), (0, 0, 0))
    assert thumbnail(before).size == (135, 300)
    assert not pictures_differ(thumbnail(before), thumbnail(before.copy()))
    assert pictures_differ(thumbnail(before), thumbnail(after))
    assert pictures_differ(thumbnail(before), thumbnail(before.rotate(90, expand=True)))
    assert not pictures_differ(thumbnail(before.convert("RGBA")), thumbnail(before))
    gray = before.convert("L")
    assert not pictures_differ(thumbnail(gray), thumbnail(gray.copy()))


@pytest.mark.asyncio
async def test_no_capture_is_asked_for_that_could_not_come_back_before_the_cap():
    """Else a capture still in flight at the cap would hold up the next step's screenshot."""
    camera = MovingScreen(moving_seconds=60, capture_seconds=0.15)
    async with polling(camera) as frames:
        result = await wait_until_still(frames, quiet_seconds=0.05, cap_seconds=0.25)
        assert result.capped and 0.25 <= result.waited_seconds < 0.35
        assert result.frames_compared == 1 and camera.calls == 1
        assert not frames.capturing


@pytest.mark.asyncio
async def test_a_source_closed_while_waiting_ends_the_wait():
    camera = MovingScreen(moving_seconds=60)
    async with polling(camera) as frames:
        waiting = asyncio.ensure_future(wait_until_still(frames, quiet_seconds=0.05, cap_seconds=5.0))
        await asyncio.sleep(0.05)
        await frames.close()
        result = await asyncio.wait_for(waiting, 4.0)     # well before the 5 s cap, even on a loaded machine
    assert not result.capped and result.waited_seconds < 4.0


class HintLog:
    """A StillHint that writes down when it was told what (seconds after it was made)."""

    def __init__(self, seconds: float) -> None:
        self.made = time.monotonic()
        self.told: list[tuple[str, float]] = []
        self.hint = StillHint(seconds, still=lambda frame: self._tell("still"), moved=lambda: self._tell("moved"))

    def _tell(self, what: str) -> None:
        self.told.append((what, time.monotonic() - self.made))


@pytest.mark.asyncio
async def test_a_stream_tells_the_hint_when_the_moved_screen_stands_still_before_the_wait_ends():
    stream, log = ChangesOnly(), HintLog(0.05)
    waiting = asyncio.ensure_future(wait_until_still(stream, quiet_seconds=0.2, cap_seconds=2.0, hint=log.hint))
    for shade in (10, 20, 30):
        await asyncio.sleep(0.02)
        stream.push(screen(shade))
    last_push = time.monotonic() - log.made
    result = await waiting
    assert not result.capped
    assert [what for what, _ in log.told] == ["still"]
    said = log.told[0][1]
    assert last_push + 0.05 - 0.01 <= said < last_push + 0.2            # after the hint's time, before the end
    assert result.waited_seconds >= last_push + 0.2 - 0.02


@pytest.mark.asyncio
async def test_a_move_after_the_hint_is_told_and_the_hint_comes_again_when_still():
    stream, log = ChangesOnly(), HintLog(0.05)
    waiting = asyncio.ensure_future(wait_until_still(stream, quiet_seconds=0.25, cap_seconds=2.0, hint=log.hint))
    await asyncio.sleep(0.01)                     # the wait begins
    stream.push(screen(10))
    await asyncio.sleep(0.02)
    stream.push(screen(20))                       # moved
    await asyncio.sleep(0.12)                     # still long enough for the hint, not for the wait
    stream.push(screen(40))                       # late content: the prefetched dump is stale
    await waiting
    assert [what for what, _ in log.told] == ["still", "moved", "still"]


@pytest.mark.asyncio
async def test_a_screen_that_never_moved_tells_the_hint_nothing():
    """A still screen may just not show the action yet: nothing is started on it."""
    log = HintLog(0.02)
    async with polling(MovingScreen()) as frames:
        result = await wait_until_still(frames, quiet_seconds=0.1, cap_seconds=2.0, hint=log.hint)
    stream_result = await wait_until_still(ChangesOnly(), quiet_seconds=0.1, cap_seconds=2.0, hint=log.hint)
    assert not result.capped and not stream_result.capped and log.told == []


@pytest.mark.asyncio
async def test_screenshot_polling_tells_the_hint_too():
    camera, log = MovingScreen(moving_seconds=0.1), HintLog(0.03)
    async with polling(camera) as frames:
        result = await wait_until_still(frames, quiet_seconds=0.15, cap_seconds=2.0, hint=log.hint)
    assert not result.capped
    assert [what for what, _ in log.told] == ["still"]
    assert 0.1 <= log.told[0][1] < result.waited_seconds + 0.01


@pytest.mark.asyncio
async def test_a_frame_asked_of_a_closed_source_ends_at_once():
    """The wait may ask for its next frame just after the source closed (between two frames): that ask ends
    as the ones under way do, instead of hanging until the cap (it failed a loaded CI run once)."""
    async with polling(MovingScreen()) as frames:
        await frames.frame_after()
        await frames.close()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(frames.frame_after(), 1.0)
        result = await asyncio.wait_for(wait_until_still(frames, quiet_seconds=0.05, cap_seconds=5.0), 1.0)
    assert not result.capped and result.waited_seconds < 1.0


class MirrorStream(ChangesOnly):
    """Like the mirror's frames (PhoneFrames): streamed, but answering "the screen at this moment" itself."""

    changes_only = False
    streaming = True


@pytest.mark.asyncio
async def test_the_newest_picture_of_a_stream_is_its_last_once_pictures_stop_coming():
    """A stream's pictures still on their way (a transition's end, late on a loaded machine) arrive one by one
    after the moment asked for: the picture of the screen now is the last of them, not the first."""
    stream = MirrorStream()
    stream.push(screen(5))                        # the picture before
    asking = asyncio.ensure_future(newest_picture(stream))
    for shade in (10, 20, 30):
        await asyncio.sleep(0.03)
        stream.push(screen(shade))
    pushed_last = time.monotonic()
    newest = await asyncio.wait_for(asking, 2.0)
    assert newest.image.getpixel((0, 0)) == screen(30).getpixel((0, 0))
    assert time.monotonic() - pushed_last >= STREAM_QUIET_SECONDS - 0.01


@pytest.mark.asyncio
async def test_the_newest_picture_of_a_stream_that_sends_nothing_more_is_the_one_at_hand():
    stream = MirrorStream()
    stream.push(screen(40))
    started = time.monotonic()
    newest = await asyncio.wait_for(newest_picture(stream), 2.0)
    assert newest is stream.frames[-1]
    assert time.monotonic() - started < 0.5 and stream.readers == 0


@pytest.mark.asyncio
async def test_the_newest_picture_of_a_polling_source_is_a_screenshot_taken_now():
    camera = MovingScreen()
    async with polling(camera) as frames:
        asked = time.monotonic()
        newest = await asyncio.wait_for(newest_picture(frames), 2.0)
    assert newest.captured_at >= asked and camera.calls == 1

