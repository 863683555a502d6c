"""The virtual phone's scrcpy 3.3.4 server, driven as scrcpy's own client drives a phone: push the
server with adbutils, start it with `adb shell`, connect to `localabstract:scrcpy_<scid>`, read
the stream with app.android.scrcpy and decode it with PyAV."""

from __future__ import annotations

import io
import itertools
import socket
import time

import adbutils
import pytest
from adbutils import Network
from PIL import Image, ImageChops, ImageStat

from app.android.scrcpy import (
    DEVICE_SERVER_PATH,
    AckClipboard,
    DeviceClipboard,
    DeviceMessageReader,
    GetClipboard,
    InjectTouchEvent,
    Position,
    ResetVideo,
    RotateDevice,
    ServerOptions,
    SetClipboard,
    SetDisplayPower,
    StreamDisabled,
    VideoCodecMeta,
    VideoPacket,
    VideoStreamReader,
    server_command,
)
from app.core.perception.picture_change import grey_picture, visible_change
from app.core.scrcpy_server_file import verified_server_bytes
from app.virtual_phone.adb_server import VirtualAdbServer
from app.virtual_phone.scrcpy_server import REPEAT_AFTER_SECONDS, REPEATS_OF_A_STILL_PICTURE
from tests.virtual_phone.conftest import UI, node_center, open_system_update

av = pytest.importorskip("av", reason="PyAV decodes the stream")
try:
    av.CodecContext.create("libx264", "w")
except Exception as error:  # noqa: BLE001
    pytest.skip(f"this PyAV cannot encode H.264 ({error})", allow_module_level=True)

MAX_SIZE = 640


@pytest.fixture
def served():
    """(adbutils device, attached phone) on a virtual ADB server."""
    with VirtualAdbServer() as server:
        attached = server.add_phone()
        device = adbutils.AdbClient(host="127.0.0.1", port=server.port).device(attached.serial)
        yield device, attached


class Session:
    """One server run: the shell that started it, its video and control sockets, the decoder."""

    def __init__(self, device: adbutils.AdbDevice, options: ServerOptions):
        self.options = options
        self.shell = device.shell(server_command(options), stream=True)
        self.shell.conn.settimeout(10)
        self.video = self._connect(device) if options.video else None
        self.control = self._connect(device) if options.control else None
        self.reader = VideoStreamReader()
        self.messages = DeviceMessageReader()
        self.decoder = av.CodecContext.create("h264", "r")
        self.config = b""
        self.meta: list = []
        self.packets: list[VideoPacket] = []

    def _connect(self, device) -> socket.socket:
        for _ in range(100):
            try:
                sock = device.create_connection(Network.LOCAL_ABSTRACT, self.options.socket_name)
                sock.settimeout(5)
                return sock
            except adbutils.AdbError:
                time.sleep(0.02)     # the server is not listening yet
        raise AssertionError("the server never listened")

    def read_video(self, seconds: float) -> list[Image.Image]:
        """Pictures decoded from what arrives within `seconds`."""
        pictures, deadline = [], time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            self.video.settimeout(left)
            try:
                data = self.video.recv(1 << 16)
            except TimeoutError:
                break
            if not data:
                break
            for event in self.reader.feed(data):
                if not isinstance(event, VideoPacket):
                    self.meta.append(event)
                    continue
                self.packets.append(event)
                if event.config:
                    self.config = event.data
                    continue
                for frame in self.decoder.decode(av.Packet(self.config + event.data)):
                    pictures.append(frame.to_image())
                self.config = b""
        return pictures

    def send(self, *messages) -> None:
        self.control.sendall(b"".join(message.to_bytes() for message in messages))

    def receive(self):
        while not (found := self.messages.feed(self.control.recv(4096))):
            pass
        return found[0]

    def video_point(self, x: int, y: int, phone) -> Position:
        meta = self.reader.codec_meta
        width, height = phone.display_size()
        return Position(x * meta.width // width, y * meta.height // height, meta.width, meta.height)

    def tap(self, position: Position) -> None:
        self.send(InjectTouchEvent(0, -2, position), InjectTouchEvent(1, -2, position))

    def output(self) -> str:
        """Close the sockets and return what the server printed once it ended."""
        for sock in (self.video, self.control):
            if sock is not None:
                sock.close()
        return self.shell.read_until_close()


def push_server(device) -> None:
    """As scrcpy does before every start (the server unlinks its file once running)."""
    device.sync.push(io.BytesIO(verified_server_bytes()), DEVICE_SERVER_PATH)


def start(device, **overrides) -> Session:
    push_server(device)
    return Session(device, ServerOptions.for_mirror(max_size=MAX_SIZE, **overrides))


def mean_difference(a: Image.Image, b: Image.Image) -> float:
    b = b.convert("RGB").resize(a.size, Image.Resampling.BILINEAR)
    return sum(ImageStat.Stat(ImageChops.difference(a.convert("RGB"), b)).mean) / 3


def test_the_stream_shows_the_screen_repeats_it_ten_times_then_stays_quiet_while_it_is_still(served):
    """As MediaCodec's input surface does for scrcpy (a repeat after 100 ms, ten at most): a still picture is
    sent again, each time no blurrier, then nothing more."""
    device, attached = served
    session = start(device)
    pictures, started = [], time.monotonic()
    while not pictures and time.monotonic() - started < 10:
        pictures = session.read_video(0.05)
    assert [type(event).__name__ for event in session.meta] == ["DeviceMeta", "VideoCodecMeta"]
    assert session.meta[0].name == attached.phone.model
    assert session.meta[1] == VideoCodecMeta(session.meta[1].codec_id, 288, 640)   # 1080×2400 at 640, ×8
    assert session.packets[0].config and session.packets[1].key_frame
    assert len(pictures) == 1, "the screen at once"
    started = time.monotonic()
    while len(pictures) < 1 + REPEATS_OF_A_STILL_PICTURE and time.monotonic() - started < 10:
        pictures += session.read_video(0.5)
    assert len(pictures) == 1 + REPEATS_OF_A_STILL_PICTURE
    times = [packet.pts / 1e6 for packet in session.packets if packet.pts is not None]
    assert all(later - earlier >= REPEAT_AFTER_SECONDS for earlier, later in itertools.pairwise(times)), times
    screen = attached.phone.screenshot()
    errors = [mean_difference(picture, screen) for picture in pictures]
    assert errors[0] < 8 and errors[-1] <= errors[0], errors
    assert not visible_change(grey_picture(pictures[0]), grey_picture(pictures[-1])), "the same screen, sharper"
    assert session.read_video(0.5) == [], "nothing more while the screen is still"
    assert "[server] INFO: Device: [AgentDesk] agentdesk AgentDesk Virtual Phone (Android 14)" in session.output()
    assert DEVICE_SERVER_PATH.rsplit("/", 1)[1] not in device.shell("ls /data/local/tmp"), \
        "the server unlinks its file at start, as scrcpy's clean-up does"


def test_a_tap_on_the_control_socket_opens_the_app_and_streams_the_change(served):
    device, attached = served
    phone = attached.phone
    session = start(device)
    session.read_video(0.3)
    session.tap(session.video_point(*node_center(phone, text="Settings"), phone))
    pictures = session.read_video(0.6)
    assert phone.foreground()[0] == "com.android.settings"
    assert pictures and mean_difference(pictures[-1], phone.screenshot()) < 8
    session.output()


def test_a_touch_measured_on_another_size_is_dropped(served):
    device, attached = served
    phone = attached.phone
    session = start(device)
    session.read_video(0.3)
    right = session.video_point(*node_center(phone, text="Settings"), phone)
    session.tap(Position(right.x, right.y, right.screen_width + 8, right.screen_height))
    session.send(SetClipboard(1, "barrier"))
    assert session.receive() == AckClipboard(1)      # the touch before it has been handled
    assert phone.foreground()[0] == "com.android.launcher3"
    session.tap(right)
    session.send(SetClipboard(2, "barrier"))
    assert session.receive() == AckClipboard(2)
    assert phone.foreground()[0] == "com.android.settings"
    session.output()


def test_the_clipboard_goes_both_ways(served):
    device, attached = served
    phone = attached.phone
    session = start(device, clipboard_autosync=False)
    session.send(SetClipboard(7, "héllo ✓"))
    assert session.receive() == AckClipboard(7)
    assert phone.clipboard == "héllo ✓"
    phone.set_clipboard("copied on the phone")
    session.send(GetClipboard())
    assert session.receive() == DeviceClipboard("copied on the phone")
    session.output()

    synced = start(device, clipboard_autosync=True)
    synced.send(SetClipboard(8, "set by the client"))
    assert synced.receive() == AckClipboard(8), "the client's own change is not echoed back"
    phone.set_clipboard("sent by itself")
    assert synced.receive() == DeviceClipboard("sent by itself")
    synced.output()


def test_rotation_and_reset_start_a_new_stream_at_the_new_size(served):
    device, attached = served
    session = start(device)
    session.read_video(0.3)
    session.send(RotateDevice())
    pictures = session.read_video(0.6)
    assert attached.phone.rotation == 1
    assert pictures and pictures[-1].size == (640, 288)
    configs = [index for index, packet in enumerate(session.packets) if packet.config]
    assert len(configs) == 2 and session.packets[configs[1] + 1].key_frame, "the new stream starts on a key frame"
    session.send(ResetVideo())
    assert session.read_video(0.4), "a reset sends a key frame even on a still screen"
    assert [p.config for p in session.packets].count(True) == 3
    session.send(SetDisplayPower(False))
    session.send(SetClipboard(3, "barrier"))
    assert session.receive() == AckClipboard(3)
    assert attached.phone.display_power_on is False and attached.phone.screen_on
    assert "[server] INFO: Device display turned off" in session.output()
    assert attached.phone.display_power_on is True, "the clean-up powers the display back on"


def test_a_malformed_control_message_ends_the_server_but_not_the_phone(served):
    device, attached = served
    session = start(device)
    session.read_video(0.2)
    session.control.sendall(b"\xff")            # no such message type
    assert session.shell.read_until_close() is not None   # the server ended on its own
    assert session.video.recv(1 << 16) == b""
    assert device.shell("echo still here") == "still here"
    session.output()


def test_the_server_ends_when_its_adb_shell_closes(served):
    device, attached = served
    session = start(device)
    session.read_video(0.2)
    session.shell.close()
    session.video.settimeout(3)
    deadline = time.monotonic() + 3
    while session.video.recv(1 << 16) and time.monotonic() < deadline:    # a repeat of the picture on its way
        pass
    assert session.video.recv(1 << 16) == b"", "closing the shell stops the server"
    assert not any(name.startswith("localabstract:scrcpy") for name in attached.sockets.listening())
    session.control.close()
    session.video.close()


def test_a_wrong_version_or_another_file_is_refused_as_on_a_phone(served):
    device, attached = served
    push_server(device)
    command = server_command(ServerOptions.for_mirror()).replace(" 3.3.4 ", " 3.3.3 ")
    result = device.shell2(command)
    assert result.returncode == 1
    assert "[server] ERROR: The server version (3.3.4) does not match the client (3.3.3)" in result.output
    device.sync.push(io.BytesIO(b"PK\x03\x04 not the server"), DEVICE_SERVER_PATH)
    result = device.shell2(server_command(ServerOptions.for_mirror()))
    assert result.returncode == 134 and "Aborted" in result.output
    assert attached.sockets.listening() == []


def test_an_encoder_the_phone_lacks_is_a_configuration_error(served):
    device, _ = served
    session = start(device, video_codec="h265")
    with pytest.raises(StreamDisabled) as error:
        session.read_video(2)
    assert error.value.configuration_error
    assert "[server] ERROR: Could not create default video encoder for h265" in session.output()


def test_reverse_tunnel_reaches_a_listener_on_the_host(served):
    device, _ = served
    options = ServerOptions.for_mirror(max_size=MAX_SIZE, tunnel_forward=False)
    with socket.create_server(("127.0.0.1", 0)) as listener:
        device.reverse(f"localabstract:{options.socket_name}", f"tcp:{listener.getsockname()[1]}")
        listener.settimeout(5)
        push_server(device)
        shell = device.shell(server_command(options), stream=True)
        video, _ = listener.accept()
        control, _ = listener.accept()
        video.settimeout(5)
        data = b""
        while len(data) < 64 + 12:
            data += video.recv(4096)
        assert VideoStreamReader(dummy_byte=False).feed(data)[:2][1] == VideoCodecMeta(0x68323634, 288, 640)
        video.close()
        control.close()
        shell.read_until_close()


def test_a_screen_transition_streams_every_picture_of_it():
    """On the realistic profile a tap's screen moves for a while: each blended picture is a frame."""
    with VirtualAdbServer() as server:
        # at full length (0.2-0.5 s) a transition outlasts a loaded machine's hiccups (at half, 2 of 3 frames came)
        attached = server.add_phone(latency="realistic")
        device = adbutils.AdbClient(host="127.0.0.1", port=server.port).device(attached.serial)
        phone = attached.phone
        session = start(device, max_fps=30)
        try:
            assert read_until_still(session), "the first picture"
            session.tap(session.video_point(*node_center(phone, text="Settings"), phone))
            pictures = read_until_still(session, first_read=0.8)
            assert len(pictures) >= 3, "the transition's pictures, not just its end"
            assert mean_difference(pictures[-1], phone.screenshot()) < 8
        finally:
            session.output()


def read_until_still(session, first_read: float = 0.4, quiet: float = 0.3, rounds: int = 10) -> list:
    """The pictures streamed until none came for `quiet` seconds (on a busy machine a screen may take a
    while to settle: its start, or a transition, can outlast a fixed read)."""
    pictures = session.read_video(first_read)
    for _ in range(rounds):
        more = session.read_video(quiet)
        if not more:
            return pictures
        pictures += more
    raise AssertionError("the stream never became still")


def test_a_spinner_that_never_stops_keeps_the_stream_moving(served):
    device, attached = served
    open_system_update(UI(attached.phone))
    session = start(device)
    pictures = session.read_video(0.8)
    session.output()
    assert len(pictures) >= 3, "the spinner turns, so new pictures keep coming"
    # beyond the codec's noise: a still screen's repeats differ by their sharpening too
    assert visible_change(grey_picture(pictures[0]), grey_picture(pictures[-1]))
