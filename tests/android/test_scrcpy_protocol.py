"""scrcpy 3.3.4's wire format: byte-exact vectors re-typed from scrcpy's own tests
(server/src/test/…/ControlMessageReaderTest.java, DeviceMessageWriterTest.java,
BinaryTest.java; app/tests/test_control_msg_serialize.c, test_device_msg_deserialize.c),
round trips, incomplete and malformed input, the video framing and the command line."""

from __future__ import annotations

import pytest

from app.android import scrcpy as s
from app.android.scrcpy import protocol

H = bytes.fromhex
SCREEN = s.Position(100, 200, 1080, 1920)

# (message, the exact bytes scrcpy writes / reads for it)
VECTORS = [
    # client: keycode ENTER up, repeat 5, SHIFT_ON|SHIFT_LEFT_ON
    (s.InjectKeycode(action=1, keycode=66, repeat=5, meta_state=0x41),
     H("00 01 00000042 00000005 00000041")),
    # server: keycode ENTER up, repeat 5, META_CTRL_ON (0x1000)
    (s.InjectKeycode(1, 66, 5, 0x1000), H("00 01 00000042 00000005 00001000")),
    (s.InjectText("hello, world!"), H("01 0000000d") + b"hello, world!"),
    (s.InjectText("testé"), H("01 00000006") + "testé".encode()),
    (s.InjectText("a" * 300), H("01 0000012c") + b"a" * 300),
    # client: pointer 0x1234567887654321, pressure 1.0, primary button
    (s.InjectTouchEvent(0, 0x1234567887654321, SCREEN, 1.0, 1, 1),
     H("02 00 1234567887654321 00000064 000000c8 0438 0780 ffff 00000001 00000001")),
    # server: pointer id -42 (a signed long)
    (s.InjectTouchEvent(0, -42, SCREEN, 1.0, 1, 1),
     H("02 00 ffffffffffffffd6 00000064 000000c8 0438 0780 ffff 00000001 00000001")),
    (s.InjectScrollEvent(s.Position(260, 1026, 1080, 1920), 16.0, -16.0, 1),
     H("03 00000104 00000402 0438 0780 7fff 8000 00000001")),
    (s.InjectScrollEvent(s.Position(260, 1026, 1080, 1920), 0.0, -16.0, 1),
     H("03 00000104 00000402 0438 0780 0000 8000 00000001")),
    (s.BackOrScreenOn(1), H("04 01")),
    (s.ExpandNotificationPanel(), H("05")),
    (s.ExpandSettingsPanel(), H("06")),
    (s.CollapsePanels(), H("07")),
    (s.GetClipboard(s.COPY_KEY_COPY), H("08 01")),
    (s.SetClipboard(0x0102030405060708, "hello, world!", paste=True),
     H("09 0102030405060708 01 0000000d") + b"hello, world!"),
    (s.SetClipboard(0x0102030405060708, "testé", paste=True),
     H("09 0102030405060708 01 00000006") + "testé".encode()),
    (s.SetDisplayPower(True), H("0a 01")),
    (s.RotateDevice(), H("0b")),
    (s.UhidCreate(42, 0x1234, 0x5678, "ABC", bytes(range(1, 12))),
     H("0c 002a 1234 5678 03 414243 000b 0102030405060708090a0b")),
    (s.UhidInput(42, bytes([1, 2, 3, 4, 5])), H("0d 002a 0005 0102030405")),
    (s.UhidDestroy(42), H("0e 002a")),
    (s.OpenHardKeyboardSettings(), H("0f")),
    (s.StartApp("firefox"), H("10 07") + b"firefox"),
    (s.ResetVideo(), H("11")),
]


@pytest.mark.parametrize("message,wire", VECTORS, ids=lambda v: type(v).__name__)
def test_control_message_bytes_are_scrcpys(message, wire):
    assert message.to_bytes() == wire
    assert s.read_control_message(wire) == (message, len(wire))


def test_every_incomplete_prefix_waits_for_more():
    for message, wire in VECTORS:
        for cut in range(len(wire)):
            assert s.read_control_message(wire[:cut]) is None, (message, cut)


def test_biggest_clipboard_fills_the_largest_message():
    text = "a" * s.CLIPBOARD_TEXT_MAX_LENGTH
    wire = s.SetClipboard(0x0807060504030201, text, paste=True).to_bytes()
    assert len(wire) == s.MESSAGE_MAX_SIZE
    assert wire[:14] == H("09 0807060504030201 01 0003fff2")
    message, used = s.read_control_message(wire)
    assert used == len(wire) and message.text == text and message.paste


def test_messages_one_after_another_and_in_pieces():
    first = H("00 01 00000042 00000000 00001000")
    second = H("00 00 00000001 00000001 00001000")
    assert s.read_control_message(first + second) == (s.InjectKeycode(1, 66, 0, 0x1000), 14)
    assert s.read_control_message(first + second, 14) == (s.InjectKeycode(0, 1, 1, 0x1000), 14)

    reader = s.ControlMessageReader()
    stream = b"".join(wire for _, wire in VECTORS)
    got = []
    for i in range(0, len(stream), 7):
        got += reader.feed(stream[i:i + 7])
    assert got == [message for message, _ in VECTORS]
    assert reader.pending == 0
    # the server's "partial events" case: a whole message, then two bytes of the next
    assert reader.feed(first + H("00 00")) == [s.InjectKeycode(1, 66, 0, 0x1000)]
    assert reader.pending == 2


@pytest.mark.parametrize("wire,error", [
    (H("12"), "Unknown event type: 18"),
    (H("ff 00 00"), "Unknown event type: 255"),
    (H("01 0000012d"), "inject text of 301 bytes"),  # refused before the text arrives
    (H("01 ffffffff"), "inject text of 4294967295 bytes"),
    (H("09 0000000000000001 00 0003fff3"), "clipboard text of 262131 bytes"),
])
def test_malformed_control_messages_are_refused(wire, error):
    with pytest.raises(s.ProtocolError, match=error):
        s.read_control_message(wire)


def test_a_reader_that_failed_stays_failed():
    reader = s.ControlMessageReader()
    with pytest.raises(s.ProtocolError, match="Unknown event type: 99"):
        reader.feed(H("04 01") + bytes([99]))
    with pytest.raises(s.ProtocolError, match="already failed"):
        reader.feed(H("04 01"))


def test_malformed_utf8_is_read_as_the_server_reads_it():
    wire = H("01 00000003 61ff62")
    message, used = s.read_control_message(wire)
    assert used == 8 and message.text == "a\ufffdb"
    # 300 bad bytes decode to 900 bytes of U+FFFD: still read, never an exception
    message, _ = s.read_control_message(H("01 0000012c") + b"\xff" * 300)
    assert message.text == "\ufffd" * 300


def test_writers_refuse_what_the_wire_cannot_carry():
    with pytest.raises(ValueError, match="301 UTF-8 bytes"):
        s.InjectText("a" * 301)
    with pytest.raises(ValueError, match="pressure"):
        s.InjectTouchEvent(0, 0, SCREEN, pressure=1.5)
    with pytest.raises(ValueError, match="vscroll"):
        s.InjectScrollEvent(SCREEN, 0.0, -17.0)
    with pytest.raises(ValueError, match="screen_width"):
        s.Position(0, 0, 70000, 10)
    with pytest.raises(ValueError, match="action"):
        s.InjectKeycode(256, 66)


def test_long_text_splits_on_characters_and_loses_nothing():
    text = "é" * 200 + "漢字" + "🙂" * 100
    pieces = s.split_utf8(text, s.INJECT_TEXT_MAX_LENGTH)
    assert "".join(pieces) == text
    assert all(len(p.encode()) <= 300 for p in pieces)
    assert [s.InjectText(p) for p in pieces]  # each one is a valid message
    assert s.truncate_utf8("aé", 2) == b"a"  # never half a character


@pytest.mark.parametrize("raw,value", [
    (0, 0.0), (0x800, 0.03125), (0x1000, 0.0625), (0x2000, 0.125), (0x4000, 0.25),
    (0x8000, 0.5), (0xC000, 0.75), (0xFFFF, 1.0),
])
def test_u16_fixed_point(raw, value):
    assert protocol.u16_fixed_point_to_float(raw) == value
    assert protocol.float_to_u16_fixed_point(value) == raw


@pytest.mark.parametrize("raw,value", [
    (0, 0.0), (0x400, 0.03125), (0x800, 0.0625), (0x1000, 0.125), (0x2000, 0.25),
    (0x4000, 0.5), (0x6000, 0.75), (0x7FFF, 1.0), (-0x400, -0.03125), (-0x2000, -0.25),
    (-0x6000, -0.75), (-0x8000, -1.0),
])
def test_i16_fixed_point(raw, value):
    assert protocol.i16_fixed_point_to_float(raw) == value
    assert protocol.float_to_i16_fixed_point(value) == raw


DEVICE_VECTORS = [
    (s.DeviceClipboard("ABC"), H("00 00000003 414243")),
    (s.DeviceClipboard("aéûoç"), H("00 00000008") + "aéûoç".encode()),
    (s.AckClipboard(0x0102030405060708), H("01 0102030405060708")),
    (s.UhidOutput(42, bytes([1, 2, 3, 4, 5])), H("02 002a 0005 0102030405")),
]


@pytest.mark.parametrize("message,wire", DEVICE_VECTORS, ids=lambda v: type(v).__name__)
def test_device_message_bytes_are_scrcpys(message, wire):
    assert message.to_bytes() == wire
    assert s.read_device_message(wire) == (message, len(wire))
    for cut in range(len(wire)):
        assert s.read_device_message(wire[:cut]) is None


def test_biggest_device_clipboard_and_a_stream_of_device_messages():
    wire = H("00 0003fffb") + b"a" * s.DEVICE_CLIPBOARD_TEXT_MAX_LENGTH
    message, used = s.read_device_message(wire)
    assert used == s.MESSAGE_MAX_SIZE and len(message.text) == s.DEVICE_CLIPBOARD_TEXT_MAX_LENGTH
    reader = s.DeviceMessageReader()
    stream = b"".join(w for _, w in DEVICE_VECTORS)
    assert reader.feed(stream[:5]) == []
    assert reader.feed(stream[5:]) == [m for m, _ in DEVICE_VECTORS]


@pytest.mark.parametrize("wire,error", [
    (H("03"), "Unknown device message type: 3"),
    (H("00 0003fffc"), "clipboard text of 262140 bytes"),
])
def test_malformed_device_messages_are_refused(wire, error):
    with pytest.raises(s.ProtocolError, match=error):
        s.read_device_message(wire)


def test_device_name_field():
    field = s.encode_device_name("Pixel 7")
    assert len(field) == 64 and field == b"Pixel 7" + b"\0" * 57
    assert s.decode_device_name(field) == "Pixel 7"
    long_name = "é" * 40  # 80 bytes: cut to 62 (31 characters), never inside one
    assert s.decode_device_name(s.encode_device_name(long_name)) == "é" * 31
    assert s.decode_device_name(b"x" * 64) == "x" * 63  # the client forces the last NUL


def test_packet_header_flags():
    assert s.encode_packet_header(5, 0x123456) == H("0000000000123456 00000005")
    assert s.encode_packet_header(5, 0x123456, key_frame=True) == H("4000000000123456 00000005")
    # a config packet carries the config flag only: no pts, no key flag
    assert s.encode_packet_header(30, None, config=True) == H("8000000000000000 0000001e")
    assert s.decode_packet_header(H("4000000000123456 00000005")) == s.PacketHeader(
        pts=0x123456, config=False, key_frame=True, size=5)
    assert s.decode_packet_header(H("8000000000000000 0000001e")) == s.PacketHeader(
        pts=None, config=True, key_frame=False, size=30)
    with pytest.raises(s.ProtocolError, match="empty packet"):
        s.decode_packet_header(H("0000000000000001 00000000"))
    with pytest.raises(ValueError, match="pts"):
        s.encode_packet_header(5, 1 << 62)  # would collide with the key-frame flag


def test_video_stream_in_pieces():
    meta = s.VideoCodecMeta(s.CODEC_ID_H264, 1080, 2400)
    assert meta.to_bytes() == b"h264" + H("00000438 00000960") and meta.codec == "h264"
    packets = [s.VideoPacket(b"\x00\x00\x00\x01gSPS", None, config=True),
               s.VideoPacket(b"\x00\x00\x00\x01eIDR" * 50, 0, key_frame=True),
               s.VideoPacket(b"\x00\x00\x00\x01A", 16_666)]
    stream = (s.encode_stream_prologue(device_name="Virtual", codec_meta=meta, dummy_byte=True)
              + b"".join(p.to_bytes() for p in packets))
    assert stream[:1] == s.DUMMY_BYTE and stream[1:65] == s.encode_device_name("Virtual")
    reader = s.VideoStreamReader()
    events = []
    for i in range(0, len(stream), 5):
        events += reader.feed(stream[i:i + 5])
    assert events == [s.DeviceMeta("Virtual"), meta, *packets]
    assert reader.device_name == "Virtual" and reader.codec_meta == meta and reader.pending == 0


def test_video_stream_without_the_optional_parts():
    packet = s.VideoPacket(b"abc", 7)
    reader = s.VideoStreamReader(dummy_byte=False, device_meta=False, codec_meta=False)
    assert reader.feed(packet.to_bytes()) == [packet]


@pytest.mark.parametrize("codec_bytes,configuration_error", [
    (s.encode_stream_disabled(False), False), (s.encode_stream_disabled(True), True)])
def test_video_stream_disabled_by_the_server(codec_bytes, configuration_error):
    reader = s.VideoStreamReader(dummy_byte=False, device_meta=False)
    with pytest.raises(s.StreamDisabled) as raised:
        reader.feed(codec_bytes)
    assert raised.value.configuration_error is configuration_error


def test_video_stream_out_of_step_is_refused():
    with pytest.raises(s.ProtocolError, match="Unknown codec id 0x6f707573"):
        s.VideoStreamReader(dummy_byte=False, device_meta=False).feed(b"opus")
    reader = s.VideoStreamReader(dummy_byte=False, device_meta=False, codec_meta=False,
                                 max_packet_size=1000)
    with pytest.raises(s.ProtocolError, match="larger than the 1000"):
        reader.feed(H("0000000000000000 000003e9"))


def test_server_command_is_the_one_scrcpy_runs():
    options = s.ServerOptions.for_mirror(scid=0x1A2B3C, max_size=1280, max_fps=60,
                                         video_bit_rate=4_000_000, power_off_on_close=True,
                                         clipboard_autosync=False)
    assert s.server_command(options) == (
        "CLASSPATH=/data/local/tmp/scrcpy-server.jar app_process / com.genymobile.scrcpy.Server "
        "3.3.4 scid=001a2b3c log_level=info video_bit_rate=4000000 audio=false max_size=1280 "
        "max_fps=60 tunnel_forward=true power_off_on_close=true clipboard_autosync=false")
    assert options.socket_name == "scrcpy_001a2b3c" and s.socket_name(s.NO_SCID) == "scrcpy"
    parsed = s.parse_server_command(s.server_command(options))
    assert parsed.classpath == s.DEVICE_SERVER_PATH and parsed.options == options


def test_scids_are_random_31_bit_numbers():
    scids = {s.generate_scid() for _ in range(50)}
    assert len(scids) > 1 and all(0 <= scid < 1 << 31 for scid in scids)


def test_parsing_follows_options_java():
    args = ["3.3.4", "scid=7fffffff", "audio=TRUE", "video=yes", "max_size=1285", "max_fps=29.97",
            "crop=100:200:0:0", "raw_stream=true", "new_option=1"]
    options = s.parse_server_arguments(args)
    assert options.scid == 0x7FFFFFFF and options.audio is True and options.video is False
    assert options.max_size == 1280 and options.max_fps == pytest.approx(29.97)
    assert options.other == {"crop": "100:200:0:0"} and options.unknown_keys == ("new_option",)
    assert not (options.send_dummy_byte or options.send_device_meta or options.send_codec_meta)
    defaults = s.parse_server_arguments(["3.3.4"])
    assert defaults == s.ServerOptions() and defaults.audio and not defaults.tunnel_forward


@pytest.mark.parametrize("args,message", [
    (["3.3.3", "scid=1"], "The server version (3.3.4) does not match the client (3.3.3)"),
    (["2.1"], "The server version (3.3.4) does not match the client (2.1)"),
    ([], "Missing client version"),
    (["3.3.4", "audio"], 'Invalid key=value pair: "audio"'),
    (["3.3.4", "scid=-2"], "scid may not be negative (except -1 for 'none'): -2"),
    (["3.3.4", "scid=zz"], 'For input string: "zz" under radix 16'),
    (["3.3.4", "video_codec=vp9"], "Video codec vp9 not supported"),
    (["3.3.4", "max_fps=fast"], 'Invalid float value for max_fps: "fast"'),
    (["3.3.4", "log_level=loud"], "No enum constant com.genymobile.scrcpy.util.Ln.Level.LOUD"),
])
def test_the_server_refuses_as_the_real_one_does(args, message):
    with pytest.raises(s.ServerArgumentError) as raised:
        s.parse_server_arguments(args)
    assert str(raised.value) == message


def test_a_command_that_is_not_the_server():
    assert not s.is_server_command("ls /data/local/tmp")
    assert s.is_server_command(s.server_command(s.ServerOptions.for_mirror()))
    with pytest.raises(ValueError, match="not a command that starts the scrcpy server"):
        s.parse_server_command("CLASSPATH=/x.jar app_process / com.example.Other 3.3.4")
    with pytest.raises(ValueError, match="shell"):
        s.server_arguments(s.ServerOptions(other={"crop": "1;reboot"}))
