"""The phone's frame source: scrcpy's stream while anyone reads, screenshots where it cannot run.

A fake session stands in for scrcpy's server here (the real one is tested against the virtual
phone in tests/core/test_scrcpy_client.py): what is checked is the source's own logic —
fallback, the codec retry, reconnecting, the linger, "the screen at this moment", packets.
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from PIL import Image

from app.android.scrcpy import ResetVideo, VideoCodecMeta, VideoPacket
from app.core.config import MirrorSettings
from app.core.device import phone_frames
from app.core.device.android_device import ScreenInfo
from app.core.device.errors import DeviceError
from app.core.device.phone_frames import SCREENSHOTS, STREAM, PhoneFrames
from app.core.device.scrcpy_client import ScrcpyUnavailable
from app.core.device.screen_capture import Screenshot
from app.core.device.stream_lag import StreamLag


class FakeDevice:
    serial = "fake-1"
    transport = None
    input_channel = None

    class limits:
        max_screenshot_side = 4096

    def __init__(self) -> None:
        self.screenshots = 0

    async def screenshot(self) -> Screenshot:
        self.screenshots += 1
        await asyncio.sleep(0.01)
        return Screenshot(Image.new("RGB", (108, 240), "white"), "raw", 1.0, 1.0)

    async def screen_info(self, refresh: bool = False) -> ScreenInfo:
        return ScreenInfo(1080, 2400, 420, 0)

    def use_input_channel(self, channel) -> None:
        self.input_channel = channel


class FakeSession:
    """Starts as told (`fail_with` an exception per start), then sends a picture on `show()`."""

    made: list[FakeSession] = []
    fail_with: list[BaseException | None] = []

    undecodable = ""          # ScrcpySession's reason for giving up a stream whose packets never decode

    def __init__(self, transport, serial, settings, *, on_frame, on_end) -> None:
        self.settings, self.on_frame, self.on_end = settings, on_frame, on_end
        self.codec_meta = VideoCodecMeta(0x68323634, 54, 120)
        self.video_size = (54, 120)
        self.last_config = VideoPacket(b"config", None, config=True)
        self.packet_listeners: list = []
        self.sent: list = []
        self.lag = StreamLag()
        self.alive = False
        self.closed = threading.Event()
        FakeSession.made.append(self)

    def start(self) -> FakeSession:
        failure = FakeSession.fail_with.pop(0) if FakeSession.fail_with else None
        if failure is not None:
            raise failure
        self.alive = True
        return self

    def show(self, colour: str = "red") -> None:
        picture = Image.new("RGB", self.video_size, colour)
        self.on_frame(lambda: picture, self.video_size, time.monotonic(), 1.0)

    def send(self, message) -> None:
        self.sent.append(message)

    def end(self, reason: str) -> None:
        self.on_end(reason)
        self.alive = False

    def close(self) -> None:
        self.alive = False
        self.closed.set()


@pytest.fixture(autouse=True)
def fresh_fakes(monkeypatch):
    FakeSession.made, FakeSession.fail_with = [], []
    monkeypatch.setattr(phone_frames, "LINGER_SECONDS", 0.3)


def source(settings: MirrorSettings | None = None) -> tuple[PhoneFrames, FakeDevice]:
    device = FakeDevice()
    return PhoneFrames(device, lambda: settings or MirrorSettings(), name="fake", start_session=FakeSession), device


async def started(frames: PhoneFrames) -> FakeSession:
    for _ in range(200):
        if frames.streaming:
            return frames.session
        await asyncio.sleep(0.01)
    raise AssertionError(f"the stream did not start: {frames.status}")


@pytest.mark.asyncio
async def test_a_reader_starts_the_stream_and_frames_carry_the_display_size():
    frames, device = source()
    subscription = frames.subscribe()
    session = await started(frames)
    session.show()
    frame = await asyncio.wait_for(subscription.next(), 2)
    assert frame.size == (54, 120) and frame.device_size == (1080, 2400)
    assert frames.method == STREAM and "H264 54×120" in frames.status
    assert device.input_channel is not None and device.input_channel.name == "scrcpy control"
    assert device.screenshots == 0
    subscription.close()
    await frames.close()
    assert session.closed.is_set() and device.input_channel is None


@pytest.mark.asyncio
async def test_a_first_frame_captured_just_before_the_wait_still_ends_it_on_a_still_screen():
    """A stream just started: its first picture is taken, then `frame_after` begins, then the picture arrives.
    It does not answer the wait (taken before its moment) and a still screen sends no other; the wait still
    ends at once, on that picture (nothing changed since), not at the next change a minute later."""
    frames, _device = source()
    subscription = frames.subscribe()
    session = await started(frames)
    taken = time.monotonic()
    waiting = asyncio.ensure_future(frames.frame_after())
    await asyncio.sleep(0.05)
    red = Image.new("RGB", session.video_size, "red")
    session.on_frame(lambda: red, session.video_size, taken, 1.0)     # captured before the wait
    frame = await asyncio.wait_for(waiting, 1.0)
    assert frame.image.getpixel((0, 0)) == (255, 0, 0)
    subscription.close()
    await frames.close()


@pytest.mark.asyncio
async def test_a_server_that_cannot_run_falls_back_to_screenshots_and_says_why():
    FakeSession.fail_with = [ScrcpyUnavailable("app_process: inaccessible or not found")]
    frames, device = source()
    subscription = frames.subscribe()
    frame = await asyncio.wait_for(subscription.next(), 2)
    assert frame.size == (108, 240) and device.screenshots >= 1
    assert frames.method == SCREENSHOTS and "inaccessible or not found" in frames.status
    subscription.close()
    await frames.close()


@pytest.mark.asyncio
async def test_the_screenshots_setting_never_starts_the_server():
    frames, device = source(MirrorSettings(stream="screenshots"))
    frame = await asyncio.wait_for(frames.frame_after(), 2)
    assert frame.size == (108, 240) and not FakeSession.made
    await frames.close()


@pytest.mark.asyncio
async def test_a_phone_without_h264_is_asked_for_av1_when_the_codec_is_auto():
    FakeSession.fail_with = [ScrcpyUnavailable("no H.264 encoder", codec_refused=True)]
    frames, _device = source()
    release = frames.hold()
    await started(frames)
    assert [s.settings.codec for s in FakeSession.made] == ["h264", "av1"]
    release()
    await frames.close()


@pytest.mark.asyncio
async def test_frame_after_on_a_still_stream_answers_with_the_last_picture_at_once():
    frames, _device = source()
    release = frames.hold()
    session = await started(frames)
    session.show("blue")
    first = await asyncio.wait_for(frames.frame_after(), 2)
    moment = time.monotonic()
    began = time.perf_counter()
    again = await frames.frame_after(moment)
    waited = time.perf_counter() - began
    assert again.shot is first.shot and again.captured_at >= moment      # nothing changed since
    assert waited < 0.5
    release()
    await frames.close()


def test_stream_lag_is_the_delay_beyond_the_streams_least_and_counts_recent_pictures_only():
    lag = StreamLag()
    assert lag.seconds == 0.0
    lag.observe(1_000_000, 101.05)           # 0.05 s after capture: the stream's own delay, so far
    lag.observe(2_000_000, 102.35)           # 0.30 s late
    assert lag.seconds == pytest.approx(0.30)
    for n in range(3, 3 + StreamLag.KEPT):   # pictures on time again push the late one out
        lag.observe(n * 1_000_000, 100.05 + n)
    assert lag.seconds == pytest.approx(0.0)
    lag.observe(20_000_000, 125.0)           # a stall of seconds waits at most MAX_SECONDS
    assert lag.seconds == StreamLag.MAX_SECONDS


@pytest.mark.asyncio
async def test_while_pictures_run_late_frame_after_waits_that_much_longer_for_a_change():
    """On a loaded machine a change reaches the reader later than FRESH_SECONDS: answering "unchanged"
    then would let a wait for stillness end while the screen still moves."""
    frames, _device = source()
    release = frames.hold()
    session = await started(frames)
    session.show("blue")
    await asyncio.wait_for(frames.frame_after(), 2)
    session.lag.observe(1_000_000, 100.0)
    session.lag.observe(2_000_000, 101.4)    # the last picture came 0.4 s later than the stream's best
    assert frames.fresh_seconds() == pytest.approx(phone_frames.FRESH_SECONDS + 0.4)
    asyncio.get_running_loop().call_later(0.25, session.show, "red")
    late = await frames.frame_after(time.monotonic())
    assert late.image.getpixel((0, 0)) == (255, 0, 0)          # the change, not the old picture
    release()
    await frames.close()


@pytest.mark.asyncio
async def test_a_stream_that_breaks_is_reported_and_started_again():
    frames, _device = source()
    subscription = frames.subscribe()
    first = await started(frames)
    first.end("the phone closed the video stream")
    with pytest.raises(DeviceError, match="closed the video stream"):
        await asyncio.wait_for(subscription.next(), 2)
    for _ in range(300):
        if len(FakeSession.made) == 2 and frames.streaming:
            break
        await asyncio.sleep(0.01)
    assert len(FakeSession.made) == 2 and frames.streaming
    subscription.close()
    await frames.close()


@pytest.mark.asyncio
async def test_nobody_reading_closes_the_stream_after_the_linger():
    frames, device = source()
    subscription = frames.subscribe()
    session = await started(frames)
    subscription.close()
    await asyncio.wait_for(asyncio.to_thread(session.closed.wait, 3), 4)
    assert not frames.streaming and device.input_channel is None
    await frames.close()


@pytest.mark.asyncio
async def test_packet_listeners_get_the_config_and_ask_for_a_key_frame_on_every_stream():
    frames, _device = source()
    received = []
    remove = frames.add_packet_listener(lambda meta, packet: received.append(packet))
    release = frames.hold()
    session = await started(frames)
    assert received and received[0].config
    assert any(isinstance(message, ResetVideo) for message in session.sent)
    assert session.packet_listeners
    remove()
    assert not session.packet_listeners
    release()
    await frames.close()


@pytest.mark.asyncio
async def test_changed_settings_restart_the_stream_or_switch_to_screenshots():
    settings = MirrorSettings()
    frames, device = source(settings)
    subscription = frames.subscribe()
    first = await started(frames)
    settings.stream = "screenshots"
    frames.settings_changed()
    frame = await asyncio.wait_for(subscription.next(), 2)
    assert frame.size == (108, 240) and frames.method == SCREENSHOTS and first.closed.is_set()
    settings.stream = "auto"
    frames.settings_changed()
    second = await started(frames)
    assert second is not first and frames.method == STREAM
    subscription.close()
    await frames.close()
