"""The latency profiles: what services cost, screens that move after an action, dumps that wait for idle."""

from __future__ import annotations

import time

import adbutils
import pytest
from PIL import Image, ImageChops

from app.virtual_phone.adb_server import VirtualAdbServer
from app.virtual_phone.latency import (
    DUMP,
    INPUT,
    QUICK,
    REALISTIC,
    REALISTIC_ANIMATION,
    REALISTIC_COSTS,
    SCREENCAP_PNG,
    SCREENCAP_RAW,
    TOYBOX,
    Timing,
    command_kind,
    latency_named,
)
from app.virtual_phone.motion import FIRST_NEW_FRAME_SECONDS, ScreenMotion

from .conftest import node_center


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_command_kinds():
    assert command_kind(["uiautomator", "dump", "/dev/tty"]) == DUMP
    assert command_kind(["screencap", "-p"]) == SCREENCAP_PNG
    assert command_kind(["/system/bin/screencap", "/sdcard/s.png"]) == SCREENCAP_PNG
    assert command_kind(["screencap"]) == SCREENCAP_RAW
    assert command_kind(["input", "tap", "1", "2"]) == INPUT
    assert command_kind(["ls", "/sdcard"]) == TOYBOX


def test_profile_names_and_scale():
    assert latency_named("quick") is QUICK and QUICK.quick
    scaled = latency_named("realistic@0.25")
    assert scaled.scale == 0.25 and scaled.costs == REALISTIC.costs and not scaled.quick
    assert latency_named("Realistic", 0.5).describe() == "realistic at 0.5× time"
    with pytest.raises(ValueError, match="choose one of quick, realistic"):
        latency_named("fast")
    with pytest.raises(ValueError, match="time scale"):
        latency_named("realistic@x")
    with pytest.raises(ValueError):
        REALISTIC.scaled(0)


def test_realistic_costs_follow_the_published_ranges_and_scale_down():
    full, quarter = Timing(REALISTIC, seed=1), Timing(REALISTIC.scaled(0.25), seed=1)
    dumps = [full.cost(DUMP) for _ in range(50)]
    low, high = REALISTIC_COSTS[DUMP]
    assert min(dumps) >= low and max(dumps) <= high and max(dumps) - min(dumps) > (high - low) / 2
    assert quarter.cost(DUMP) == pytest.approx(Timing(REALISTIC, seed=1).cost(DUMP) * 0.25)
    assert Timing(QUICK).cost(DUMP) == 0.0


def test_a_capture_during_a_transition_shows_the_old_then_a_half_changed_picture():
    clock = FakeClock()
    motion = ScreenMotion(Timing(REALISTIC, seed=3), clock=clock)
    old, new = Image.new("RGBA", (8, 8), (0, 0, 0, 255)), Image.new("RGBA", (8, 8), (200, 200, 200, 255))
    duration = motion.action_changed_screen(old)
    assert REALISTIC_ANIMATION[0] <= duration <= REALISTIC_ANIMATION[1]
    assert motion.picture(new) is old                      # the first frames still look like before
    clock.now += FIRST_NEW_FRAME_SECONDS * 0.9
    assert motion.picture(new) is old, "two frames of the old picture (input to display, AOSP)"
    clock.now += FIRST_NEW_FRAME_SECONDS * 0.2
    assert motion.picture(new) is not old, "then the transition shows: touch to new frame stays a phone's"
    clock.now += duration * 0.5
    middle = motion.picture(new).getpixel((0, 0))[0]
    assert 0 < middle < 200                                 # half-changed
    clock.now += duration
    assert motion.picture(new) is new and not motion.moving()


def test_quick_profile_changes_at_once():
    motion = ScreenMotion(Timing(QUICK))
    old, new = Image.new("RGBA", (4, 4)), Image.new("RGBA", (4, 4), (9, 9, 9, 255))
    assert motion.action_changed_screen(old) == 0.0
    assert motion.picture(new) is new and motion.wait_for_idle(lambda: True)


@pytest.fixture
def realistic_adb():
    """A realistic phone at 0.2× time: a dump costs 0.15–0.24 s plus its idle wait (0.2 s of quiet)."""
    server = VirtualAdbServer().start()
    server.add_phone(latency=latency_named("realistic", 0.2), seed=7)
    try:
        yield server
    finally:
        server.stop()


def _device(server) -> adbutils.AdbDevice:
    return adbutils.AdbClient(host="127.0.0.1", port=server.port).device(server.devices[0].serial)


def test_dump_costs_what_a_phone_costs_and_waits_for_the_screen_to_settle(realistic_adb):
    device, phone = _device(realistic_adb), realistic_adb.devices[0].phone
    started = time.monotonic()
    xml = device.shell("uiautomator dump /dev/tty")
    idle_dump = time.monotonic() - started
    assert "<hierarchy" in xml and 0.75 * 0.2 <= idle_dump < 2.0

    x, y = node_center(phone, desc="Settings")
    device.shell(f"input tap {x} {y}")
    started = time.monotonic()
    xml = device.shell("uiautomator dump /dev/tty")
    after_tap = time.monotonic() - started
    assert "com.android.settings" in xml
    # uiautomator waits for one second of quiet (scaled: 0.2 s) after the tap's animation
    # (at least 0.25 s, scaled: 0.05 s) has ended; its own start-up runs meanwhile.
    assert after_tap >= (0.25 + 1.0) * 0.2 - 0.01


def test_a_screenshot_right_after_a_tap_is_not_yet_the_settled_screen():
    # Full time scale: the screen moves for 0.25–0.45 s, long enough to look at even on a busy machine.
    server = VirtualAdbServer().start()
    try:
        server.add_phone(latency="realistic", seed=7)
        device, phone = _device(server), server.devices[0].phone
        phone.screenshot()                      # the screen as shown before the tap
        x, y = node_center(phone, desc="Settings")
        device.shell(f"input tap {x} {y}")
        early, moving = phone.screenshot().copy(), phone.motion.moving()
        time.sleep(0.5)
        settled = phone.screenshot()
        assert moving and not phone.motion.moving()
        assert ImageChops.difference(early.convert("RGB"), settled.convert("RGB")).getbbox() is not None
        assert phone.screenshot() is settled    # once settled, the picture stays put
    finally:
        server.stop()


def test_a_screen_that_never_stops_moving_cannot_be_dumped(realistic_adb):
    device, phone = _device(realistic_adb), realistic_adb.devices[0].phone
    phone.foreground_app.top.animating = True   # as a spinner or a running timer does
    started = time.monotonic()
    result = device.shell2("uiautomator dump /dev/tty", v2=True)
    waited = time.monotonic() - started
    assert "ERROR: could not get idle state." in result.stderr and "<hierarchy" not in result.stdout
    assert waited >= 10 * 0.2 * 0.9                      # the ten-second idle timeout, scaled
    phone.foreground_app.top.animating = False
    assert "<hierarchy" in device.shell("uiautomator dump /dev/tty")


def test_the_quick_profile_answers_at_once(virtual_adb):
    device = _device(virtual_adb)
    started = time.monotonic()
    for _ in range(5):
        device.shell("uiautomator dump /dev/tty")
    assert time.monotonic() - started < 2.0
