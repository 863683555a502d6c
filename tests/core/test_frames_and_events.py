"""The frame source readers share, and the event stream runs are told on."""

from __future__ import annotations

import asyncio
import time

import pytest
from PIL import Image

from app.core.agent.events import EventStream, Message, ObservationReady, RunFinished, StepStarted
from app.core.device.errors import ScreenshotFailed
from app.core.device.frames import ScreenshotPolling
from app.core.device.screen_capture import Screenshot
from app.core.loop_thread import LoopThread


class FakeCamera:
    """A capture that takes `seconds` and counts its calls; fails while `failing` is set."""

    def __init__(self, seconds: float = 0.01) -> None:
        self.seconds = seconds
        self.calls = 0
        self.in_flight = 0
        self.most_in_flight = 0
        self.failing = False

    async def __call__(self) -> Screenshot:
        self.calls += 1
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.seconds)
            if self.failing:
                raise ScreenshotFailed("the phone sent an empty screenshot")
            return Screenshot(Image.new("RGB", (4, 8)), "raw", 1.0, 1.0)
        finally:
            self.in_flight -= 1


@pytest.mark.asyncio
async def test_frame_after_waits_for_a_capture_that_began_later():
    camera = FakeCamera(0.05)
    source = ScreenshotPolling(camera)
    first = await source.frame_after()
    moment = time.monotonic()
    second = await source.frame_after(moment)
    assert second.captured_at >= moment > first.captured_at
    assert source.latest() is second
    assert await source.frame_after(moment) is second        # already new enough: no new capture
    await asyncio.sleep(0.1)
    assert not source.capturing and camera.calls == 2       # nobody waits: nothing is captured
    await source.close()


@pytest.mark.asyncio
async def test_subscribers_share_one_capture_at_a_time_and_stop_it_when_they_leave():
    camera = FakeCamera(0.01)
    source = ScreenshotPolling(camera)
    mirror, run = source.subscribe(), source.subscribe()
    frames = [await mirror.next() for _ in range(3)]
    assert frames[0].captured_at < frames[1].captured_at < frames[2].captured_at
    seen_by_run = await run.next()
    assert seen_by_run.captured_at >= frames[0].captured_at    # the newest, not a queue of old ones
    assert camera.most_in_flight == 1
    mirror.close()
    run.close()
    await asyncio.sleep(0.05)
    calls = camera.calls
    await asyncio.sleep(0.05)
    assert camera.calls == calls and not source.capturing
    await source.close()


@pytest.mark.asyncio
async def test_capture_errors_reach_readers_and_frames_resume():
    camera = FakeCamera(0.01)
    camera.failing = True
    source = ScreenshotPolling(camera)
    reader = source.subscribe()
    with pytest.raises(ScreenshotFailed):
        await reader.next()
    with pytest.raises(ScreenshotFailed):
        await source.frame_after()
    camera.failing = False
    frame = None
    for _ in range(3):          # an error per failed capture may still be waiting in the mailbox
        try:
            frame = await asyncio.wait_for(reader.next(), 5)
            break
        except ScreenshotFailed:
            continue
    assert frame is not None and frame.size == (4, 8)
    await source.close()
    with pytest.raises(StopAsyncIteration):
        await reader.next()


def test_a_late_subscriber_gets_the_run_so_far_without_pictures():
    stream = EventStream()
    picture = Image.new("RGB", (4, 4))
    stream.emit(StepStarted(1))
    stream.emit(ObservationReady(1, picture, picture))
    live = []
    stream.subscribe(live.append, replay=False)
    stream.emit(Message("hello"))
    assert [e.kind for e in live] == ["message"]
    late = []
    stream.subscribe(late.append)
    assert [e.kind for e in late] == ["step_started", "observation_ready", "message"]
    assert late[1].screenshot is None and late[1].annotated is None    # kept light
    stream.emit(RunFinished(None))
    assert late[-1].kind == "run_finished" and stream.finished


def test_a_broken_reader_does_not_stop_the_others():
    stream = EventStream()
    good = []

    def broken(event):
        raise RuntimeError("reader bug")
    stream.subscribe(broken)
    stream.subscribe(good.append)
    stream.emit(Message("still delivered"))
    assert [e.text for e in good] == ["still delivered"]


@pytest.mark.asyncio
async def test_follow_streams_every_event_until_the_run_ends():
    stream = EventStream()
    stream.emit(StepStarted(1))

    async def finish_later():
        await asyncio.sleep(0.01)
        stream.emit(Message("working"))
        stream.emit(RunFinished(None))
    task = asyncio.ensure_future(finish_later())
    kinds = [event.kind async for event in stream.follow()]
    await task
    assert kinds == ["step_started", "message", "run_finished"]


def test_the_loop_thread_runs_work_and_cancels_what_is_left_when_closed():
    core = LoopThread(name="test-core")
    assert core.submit(asyncio.sleep(0, result=42)).result(5) == 42
    cancelled = []

    async def forever():
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
    core.submit(forever())
    time.sleep(0.05)
    core.close()
    assert cancelled == [True] and not core.thread.is_alive()
