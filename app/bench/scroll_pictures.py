"""Pictures a second a scrcpy stream carries while a finger drags Settings' list up and down (the desk's own scrcpy
client and control socket, as the mirror uses them), next to the same stream with the screen still (the baseline:
what the stream sends when nothing moves, once the first picture's repeats are over). A phone's display refreshes
at 60 Hz and scrcpy sends a picture per change; the test with a third-party client
(tests/virtual_phone/test_scrcpy_third_party.py) checks the pictures come while the finger moves at all."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from app.core.device.android_device import AndroidDevice
from app.core.device.scrcpy_client import ScrcpySession, StreamSettings
from app.core.device.scrcpy_input import ScrcpyInput

from .phones import BenchPhone

SETTINGS = "com.android.settings"
DRAG_SECONDS = 2.0
STILL_SECONDS = 1.0
# a phone sends a still picture again up to 10 times, 100 ms apart (scrcpy's REPEAT_FRAME_DELAY_US, AOSP's
# kRepeatLastFrameCount): the still count starts once the stream has been quiet for longer than that gap
QUIET_SECONDS = 0.5
QUIET_WAIT_LIMIT_SECONDS = 10.0
DRAG_MS = 300


@dataclass(frozen=True)
class ScrollPictures:
    dragging: float         # pictures a second while the finger drags
    still: float            # pictures a second while nothing moves


async def scroll_pictures(phone: BenchPhone) -> ScrollPictures:
    """Open Settings, stream it, count pictures with the screen still, then while dragging its list for 2 s."""
    device = AndroidDevice(phone.transport(), phone.serial)
    await device.launch_app(SETTINGS)
    info = await device.screen_info()
    session = ScrcpySession(phone.transport(), phone.serial, StreamSettings(max_size=1080),
                            on_frame=lambda *_: None, on_end=lambda _reason: None)
    await asyncio.to_thread(session.start)
    try:
        finger = ScrcpyInput(session, lambda: info.display_size)
        await _past_the_next_minute_if_near()        # the status bar's clock would tick in the still second
        await _quiet(session)                        # the first picture of the stream, and its repeats
        before, started = session.frames_decoded, time.perf_counter()
        await asyncio.sleep(STILL_SECONDS)
        still = (session.frames_decoded - before) / (time.perf_counter() - started)
        width, height = info.display_size
        low, high = height * 3 // 4, height // 3
        before, started, up = session.frames_decoded, time.perf_counter(), True
        while time.perf_counter() - started < DRAG_SECONDS:
            await finger.swipe(width // 2, low if up else high, width // 2, high if up else low, DRAG_MS)
            up = not up
        dragging = (session.frames_decoded - before) / (time.perf_counter() - started)
    finally:
        await asyncio.to_thread(session.close)
        await device.home()
    return ScrollPictures(dragging, still)


async def _quiet(session: ScrcpySession) -> None:
    """Wait until no picture has come for QUIET_SECONDS (the stream's first picture and its repeats are over),
    at most QUIET_WAIT_LIMIT_SECONDS."""
    deadline = time.perf_counter() + QUIET_WAIT_LIMIT_SECONDS
    seen, since = session.frames_decoded, time.perf_counter()
    while time.perf_counter() < deadline:
        await asyncio.sleep(0.05)
        if session.frames_decoded != seen:
            seen, since = session.frames_decoded, time.perf_counter()
        elif time.perf_counter() - since >= QUIET_SECONDS and seen > 0:
            return


async def _past_the_next_minute_if_near() -> None:
    """The status bar's clock changes on the minute (a picture and its repeats): when the minute is about to turn,
    wait until it has, so the still count does not take the clock's tick for motion."""
    into_minute = time.time() % 60
    if into_minute > 60 - (STILL_SECONDS + QUIET_SECONDS + 2):
        await asyncio.sleep(60 - into_minute + 0.2)
