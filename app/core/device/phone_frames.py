"""The phone's frames: scrcpy's video stream where it runs, screenshot polling where it cannot.

`PhoneFrames` is the frame source a PhoneSession hands to the mirror, runs and recordings. While
anyone reads (a subscription, a `frame_after` wait, a run's `hold()`), it keeps scrcpy's server
streaming: frames arrive only when the screen changes, so a still screen costs nothing, and the
control socket carries input (`device.use_input_channel`). Nobody reading for `LINGER_SECONDS`
closes the stream. When the server cannot run (an old phone, one that forbids it, no decoder
here, `mirror.stream = "screenshots"`, or a stream whose packets keep coming while none decodes for
`scrcpy_client.UNDECODABLE_SECONDS`) it falls back to `ScreenshotPolling`, and `status` says
which is in use and why. A stream that breaks (the phone unplugged) is reported to the readers
as an error and started again once the phone answers.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from app.android.scrcpy import ResetVideo
from app.core.config import MirrorSettings

from .errors import DeviceError
from .frames import ERROR_PAUSE_SECONDS, Frame, FrameFanOut, ScreenshotPolling
from .scrcpy_client import ScrcpySession, ScrcpyUnavailable, StreamSettings
from .scrcpy_input import ScrcpyInput
from .screen_capture import PackedPixels, StreamShot

if TYPE_CHECKING:
    from PIL import Image

log = logging.getLogger(__name__)

LINGER_SECONDS = 3.0       # keep the stream this long after the last reader left (a run's steps come and go)
FIRST_FRAME_RECHECK_SECONDS = 0.1     # while a stream has sent no frame yet, how often `frame_after` looks again
FRESH_SECONDS = 0.05       # a change made before `frame_after`'s moment shows in a frame within this time
STREAM = "scrcpy stream"
SCREENSHOTS = "screenshots"


class PhoneFrames(FrameFanOut):
    """A FrameSource over scrcpy's stream, falling back to screenshot polling."""

    def __init__(self, device, settings: Callable[[], MirrorSettings] = MirrorSettings, *, name: str = "phone",
                 start_session: Callable[..., ScrcpySession] | None = None) -> None:
        super().__init__(name)
        self.device = device
        self._settings = settings
        self._start_session = start_session or ScrcpySession
        self.polling = ScreenshotPolling(device.screenshot, name=name)
        self.status = "not started"
        self.stream_refused = ""                    # why the stream cannot run here ("" = not known to fail)
        self._session: ScrcpySession | None = None
        self._holds = 0
        self._display: tuple[int, int] = (0, 0)
        self.on_status: list[Callable[[str], None]] = []
        self._packet_listeners: list = []
        self._ended_reason = ""
        self._restart = False
        self._abandoned: list[tuple[asyncio.Future, ScrcpySession]] = []   # starts cut short by close()
        self._view_size: tuple[int, int] | None = None

    @property
    def view_size(self) -> tuple[int, int] | None:
        """Where a mirror shows the frames (pixels): the stream's decoder makes each picture's BGRX rows
        for it too (`Screenshot.pixels`), so the mirror wraps them as they come. None: no mirror."""
        return self._view_size

    @view_size.setter
    def view_size(self, size: tuple[int, int] | None) -> None:
        self._view_size = size
        if self._session is not None:
            self._session.view_size = size

    # ------------------------------------------------------------------ what readers see

    @property
    def method(self) -> str:
        """"scrcpy stream" or "screenshots": where frames come from now (or will, once read)."""
        return STREAM if self.streaming else SCREENSHOTS

    @property
    def streaming(self) -> bool:
        return self._session is not None and self._session.alive

    @property
    def changes_only(self) -> bool:
        return False      # frame_after answers "the screen at this moment" on the stream too

    @property
    def session(self) -> ScrcpySession | None:
        return self._session

    def hold(self) -> Callable[[], None]:
        """Keep the stream running (a run between its steps) without reading frames; call the
        returned function to let go. On screenshot polling it costs nothing."""
        self._holds += 1
        self._ensure_running()
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                self._holds -= 1
        return release

    async def frame_after(self, moment: float | None = None) -> Frame:
        """A frame showing the screen at or after `moment` (default: now)."""
        moment = time.monotonic() if moment is None else moment
        if self.stream_refused or self._settings().stream == "screenshots":
            frame = await self.polling.frame_after(moment)
            if self._latest is None or frame.captured_at > self._latest.captured_at:
                self._latest = frame
            return frame
        latest = self._latest
        if self.streaming and latest is not None and latest.captured_at >= moment:
            return latest
        with self._waiting(moment) as waiter:
            while True:
                if self.streaming and self._latest is not None:
                    # the stream sends every change: none within FRESH_SECONDS (plus however far behind its
                    # pictures run just now) means the screen is as last sent
                    fresh = self.fresh_seconds()
                    timeout = max(0.0, moment + fresh - time.monotonic())
                    try:
                        return await asyncio.wait_for(asyncio.shield(waiter), timeout)
                    except TimeoutError:
                        if self.streaming and self._latest is not None:      # unchanged until `fresh` ago
                            return dataclasses.replace(self._latest,
                                                       captured_at=max(moment, time.monotonic() - fresh))
                # No frame yet (a stream just started). The first may be captured just before `moment` and
                # arrive after it: it does not answer the wait, and a still screen sends no other. Look again.
                try:
                    return await asyncio.wait_for(asyncio.shield(waiter), FIRST_FRAME_RECHECK_SECONDS)
                except TimeoutError:
                    continue

    def fresh_seconds(self) -> float:
        """How soon a change on the phone shows in a streamed frame: FRESH_SECONDS, and more while the
        stream's pictures arrive later than usual (a loaded machine or phone)."""
        session = self._session
        lag = session.lag.seconds if session is not None else 0.0
        return FRESH_SECONDS + lag

    # ------------------------------------------------------------------ running

    def _wanted(self) -> bool:
        return not self._closed and bool(self._subscribers or self._waiters or self._holds)

    def _read(self) -> bool:
        """Someone reads frames (holds keep a stream running but are no reason to poll screenshots)."""
        return not self._closed and bool(self._subscribers or self._waiters)

    def _ensure_running(self) -> None:
        if not self._closed and (self._task is None or self._task.done()):
            self._task = asyncio.ensure_future(self._run())

    def _set_status(self, status: str) -> None:
        if status != self.status:
            self.status = status
            log.info("frames of %s: %s", self.name, status)
            for listener in list(self.on_status):
                listener(status)

    async def _run(self) -> None:
        while self._wanted():
            settings = self._settings()
            if settings.stream == "screenshots" or self.stream_refused:
                reason = "set in Settings › Mirror" if settings.stream == "screenshots" else self.stream_refused
                self._set_status(f"{SCREENSHOTS} ({reason})")
                if self._read():
                    await self._poll()
                else:
                    await asyncio.sleep(0.1)       # only held: nothing to poll for
                continue
            try:
                await self._stream(settings)
            except ScrcpyUnavailable as exc:
                self.stream_refused = str(exc)
                log.warning("scrcpy cannot stream %s, polling screenshots: %s", self.name, exc)
            except DeviceError as exc:            # the phone went away: tell the readers, try again later
                self._set_status(f"disconnected: {exc}")
                self._deliver_error(exc)
                await asyncio.sleep(ERROR_PAUSE_SECONDS)

    async def _poll(self) -> None:
        """Relay screenshot polling's frames while wanted (and polling is the way)."""
        inner = self.polling.subscribe()
        try:
            while self._read() and (self.stream_refused or self._settings().stream == "screenshots"):
                try:
                    frame = await asyncio.wait_for(inner.next(), 0.5)
                except TimeoutError:
                    continue
                except DeviceError as exc:
                    self._deliver_error(exc)
                    continue
                self._deliver(frame)
        finally:
            inner.close()

    async def _stream(self, settings: MirrorSettings) -> None:
        codec = "h264" if settings.video_codec in ("auto", "h264") else settings.video_codec
        session = await self._open(settings, codec)
        self._session = session
        self._attach_listeners(session, list(self._packet_listeners))
        self.device.use_input_channel(ScrcpyInput(session, self._oriented_display))
        meta = session.codec_meta
        if meta is None:
            raise DeviceError(f"The stream of {self.name} started without its video header")
        self._set_status(f"{STREAM} ({meta.codec.upper()} {meta.width}×{meta.height})")
        idle_since: float | None = None
        self._restart = False
        try:
            while session.alive and not self._restart:
                await asyncio.sleep(0.1)
                if self._wanted():
                    idle_since = None
                elif idle_since is None:
                    idle_since = time.monotonic()
                elif time.monotonic() - idle_since >= LINGER_SECONDS:
                    self._set_status(f"{STREAM} (paused: nobody is watching)")
                    return
            if session.undecodable and not self._closed:     # packets, but no picture: screenshots instead
                raise ScrcpyUnavailable(f"{session.undecodable}; showing screenshots instead")
            if not self._closed and not self._restart:
                raise DeviceError(f"The stream of {self.name} stopped: {self._ended_reason}")
        finally:
            channel = self.device.input_channel
            if channel is not None and getattr(channel, "_session", None) is session:
                self.device.use_input_channel(None)
            self._session = None
            await asyncio.to_thread(session.close)

    async def _open(self, settings: MirrorSettings, codec: str) -> ScrcpySession:
        info = await self.device.screen_info(refresh=True)
        self._display = info.display_size
        self._ended_reason = ""
        loop = asyncio.get_running_loop()

        def on_frame(make_image: Callable[[], Image.Image], size: tuple[int, int], received_at: float,
                     decode_ms: float, pixels: PackedPixels | None = None) -> None:
            shot = StreamShot(make_image, size, STREAM, decode_ms, pixels)
            frame = Frame(shot, received_at, received_at, self._oriented_display(size))
            loop.call_soon_threadsafe(self._deliver, frame)

        def on_end(reason: str) -> None:
            self._ended_reason = reason

        stream_settings = StreamSettings(settings.max_size, settings.max_fps,
                                         int(settings.video_bit_rate_mbps * 1_000_000), codec, settings.show_touches,
                                         self.device.limits.max_screenshot_side)
        session = self._start_session(self.device.transport, self.device.serial, stream_settings,
                                      on_frame=on_frame, on_end=on_end)
        session.view_size = self._view_size
        started = loop.run_in_executor(None, session.start)
        try:
            return await asyncio.shield(started)
        except asyncio.CancelledError:     # closed while starting: close() closes it once it has started
            self._abandoned.append((started, session))
            raise
        except ScrcpyUnavailable as exc:
            if exc.codec_refused and codec == "h264" and settings.video_codec == "auto":
                return await self._open(settings, "av1")      # a phone (or virtual phone) without H.264
            raise

    def _oriented_display(self, video_size: tuple[int, int] | None = None) -> tuple[int, int]:
        """The display's size turned like the video (a rotation turns the video first)."""
        width, height = self._display
        video_w, video_h = video_size or (self._session.video_size if self._session else (0, 0))
        if video_w and video_h and (video_w > video_h) != (width > height):
            return height, width
        return width, height

    def settings_changed(self) -> None:
        """Mirror settings changed: start the stream again with them (and try the stream again
        where it had been refused); the readers keep their subscriptions."""
        self.stream_refused = ""
        self._restart = True

    # ------------------------------------------------------------------ packets (the recording)

    def add_packet_listener(self, listener) -> Callable[[], None]:
        """Hand every video packet to `listener(meta, packet)` (on the stream's thread), from the
        current codec configuration and a fresh key frame on; on every stream started later too.
        Nothing arrives while the frames come from screenshots."""
        self._packet_listeners.append(listener)
        if self._session is not None:
            self._attach_listeners(self._session, [listener])
        release = self.hold()                # a recording keeps the stream running

        def remove() -> None:
            release()
            if listener in self._packet_listeners:
                self._packet_listeners.remove(listener)
            session = self._session
            if session is not None and listener in session.packet_listeners:
                session.packet_listeners.remove(listener)
        return remove

    def request_key_frame(self) -> None:
        """Ask the stream for a fresh key frame (a recording going on after a cut); nothing on screenshots."""
        session = self._session
        if session is not None:
            session.send(ResetVideo())

    @staticmethod
    def _attach_listeners(session: ScrcpySession, listeners: list) -> None:
        if not listeners:
            return
        for listener in listeners:
            if session.last_config is not None:
                listener(session.codec_meta, session.last_config)
            session.packet_listeners.append(listener)
        try:
            session.send(ResetVideo())           # a key frame now, so a recording starts with a picture
        except DeviceError:
            pass

    async def close(self) -> None:
        """Stop for good: close the stream, stop polling, end the readers."""
        await self._close_readers()
        for started, session in self._abandoned:      # a start under way: wait for it, then close its session
            await asyncio.gather(asyncio.wait_for(started, 15), return_exceptions=True)
            await asyncio.to_thread(session.close)
        self._abandoned.clear()
        await self.polling.close()
