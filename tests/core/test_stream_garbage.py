"""A video stream whose packets keep coming while none of them decodes falls back to screenshots and
says so; a still screen that sends nothing is not given up. Against the virtual phone's scrcpy
server over the real ADB protocol, its encoder replaced by one that sends garbage."""

from __future__ import annotations

import asyncio
from datetime import datetime

import pytest

from app.core.config import MirrorSettings
from app.core.device import scrcpy_client
from app.core.device.adb_transport import AdbTransport
from app.core.device.android_device import AndroidDevice
from app.core.device.phone_frames import SCREENSHOTS, STREAM, PhoneFrames
from app.virtual_phone.scrcpy_server import REPEAT_AFTER_SECONDS, REPEATS_OF_A_STILL_PICTURE
from app.virtual_phone.video_encoder import EncodedPacket, ScreenEncoder
from tests.core.test_scrcpy_client import encoder_available

pytest.importorskip("av", reason="PyAV is needed to decode the stream")
pytestmark = pytest.mark.skipif(not encoder_available(), reason="this PyAV cannot encode H.264 for the virtual phone")

GARBAGE = b"not a picture, " * 200


def garbage_encoder(monkeypatch) -> None:
    """The phone's encoder sends a packet of garbage for every picture (no codec config, no key frame)."""
    monkeypatch.setattr(ScreenEncoder, "encode",
                        lambda self, picture, pts_us: [EncodedPacket(GARBAGE, pts_us)])


def moving_screen(monkeypatch, phone) -> None:
    """Every look at the screen gives a new picture, so the server sends packets all the time."""
    screenshot = phone.screenshot
    monkeypatch.setattr(phone, "screenshot", lambda: screenshot().copy())


def streaming_frames(virtual_adb) -> tuple[AndroidDevice, PhoneFrames, list[str]]:
    device = AndroidDevice(AdbTransport("127.0.0.1", virtual_adb.port), virtual_adb.devices[0].serial)
    frames = PhoneFrames(device, MirrorSettings, name="virtual")
    said: list[str] = []
    frames.on_status.append(said.append)
    return device, frames, said


@pytest.mark.asyncio
async def test_packets_that_never_decode_fall_back_to_screenshots_and_say_so(virtual_adb, monkeypatch):
    monkeypatch.setattr(scrcpy_client, "UNDECODABLE_SECONDS", 1.0)
    garbage_encoder(monkeypatch)
    moving_screen(monkeypatch, virtual_adb.devices[0].phone)
    device, frames, said = streaming_frames(virtual_adb)
    subscription = frames.subscribe()
    try:
        frame = await asyncio.wait_for(subscription.next(), 30)
        assert frame.size == (1080, 2400), "a full screenshot, not a stream picture"
        assert frames.method == SCREENSHOTS
        assert "none of them could be decoded" in frames.status and "screenshots instead" in frames.status
        assert any(status.startswith(STREAM) for status in said), "the stream had started before it was given up"
        assert device.input_path == "adb shell input"
    finally:
        subscription.close()
        await frames.close()


@pytest.mark.asyncio
async def test_a_still_screen_that_sends_nothing_keeps_its_stream(virtual_adb, monkeypatch):
    monkeypatch.setattr(scrcpy_client, "UNDECODABLE_SECONDS", 0.5)
    moment = datetime.now()
    virtual_adb.devices[0].phone.clock = lambda: moment     # the status bar's clock must not turn a minute now
    device, frames, _said = streaming_frames(virtual_adb)
    subscription = frames.subscribe()
    try:
        await asyncio.wait_for(subscription.next(), 30)
        session = frames.session
        await asyncio.sleep(REPEATS_OF_A_STILL_PICTURE * REPEAT_AFTER_SECONDS + 0.5)   # the picture sent again
        decoded = session.frames_decoded
        assert decoded >= 1 + REPEATS_OF_A_STILL_PICTURE
        await asyncio.sleep(1.0)                 # the screen is still: no packets come, none is missing
        assert frames.session is session and frames.method == STREAM and session.frames_decoded == decoded
        assert not session.undecodable
    finally:
        subscription.close()
        await frames.close()
