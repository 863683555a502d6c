"""scrcpy 3.3.4's server, as the virtual phone runs it: `app_process` with scrcpy-server.jar.

A client pushes the server file and runs, through `adb shell`:
    CLASSPATH=/data/local/tmp/scrcpy-server.jar app_process / com.genymobile.scrcpy.Server 3.3.4 key=value…
The virtual phone cannot run dex code; it checks that the file on CLASSPATH is the pinned
server (its SHA-256) and then behaves as that server does (Server.java, DesktopConnection.java,
SurfaceEncoder.java, CleanUp.java): it listens on `localabstract:scrcpy_<scid>` (forward
tunnel) or connects there (reverse), writes the dummy byte, the device name, the codec meta
and the framed video packets, and obeys the control socket (scrcpy_control.py). The
server ends when the client closes the video or control socket, or the ADB shell that started
it. Its log lines ("[server] INFO: …") come back when it ends: the shell service does not stream.

Video: a picture is encoded when the screen changes — the phone's screenshot is the same object
until something changes — polled at most max_fps times a second (60 when unset), one picture at a
time: a client that reads slowly makes the server skip pictures, never queue them. A picture that
then stands still is encoded again every REPEAT_AFTER_SECONDS, at most REPEATS_OF_A_STILL_PICTURE
times, as MediaCodec's input surface does for scrcpy: each repeat sharpens what the codec blurred
in the change, and a client sees about a second of frames after each change, then silence.
"""

from __future__ import annotations

import queue
import select
import socket
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from app.android.scrcpy import (
    DUMMY_BYTE,
    ServerArgumentError,
    ServerOptions,
    VideoCodecMeta,
    encode_device_name,
    encode_packet_header,
    encode_stream_disabled,
    parse_server_arguments,
)
from app.android.scrcpy.video import VIDEO_CODEC_IDS

from .scrcpy_control import ScrcpyController
from .shell import Result
from .storage import StorageError
from .video_encoder import ENCODERS, EncoderUnavailable, ScreenEncoder, video_size, yield_cores_to_the_app

if TYPE_CHECKING:
    from .attached_device import AttachedDevice
    from .shell_io import Process

DEFAULT_MAX_FPS = 60.0
POLL_SECONDS = 0.1             # how often waiting loops look at the stop flag and the ADB connection
REPEAT_AFTER_SECONDS = 0.1
"""scrcpy's SurfaceEncoder asks MediaCodec to repeat the last picture after this long without a new one
(REPEAT_FRAME_DELAY_US, KEY_REPEAT_PREVIOUS_FRAME_AFTER)."""
REPEATS_OF_A_STILL_PICTURE = 10
"""How many times Android's GraphicBufferSource repeats it (kRepeatLastFrameCount: "a single repeat might
not get rid of encoder ghosting completely")."""
STAY_ON_ALL_PLUGS = "7"        # BatteryManager.BATTERY_PLUGGED_AC | USB | WIRELESS


LOG_LEVELS = ("verbose", "debug", "info", "warn", "error")


class ServerLog:
    """The server's console (util/Ln.java): "[server] LEVEL: message", verbose to info on
    stdout, warn and error on stderr, below the level asked for left out. Thread-safe."""

    def __init__(self, level: str = "debug"):
        self.level = level
        self._chunks: list[tuple[int, bytes]] = []
        self._lock = threading.Lock()

    def _write(self, level: str, message: str) -> None:
        if LOG_LEVELS.index(level) < LOG_LEVELS.index(self.level):
            return
        line = f"[server] {level.upper()}: {message}\n".encode("utf-8", "replace")
        with self._lock:
            self._chunks.append((2 if level in ("warn", "error") else 1, line))

    def verbose(self, message: str) -> None:
        self._write("verbose", message)

    def debug(self, message: str) -> None:
        self._write("debug", message)

    def info(self, message: str) -> None:
        self._write("info", message)

    def warn(self, message: str) -> None:
        self._write("warn", message)

    def error(self, message: str) -> None:
        self._write("error", message)

    def result(self, code: int) -> Result:
        with self._lock:
            return Result(chunks=list(self._chunks), code=code)


def run_scrcpy_server(device: AttachedDevice, server_args: list[str], process: Process, classpath: str) -> Result:
    """The pinned scrcpy server, started by app_process (app_process.py checked the class and file)."""
    log = ServerLog()
    try:
        options = parse_server_arguments(server_args)
    except ServerArgumentError as error:
        log.error(str(error))
        return log.result(1)
    log.level = options.log_level
    for key in options.unknown_keys:
        log.warn(f"Unknown server option: {key}")
    try:
        return ScrcpyServer(device, options, log, classpath).run(process.budget.cancelled)
    except Exception as error:  # noqa: BLE001 - as Server.main: log it, exit 1, the phone goes on
        log.error(f"{type(error).__name__}: {error}")
        return log.result(1)


class ScrcpyServer:
    """One run of the server: its sockets, its threads (video, control) and its clean-up."""

    def __init__(self, device: AttachedDevice, options: ServerOptions, log: ServerLog, classpath: str):
        self.device, self.phone, self.options, self.log = device, device.phone, options, log
        self.classpath = classpath
        self.stop = threading.Event()
        self.video_socket: socket.socket | None = None
        self.audio_socket: socket.socket | None = None
        self.control_socket: socket.socket | None = None
        self.video_size: tuple[int, int] | None = None   # what touch positions are measured on
        self._reset_video = threading.Event()
        self._restore: list[tuple[str, str, str]] = []   # settings CleanUp puts back
        self.controller: ScrcpyController | None = None

    # ------------------------------------------------------------------ lifecycle
    def run(self, cancelled: Callable[[], bool]) -> Result:
        phone, options = self.phone, self.options
        self.log.info(f"Device: [AgentDesk] agentdesk {phone.model} (Android {phone.profile.release})")
        if options.cleanup:
            self._start_clean_up()
        threads: list[threading.Thread] = []
        released = threading.Event()     # lets the socket threads of the forward tunnel return
        try:
            sockets = self._open_connection(cancelled, released)
            if sockets is None:
                return self.log.result(1 if not cancelled() else 0)
            first = sockets[0]
            if options.send_device_meta:
                first.sendall(encode_device_name(phone.model))
            if self.audio_socket is not None:   # no audio on the virtual phone, as before Android 11
                self.audio_socket.sendall(encode_stream_disabled(configuration_error=False))
            if self.control_socket is not None:
                self.controller = ScrcpyController(self, self.control_socket)
                threads.append(threading.Thread(target=self._guarded, args=(self.controller.run,),
                                                name="scrcpy-control-recv", daemon=True))
            if self.video_socket is not None:
                threads.append(threading.Thread(target=self._guarded, args=(self._stream_video,),
                                                name="scrcpy-video", daemon=True))
            for thread in threads:
                thread.start()
            while not self.stop.wait(POLL_SECONDS):
                if cancelled():
                    break
            return self.log.result(0)
        except OSError as error:      # the client went away while the server was writing
            self.log.debug(f"Connection closed: {error}")
            return self.log.result(0)
        finally:
            self.stop.set()
            for sock in (self.video_socket, self.audio_socket, self.control_socket):
                _shut(sock)
            for thread in threads:
                thread.join(timeout=5)
            for sock in (self.video_socket, self.audio_socket, self.control_socket):
                if sock is not None:
                    sock.close()
            released.set()
            if options.cleanup:
                self._clean_up()

    def _guarded(self, work: Callable[[], None]) -> None:
        """Run one of the server's threads; whatever ends it ends the server (Completion)."""
        try:
            work()
        except OSError:
            pass      # broken pipe: the client closed, as expected
        except Exception as error:  # noqa: BLE001 - a bug here must end the server, never the phone
            self.log.error(f"Exception on thread {threading.current_thread().name}: {error!r}")
        finally:
            self.stop.set()

    # ------------------------------------------------------------------ sockets
    def _open_connection(self, cancelled: Callable[[], bool],
                         released: threading.Event) -> list[socket.socket] | None:
        """The video, audio and control sockets the options ask for, in that order (None: failed)."""
        options = self.options
        wanted = [kind for kind, on in (("video", options.video), ("audio", options.audio),
                                        ("control", options.control)) if on]
        address = f"localabstract:{options.socket_name}"
        opened: list[socket.socket] = []
        if options.tunnel_forward:
            if address in self.device.sockets.listening():
                self.log.error("Address already in use")
                return None
            accepted: queue.Queue[socket.socket] = queue.Queue()

            def accept(sock: socket.socket) -> None:   # DeviceSockets closes it when this returns
                accepted.put(sock)
                released.wait()

            self.device.sockets.listen(address, accept)
            try:
                while len(opened) < len(wanted):
                    try:
                        sock = accepted.get(timeout=POLL_SECONDS)
                    except queue.Empty:
                        if cancelled():
                            return None
                        continue
                    if not opened and options.send_dummy_byte:
                        sock.sendall(DUMMY_BYTE)   # so the client's first read fails at once if the tunnel did not work
                    opened.append(sock)
            finally:
                self.device.sockets.stop_listening(address)
        else:
            for _ in wanted:
                connected = self.device.sockets.connect(address)
                if connected is None:
                    for other in opened:
                        other.close()
                    self.log.error("Connection refused")
                    return None
                connected.settimeout(None)
                opened.append(connected)
        for kind, sock in zip(wanted, opened, strict=True):
            setattr(self, f"{kind}_socket", sock)
        return opened

    # ------------------------------------------------------------------ video
    def _stream_video(self) -> None:
        """Encode the screen whenever it changes, at most max_fps pictures a second."""
        options, phone, sock = self.options, self.phone, self.video_socket
        if sock is None:   # run only once the video socket is open
            return
        yield_cores_to_the_app()
        interval = 1.0 / (options.max_fps if options.max_fps > 0 else DEFAULT_MAX_FPS)
        encoder: ScreenEncoder | None = None
        last_picture = None
        started = next_poll = last_sent = time.monotonic()
        repeats_left = 0
        try:
            while not self.stop.is_set():
                if _peer_closed(sock, max(0.0, next_poll - time.monotonic())):
                    return
                next_poll = max(next_poll + interval, time.monotonic())
                with phone.lock:
                    picture, display = phone.screenshot(), phone.display_size()
                size = video_size(display, options.max_size)
                if encoder is None or encoder.size != size or self._reset_video.is_set():
                    self._reset_video.clear()
                    if encoder is not None:
                        encoder.close()
                    encoder = self._new_encoder(sock, size, first=encoder is None)
                    if encoder is None:
                        return
                    self.video_size, last_picture = size, None
                now = time.monotonic()
                if picture is not last_picture:
                    last_picture, repeats_left = picture, REPEATS_OF_A_STILL_PICTURE
                elif repeats_left and now - last_sent >= REPEAT_AFTER_SECONDS:
                    repeats_left -= 1      # the still picture again: the codec sharpens it
                else:
                    continue       # the screen is still: nothing to send
                last_sent = now
                pts = int((now - started) * 1_000_000)
                for packet in encoder.encode(picture, pts):
                    data = packet.data
                    if options.send_frame_meta:
                        data = encode_packet_header(len(data), None if packet.config else packet.pts_us,
                                                    config=packet.config, key_frame=packet.key_frame) + data
                    sock.sendall(data)
        finally:
            if encoder is not None:
                encoder.close()

    def _new_encoder(self, sock: socket.socket, size: tuple[int, int], first: bool) -> ScreenEncoder | None:
        """An encoder for the stream (on the first one, the codec meta goes out first); None
        after writing "configuration error", as the real server does when MediaCodec fails."""
        codec = self.options.video_codec
        try:
            if codec not in ENCODERS:
                raise EncoderUnavailable(f"no {codec} encoder on this phone")
            encoder = ScreenEncoder(codec, size, bit_rate=self.options.video_bit_rate or 8_000_000,
                                    max_fps=int(self.options.max_fps or DEFAULT_MAX_FPS))
        except EncoderUnavailable as error:
            self.log.error(f"Could not create default video encoder for {codec} ({error})\n"
                           + "List of video encoders:\n"
                           + "".join(f"    --video-codec={name} --video-encoder={encoder_name}\n"
                                     for name, (encoder_name, _) in ENCODERS.items()).rstrip("\n"))
            if first:
                sock.sendall(encode_stream_disabled(configuration_error=True))
            return None
        if first and self.options.send_codec_meta:
            sock.sendall(VideoCodecMeta(VIDEO_CODEC_IDS[codec], *size).to_bytes())
        return encoder

    def reset_video(self) -> None:
        """ResetVideo: the next picture starts a new encoder (config packet + key frame)."""
        self.log.info("Video capture reset")
        self._reset_video.set()

    # ------------------------------------------------------------------ clean-up (CleanUp.java)
    def _start_clean_up(self) -> None:
        """Apply show_touches / stay_awake / screen_off_timeout, remembering what to put back,
        and unlink the server file, as the real server's clean-up process does at start."""
        options, phone = self.options, self.phone
        changes: list[tuple[str, str, str, str | None]] = []   # namespace, key, value, what to put back
        if options.show_touches:
            changes.append(("system", "show_touches", "1", "0"))
        if options.stay_awake:
            changes.append(("global", "stay_on_while_plugged_in", STAY_ON_ALL_PLUGS, None))
        if options.screen_off_timeout != -1:
            changes.append(("system", "screen_off_timeout", str(options.screen_off_timeout), None))
        for namespace, key, value, restore_to in changes:
            old = phone.get_setting(namespace, key)
            if old != value:
                self._restore.append((namespace, key, restore_to if restore_to is not None else (old or "0")))
                phone.put_setting(namespace, key, value)
        try:
            self.device.storage.unlink(self.classpath)
        except (StorageError, OSError):
            pass

    def _clean_up(self) -> None:
        phone = self.phone
        for namespace, key, value in self._restore:
            phone.put_setting(namespace, key, value)
        if self.controller is not None and self.controller.restore_display_power:
            with phone.lock:
                phone.display_power_on = True
        if self.options.power_off_on_close and phone.screen_on:
            self.device.act(lambda: phone.key(26))   # KEYCODE_POWER


def _peer_closed(sock: socket.socket, wait: float) -> bool:
    """Wait up to `wait` s for the client's side of a socket it only reads; True once it closed.
    (Anything it sends there is read and dropped.)"""
    readable, _, _ = select.select([sock], [], [], wait)
    if not readable:
        return False
    try:
        return not sock.recv(4096)
    except BlockingIOError:
        return False
    except OSError:
        return True


def _shut(sock: socket.socket | None) -> None:
    if sock is None:
        return
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
