"""A run's screen recording cuts what shows a private screen: an app on the never-send list, or a
password field being typed into. The packets are real H.264 from the virtual phone's encoder; the run's
looks at the screen come as its events do."""

from __future__ import annotations

import pytest

av = pytest.importorskip("av")

from app.android.scrcpy import VideoPacket  # noqa: E402
from app.core.agent.events import EventStream, ObservationReady, StepFinished  # noqa: E402
from app.core.agent.memory import MemoryItem  # noqa: E402
from app.core.perception.locator import ControlSummary  # noqa: E402
from app.core.runs.recording_privacy import watch_privacy  # noqa: E402
from app.core.runs.screen_recording import ScreenRecording  # noqa: E402
from tests.core.test_screen_recording import encoded, meta, read_mp4  # noqa: E402

SIZE = (320, 640)
BANK = "com.example.bank"


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def stretch(start_us: int) -> list[VideoPacket]:
    """A config packet, a key frame and two more pictures, as a stream (re)started by a key-frame request sends."""
    return encoded("h264", SIZE, 3, start_us=start_us)


def feed(recording: ScreenRecording, clock: Clock, packets: list[VideoPacket]) -> None:
    for packet in packets:
        clock.now += 0.1
        recording.feed(meta("h264", SIZE), packet)


def pictures(packets: list[VideoPacket]) -> int:
    return sum(not packet.config for packet in packets)


def look(events: EventStream, app: str, controls: tuple = ()) -> None:
    events.emit(ObservationReady(1, None, None, controls, app))


def test_a_never_send_app_is_cut_from_the_recording_and_it_goes_on_at_a_fresh_key_frame(tmp_path):
    clock, key_frames_asked = Clock(), []
    recording = ScreenRecording(tmp_path, clock=clock, screened=True,
                                request_key_frame=lambda: key_frames_asked.append("asked"))
    events = EventStream()
    watch_privacy(events, recording, [BANK])
    home, bank, back = stretch(1_000_000), stretch(5_000_000), stretch(9_000_000)

    feed(recording, clock, home)
    look(events, "com.android.launcher3")            # the home screen: what came so far goes in
    feed(recording, clock, bank)                      # the run opens the bank app…
    look(events, BANK)                                # …and its next look sees it: that stretch is cut
    feed(recording, clock, bank[1:])                  # still the bank
    look(events, "com.android.launcher3")             # back home: the way out is cut too, a key frame is asked
    feed(recording, clock, back)
    assert recording.close() == ["screen.mp4"]

    _stored, timestamps, _sizes = read_mp4(tmp_path / "screen.mp4")
    assert len(timestamps) == pictures(home) + pictures(back), "only the home screen's pictures are in the file"
    assert recording.cut == 2 * pictures(bank) and key_frames_asked == ["asked"], "once, on leaving the bank"


def test_typing_into_a_password_field_is_cut_even_when_the_next_screen_is_not_private(tmp_path):
    clock = Clock()
    recording = ScreenRecording(tmp_path, clock=clock, screened=True)
    events = EventStream()
    watch_privacy(events, recording, [])
    field = ControlSummary(7, "Password", "EditText", flags=["password"])
    before, typing = stretch(1_000_000), stretch(5_000_000)

    feed(recording, clock, before)
    look(events, "com.android.settings", (field,))    # a password field without focus: not private
    feed(recording, clock, typing)
    events.emit(StepFinished(1, MemoryItem(step=1, request="sign in", controls=[field],
                                           action={"function": "type_text",
                                                   "arguments": {"control_id": 7, "text": "hunter2hunter2"}})))
    assert recording.close() == ["screen.mp4"]
    assert len(read_mp4(tmp_path / "screen.mp4")[1]) == pictures(before)
    assert recording.cut == pictures(typing)


def test_a_recording_nobody_screens_keeps_everything(tmp_path):
    recording = ScreenRecording(tmp_path)
    packets = stretch(1_000_000)
    for packet in packets:
        recording.feed(meta("h264", SIZE), packet)
    assert recording.close() == ["screen.mp4"] and recording.cut == 0
    assert len(read_mp4(tmp_path / "screen.mp4")[1]) == pictures(packets)
