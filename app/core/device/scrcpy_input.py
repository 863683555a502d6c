"""Input over scrcpy's control socket (an `InputChannel` of input_channel.py).

A message on an open socket instead of an `adb shell input` process per action (60–300 ms on a
phone). Touches are sent in the video's coordinates with the video's size, as scrcpy's client
does: the server maps them to the display and drops a touch whose size is not its current video
size (after a rotation, say), so the size is always the one of the last decoded picture.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable

from app.android.scrcpy import (
    POINTER_ID_GENERIC_FINGER,
    ControlMessage,
    GetClipboard,
    InjectKeycode,
    InjectScrollEvent,
    InjectText,
    InjectTouchEvent,
    Position,
    RotateDevice,
    SetClipboard,
    SetDisplayPower,
    StartApp,
    split_utf8,
)
from app.android.scrcpy.control import SCROLL_MAX
from app.android.scrcpy.protocol import INJECT_TEXT_MAX_LENGTH

from .errors import DeviceError
from .scrcpy_client import ScrcpySession

ACTION_DOWN, ACTION_UP, ACTION_MOVE = 0, 1, 2       # android.view.MotionEvent / KeyEvent actions
SWIPE_STEP_SECONDS = 0.016                          # a move event per display frame, as a finger
DRAG_HOLD_SECONDS = 0.5
"""How long a drag holds still before it moves: past Android's long-press timeout (400–500 ms), so the view
under the finger takes the drag (a list row lifts, a slider's thumb is grabbed), as `input draganddrop` does."""


class ScrcpyInput:
    """Input to one phone over one scrcpy session's control socket."""

    name = "scrcpy control"

    def __init__(self, session: ScrcpySession, display_size: Callable[[], tuple[int, int]]) -> None:
        self._session = session
        self._display_size = display_size       # the display as the video shows it (rotation applied)
        self._sequence = itertools.count(1)

    async def _send(self, *messages: ControlMessage) -> None:
        def send_all() -> None:
            for message in messages:
                self._session.send(message)
        await asyncio.to_thread(send_all)

    def _position(self, x: float, y: float) -> Position:
        video_w, video_h = self._session.video_size
        display_w, display_h = self._display_size()
        if not (video_w and video_h and display_w and display_h):
            raise DeviceError("the stream has shown no picture yet, so a touch cannot be placed")
        vx = min(max(round(x * video_w / display_w), 0), video_w - 1)
        vy = min(max(round(y * video_h / display_h), 0), video_h - 1)
        return Position(vx, vy, video_w, video_h)

    def _touch(self, action: int, x: float, y: float) -> InjectTouchEvent:
        return InjectTouchEvent(action=action, pointer_id=POINTER_ID_GENERIC_FINGER, position=self._position(x, y),
                                pressure=0.0 if action == ACTION_UP else 1.0)

    async def tap(self, x: float, y: float) -> None:
        await self._send(self._touch(ACTION_DOWN, x, y), self._touch(ACTION_UP, x, y))

    async def long_press(self, x: float, y: float, duration_ms: int) -> None:
        await self._send(self._touch(ACTION_DOWN, x, y))
        try:
            await asyncio.sleep(duration_ms / 1000)
        finally:
            await self._send(self._touch(ACTION_UP, x, y))    # never leave a finger down

    async def swipe(self, x1: float, y1: float, x2: float, y2: float, duration_ms: int) -> None:
        await self._press_move_release(x1, y1, x2, y2, duration_ms, hold_seconds=0.0)

    async def drag(self, x1: float, y1: float, x2: float, y2: float, duration_ms: int) -> None:
        await self._press_move_release(x1, y1, x2, y2, duration_ms, hold_seconds=DRAG_HOLD_SECONDS)

    async def _press_move_release(self, x1: float, y1: float, x2: float, y2: float, duration_ms: int, *,
                                  hold_seconds: float) -> None:
        """A finger down at (x1, y1), still for `hold_seconds`, moved to (x2, y2) a step per frame over
        `duration_ms`, and up there."""
        steps = max(1, round(duration_ms / 1000 / SWIPE_STEP_SECONDS))
        await self._send(self._touch(ACTION_DOWN, x1, y1))
        try:
            if hold_seconds:
                await asyncio.sleep(hold_seconds)
            for step in range(1, steps + 1):
                await asyncio.sleep(SWIPE_STEP_SECONDS)
                t = step / steps
                await self._send(self._touch(ACTION_MOVE, x1 + (x2 - x1) * t, y1 + (y2 - y1) * t))
        finally:
            await self._send(self._touch(ACTION_UP, x2, y2))

    async def key(self, code: int) -> None:
        await self._send(InjectKeycode(ACTION_DOWN, code), InjectKeycode(ACTION_UP, code))

    async def text(self, text: str) -> None:
        await self._send(*(InjectText(piece) for piece in split_utf8(text, INJECT_TEXT_MAX_LENGTH)))

    async def wheel(self, x: float, y: float, dx: float, dy: float) -> None:
        clamp = lambda value: min(max(value, -SCROLL_MAX), SCROLL_MAX)   # noqa: E731
        await self._send(InjectScrollEvent(self._position(x, y), clamp(dx), clamp(dy)))

    async def rotate(self) -> None:
        await self._send(RotateDevice())

    async def set_display_power(self, on: bool) -> None:
        await self._send(SetDisplayPower(on))

    async def get_clipboard(self) -> str:
        return await asyncio.to_thread(self._session.request_clipboard, GetClipboard())

    async def set_clipboard(self, text: str, paste: bool = False) -> None:
        sequence = next(self._sequence)
        await asyncio.to_thread(self._session.send_acknowledged, SetClipboard(sequence, text, paste), sequence)

    async def start_app(self, package: str) -> None:
        await self._send(StartApp(package))
