"""The phone's screen as a stream of frames that any number of readers share.

A frame source has the newest frame (`latest()`), hands each subscriber the newest frame
when it is ready for one (a slow reader skips frames, it never queues them), and answers
"the first frame captured after this moment" (`frame_after`), so a step can see the screen
as it is after its action. It captures only while someone subscribes or waits; nobody
asking means no work. Screenshot polling is one implementation (one capture in flight at
a time); a streamed one can take its place behind the same interface.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Protocol

from .errors import DeviceError
from .screen_capture import Screenshot

log = logging.getLogger(__name__)

ERROR_PAUSE_SECONDS = 1.0


@dataclass(frozen=True)
class Frame:
    """One picture of the screen and when it was taken (`time.monotonic()` clock).

    `captured_at` is when the capture was asked for: the picture shows the screen as it was
    at that moment or later, so `frame.captured_at >= t` means "taken after t".
    """

    shot: Screenshot
    captured_at: float
    received_at: float
    display_size: tuple[int, int] | None = None
    """The phone's display in pixels when the picture is smaller (a stream scaled to fit
    `mirror.max_size`); None: the picture is the display's own size."""

    @property
    def image(self):
        return self.shot.image

    @property
    def size(self) -> tuple[int, int]:
        return self.shot.size

    @property
    def device_size(self) -> tuple[int, int]:
        """The display's size, which controls' and touches' coordinates are in."""
        return self.display_size or self.shot.size

    def display_shot(self) -> Screenshot:
        """The picture at the display's size (a scaled stream frame is scaled back up, ~10 ms for
        1080×2400: run it off the loop), so control boxes and model coordinates line up with it."""
        if self.device_size == self.shot.size:
            return self.shot
        from PIL import Image

        shot = self.shot
        image = shot.image.resize(self.device_size, Image.Resampling.BILINEAR)
        return Screenshot(image, shot.method, shot.fetch_ms, shot.decode_ms, shot.taken_at, lossy=shot.lossy)


class FrameSource(Protocol):
    def latest(self) -> Frame | None: ...

    def subscribe(self) -> FrameSubscription: ...

    async def frame_after(self, moment: float | None = None) -> Frame: ...


class FrameSubscription:
    """One reader's mailbox: holds only the newest frame (or the newest error) not yet read."""

    def __init__(self, source: FrameFanOut) -> None:
        self._source = source
        self._item: Frame | DeviceError | None = None
        self._ready = asyncio.Event()
        self.closed = False

    def _put(self, item: Frame | DeviceError) -> None:
        self._item = item
        self._ready.set()

    async def next(self) -> Frame:
        """The newest frame not yet read; a capture error is raised once, then frames go on."""
        while True:
            if self.closed:
                raise StopAsyncIteration
            await self._ready.wait()
            self._ready.clear()
            item, self._item = self._item, None
            if isinstance(item, DeviceError):
                raise item
            if item is not None:
                return item

    def __aiter__(self) -> AsyncIterator[Frame]:
        return self

    async def __anext__(self) -> Frame:
        return await self.next()

    def close(self) -> None:
        """Stop receiving frames; the source stops capturing when nobody else reads."""
        if not self.closed:
            self.closed = True
            self._ready.set()
            self._source._unsubscribe(self)


class FrameFanOut:
    """What every frame source shares: the newest frame, the readers' mailboxes, the `frame_after`
    waiters, and handing a frame (or an error) to all of them. Subclasses capture the frames and
    start doing so in `_ensure_running()` when a reader comes."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._latest: Frame | None = None
        self._subscribers: list[FrameSubscription] = []
        self._waiters: list[tuple[float, asyncio.Future]] = []
        self._task: asyncio.Task | None = None
        self._closed = False

    def latest(self) -> Frame | None:
        return self._latest

    @property
    def subscriber_count(self) -> int:
        return len(self._subscribers)

    def subscribe(self) -> FrameSubscription:
        subscription = FrameSubscription(self)
        self._subscribers.append(subscription)
        if self._latest is not None:
            subscription._put(self._latest)
        self._ensure_running()
        return subscription

    def _unsubscribe(self, subscription: FrameSubscription) -> None:
        if subscription in self._subscribers:
            self._subscribers.remove(subscription)

    def _ensure_running(self) -> None:
        raise NotImplementedError

    @contextlib.contextmanager
    def _waiting(self, moment: float) -> Iterator[asyncio.Future]:
        """A future the first frame captured at or after `moment` will answer; withdrawn on leaving."""
        waiter = asyncio.get_running_loop().create_future()
        if self._closed:          # a wait begun after the end is answered as those under way were
            waiter.cancel()
        entry = (moment, waiter)
        self._waiters.append(entry)
        self._ensure_running()
        try:
            yield waiter
        finally:
            if entry in self._waiters:
                self._waiters.remove(entry)
            if not waiter.done():
                waiter.cancel()

    def _deliver(self, frame: Frame) -> None:
        """A new frame: the newest one now, in every mailbox, and the answer of waiters it is new enough for."""
        self._latest = frame
        for subscription in list(self._subscribers):
            subscription._put(frame)
        for entry in list(self._waiters):
            moment, waiter = entry
            if frame.captured_at >= moment:
                self._waiters.remove(entry)       # served: a polling loop stops if nobody else waits
                if not waiter.done():
                    waiter.set_result(frame)

    def _deliver_error(self, error: DeviceError) -> None:
        for subscription in list(self._subscribers):
            subscription._put(error)
        waiters, self._waiters = self._waiters, []
        for _moment, waiter in waiters:
            if not waiter.done():
                waiter.set_exception(error)

    async def _close_readers(self) -> None:
        """For good: the readers see the end of the stream, waiters are cancelled, the task stops."""
        self._closed = True
        for subscription in list(self._subscribers):
            subscription.close()
        for _moment, waiter in list(self._waiters):
            if not waiter.done():
                waiter.cancel()
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


class ScreenshotPolling(FrameFanOut):
    """A frame source that takes screenshots one after another while anyone reads."""

    def __init__(self, capture: Callable[[], Awaitable[Screenshot]], *, name: str = "phone") -> None:
        super().__init__(name)
        self._capture = capture
        self.method = "screenshots"

    @property
    def capturing(self) -> bool:
        return self._task is not None and not self._task.done()

    async def frame_after(self, moment: float | None = None) -> Frame:
        """The first frame whose capture started at or after `moment` (default: now)."""
        moment = time.monotonic() if moment is None else moment
        latest = self._latest
        if latest is not None and latest.captured_at >= moment:
            return latest
        with self._waiting(moment) as waiter:
            return await waiter

    def _ensure_running(self) -> None:
        if not self._closed and not self.capturing:
            self._task = asyncio.ensure_future(self._capture_loop())

    def _wanted(self) -> bool:
        return not self._closed and bool(self._subscribers or self._waiters)

    async def _capture_loop(self) -> None:
        while self._wanted():
            started = time.monotonic()
            try:
                shot = await self._capture()
            except DeviceError as exc:
                self._deliver_error(exc)
                await asyncio.sleep(ERROR_PAUSE_SECONDS)
                continue
            except asyncio.CancelledError:
                raise
            except Exception as exc:      # a bug in decoding must not end the mirror silently
                log.exception("capturing a frame of %s failed", self.name)
                self._deliver_error(DeviceError(f"The screen could not be read: {exc}"))
                await asyncio.sleep(ERROR_PAUSE_SECONDS)
                continue
            self._deliver(Frame(shot, started, time.monotonic()))

    async def close(self) -> None:
        """Stop capturing for good; readers see the end of the stream."""
        await self._close_readers()
