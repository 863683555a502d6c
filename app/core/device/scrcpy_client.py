"""scrcpy's own server on the phone, started and read by the app: the screen as H.264 (or AV1)
packets, decoded here, and a control socket for input.

The way scrcpy starts it: push the pinned server file (checked by SHA-256 first) to
/data/local/tmp, run `CLASSPATH=… app_process / com.genymobile.scrcpy.Server 3.3.4 key=value…`
in an `adb shell` that stays open, then connect to `localabstract:scrcpy_<scid>` as ADB device
services (the server in forward-tunnel mode) — no `adb forward` port on this machine, so it
works the same for a phone on another machine's ADB server. The first connection is the video
socket (a dummy byte, the device name, the codec and size, then framed packets), the second the
control socket (control messages out, clipboard messages in).

`ScrcpySession.start()` blocks (run it in a worker thread); once started, one thread reads and
decodes the video (PyAV) and hands each picture to `on_frame`, one reads the device messages,
one drains the server's log. Everything ends with `close()` or when the phone goes away
(`on_end` is called once with the reason).
"""

from __future__ import annotations

import collections
import functools
import logging
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from PIL import Image

from app.android.scrcpy import (
    DEVICE_SERVER_PATH,
    AckClipboard,
    ControlMessage,
    DeviceClipboard,
    DeviceMessageReader,
    DeviceMeta,
    ProtocolError,
    ServerOptions,
    StreamDisabled,
    VideoCodecMeta,
    VideoPacket,
    VideoStreamReader,
    server_command,
)
from app.core.scrcpy_server_file import ServerFileError, verified_server_bytes

from .adb_transport import AdbTransport
from .errors import DeviceError
from .screen_capture import PackedPixels, shrink_factor
from .stream_lag import StreamLag

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_SECONDS = 10.0    # the server's JVM takes 0.3–1 s to start on a phone, more on a slow one
CONNECT_RETRY_SECONDS = 0.1
DECODERS = {"h264": ("h264", {}), "av1": ("libdav1d", {"max_frame_delay": "1"})}
LOG_LINES_KEPT = 40
UNDECODABLE_SECONDS = 5.0
"""Packets arriving for this long without one picture decoded from them: the stream is given up as
undecodable (the mirror polls screenshots). A still screen sends no packets and is never given up."""

FrameHandler = Callable[[Callable[[], "Image.Image"], tuple[int, int], float, float, PackedPixels], None]
"""(make the RGB picture, its size, received_at, decode_ms, the view's BGRX rows)."""
PacketHandler = Callable[[VideoCodecMeta, VideoPacket], None]


def check_decoder(codec: str) -> None:
    """Raise ScrcpyUnavailable unless PyAV is here and can decode `codec`."""
    decoder_name, _ = DECODERS.get(codec, (None, None))
    if decoder_name is None:
        raise ScrcpyUnavailable(f"this app cannot decode {codec}")
    try:
        import av

        av.CodecContext.create(decoder_name, "r")
    except ImportError as exc:
        raise ScrcpyUnavailable(f"PyAV is not installed ({exc})") from exc
    except Exception as exc:      # noqa: BLE001 - a PyAV built without this decoder
        raise ScrcpyUnavailable(f"this PyAV cannot decode {codec} ({exc})") from exc


class UndecodableStream(Exception):
    """The video keeps coming but none of it decodes (the message says since when)."""


class ScrcpyUnavailable(DeviceError):
    """scrcpy's server cannot stream this phone (refused, too old, no decoder here); the message
    says why. The mirror then polls screenshots."""

    def __init__(self, message: str, *, codec_refused: bool = False):
        super().__init__(message)
        self.codec_refused = codec_refused


@dataclass(frozen=True)
class StreamSettings:
    """What the app asks the server for."""

    max_size: int = 1280
    max_fps: int = 60
    bit_rate: int = 8_000_000
    codec: str = "h264"
    show_touches: bool = False
    max_side: int = 4096
    """The largest picture side accepted (limits.max_screenshot_side): asked of the server as its
    max_size, and a server that sends larger pictures anyway is refused."""

    def options(self) -> ServerOptions:
        max_size = min(self.max_size or self.max_side, self.max_side)
        return ServerOptions.for_mirror(video_codec=self.codec, max_size=max_size, max_fps=float(self.max_fps),
                                        video_bit_rate=self.bit_rate, show_touches=self.show_touches,
                                        send_frame_meta=True, clipboard_autosync=False)


def rgb_picture(picture) -> Image.Image:
    """A decoded video picture as an RGB image (~2x faster than PyAV's to_image(), no numpy needed)."""
    rgb = picture.reformat(format="rgb24")
    plane = rgb.planes[0]
    return Image.frombuffer("RGB", (rgb.width, rgb.height), plane, "raw", "RGB", plane.line_size, 1)


class ScrcpySession:
    """One server running on one phone, its sockets and its threads."""

    def __init__(self, transport: AdbTransport, serial: str, settings: StreamSettings, *,
                 on_frame: FrameHandler, on_end: Callable[[str], None]) -> None:
        self.transport, self.serial, self.settings = transport, serial, settings
        self.options = settings.options()
        self.on_frame, self.on_end = on_frame, on_end
        self.view_size: tuple[int, int] | None = None    # where the mirror shows the pictures (rows made to fit)
        self.device_name = ""
        self.codec_meta: VideoCodecMeta | None = None
        self.video_size: tuple[int, int] = (0, 0)       # of the last decoded picture
        self.packet_listeners: list[PacketHandler] = []
        self.last_config: VideoPacket | None = None
        self.frames_decoded = 0
        self.decode_ms_total = 0.0
        self.undecodable = ""                           # why the stream was given up as undecodable ("" not)
        self.lag = StreamLag()                          # how far behind the phone the decoded pictures run
        self._undecoded_since: float | None = None      # the first packet since the last picture
        self._undecoded_packets = 0
        self._last_undecoded = 0.0
        self._shell: socket.socket | None = None
        self._video: socket.socket | None = None
        self._control: socket.socket | None = None
        self._send_lock = threading.Lock()
        self._log: collections.deque[str] = collections.deque(maxlen=LOG_LINES_KEPT)
        self._threads: list[threading.Thread] = []
        self._closed = threading.Event()
        self._ended = False
        self._end_lock = threading.Lock()
        self._pending: list[VideoPacket] = []            # what the first read after the prologue held
        self._clipboard_waiters: list[tuple[threading.Event, list[str]]] = []
        self._ack_waiters: dict[int, threading.Event] = {}

    # ------------------------------------------------------------------ starting (blocking)

    def start(self) -> ScrcpySession:
        """Push, launch, connect and read the stream's prologue; raises ScrcpyUnavailable (the
        stream cannot run here) or DeviceError (the phone went away)."""
        try:
            server = verified_server_bytes()
        except ServerFileError as exc:
            raise ScrcpyUnavailable(str(exc)) from exc
        check_decoder(self.settings.codec)
        self.transport.push(self.serial, server, DEVICE_SERVER_PATH)
        self._shell = self.transport.open_service(self.serial, "shell:" + server_command(self.options), None)
        self._spawn(self._drain_log, "scrcpy-log", self._shell)
        try:
            self._video = self._connect()
            self._control = self._connect()
            self._read_prologue(self._video)
        except BaseException:
            self.close()
            raise
        self._spawn(self._read_video, "scrcpy-video", self._video)
        self._spawn(self._read_device_messages, "scrcpy-control", self._control)
        return self

    def _connect(self) -> socket.socket:
        """Connect to the server's socket, waiting while it starts; give up when it exits."""
        deadline = time.monotonic() + CONNECT_TIMEOUT_SECONDS
        address = "localabstract:" + self.options.socket_name
        while True:
            try:
                sock = self.transport.open_service(self.serial, address, timeout=5.0)
                sock.settimeout(None)         # open: the stream may stay quiet for as long as the screen is still
                return sock
            except DeviceError as exc:
                if not str(exc).endswith("closed"):
                    raise                      # the phone is gone, not just the server not yet listening
            if self._shell_ended():
                raise ScrcpyUnavailable("scrcpy's server stopped on the phone: " + self.server_log(3))
            if time.monotonic() > deadline:
                raise ScrcpyUnavailable("scrcpy's server did not open its socket within "
                                        f"{CONNECT_TIMEOUT_SECONDS:.0f} s"
                                        + (": " + self.server_log(3) if self._log else ""))
            time.sleep(CONNECT_RETRY_SECONDS)

    def _shell_ended(self) -> bool:
        thread = next((t for t in self._threads if t.name == "scrcpy-log"), None)
        return thread is None or not thread.is_alive()

    def _read_prologue(self, video: socket.socket) -> None:
        reader = VideoStreamReader(dummy_byte=True, device_meta=True)
        video.settimeout(CONNECT_TIMEOUT_SECONDS)
        try:
            while self.codec_meta is None:
                data = video.recv(65536)
                if not data:
                    raise ScrcpyUnavailable("scrcpy's server closed the video socket before streaming: "
                                            + self.server_log(3))
                for item in reader.feed(data):
                    if isinstance(item, DeviceMeta):
                        self.device_name = item.name
                    elif isinstance(item, VideoCodecMeta):
                        self.codec_meta = item
                        if max(item.width, item.height) > self.settings.max_side:
                            raise ScrcpyUnavailable(
                                f"the phone's video is {item.width}×{item.height}, larger than "
                                f"limits.max_screenshot_side ({self.settings.max_side} pixels)")
                    elif isinstance(item, VideoPacket):
                        self._pending.append(item)
        except StreamDisabled as exc:
            raise ScrcpyUnavailable(f"the phone cannot encode {self.settings.codec} video ({exc})",
                                    codec_refused=exc.configuration_error) from exc
        except ProtocolError as exc:
            raise ScrcpyUnavailable(f"scrcpy's server sent something this app cannot read: {exc}") from exc
        except TimeoutError as exc:
            raise ScrcpyUnavailable("scrcpy's server sent no video header in time") from exc
        finally:
            video.settimeout(None)
        self._reader = reader

    # ------------------------------------------------------------------ threads

    def _spawn(self, target: Callable[[socket.socket], None], name: str, sock: socket.socket) -> None:
        thread = threading.Thread(target=target, args=(sock,), name=name, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _drain_log(self, shell: socket.socket) -> None:
        """The server's stdout/stderr, kept for error messages and logged at debug level."""
        partial = b""
        try:
            while True:
                data = shell.recv(4096)
                if not data:
                    break
                partial += data
                *lines, partial = partial.split(b"\n")
                for line in lines:
                    text = line.decode("utf-8", "replace").strip()
                    if text:
                        self._log.append(text)
                        log.debug("scrcpy server on %s: %s", self.serial, text)
        except OSError:
            pass
        if partial.strip():
            self._log.append(partial.decode("utf-8", "replace").strip())

    def server_log(self, lines: int = LOG_LINES_KEPT) -> str:
        """The server's last lines of output, joined ("no output" when it printed nothing)."""
        kept = list(self._log)[-lines:]
        return " / ".join(kept) if kept else "no output"

    def _read_video(self, video: socket.socket) -> None:
        import av

        reason = "the phone closed the video stream"
        decoder = None
        try:
            for packet in self._pending:
                decoder = self._handle_packet(av, decoder, packet)
            while not self._closed.is_set():
                data = video.recv(1 << 18)
                if not data:
                    break
                for item in self._reader.feed(data):
                    if isinstance(item, VideoPacket):
                        decoder = self._handle_packet(av, decoder, item)
        except (OSError, ProtocolError) as exc:
            reason = f"the video stream broke ({exc})"
        except UndecodableStream as exc:
            reason = self.undecodable = str(exc)
        except Exception as exc:           # a decoder bug must end the stream visibly, not silently
            log.exception("decoding the stream of %s failed", self.serial)
            reason = f"the video could not be decoded ({exc})"
        self._end(reason)

    def _handle_packet(self, av, decoder, packet: VideoPacket):
        meta = self.codec_meta
        if meta is None:
            raise ProtocolError("a video packet came before the stream's header")
        for listener in list(self.packet_listeners):
            try:
                listener(meta, packet)
            except Exception:                  # a recording's bug must not stop the mirror
                log.exception("a packet listener failed")
        if packet.config:
            self.last_config = packet
            return decoder
        if decoder is None:
            name, options = DECODERS[meta.codec]
            decoder = av.CodecContext.create(name, "r")
            if options:
                decoder.options = dict(options)
        data = packet.data
        if self.last_config is not None and packet.key_frame:
            data = self.last_config.data + data    # the decoder needs the parameters with the key frame
        started = time.perf_counter()
        try:
            pictures = decoder.decode(av.Packet(data))
        except av.FFmpegError:                     # a bad packet: the next key frame may decode
            pictures = []
        received = time.monotonic()
        self._count_undecoded(received, bool(pictures))
        if pictures and packet.pts is not None:
            self.lag.observe(packet.pts, received)
        for picture in pictures:
            if max(picture.width, picture.height) > self.settings.max_side:
                raise ProtocolError(f"a picture of {picture.width}×{picture.height} is larger than "
                                    f"limits.max_screenshot_side ({self.settings.max_side} pixels)")
            pixels = self._rows_for_view(picture)
            decode_ms = (time.perf_counter() - started) * 1000
            self.video_size = (picture.width, picture.height)
            self.frames_decoded += 1
            self.decode_ms_total += decode_ms
            self.on_frame(functools.partial(rgb_picture, picture), self.video_size, received, decode_ms, pixels)
            started = time.perf_counter()
        return decoder

    def _rows_for_view(self, picture) -> PackedPixels:
        """The picture as BGRX rows, shrunk to the mirror's view (`view_size`) by a whole factor, in one
        swscale pass (~0.3-0.6 ms for 576×1280, where Pillow's shrink and BGRX packing take ~2.5 ms)."""
        width, height = picture.width, picture.height
        factor = shrink_factor(width, height, *self.view_size) if self.view_size else 1
        if factor > 1:
            bgrx = picture.reformat(width=width // factor, height=height // factor, format="bgra",
                                    interpolation="AREA")
        else:
            bgrx = picture.reformat(format="bgra")
        plane = bgrx.planes[0]
        return PackedPixels(bytes(plane), bgrx.width, bgrx.height, plane.line_size)

    def _count_undecoded(self, now: float, decoded: bool) -> None:
        """Raise UndecodableStream when packets have kept coming for UNDECODABLE_SECONDS and none gave a picture."""
        if decoded:
            self._undecoded_since, self._undecoded_packets = None, 0
            return
        if self._undecoded_since is None or now - self._last_undecoded > UNDECODABLE_SECONDS:
            self._undecoded_since, self._undecoded_packets = now, 0     # a still screen in between: count anew
        self._undecoded_packets += 1
        self._last_undecoded = now
        if now - self._undecoded_since >= UNDECODABLE_SECONDS:
            raise UndecodableStream(f"the phone's video stream sent {self._undecoded_packets} packets in "
                                    f"{now - self._undecoded_since:.0f} s and none of them could be decoded")

    def _read_device_messages(self, control: socket.socket) -> None:
        reader = DeviceMessageReader()
        try:
            while not self._closed.is_set():
                data = control.recv(65536)
                if not data:
                    break
                for message in reader.feed(data):
                    self._device_message(message)
        except (OSError, ProtocolError):
            pass
        self._end("the phone closed the control socket")

    def _device_message(self, message) -> None:
        if isinstance(message, DeviceClipboard):
            waiters, self._clipboard_waiters = self._clipboard_waiters, []
            for event, box in waiters:
                box.append(message.text)
                event.set()
        elif isinstance(message, AckClipboard):
            acked = self._ack_waiters.pop(message.sequence, None)
            if acked is not None:
                acked.set()

    def _end(self, reason: str) -> None:
        with self._end_lock:
            if self._ended:
                return
            self._ended = True
        if not self._closed.is_set():
            log.info("scrcpy stream of %s ended: %s", self.serial, reason)
            self.on_end(reason)
        self.close()

    # ------------------------------------------------------------------ control (any thread)

    @property
    def alive(self) -> bool:
        return not self._ended and not self._closed.is_set()

    def send(self, message: ControlMessage) -> None:
        """Send one control message; DeviceError when the socket is gone (nothing was sent)."""
        if not self.alive or self._control is None:
            raise DeviceError("scrcpy's control socket is closed")
        data = message.to_bytes()
        try:
            with self._send_lock:
                self._control.sendall(data)
        except OSError as exc:
            raise DeviceError(f"scrcpy's control socket broke ({exc})") from exc

    def request_clipboard(self, message: ControlMessage, timeout: float = 3.0) -> str:
        """Send a GetClipboard and wait for the phone's answer."""
        event = threading.Event()
        box: list[str] = []
        self._clipboard_waiters.append((event, box))
        self.send(message)
        if not event.wait(timeout) or not box:
            raise DeviceError("the phone did not send its clipboard")
        return box[0]

    def send_acknowledged(self, message: ControlMessage, sequence: int, timeout: float = 3.0) -> None:
        """Send a SetClipboard with a sequence number and wait for the phone's acknowledgement."""
        event = threading.Event()
        self._ack_waiters[sequence] = event
        self.send(message)
        if not event.wait(timeout):
            self._ack_waiters.pop(sequence, None)
            raise DeviceError("the phone did not confirm the clipboard")

    # ------------------------------------------------------------------ closing

    def close(self) -> None:
        """Close the sockets (the server then exits on the phone) and wait for the threads."""
        self._closed.set()
        for sock in (self._control, self._video, self._shell):
            if sock is not None:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()
        for event, _box in self._clipboard_waiters:
            event.set()
        for event in self._ack_waiters.values():
            event.set()
        current = threading.current_thread()
        for thread in self._threads:
            if thread is not current:
                thread.join(timeout=2.0)
