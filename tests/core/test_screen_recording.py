"""A run's screen recording: scrcpy's packets muxed into MP4 files as they are (no re-encoding), linked
from the report; nothing when the frames are polled screenshots or the setting is off."""

from __future__ import annotations

import functools
import json
import logging
import threading
import time

import pytest
from PIL import Image, ImageDraw

av = pytest.importorskip("av")

from app.android.scrcpy import CODEC_ID_AV1, CODEC_ID_H264, VideoCodecMeta, VideoPacket  # noqa: E402
from app.core.agent.memory import RunResult  # noqa: E402
from app.core.agent.report import write_report  # noqa: E402
from app.core.agent.trajectory import TrajectoryWriter, load_run  # noqa: E402
from app.core.runs import screen_recording  # noqa: E402
from app.core.runs.screen_recording import ScreenRecording, record_run_screen  # noqa: E402
from app.virtual_phone.video_encoder import EncoderUnavailable, ScreenEncoder  # noqa: E402

CODEC_IDS = {"h264": CODEC_ID_H264, "av1": CODEC_ID_AV1}
FRAME_US = 33_333


def pictures(size: tuple[int, int], count: int) -> list[Image.Image]:
    """`count` different screens: a yellow square moving over a changing background."""
    shots = []
    for index in range(count):
        picture = Image.new("RGB", size, (index * 20 % 256, 90, 200))
        ImageDraw.Draw(picture).rectangle((index * 8, index * 16, index * 8 + 40, index * 16 + 40), fill="yellow")
        shots.append(picture)
    return shots


def encoded(codec: str, size: tuple[int, int], count: int, start_us: int = 5_000_000) -> list[VideoPacket]:
    """The packets scrcpy's server would send for `count` changing screens: config first (if any)."""
    try:
        encoder = ScreenEncoder(codec, size)
    except EncoderUnavailable as error:
        pytest.skip(f"cannot encode {codec} here: {error}")
    packets = []
    try:
        for index, picture in enumerate(pictures(size, count)):
            for packet in encoder.encode(picture, start_us + index * FRAME_US):
                packets.append(VideoPacket(packet.data, None, config=True) if packet.config
                               else VideoPacket(packet.data, packet.pts_us, key_frame=packet.key_frame))
    finally:
        encoder.close()
    return packets


def meta(codec: str, size: tuple[int, int]) -> VideoCodecMeta:
    return VideoCodecMeta(CODEC_IDS[codec], *size)


def read_mp4(path) -> tuple[list[bytes], list[int], list[tuple[int, int]]]:
    """The file's stored packets, and its decoded frames' timestamps and sizes."""
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        stored = [bytes(packet) for packet in container.demux(stream) if packet.size]
    with av.open(str(path)) as container:
        if container.streams.video[0].codec_context.name == "libdav1d":
            container.streams.video[0].codec_context.options = {"max_frame_delay": "1"}
        frames = list(container.decode(video=0))
    return stored, [frame.pts for frame in frames], [(frame.width, frame.height) for frame in frames]


def annex_b_units(data: bytes) -> list[bytes]:
    """The NAL units of an Annex-B H.264 packet (split at 00 00 01 / 00 00 00 01)."""
    units, start, index = [], None, 0
    while index + 3 <= len(data):
        if data[index:index + 3] == b"\0\0\1":
            if start is not None:
                units.append(data[start:index].rstrip(b"\0"))
            index += 3
            start = index
        else:
            index += 1
    if start is not None:
        units.append(data[start:])
    return units


def length_prefixed_units(data: bytes) -> list[bytes]:
    """The NAL units of an MP4 sample (each after its 4-byte length)."""
    units, index = [], 0
    while index < len(data):
        size = int.from_bytes(data[index:index + 4], "big")
        units.append(data[index + 4:index + 4 + size])
        index += 4 + size
    return units


def av1_without_temporal_delimiters(data: bytes) -> bytes:
    """An AV1 packet as MP4 stores it: its temporal delimiter OBU (0x12 0x00) left out."""
    return data[2:] if data[:2] == b"\x12\x00" else data


def record(folder, codec: str, size: tuple[int, int], packets: list[VideoPacket], **options) -> list[str]:
    recording = ScreenRecording(folder, **options)
    for packet in packets:
        recording.feed(meta(codec, size), packet)
    return recording.close()


# ---------------------------------------------------------------- the file


def test_h264_packets_are_stored_as_they_came_and_play_back(tmp_path):
    packets = encoded("h264", (320, 640), 12)
    assert packets[0].config and packets[1].key_frame
    assert record(tmp_path, "h264", (320, 640), packets) == ["screen.mp4"]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["screen.mp4"]    # no temporary file left
    stored, timestamps, sizes = read_mp4(tmp_path / "screen.mp4")
    media = [packet for packet in packets if not packet.config]
    assert len(timestamps) == len(media) == 12
    assert sizes == [(320, 640)] * 12
    assert timestamps == [packet.pts - media[0].pts for packet in media]           # µs from the first packet
    # no re-encoding: the same NAL units, only framed by lengths instead of start codes (the first
    # key frame carries the config packet's SPS/PPS in front, as scrcpy's client merges them)
    fed = [annex_b_units(packets[0].data + media[0].data)] + [annex_b_units(packet.data) for packet in media[1:]]
    assert [length_prefixed_units(sample) for sample in stored] == fed


def test_av1_packets_are_stored_as_they_came_and_play_back(tmp_path):
    packets = encoded("av1", (320, 640), 8)
    assert record(tmp_path, "av1", (320, 640), packets) == ["screen.mp4"]
    stored, timestamps, sizes = read_mp4(tmp_path / "screen.mp4")
    media = [packet for packet in packets if not packet.config]
    assert len(timestamps) == len(media) == 8 and sizes == [(320, 640)] * 8
    assert timestamps == sorted(set(timestamps))
    assert stored == [av1_without_temporal_delimiters(packet.data) for packet in media]


def test_packets_before_the_first_key_frame_are_dropped(tmp_path):
    config, key, *deltas = encoded("h264", (320, 640), 4)
    assert not any(packet.key_frame for packet in deltas)
    assert record(tmp_path, "h264", (320, 640), [config, *deltas, key, *deltas]) == ["screen.mp4"]
    stored, timestamps, _ = read_mp4(tmp_path / "screen.mp4")
    assert len(stored) == len(timestamps) == 4
    assert timestamps[0] == 0 and timestamps == sorted(set(timestamps))


def test_a_turned_screen_starts_a_second_file(tmp_path):
    upright = encoded("h264", (320, 640), 3)
    turned = encoded("h264", (640, 320), 2, start_us=9_000_000)
    recording = ScreenRecording(tmp_path)
    for packet in upright:
        recording.feed(meta("h264", (320, 640)), packet)
    for packet in turned:
        recording.feed(meta("h264", (640, 320)), packet)
    assert recording.close() == ["screen.mp4", "screen-2.mp4"]
    assert read_mp4(tmp_path / "screen.mp4")[2] == [(320, 640)] * 3
    assert read_mp4(tmp_path / "screen-2.mp4")[2] == [(640, 320)] * 2


def test_nothing_fed_or_no_key_frame_leaves_no_file(tmp_path):
    assert ScreenRecording(tmp_path).close() == []
    config, _key, *deltas = encoded("h264", (320, 640), 3)
    assert record(tmp_path, "h264", (320, 640), [config, *deltas]) == []
    assert list(tmp_path.iterdir()) == []


def test_a_folder_that_cannot_be_written_is_one_warning_and_never_an_error(tmp_path, caplog):
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("in the way")
    packets = encoded("h264", (320, 640), 4)
    with caplog.at_level(logging.WARNING, logger=screen_recording.__name__):
        recording = ScreenRecording(not_a_folder)
        for packet in packets:
            recording.feed(meta("h264", (320, 640)), packet)
        assert recording.close() == []
        recording.feed(meta("h264", (320, 640)), packets[1])      # after the end: ignored, no error
    warnings = [entry for entry in caplog.records if entry.levelno == logging.WARNING]
    assert len(warnings) == 1 and "stopped" in warnings[0].getMessage()
    assert recording.problem
    assert sorted(path.name for path in tmp_path.iterdir()) == ["file"]


def test_close_ends_the_writer_thread_and_can_be_called_again(tmp_path):
    packets = encoded("h264", (320, 640), 2)
    recording = ScreenRecording(tmp_path)
    for packet in packets:
        recording.feed(meta("h264", (320, 640)), packet)
    closer = threading.Thread(target=recording.close)      # from another thread than the one that fed
    closer.start()
    closer.join(10)
    assert not recording._thread.is_alive()
    assert recording.close() == recording.files == ["screen.mp4"]


def test_a_full_queue_drops_packets_until_the_next_key_frame(tmp_path, monkeypatch):
    first = encoded("h264", (320, 640), 6)
    again = encoded("h264", (320, 640), 2, start_us=6_000_000)        # a fresh key frame later on
    writing, release = threading.Event(), threading.Event()
    write = screen_recording._Mp4File.write

    def slow_write(self, *args):
        writing.set()
        release.wait(10)           # the disk is slow: the writer is stuck on the first packet
        write(self, *args)

    monkeypatch.setattr(screen_recording._Mp4File, "write", slow_write)
    recording = ScreenRecording(tmp_path, max_packets=2)
    feed = functools.partial(recording.feed, meta("h264", (320, 640)))
    feed(first[0])
    feed(first[1])                                     # the key frame: the writer takes it and waits
    assert writing.wait(10)
    for packet in first[2:]:                           # two fit, the other three are dropped
        feed(packet)
    feed(again[2])                                     # still no key frame: dropped too
    release.set()
    deadline = time.monotonic() + 10
    while recording.queued and time.monotonic() < deadline:    # the disk caught up
        time.sleep(0.01)
    for packet in again[1:]:                           # the key frame ends the skipping (same config)
        feed(packet)
    assert recording.close() == ["screen.mp4"]
    assert recording.dropped == 4
    stored, timestamps, _ = read_mp4(tmp_path / "screen.mp4")
    assert len(stored) == len(timestamps) == 1 + 2 + 2


# ---------------------------------------------------------------- the run's side


class StreamingFrames:
    """A frame source that streams: hands its listeners the packets it was given, on a worker thread."""

    def __init__(self, codec: str = "h264", size: tuple[int, int] = (320, 640), count: int = 3) -> None:
        self.meta = meta(codec, size)
        self.packets = encoded(codec, size, count)
        self.listeners: list = []

    def add_packet_listener(self, listener):
        self.listeners.append(listener)
        sender = threading.Thread(target=lambda: [listener(self.meta, packet) for packet in self.packets])
        sender.start()
        sender.join()
        return lambda: self.listeners.remove(listener)


class PolledFrames:
    """A screenshot-polling frame source: no packets to record."""


def test_a_run_records_the_stream_only_when_it_streams_and_the_setting_is_on(tmp_path):
    assert record_run_screen(PolledFrames(), tmp_path, True) is None
    frames = StreamingFrames()
    assert record_run_screen(frames, tmp_path, False) is None
    assert frames.listeners == []
    recording = record_run_screen(frames, tmp_path, True)
    assert len(frames.listeners) == 1
    assert recording.close() == ["screen.mp4"]
    assert frames.listeners == []                      # closing stopped the packets
    assert list(tmp_path.iterdir()) == [tmp_path / "screen.mp4"]


def test_a_source_that_refuses_a_listener_records_nothing(tmp_path, caplog):
    class Refusing:
        def add_packet_listener(self, listener):
            raise RuntimeError("the stream is gone")

    assert record_run_screen(Refusing(), tmp_path, True) is None
    assert "refused a listener" in caplog.text
    assert list(tmp_path.iterdir()) == []


def finished_run(tmp_path, recordings: list[str]) -> TrajectoryWriter:
    writer = TrajectoryWriter.create("Open the settings", {"serial": "emulator-5554"}, {"model": "m"}, {}, tmp_path)
    writer.screen_recordings = recordings
    writer.finish(RunResult("success", 0, [], 1.0))
    return writer


def test_the_report_links_the_recording_the_run_lists(tmp_path):
    writer = finished_run(tmp_path, ["screen.mp4", "screen-2.mp4"])
    record(writer.run_dir, "h264", (320, 640), encoded("h264", (320, 640), 2))
    (writer.run_dir / "screen-2.mp4").write_bytes(b"stand-in")
    assert json.loads((writer.run_dir / "run.json").read_text())["screen_recordings"] == ["screen.mp4",
                                                                                           "screen-2.mp4"]
    page = write_report(writer.run_dir).read_text(encoding="utf-8")
    assert "Screen recording" in page
    assert '<video controls preload="metadata" src="screen.mp4">' in page and 'href="screen.mp4"' in page
    assert 'src="screen-2.mp4"' in page


def test_the_report_has_no_recording_when_none_was_made_or_it_is_gone(tmp_path):
    without = finished_run(tmp_path / "a", [])
    assert "screen_recordings" not in json.loads((without.run_dir / "run.json").read_text())
    page = write_report(without.run_dir).read_text(encoding="utf-8")
    assert "<video" not in page and "Screen recording" not in page
    gone = finished_run(tmp_path / "b", ["screen.mp4", "../elsewhere.mp4"])    # listed, but not in the folder
    assert load_run(gone.run_dir).screen_recordings == []
    assert "<video" not in write_report(gone.run_dir).read_text(encoding="utf-8")


# ---------------------------------------------------------------- wired into the run service


class StreamingSession:
    """Makes a session's frames look like scrcpy's stream: its frames as they are, plus packets."""

    def __init__(self, frames, streaming: StreamingFrames) -> None:
        self._frames = frames
        self._streaming = streaming

    def __getattr__(self, name):
        return getattr(self._frames, name)

    def add_packet_listener(self, listener):
        return self._streaming.add_packet_listener(listener)


@pytest.mark.asyncio
@pytest.mark.parametrize("record_runs", [True, False])
async def test_a_run_on_a_streaming_phone_keeps_its_screen_in_its_folder(record_runs, tmp_path, monkeypatch):
    from app.core.config import MirrorSettings
    from app.core.runs.service import RunRequest, RunService
    from app.virtual_phone.adb_server import VirtualAdbServer
    from tests.core.runs.test_run_service import API_KEY, FINISH, open_registry, settings_for_tests
    from tests.support.openai_server import FakeOpenAIServer

    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path / "home"))
    server = VirtualAdbServer().start()
    server.add_phone(serial="emulator-5554")
    phones = await open_registry(server)
    streaming = StreamingFrames()
    session = phones.get("emulator-5554")
    session.frames = StreamingSession(session.frames, streaming)
    settings = settings_for_tests().model_copy(update={"mirror": MirrorSettings(record_runs=record_runs)})
    service = RunService(phones, settings, runs_root=tmp_path / "runs")
    try:
        with FakeOpenAIServer([FINISH]) as model:
            result = await service.run(RunRequest("look", api_key=API_KEY, provider={"base_url": model.base_url}))
    finally:
        await service.shutdown()
        await phones.close()
        server.stop()
    assert result.status == "success", result
    run = load_run(result.run_dir)
    page = (run.run_dir / "report.html").read_text(encoding="utf-8")
    assert streaming.listeners == []                        # the run stopped listening when it ended
    if record_runs:
        assert run.screen_recordings == ["screen.mp4"]
        assert read_mp4(run.run_dir / "screen.mp4")[2] == [(320, 640)] * 3
        assert 'src="screen.mp4"' in page
    else:
        assert run.screen_recordings == [] and not (run.run_dir / "screen.mp4").exists()
        assert "<video" not in page


def test_a_restarted_stream_whose_clock_went_back_goes_on_in_the_same_file(tmp_path):
    first = encoded("h264", (320, 640), 3, start_us=8_000_000)
    again = encoded("h264", (320, 640), 2, start_us=1_000)           # the phone's server started anew
    assert record(tmp_path, "h264", (320, 640), first + again) == ["screen.mp4"]
    _stored, timestamps, _sizes = read_mp4(tmp_path / "screen.mp4")
    assert len(timestamps) == 5 and timestamps == sorted(set(timestamps))
    assert timestamps[3] - timestamps[2] < 1_000_000 and timestamps[4] - timestamps[3] == FRAME_US


def test_the_last_frame_lasts_until_the_recording_ends(tmp_path):
    now = [100.0]
    recording = ScreenRecording(tmp_path, clock=lambda: now[0])
    for packet in encoded("h264", (320, 640), 3):
        recording.feed(meta("h264", (320, 640)), packet)
    now[0] += 2.5                                      # the screen stayed still for 2.5 s, then the run ended
    assert recording.close() == ["screen.mp4"]
    with av.open(str(tmp_path / "screen.mp4")) as container:
        stream = container.streams.video[0]
        seconds = float(stream.duration * stream.time_base)
    assert seconds == pytest.approx(2 * FRAME_US / 1e6 + 2.5, abs=0.01)
