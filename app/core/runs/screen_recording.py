"""A run's screen as an MP4: scrcpy's own video packets written into a file, never re-encoded.

When the phone's frames come from scrcpy's stream, the frame source lets a listener see the
encoded packets (`add_packet_listener`): first the stream's config packet, then packets from a
fresh key frame on. `ScreenRecording.feed` takes them on the source's worker thread and only
queues them; one writer thread muxes them with PyAV into `screen.mp4` in the run folder (written
as `screen.mp4.tmp` and renamed when complete, like every file of a run). So a person can watch
what happened between the step screenshots, at the stream's pace.

- The config packet becomes the file's codec set-up: it is put in front of the first key frame,
  where FFmpeg's mp4 muxer finds it (H.264: Annex-B SPS/PPS, which the muxer turns into `avcC`
  and length-prefixed NAL units; AV1: the sequence header OBU, also from an `av1C` record), as
  scrcpy's own client merges it into the packet after it.
- Packets before the first key frame are dropped (they cannot be decoded); so are packets when
  the queue is full, until the next key frame (counted in `dropped`). Memory stays bounded.
- A config packet with another codec or size (the phone turned) ends the file and starts the
  next: screen.mp4, screen-2.mp4, …
- A *screened* recording (a run's) keeps what leaves the computer free of private screens: packets wait
  until a look at the screen (`mark`, from `recording_privacy.py`) says whether the screen was private
  (an app on the never-send list, a password field being typed into); a stretch that ends or starts at
  a private look is cut (counted in `cut`), and the file goes on from a fresh key frame after it.
- A write error (disk full, a folder that is gone) stops the recording with one warning; it
  never reaches the run. A file that cannot be finished is removed; nothing empty is left.

The muxer gets no codec context (`add_mux_stream`): opening an encoder only to copy packets would
fail in the Linux bundle, whose libx264 is a stand-in that refuses to open (docs/licences.md).
"""

from __future__ import annotations

import collections
import fractions
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import av

log = logging.getLogger(__name__)

MICROSECONDS = fractions.Fraction(1, 1_000_000)
MAX_QUEUED_PACKETS = 600                    # 10 s at 60 fps
MAX_QUEUED_BYTES = 64 * 1024 * 1024         # a few 4K key frames
TEMP_SUFFIX = ".tmp"                        # as app.core.agent.trajectory.TEMP_SUFFIX
RECORDED_CODECS = ("h264", "av1")
AV1C_MARKER = 0x80                          # first byte of an av1C record: marker bit, then version 1


@dataclass(frozen=True)
class _Item:
    """One packet as fed: its stream's codec and size, and when it arrived (monotonic seconds)."""

    codec: str
    size: tuple[int, int]
    data: bytes
    pts: int | None
    config: bool
    key_frame: bool
    arrived: float


_CLOSE = object()


def config_prefix(codec: str, config: bytes) -> bytes:
    """What goes in front of the first key frame so the muxer finds the stream's set-up: the
    config as is (H.264 Annex-B, AV1 OBUs), or an `av1C` record's OBUs."""
    if codec == "av1" and config and config[0] & AV1C_MARKER:
        return config[4:]                     # av1C: 4 bytes of header, then the configOBUs
    return config


class ScreenRecording:
    """Writes fed scrcpy packets into MP4 files in `folder`. `feed` never blocks; `close` finishes."""

    def __init__(self, folder: Path | str, base_name: str = "screen", *, max_packets: int = MAX_QUEUED_PACKETS,
                 max_bytes: int = MAX_QUEUED_BYTES, clock: Callable[[], float] = time.monotonic,
                 screened: bool = False, request_key_frame: Callable[[], None] | None = None) -> None:
        self.folder = Path(folder)
        self.base_name = base_name
        self.dropped = 0               # packets left out because the queue was full
        self.cut = 0                   # packets left out because they may show a private screen
        self._screened = screened      # packets wait in _pending for a look at the screen (`mark`)
        self._pending: collections.deque[_Item] = collections.deque()
        self._pending_bytes = 0
        self._last_private = False     # what the latest look said
        self._need_key = False         # after a cut: nothing goes on until a key frame
        self._request_key_frame = request_key_frame
        self.problem = ""              # the write error that stopped the recording, in words
        self._max_packets = max_packets
        self._max_bytes = max_bytes
        self._clock = clock
        self._queue: collections.deque = collections.deque()
        self._queued_bytes = 0
        self._skipping = False         # the queue overflowed: wait for a key frame
        self._closing = False
        self._closed_at = 0.0          # when close() was called: the last frame lasts until then
        self._lock = threading.Condition()
        self._files: list[str] = []
        self._detach: Callable[[], None] | None = None
        self._close_lock = threading.Lock()
        self._thread = threading.Thread(target=self._write_all, name=f"agentdesk-{base_name}-recording", daemon=True)
        self._thread.start()

    def __repr__(self) -> str:
        return f"ScreenRecording({str(self.folder)!r}, files={self._files})"

    # ------------------------------------------------------------------ the caller's side

    def feed(self, meta: Any, packet: Any) -> None:
        """Take one packet (`VideoCodecMeta`, `VideoPacket`); thread-safe, never blocks, never raises."""
        try:
            item = _Item(meta.codec, (int(meta.width), int(meta.height)), bytes(packet.data), packet.pts,
                         bool(packet.config), bool(packet.key_frame), self._clock())
        except Exception as exc:      # noqa: BLE001 - a listener must not raise into the source's thread
            log.debug("screen recording: a packet that is not one was ignored (%s)", exc)
            return
        with self._lock:
            if self._closing or self.problem:
                return
            if self._screened:
                self._hold(item)
                return
            self._enqueue(item)

    def _hold(self, item: _Item) -> None:
        """Under the lock: keep a screened packet until a look at the screen decides on it (bounded as the queue)."""
        full = (len(self._pending) >= self._max_packets
                or self._pending_bytes + len(item.data) > self._max_bytes)
        if full and not item.config:
            self.dropped += 1
            self._need_key = True           # what follows cannot be decoded without a key frame
            return
        self._pending.append(item)
        self._pending_bytes += len(item.data)

    def mark(self, private: bool, at: float | None = None) -> None:
        """A look at the screen at `at` (default now): whether it showed a private screen. The packets that
        arrived since the look before go to the file, or are cut when either look was private."""
        at = self._clock() if at is None else at
        with self._lock:
            cut = private or self._last_private
            self._release(lambda item: item.arrived <= at, cut)
            ask_key_frame = self._last_private and not private
            self._last_private = private
        if ask_key_frame and self._request_key_frame is not None:
            try:
                self._request_key_frame()          # so the file can go on at once
            except Exception as exc:      # noqa: BLE001 - the stream's business: the next key frame will do
                log.debug("screen recording: no key frame could be asked for (%s)", exc)

    def _release(self, due: Callable[[_Item], bool], cut: bool) -> None:
        """Under the lock: hand the due pending packets to the writer, or cut them (config packets always go)."""
        while self._pending and due(self._pending[0]):
            item = self._pending.popleft()
            self._pending_bytes -= len(item.data)
            if item.config:
                self._enqueue(item)
            elif cut or (self._need_key and not item.key_frame):
                self.cut += 1
                self._need_key = True
            else:
                self._need_key = False
                self._enqueue(item)

    def _enqueue(self, item: _Item) -> None:
        """Under the lock: queue a packet for the writer, or drop it when the queue is full."""
        if self._skipping and not (item.config or item.key_frame):
            self.dropped += 1
            return
        full = (len(self._queue) >= self._max_packets
                or self._queued_bytes + len(item.data) > self._max_bytes)
        if full and not item.config:      # config packets are small and keep the file's set-up right
            self._skipping = True
            self.dropped += 1
            return
        self._skipping = False
        self._queue.append(item)
        self._queued_bytes += len(item.data)
        self._lock.notify()

    def attach(self, detach: Callable[[], None]) -> None:
        """The function that stops the packets coming (called first thing by `close`)."""
        self._detach = detach

    def stop_listening(self) -> None:
        """Stop the packets coming (idempotent); call it on the thread that attached, then `close`."""
        detach, self._detach = self._detach, None
        if detach is not None:
            try:
                detach()
            except Exception as exc:      # noqa: BLE001 - the source's business; the file still gets finished
                log.warning("screen recording: could not stop listening to the stream (%s)", exc)

    def close(self, timeout: float | None = None) -> list[str]:
        """Stop listening, write what is queued, finish the file(s); the names of the files written.

        Idempotent and callable from any thread. Waits at most `timeout` seconds for the writer
        (None: until it is done, which takes as long as writing the queued packets).
        """
        with self._close_lock:
            self.stop_listening()
            with self._lock:
                if not self._closing:
                    self._closed_at = self._clock()
                    self._release(lambda item: True, self._last_private)    # the end is as the last look saw it
                self._closing = True
                self._queue.append(_CLOSE)
                self._lock.notify()
            if threading.current_thread() is not self._thread:
                self._thread.join(timeout)
            if self.dropped:
                log.info("screen recording %s: %d packets were dropped (the disk was slower than the stream)",
                         self.folder, self.dropped)
            return list(self._files)

    @property
    def queued(self) -> int:
        """How many packets wait for the writer."""
        with self._lock:
            return sum(item is not _CLOSE for item in self._queue)

    @property
    def files(self) -> list[str]:
        """The names of the files finished so far (inside `folder`)."""
        return list(self._files)

    # ------------------------------------------------------------------ the writer thread

    def _next(self) -> Any:
        with self._lock:
            while not self._queue:
                self._lock.wait()
            item = self._queue.popleft()
            if item is not _CLOSE:
                self._queued_bytes -= len(item.data)
            return item

    def _write_all(self) -> None:
        muxer: _Mp4File | None = None
        config: dict[tuple[str, tuple[int, int]], bytes] = {}
        prefix = b""                  # config to put in front of the next key frame
        while True:
            item = self._next()
            if item is _CLOSE:
                break
            if self.problem:
                continue              # stopped: drain until closed
            try:
                if item.config:
                    if muxer is not None and (item.codec, item.size) != muxer.shape:
                        self._finish(muxer, item.arrived)     # the phone turned, or the codec changed
                        muxer = None
                    if config.get((item.codec, item.size)) != item.data:
                        prefix = config_prefix(item.codec, item.data)
                    config[(item.codec, item.size)] = item.data
                    continue
                if muxer is not None and (item.codec, item.size) != muxer.shape:
                    self._finish(muxer, item.arrived)     # media of another shape without its config
                    muxer = None
                    prefix = config_prefix(item.codec, config.get((item.codec, item.size), b""))
                if muxer is None:
                    if not item.key_frame or item.codec not in RECORDED_CODECS:
                        continue                # nothing can be decoded before a key frame
                    muxer = _Mp4File(self.folder / self._next_name(), item.codec, item.size)
                    prefix = prefix or config_prefix(item.codec, config.get((item.codec, item.size), b""))
                data = item.data
                if item.key_frame and prefix:
                    data, prefix = prefix + data, b""
                muxer.write(data, item.pts, item.key_frame, item.arrived)
            except Exception as exc:  # noqa: BLE001 - av.FFmpegError, OSError…: the run goes on without it
                self._fail(exc, muxer)
                muxer = None
        if muxer is not None:
            try:
                self._finish(muxer, self._closed_at)
            except Exception as exc:  # noqa: BLE001
                self._fail(exc, muxer)

    def _next_name(self) -> str:
        number = len(self._files) + 1
        return f"{self.base_name}.mp4" if number == 1 else f"{self.base_name}-{number}.mp4"

    def _finish(self, muxer: _Mp4File, ended: float) -> None:
        muxer.finish(ended)
        self._files.append(muxer.path.name)

    def _fail(self, exc: BaseException, muxer: _Mp4File | None) -> None:
        self.problem = f"{type(exc).__name__}: {exc}"
        log.warning("The run's screen recording in %s stopped: %s", self.folder, self.problem)
        if muxer is not None:
            muxer.discard()
        with self._lock:
            self._queue = collections.deque(item for item in self._queue if item is _CLOSE)
            self._queued_bytes = 0


class _Mp4File:
    """One MP4 being written (under a temporary name) from packets of one codec and size."""

    def __init__(self, path: Path, codec: str, size: tuple[int, int]) -> None:
        import av

        self.path = path
        self.shape = (codec, size)
        self._temp = path.with_name(path.name + TEMP_SUFFIX)
        self._container = av.open(str(self._temp), "w", format="mp4")
        try:
            self._stream = self._container.add_mux_stream(codec, width=size[0], height=size[1])
            self._stream.time_base = MICROSECONDS
        except BaseException:
            self.discard()
            raise
        self._packet_type = av.Packet
        self._first_pts: int | None = None
        self._last_dts = -1
        self._held: av.Packet | None = None          # the last packet, written when its duration is known
        self._held_arrived = 0.0

    def write(self, data: bytes, pts: int | None, key_frame: bool, arrived: float) -> None:
        """Queue one media packet; the one before it is written now that its duration is known."""
        pts = pts or 0
        if self._first_pts is None:
            self._first_pts = pts
        elif pts - self._first_pts <= self._last_dts and self._held is not None:
            # the stream restarted (the phone came back) with a clock that went back: go on from
            # the last packet by the time that really passed
            gap = max(1, round((arrived - self._held_arrived) * 1_000_000))
            self._first_pts = pts - (self._last_dts + gap)
        dts = max(pts - self._first_pts, self._last_dts + 1)     # the muxer needs growing times
        self._last_dts = dts
        packet = self._packet_type(data)
        packet.stream = self._stream
        packet.time_base = MICROSECONDS
        packet.pts = packet.dts = dts
        packet.is_keyframe = key_frame
        self._flush_held(dts)
        self._held, self._held_arrived = packet, arrived

    def _flush_held(self, next_dts: int) -> None:
        if self._held is not None:
            self._held.duration = max(1, next_dts - (self._held.dts or 0))     # dts: set when it was held
            held, self._held = self._held, None
            self._container.mux(held)

    def finish(self, ended: float) -> None:
        """Write the last packet (lasting until `ended`: the screen stayed so) and the index; rename into place."""
        if self._held is not None:
            self._flush_held((self._held.dts or 0) + max(1, round((ended - self._held_arrived) * 1_000_000)))
        self._container.close()
        os.replace(self._temp, self.path)

    def discard(self) -> None:
        """Give up this file: close what can be closed and remove it (half an MP4 does not play)."""
        try:
            self._container.close()
        except Exception:             # noqa: BLE001 - already failing; the file goes anyway
            pass
        try:
            self._temp.unlink(missing_ok=True)
        except OSError:
            pass


def record_run_screen(frames: Any, folder: Path | str, enabled: bool, screened: bool = False) -> ScreenRecording | None:
    """Record the run's screen into `folder` when enabled and the frames come from scrcpy's stream
    (a frame source with `add_packet_listener`); None otherwise (screenshot polling: nothing to record).
    `screened`: packets wait for the run's looks at the screen (`ScreenRecording.mark`).
    Never raises: a recording that cannot start is a warning, not a reason to stop the run."""
    add_listener = getattr(frames, "add_packet_listener", None)
    if not enabled or add_listener is None:
        return None
    try:
        import av  # noqa: F401 - the app can run without PyAV: then nothing is recorded
    except ImportError as exc:
        log.warning("The run's screen is not recorded: PyAV is not installed (%s)", exc)
        return None
    recording = ScreenRecording(folder, screened=screened, request_key_frame=getattr(frames, "request_key_frame", None))
    try:
        recording.attach(add_listener(recording.feed))
    except Exception as exc:          # noqa: BLE001
        log.warning("The run's screen is not recorded: the stream refused a listener (%s)", exc)
        recording.close()
        return None
    return recording
