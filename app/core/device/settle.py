"""Waiting for the screen to stop moving after an action, instead of sleeping a fixed time.

`wait_until_still` reads the phone's frames from the moment the action ended and returns once
the screen has shown the same picture for `quiet_seconds`, or when `cap_seconds` have passed.
Frames are compared through a small box-averaged thumbnail (about 2 ms for a 1080×2400 RGB
screenshot), so a change of a single pixel still counts while the cost stays low; pictures through
a video codec (the stream) with a tolerance for its noise.

Two kinds of frame source work:
- one that captures the screen over and over (screenshot polling): the screen is still when two
  frames whose captures began at least `quiet_seconds` apart show the same picture;
- one that sends a frame only when the screen changes (a video stream; it says so with a true
  `changes_only` attribute): no new frame for `quiet_seconds` is stillness too.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from PIL import Image, ImageChops

from .errors import DeviceError
from .frames import Frame, FrameSource

THUMBNAIL_LONG_SIDE = 300
"""Pixels on the long side of the picture two frames are compared by (box-averaged)."""

CHANGE_TOLERANCE = 2
"""Largest difference of a thumbnail pixel's channel (0–255) still counted as "the same"."""

CODEC_CHANGE_TOLERANCE = 12
"""The same for pictures through a video codec (the stream). A phone's encoder sends a still picture again
ten times, 100 ms apart (MediaCodec's frame repeat, which scrcpy asks for), each a little sharper: measured
on the virtual phone's stream, those differ by at most 8, where a step of a screen's transition differs by 27
and more. With the lossless tolerance the wait would take each sharpening for motion and last a second."""

SAME_PICTURE_PAUSE_SECONDS = 1 / 60
"""A source that answers with the very picture it gave last (a stream saying "nothing new") is asked again a
display frame later, not at once: the wait must not spin through the quiet period."""


@dataclass
class StillHint:
    """Told along the wait, once the screen has moved: `still()` when the picture has stood still for
    `seconds` (shorter than the quiet period: a fast dump can start then and be done when the wait ends),
    with the frame that showed it; `moved()` when it changes again after that (what `still` started now
    shows an old picture)."""

    seconds: float
    still: Callable[[Frame | None], None]
    moved: Callable[[], None]


@dataclass(frozen=True)
class SettleResult:
    """How the wait after an action ended."""

    waited_seconds: float          # from `started` until the screen was judged still (or the cap)
    frames_compared: int           # frames taken after `started` that were looked at
    capped: bool                   # the screen never stood still for long enough: the cap ended the wait
    frame: Frame | None = None     # the last frame seen (the settled picture when not capped)
    errors: int = 0                # capture errors met while waiting (the wait goes on to the cap)

    @property
    def waited_ms(self) -> float:
        return round(self.waited_seconds * 1000, 1)


def thumbnail(image: Image.Image) -> Image.Image:
    """A small box-averaged copy of `image`, the same for the same picture, cheap to compare."""
    if image.mode not in ("RGB", "L"):
        image = image.convert("RGB")      # reduce() is slow on alpha (premultiplies)
    factor = max(1, max(image.size) // THUMBNAIL_LONG_SIDE)
    return image.reduce(factor) if factor > 1 else image.copy()


def pictures_differ(a: Image.Image, b: Image.Image, tolerance: int = CHANGE_TOLERANCE) -> bool:
    """Whether two thumbnails show different screens (another size or mode counts as different)."""
    if a.size != b.size or a.mode != b.mode:
        return True
    extrema = ImageChops.difference(a, b).getextrema()
    bands = cast(tuple[tuple[float, float], ...], (extrema,) if a.mode == "L" else extrema)   # (low, high) a band
    return any(high > tolerance for _low, high in bands)


def change_tolerance(*frames: Frame) -> int:
    """The tolerance `pictures_differ` compares these frames with: the codec's when any came through one."""
    return CODEC_CHANGE_TOLERANCE if any(frame.shot.lossy for frame in frames) else CHANGE_TOLERANCE


def same_screen(a: Frame, b: Frame) -> bool:
    """Whether two frames show the same screen (a stream's pictures: but for its codec's noise)."""
    return a.shot is b.shot or not pictures_differ(thumbnail(a.image), thumbnail(b.image), change_tolerance(a, b))


async def wait_until_still(frames: FrameSource, *, quiet_seconds: float, cap_seconds: float,
                           started: float | None = None, changes_only: bool | None = None,
                           clock: Callable[[], float] = time.monotonic,
                           on_change: Callable[[], None] | None = None,
                           hint: StillHint | None = None) -> SettleResult:
    """Wait until the screen has not changed for `quiet_seconds`, at most `cap_seconds` after `started`.

    `started` (the `clock`, `time.monotonic()` by default, the frames' clock) is when the action
    ended; only frames captured at or after it count. `changes_only` says the source sends a frame
    only when the screen changes (default: the source's `changes_only` attribute, else False).
    Capture errors do not end the wait: it goes on, at most to the cap. Cancelling it (a Stop)
    stops reading frames at once. `on_change` is called once, when the screen is first seen to
    change after `started` (the phone has taken the action in: input injected over a socket is
    handled a moment after it was sent). `hint` is told when the screen, having moved, stands still
    for a shorter time, and when it moves again after that.
    """
    if quiet_seconds < 0 or cap_seconds < 0:
        raise ValueError(f"settle times must not be negative (quiet {quiet_seconds}, cap {cap_seconds})")
    started = clock() if started is None else started
    if changes_only is None:
        changes_only = bool(getattr(frames, "changes_only", False))
    deadline = started + cap_seconds
    compared = errors = 0
    still_since = 0.0                           # capture time of the first frame of the current picture (with it)
    reference: Image.Image | None = None        # that picture's thumbnail
    last: Frame | None = None
    last_seen = started                          # changes-only: when the newest change was captured
    moved = False                                # a change was seen after `started`
    hinted = False                               # hint.still() was called for the current picture

    def result(capped: bool) -> SettleResult:
        return SettleResult(max(0.0, clock() - started), compared, capped, last, errors)

    if cap_seconds == 0 or clock() >= deadline:
        return result(capped=True)
    moment = started                             # the next frame must be captured at or after this
    longest_capture = 0.0                        # polling: the longest a capture has taken
    while True:
        now = clock()
        if now >= deadline:
            return result(capped=True)
        latest = frames.latest()
        if (not changes_only and longest_capture and now + longest_capture > deadline
                and (latest is None or latest.captured_at < moment)):
            # no capture asked for now could come back before the cap: asking would only leave one
            # in flight that delays the next step's screenshot
            await asyncio.sleep(deadline - now)
            return result(capped=True)
        timeout = deadline - now
        if changes_only:
            if hint is not None and moved and not hinted:
                if now - last_seen >= hint.seconds:      # moved, then no new frame for the hint's time
                    hinted = True
                    hint.still(last)
                else:
                    timeout = min(timeout, last_seen + hint.seconds - now)
            timeout = min(timeout, max(0.0, last_seen + quiet_seconds - now))
        try:
            frame = await asyncio.wait_for(frames.frame_after(moment), timeout)
        except TimeoutError:
            if changes_only and hint is not None and moved and not hinted \
                    and clock() < min(deadline, last_seen + quiet_seconds):
                continue                                 # the hint's moment, not the end of the wait
            if changes_only and clock() < deadline:
                return result(capped=False)      # no change for quiet_seconds: still
            return result(capped=True)
        except DeviceError:
            errors += 1
            continue
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise                            # the wait itself was stopped
            return result(capped=False)          # the source closed: nothing more will move
        moment = frame.captured_at + 1e-6
        longest_capture = max(longest_capture, frame.received_at - frame.captured_at)
        compared += 1
        again = last is not None and frame.shot is last.shot
        last = frame
        # the picture given last matched the reference then (or became it)
        picture = reference if again else thumbnail(frame.image)
        if reference is None or picture is None or pictures_differ(picture, reference, change_tolerance(frame)):
            if reference is not None:
                moved = True
                if on_change is not None:
                    on_change()
                    on_change = None
            if hinted and hint is not None:
                hint.moved()
            hinted = False
            reference, still_since = picture, frame.captured_at
            last_seen = max(last_seen, frame.captured_at)
            if quiet_seconds == 0 and not changes_only:
                return result(capped=False)
            continue
        if (hint is not None and moved and not hinted
                and frame.captured_at - still_since >= hint.seconds):
            hinted = True
            hint.still(frame)
        if frame.captured_at - still_since >= quiet_seconds:
            return result(capped=False)
        if again:
            await asyncio.sleep(min(SAME_PICTURE_PAUSE_SECONDS, max(0.0, deadline - clock())))


STREAM_QUIET_SECONDS = 0.1
"""A stream that sent no picture for this long has sent its last (beyond however far behind its pictures run)."""


async def newest_picture(frames: FrameSource) -> Frame:
    """The picture of the screen as it is now. A screenshot taken now is; a stream's first picture to arrive
    from now may be one still on its way from before (a transition's middle, late on a loaded machine). So
    from a stream: its newest picture once those on their way have had time to arrive (however far behind
    its pictures run) and none came for STREAM_QUIET_SECONDS - or, on a screen that never stops moving,
    at most twice that later."""
    moment = time.monotonic()
    if not (getattr(frames, "streaming", False) or getattr(frames, "changes_only", False)):
        return await frames.frame_after(moment)
    fresh_seconds = getattr(frames, "fresh_seconds", None)
    behind = fresh_seconds() if callable(fresh_seconds) else 0.0
    deadline = moment + behind + 2 * STREAM_QUIET_SECONDS
    await asyncio.sleep(behind)
    newest = frames.latest()
    while (left := deadline - time.monotonic()) > 0:
        await asyncio.sleep(min(STREAM_QUIET_SECONDS, left))
        if frames.latest() is newest:
            break                                      # nothing new for the quiet time
        newest = frames.latest()
    return newest if newest is not None else await frames.frame_after(moment)
