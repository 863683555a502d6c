"""The virtual phone's screen encoded as scrcpy streams it, checked by decoding it back with PyAV."""

from __future__ import annotations

import sys

import pytest
from PIL import Image, ImageChops, ImageStat

from app.virtual_phone.phone import VirtualPhone
from app.virtual_phone.video_encoder import EncoderUnavailable, ScreenEncoder, video_size

av = pytest.importorskip("av", reason="PyAV is needed to encode the virtual phone's screen")


def decode(codec: str, packets) -> list[Image.Image]:
    """What a client sees: the config packet joined to the next packet (as scrcpy's client merges them)."""
    decoder = av.CodecContext.create({"h264": "h264", "av1": "libdav1d"}[codec], "r")
    if codec == "av1":
        decoder.options = {"max_frame_delay": "1"}     # a frame out for every packet in, as a mirror needs
    pictures, config = [], b""
    for packet in packets:
        if packet.config:
            config = packet.data
            continue
        for frame in decoder.decode(av.Packet(config + packet.data)):
            pictures.append(frame.to_image())
        config = b""
    return pictures


def difference(a: Image.Image, b: Image.Image) -> float:
    """Mean absolute difference per channel, 0–255."""
    return sum(ImageStat.Stat(ImageChops.difference(a.convert("RGB"), b.convert("RGB"))).mean) / 3


def test_the_stream_size_follows_scrcpys_rule():
    assert video_size((1080, 2400)) == (1080, 2400)
    assert video_size((1080, 2400), 1280) == (576, 1280)
    assert video_size((720, 1280), 1024) == (576, 1024)
    assert video_size((2400, 1080), 1280) == (1280, 576), "landscape keeps its orientation"
    assert video_size((1081, 2401)) == (1080, 2400), "multiples of 8"


@pytest.mark.parametrize("codec", ["h264", "av1"])
def test_pictures_come_back_from_the_stream(codec):
    phone = VirtualPhone()
    home = phone.screenshot().convert("RGB")
    phone.tap(540, 2150)   # open an app from the launcher: a different screen
    other = phone.screenshot().convert("RGB")
    size = video_size(home.size, 1280)
    encoder = ScreenEncoder(codec, size)
    try:
        packets = encoder.encode(home, 0) + encoder.encode(other, 16_666)
    finally:
        encoder.close()
    if codec == "h264":
        assert packets[0].config and not packets[0].key_frame, "the SPS/PPS first, as a config packet"
    frames = [packet for packet in packets if not packet.config]
    assert len(frames) == 2 and frames[0].key_frame, "one packet per picture, at once; the first a key frame"
    assert frames[1].pts_us > frames[0].pts_us
    pictures = decode(codec, packets)
    assert [picture.size for picture in pictures] == [size, size]
    expected = [home.resize(size), other.resize(size)]
    assert difference(pictures[0], expected[0]) < 6 and difference(pictures[1], expected[1]) < 6
    assert difference(pictures[0], pictures[1]) > 6, "the two screens differ in the stream too"


def test_an_unknown_codec_is_refused_plainly():
    with pytest.raises(EncoderUnavailable, match="cannot stream 'h265'; it streams h264, av1"):
        ScreenEncoder("h265", (576, 1280))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice values are Linux's")
def test_the_thread_that_renders_and_encodes_yields_the_cores_to_the_app_and_only_it():
    """A real phone draws and encodes on its own chips: the stand-in's stream thread runs at a lower priority
    than the app's threads, which keep theirs."""
    import os
    import threading

    from app.virtual_phone.video_encoder import PHONE_NICENESS, yield_cores_to_the_app

    seen = {}

    def stream_thread():
        before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        seen["yielded"] = yield_cores_to_the_app()
        seen["change"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) - before

    main_before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    thread = threading.Thread(target=stream_thread)
    thread.start()
    thread.join()
    assert seen["yielded"] and seen["change"] == min(PHONE_NICENESS, 19 - main_before)
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == main_before, "other threads keep theirs"
