"""Gestures in time (app/virtual_phone/gestures.py): the list follows the finger as it moves, a fast release
flings on and decelerates for OverScroller's time, a fling stops at the list's end, and a new touch catches it
without clicking. On the quick profile all of it happens at once."""

from __future__ import annotations

import threading
import time

import pytest
from PIL import Image, ImageChops, ImageDraw

from app.virtual_phone.edge_effect import LONGEST_SECONDS, EdgeStretch
from app.virtual_phone.gestures import DECELERATION_RATE, fling_path
from app.virtual_phone.phone import VirtualPhone

SETTINGS = "com.android.settings"


def settings_list(phone: VirtualPhone):
    """The scroll state of Settings' first page (opened)."""
    phone.launch(SETTINGS)
    return phone.apps[SETTINGS].top.scroll


def look_at(phone: VirtualPhone) -> int:
    """What a screen stream does 60 times a second: read the phone's version, which brings a fling to now."""
    return phone.version


def test_a_flings_distance_and_time_are_overscrollers():
    """At 420 dpi (a 1080x2400 phone): physical coefficient 9.80665 × 39.37 × 420 × 0.84, friction 0.015."""
    pixels, seconds = fling_path(3000, 420)
    assert pixels == pytest.approx(643, abs=2) and seconds == pytest.approx(0.612, abs=0.002)
    fast_pixels, fast_seconds = fling_path(8000, 420)
    assert fast_pixels > 5 * pixels and 1.0 < fast_seconds < 1.5
    assert fling_path(0, 420) == (0.0, 0.0)
    assert DECELERATION_RATE == pytest.approx(2.358, abs=0.001)


def test_on_the_quick_phone_a_fast_swipe_flings_at_once_and_a_slow_drag_does_not():
    phone = VirtualPhone()
    state = settings_list(phone)
    phone.swipe(540, 1800, 540, 1300, 2000)         # 250 px/s: a short fling
    slow = state.offset
    slop = phone.metrics().dp(8)
    assert slow >= 500 - slop
    state.scroll(-state.offset)
    phone.swipe(540, 1800, 540, 1300, 100)          # 5000 px/s: flings on
    assert state.offset > slow + 500 or state.offset == state.max_offset
    assert not phone.settling()


def test_on_the_realistic_phone_the_list_follows_the_finger_then_flings_in_time():
    phone = VirtualPhone(latency="realistic")
    state = settings_list(phone)
    phone.touch_down(540, 1800)
    offsets = []
    for step in range(1, 11):                       # 60 px per 16 ms: 3750 px/s
        time.sleep(0.016)
        phone.touch_move(540, 1800 - 60 * step)
        offsets.append(state.offset)
    assert offsets == sorted(offsets) and offsets[0] < offsets[-1], "the content moved with each move"
    assert offsets[-1] == pytest.approx(600 - phone.metrics().dp(8), abs=2)
    released = state.offset
    phone.touch_up(540, 1800 - 600)
    assert phone.settling()
    seen = []
    deadline = time.monotonic() + 3
    while phone.settling() and time.monotonic() < deadline:
        look_at(phone)
        seen.append(state.offset)
        time.sleep(0.02)
    assert not phone.settling()
    assert len(set(seen)) >= 5, "the fling moved the list over several frames"
    assert state.offset > released
    steps = [b - a for a, b in zip(seen, seen[1:], strict=False) if b != a]
    assert steps[0] >= steps[-1], "it slows down"


def test_a_fling_stops_at_the_lists_end():
    phone = VirtualPhone(latency="realistic")
    state = settings_list(phone)
    phone.swipe(540, 1800, 540, 600, 60)             # very fast: more than the list holds
    assert phone.wait_until_settled(5)
    assert state.offset == state.max_offset > 0


def test_a_fling_that_hits_the_lists_end_stretches_it_for_a_moment_in_pictures_only():
    """Android 12's stretch: the fling's speed at the end is absorbed by EdgeEffect's spring; for about a quarter
    of a second the list is drawn longer, away from that end, then as it was. The dump does not move."""
    phone = VirtualPhone(latency="realistic")
    state = settings_list(phone)
    phone.swipe(540, 1800, 540, 600, 60)             # very fast: more than the list holds
    frames = []                                      # (when, offset, picture, dump), as a stream sees them
    started = time.monotonic()
    while phone.settling() and time.monotonic() - started < 5:
        frames.append((time.monotonic(), state.offset, phone.screenshot().convert("RGB"), phone.dump_hierarchy()))
        time.sleep(0.016)
    assert not phone.settling() and state.offset == state.max_offset > 0
    settled = phone.screenshot().convert("RGB")
    at_the_end = [frame for frame in frames if frame[1] == state.max_offset]
    assert at_the_end, "the fling reached the end"
    stretch_seconds = time.monotonic() - at_the_end[0][0]
    assert 0.1 < stretch_seconds < LONGEST_SECONDS, stretch_seconds
    stretched = [frame for frame in at_the_end if ImageChops.difference(frame[2], settled).getbbox()]
    assert len(stretched) >= 3, "several frames of the stretch"
    assert {frame[3] for frame in at_the_end} == {phone.dump_hierarchy()}, "drawn only: the views stay put"


def test_the_stretch_follows_edge_effects_spring():
    """Speed × 13 into a spring of 24.657 rad/s damped 0.98: its peak comes at about 41 ms, 1.5% of the speed in
    pixels; a fling hitting a 1,900 px list at 2,000 px/s stretches it by 31 px, then under a pixel by 0.35 s."""
    edge = EdgeStretch((0, 200, 1080, 2100), 2000.0, start=0.0)
    assert edge.distance(0.041) == pytest.approx(0.01513 * 26000, rel=0.01)
    assert edge.stretched_pixels(0.041) == pytest.approx(31, abs=1)
    assert edge.stretched_pixels(0.2) == pytest.approx(5, abs=1) and edge.stretched_pixels(0.35) < 1
    assert edge.advance(0.1) and not edge.advance(0.35) and edge.done
    still = Image.new("RGB", (1080, 2400), "white")
    assert edge.draw(still, 0.05) is still, "done: drawn as it is"
    rows = Image.new("RGB", (1080, 2400), "white")
    ImageDraw.Draw(rows).rectangle((0, 1000, 1080, 1010), fill="black")     # a row's divider mid-list
    pulled = EdgeStretch((0, 200, 1080, 2100), 2000.0, start=0.0)
    drawn = pulled.draw(rows, 0.041)
    assert drawn.getpixel((540, 2099)) == rows.getpixel((540, 2099)), "the end it hit stays where it is"
    assert drawn.getpixel((540, 1005)) == (255, 255, 255) and rows.getpixel((540, 1005)) == (0, 0, 0), \
        "the content above is pulled away from it"


def test_a_touch_catches_a_fling_and_does_not_click():
    phone = VirtualPhone(latency="realistic")
    state = settings_list(phone)
    phone.swipe(540, 1800, 540, 1200, 80)
    while phone.gesture_ends_at() > time.monotonic():
        time.sleep(0.01)
    time.sleep(0.05)
    look_at(phone)
    assert phone.settling()
    phone.touch_down(540, 1200)
    caught_at = state.offset
    phone.touch_up(540, 1200)
    time.sleep(0.2)
    look_at(phone)
    assert state.offset == caught_at and not phone.settling()
    assert phone.foreground()[0] == SETTINGS and phone.apps[SETTINGS].top is not None
    assert len(phone.apps[SETTINGS].stack) == 1, "the touch that caught the fling opened no row"


def test_a_still_touch_is_a_tap_and_a_long_one_a_long_press():
    phone = VirtualPhone()
    phone.touch_down(540, 400)
    phone.touch_up(540, 400)
    assert phone.foreground()[0] == phone.fg
    phone.launch(SETTINGS)
    start = time.monotonic()
    phone.touch_down(540, 700, start)
    phone.touch_move(541, 702, start + 0.05)         # within the touch slop: still a press
    phone.touch_up(541, 702, start + 0.1)
    assert len(phone.apps[SETTINGS].stack) == 2, "the tap opened the row under it"


@pytest.fixture
def realistic_server():
    from app.virtual_phone.adb_server import VirtualAdbServer

    server = VirtualAdbServer().start()
    server.add_phone(VirtualPhone(latency="realistic"))
    yield server
    server.stop()


def test_input_swipe_over_adb_takes_its_time_and_streams_every_step(realistic_server):
    server = realistic_server
    phone = server.devices[0].phone
    state = settings_list(phone)
    versions: set[int] = set()
    stop = threading.Event()

    def watch() -> None:                               # a screen stream polls the phone at 60 Hz
        while not stop.is_set():
            versions.add(phone.version)
            time.sleep(1 / 60)

    import adbutils

    device = adbutils.AdbClient("127.0.0.1", server.port).device(server.devices[0].serial)
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        started = time.monotonic()
        device.shell("input swipe 540 1800 540 1000 400")
        took = time.monotonic() - started
    finally:
        stop.set()
        watcher.join()
    assert took >= 0.4, "the command returns when its finger comes up"
    assert len(versions) >= 10, f"the list moved in steps the stream could show ({len(versions)} pictures)"
    assert phone.wait_until_settled(5) and state.offset > 800 - phone.metrics().dp(8)


def test_the_finger_sample_horizon_gives_the_release_speed():
    phone = VirtualPhone()
    state = settings_list(phone)
    start = time.monotonic()
    phone.touch_down(540, 1800, start)
    phone.touch_move(540, 1000, start + 1.0)         # a long slow drag …
    phone.touch_move(540, 999, start + 1.5)          # … then the finger rests: no fling
    phone.touch_up(540, 999, start + 1.6)
    assert state.offset == pytest.approx(801 - phone.metrics().dp(8), abs=1), "no fling after the finger rested"


@pytest.mark.parametrize("profile, timeout_ms, long_press", [
    ("android14", None, True),        # 400 ms since Android 12: a 450 ms hold is a long press
    ("android9", None, False),        # 500 ms before: the same hold is a tap
    ("android14", "1000", False),     # Accessibility › Touch & hold delay: long (1 s)
])
def test_the_long_press_time_is_the_releases_or_the_persons_choice(profile, timeout_ms, long_press):
    from app.virtual_phone.apps.launcher import IconPopup
    from tests.virtual_phone.conftest import node_center

    phone = VirtualPhone(profile=profile)
    if timeout_ms is not None:
        phone.put_setting("secure", "long_press_timeout", timeout_ms)
    x, y = node_center(phone, text="Settings")
    start = time.monotonic()
    phone.touch_down(x, y, start)
    phone.touch_up(x, y, start + 0.45)
    home = phone.apps["com.android.launcher3"].top
    popped = isinstance(getattr(home, "dialog", None), IconPopup)
    assert popped == long_press, (profile, timeout_ms, phone.fg)
    assert (phone.fg == SETTINGS) == (not long_press), "a hold shorter than the long-press time opens the app"
