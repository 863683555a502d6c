"""The app's scrcpy client against the virtual phone's scrcpy server, over the real ADB protocol:
the stream, input over the control socket, text through the clipboard, the fallback to
screenshots, and a phone unplugged mid-stream."""

from __future__ import annotations

import asyncio
import time

import pytest
import pytest_asyncio
from PIL import ImageChops, ImageStat

from app.core.config import MirrorSettings
from app.core.device import scrcpy_client
from app.core.device.adb_transport import AdbTransport
from app.core.device.android_device import AndroidDevice
from app.core.device.errors import DeviceError, TextInputUnsupported
from app.core.device.phone_frames import SCREENSHOTS, STREAM, PhoneFrames
from app.core.device.screen_capture import StreamShot
from tests.support.waiting import until

av = pytest.importorskip("av", reason="PyAV is needed to decode the stream")


def encoder_available() -> bool:
    try:
        av.CodecContext.create("libx264", "w")
        return True
    except Exception:       # noqa: BLE001 - a PyAV without libx264 (the Linux bundle's)
        return False


pytestmark = pytest.mark.skipif(not encoder_available(), reason="this PyAV cannot encode H.264 for the virtual phone")


@pytest_asyncio.fixture
async def streaming(virtual_adb):
    device = AndroidDevice(AdbTransport("127.0.0.1", virtual_adb.port), virtual_adb.devices[0].serial)
    frames = PhoneFrames(device, MirrorSettings, name="virtual")
    subscription = frames.subscribe()
    first = await asyncio.wait_for(subscription.next(), 20)
    yield device, frames, subscription, first, virtual_adb.devices[0]
    subscription.close()
    await frames.close()


def mean_difference(a, b) -> float:
    a = a.convert("RGB").resize((108, 240))
    b = b.convert("RGB").resize((108, 240))
    return sum(ImageStat.Stat(ImageChops.difference(a, b)).mean) / 3


async def next_frame_after(subscription, moment: float, timeout: float = 5.0):
    deadline = time.monotonic() + timeout
    while True:
        frame = await asyncio.wait_for(subscription.next(), max(0.01, deadline - time.monotonic()))
        if frame.captured_at >= moment:
            return frame


@pytest.mark.asyncio
async def test_the_stream_shows_the_phones_screen_at_the_mirror_size(streaming):
    device, frames, _subscription, first, attached = streaming
    assert frames.method == STREAM and "H264" in frames.status
    assert max(first.size) == 1280 and first.device_size == (1080, 2400)
    assert mean_difference(first.image, attached.phone.screenshot()) < 6
    assert device.input_path == "scrcpy control"


@pytest.mark.asyncio
async def test_a_pictures_rgb_image_is_made_only_when_asked_for(streaming, monkeypatch):
    """The mirror shows a frame's rows; the RGB picture (for runs, screenshots, the settle wait) is made on first
    use, once, from the decoded picture, and its size is known without making it."""
    made: list = []
    make = scrcpy_client.rgb_picture
    monkeypatch.setattr(scrcpy_client, "rgb_picture", lambda picture: made.append(picture) or make(picture))
    _device, _frames, subscription, _first, attached = streaming
    moment = time.monotonic()
    attached.phone.launch("com.android.settings")
    frame = await next_frame_after(subscription, moment)
    assert isinstance(frame.shot, StreamShot) and made == []
    assert frame.size == (576, 1280) and made == []
    image = frame.image
    assert image.size == (576, 1280) and len(made) == 1
    assert frame.image is image and len(made) == 1, "made once"
    assert mean_difference(frame.display_shot().image, attached.phone.screenshot()) < 8


@pytest.mark.asyncio
async def test_each_picture_comes_with_bgrx_rows_made_for_the_mirrors_view(streaming):
    """The decoder converts once for the mirror: rows shrunk by a whole factor to the view it was told of,
    in the byte order Qt paints fastest (B, G, R, X), and showing the same screen as the picture."""
    from PIL import Image

    _device, frames, subscription, first, attached = streaming
    assert first.shot.pixels is not None and (first.shot.pixels.width, first.shot.pixels.height) == first.size
    frames.view_size = (270, 600)                 # half the stream's 576×1280, and a bit
    moment = time.monotonic()
    attached.phone.key(3)                         # Home: a new picture comes
    attached.phone.launch("com.android.settings")
    frame = await next_frame_after(subscription, moment)
    while frame.shot.pixels.width == frame.size[0]:        # a frame decoded before the size reached the decoder
        frame = await next_frame_after(subscription, time.monotonic())
    pixels = frame.shot.pixels
    assert (pixels.width, pixels.height) == (frame.size[0] // 2, frame.size[1] // 2)
    assert pixels.stride >= pixels.width * 4 and len(pixels.data) >= pixels.stride * pixels.height
    rows = Image.frombuffer("RGB", (pixels.width, pixels.height), pixels.data, "raw", "BGRX", pixels.stride, 1)
    assert mean_difference(rows, frame.image) < 3, "the same screen, colours in their order"
    frames.view_size = None
    moment = time.monotonic()
    attached.phone.key(3)
    frame = await next_frame_after(subscription, moment)
    while frame.shot.pixels.width != frame.size[0]:
        frame = await next_frame_after(subscription, time.monotonic())
    assert (frame.shot.pixels.width, frame.shot.pixels.height) == frame.size, "no view: full size"


@pytest.mark.asyncio
async def test_a_tap_goes_over_the_control_socket_and_the_new_screen_streams(streaming):
    device, _frames, subscription, first, attached = streaming
    commands_before = len(attached.commands)
    settings_icon = next(c for c in (await device.controls()).controls if c.name == "Settings")
    moment = time.monotonic()
    await device.tap(*settings_icon.center)
    frame = await next_frame_after(subscription, moment)
    while mean_difference(frame.image, first.image) <= 1:     # the home screen sent again (sharpened) first
        frame = await next_frame_after(subscription, frame.captured_at + 1e-6)
    for _ in range(20):                       # the last frame of the transition is the settled screen
        if attached.phone.fg == "com.android.settings":
            break
        await asyncio.sleep(0.05)
    assert attached.phone.fg == "com.android.settings"
    taps = [record for record in attached.commands[commands_before:] if record.argv[:2] == ["input", "tap"]]
    assert [record.service for record in taps] == ["scrcpy control"]      # no `adb shell input` process
    x, y = map(int, taps[0].argv[2:])
    assert abs(x - settings_icon.center[0]) <= 2 and abs(y - settings_icon.center[1]) <= 2


@pytest.mark.asyncio
async def test_text_goes_through_the_control_socket_and_other_scripts_through_the_clipboard(streaming):
    device, _frames, _subscription, _first, attached = streaming
    await device.launch_app("com.agentdesk.notes")
    new_note = next(c for c in (await device.controls()).controls if "new note" in c.name.lower())
    await device.tap(*new_note.center)
    await asyncio.sleep(0.1)
    title = next(c for c in (await device.controls(refresh=True)).controls if c.type == "EditText")
    await device.tap(*title.center)
    await device.set_clipboard("the person's own clipboard")
    await device.type_text("Hi ")
    await device.type_text("Zoë 東京")
    await asyncio.sleep(0.1)
    assert attached.phone.state()["focused_text"] == "Hi Zoë 東京"
    assert await device.get_clipboard() == "the person's own clipboard"      # put back after the paste
    with pytest.raises(TextInputUnsupported, match="password"):
        await device.type_text("Zoë", password=True)


@pytest.mark.asyncio
async def test_a_server_the_phone_refuses_falls_back_to_screenshots_and_says_why(virtual_adb, monkeypatch):
    monkeypatch.setattr(scrcpy_client, "verified_server_bytes", lambda: b"PK\x03\x04 not scrcpy's server")
    device = AndroidDevice(AdbTransport("127.0.0.1", virtual_adb.port), virtual_adb.devices[0].serial)
    frames = PhoneFrames(device, MirrorSettings, name="virtual")
    try:
        frame = await asyncio.wait_for(frames.frame_after(), 20)
        assert frame.size == (1080, 2400)                       # a full screenshot
        assert frames.method == SCREENSHOTS and "scrcpy" in frames.status
        assert device.input_path == "adb shell input"
    finally:
        await frames.close()


@pytest.mark.asyncio
async def test_a_phone_unplugged_mid_stream_is_reported_and_the_stream_comes_back(streaming, virtual_adb):
    device, frames, subscription, _first, attached = streaming
    virtual_adb.unplug(attached.serial)
    with pytest.raises(DeviceError):
        while True:                             # frames already on their way may still come first
            await asyncio.wait_for(subscription.next(), 10)
    assert not frames.streaming
    virtual_adb.plug(attached)
    for _ in range(100):
        if frames.streaming:
            break
        await asyncio.sleep(0.1)
    assert frames.streaming and frames.method == STREAM
    attached.phone.toast("back again")         # a change, so a frame comes
    await asyncio.wait_for(subscription.next(), 10)


@pytest.mark.asyncio
async def test_an_app_launched_once_starts_over_the_control_socket_the_next_time(streaming):
    device, _frames, _subscription, _first, attached = streaming
    before = len(attached.commands)
    assert await device.launch_app("com.android.settings") == "com.android.settings"
    await device.home()
    await until(lambda: attached.phone.fg != "com.android.settings")     # the key message is handled
    assert await device.launch_app("Settings") == "com.android.settings"
    await until(lambda: attached.phone.fg == "com.android.settings")
    launches = [record.service for record in attached.commands[before:] if record.argv[0] == "monkey"]
    assert len(launches) == 2, [(r.argv, r.service) for r in attached.commands[before:]]
    assert launches[0].startswith("shell") and launches[1] == "scrcpy control"
    assert attached.phone.fg == "com.android.settings"


def av1_encoder_available() -> bool:
    try:
        av.CodecContext.create("libsvtav1", "w")
        return True
    except Exception:       # noqa: BLE001 - a PyAV without SVT-AV1
        return False


@pytest.mark.asyncio
@pytest.mark.skipif(not av1_encoder_available(), reason="this PyAV cannot encode AV1 for the virtual phone")
async def test_a_phone_that_cannot_encode_h264_streams_av1_as_the_bundle_does(virtual_adb, monkeypatch):
    """The Linux bundle's virtual phone has no H.264 encoder (docs/licences.md): the server answers
    "configuration error" and the client asks again for AV1, decoded by dav1d."""
    from app.virtual_phone import scrcpy_server, video_encoder

    # the bundle's libx264 stand-in is known to FFmpeg but refuses to open; so does x264 with no such preset
    refusing = {**video_encoder.ENCODERS, "h264": ("libx264", {"preset": "no-such-preset"})}
    monkeypatch.setattr(video_encoder, "ENCODERS", refusing)
    monkeypatch.setattr(scrcpy_server, "ENCODERS", refusing)
    device = AndroidDevice(AdbTransport("127.0.0.1", virtual_adb.port), virtual_adb.devices[0].serial)
    frames = PhoneFrames(device, MirrorSettings, name="virtual")
    try:
        frame = await asyncio.wait_for(frames.frame_after(), 30)
        assert frames.streaming and "AV1" in frames.status and max(frame.size) == 1280
        assert mean_difference(frame.image, virtual_adb.devices[0].phone.screenshot()) < 8
    finally:
        await frames.close()
