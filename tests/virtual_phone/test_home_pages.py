"""The home screen pages as Launcher3 does (app/virtual_phone/paging.py): the pages follow the finger, a release
goes to a page (the next one after a fling or a drag past 40 %, back after a short slow drag), the snap takes its
time on the realistic phone, a touch stops it between two pages and the pages snap on that finger's release, and
Home on the home screen goes back to the first page. The second page holds DeskClock's digital clock widget."""

from __future__ import annotations

import time
from datetime import datetime

import pytest

from app.virtual_phone.apps.launcher import HomeScreen
from app.virtual_phone.paging import PAGE_SNAP_SECONDS, Pages, scroll_curve, snap_seconds
from app.virtual_phone.phone import VirtualPhone

PER_DP = 2.625                      # 420 dpi
WIDTH = 1080


def home_of(phone: VirtualPhone) -> HomeScreen:
    phone.go_home()
    home = phone.launcher.top
    assert isinstance(home, HomeScreen)
    return home


def dumped_texts(phone: VirtualPhone) -> str:
    return phone.dump_hierarchy()


def released(finger_dx: int, velocity: float, current: int = 0) -> int:
    """The page a release goes to, from page `current` dragged by `finger_dx` px."""
    pages = Pages(count=2, width=WIDTH, current=current, offset=current * WIDTH)
    pages(-finger_dx)
    snap = pages.release(finger_dx, velocity, 0.0, PER_DP)
    snap.advance(10.0)
    return pages.current


def test_a_release_goes_to_a_page_by_launcher3s_rules():
    assert released(-200, -100) == 0, "a short slow drag springs back"
    assert released(-200, -2000) == 1, "a fling (over 500 dp/s) goes on, however short the drag"
    assert released(-500, -100) == 1, "a slow drag past 40 % of the page goes on"
    assert released(-400, -100) == 0, "one short of 40 % does not"
    assert released(-400, 2000) == 0, "a fling back after a drag past a third of a page returns"
    assert released(-600, 2000, current=0) == 1, "a fling towards no page: the page nearest the middle"
    assert released(300, 2000, current=1) == 0, "from the second page, a fling to the right"
    assert released(300, 2000, current=0) == 0, "nothing before the first page"
    assert released(-300, -2000, current=1) == 1, "nothing after the last one"


def test_a_snaps_time_is_launcher3s():
    assert snap_seconds(700, WIDTH, 100, PER_DP) == PAGE_SNAP_SECONDS, "a slow release: 750 ms"
    # 700 px left: half a page, moderated by sin((700/1080 - 0.5) * 0.15π), at no less than 1,500 dp/s
    assert snap_seconds(700, WIDTH, 3000, PER_DP) == pytest.approx(0.588)
    assert snap_seconds(700, WIDTH, 8000, PER_DP) < snap_seconds(700, WIDTH, 5000, PER_DP) < 0.588, \
        "a faster fling lands sooner"
    assert scroll_curve(0) == 0 and scroll_curve(1) == 1 and scroll_curve(0.5) == pytest.approx(0.96875)


def test_a_swipe_shows_the_second_page_and_its_clock_widget_opens_the_clock():
    phone = VirtualPhone()
    phone.set_clock(datetime(2026, 3, 10, 8, 15))
    home = home_of(phone)
    first = dumped_texts(phone)
    assert 'text="Calculator"' in first and "Digital clock" not in first
    assert 'resource-id="com.android.launcher3:id/workspace" class="android.widget.ScrollView"' in first
    phone.swipe(900, 1000, 200, 1000, 300)
    assert home.pages.current == 1 and home.pages.offset == WIDTH
    second = dumped_texts(phone)
    assert 'text="Calculator"' not in second, "the first page's icons are off the screen, and out of the dump"
    assert 'content-desc="Digital clock"' in second and 'text="8:15"' in second and 'text="Tue, Mar 10"' in second
    assert 'text="Phone"' in second, "the dock stays"
    phone.tap(540, 300)
    assert phone.fg == "com.android.deskclock"


def test_home_on_the_home_screen_goes_back_to_the_first_page():
    phone = VirtualPhone()
    home = home_of(phone)
    phone.swipe(900, 1000, 200, 1000, 300)
    phone.launch("com.android.settings")
    phone.go_home()
    assert home.pages.current == 1, "back from an app, the home screen is where it was"
    phone.go_home()
    assert home.pages.current == 0 and home.pages.offset == 0


def offsets_while_settling(phone: VirtualPhone, pages: Pages, seconds: float = 3.0) -> list[int]:
    seen = []
    deadline = time.monotonic() + seconds
    while phone.settling() and time.monotonic() < deadline:
        _ = phone.version                      # what the screen stream does: brings the snap to now
        seen.append(pages.offset)
        time.sleep(0.016)
    return seen


def test_on_the_realistic_phone_the_pages_follow_the_finger_then_snap_in_time():
    phone = VirtualPhone(latency="realistic")
    pages = home_of(phone).pages
    phone.touch_down(900, 1000)
    followed = []
    for step in range(1, 9):
        time.sleep(0.016)
        phone.touch_move(900 - 40 * step, 1000)
        followed.append(pages.offset)
    assert followed == sorted(followed) and followed[-1] == pytest.approx(320 - 21, abs=2), "past the 8 dp slop"
    version = phone.version
    phone.touch_up(900 - 320, 1000)                 # 2,500 px/s: a fling to the second page
    assert pages.shown == 1, "the page dots mark the page it goes to at once"
    assert phone.settling()
    seen = offsets_while_settling(phone, pages)
    assert not phone.settling() and pages.current == 1 and pages.offset == WIDTH
    assert len(set(seen)) >= 8, "the snap moved the pages over many frames"
    steps = [b - a for a, b in zip(seen, seen[1:], strict=False) if b != a]
    assert all(step > 0 for step in steps) and steps[0] > steps[-1], "towards the page, slowing down"
    assert phone.version > version + 8, "each frame of the snap is a new picture"


def test_a_touch_stops_the_pages_between_two_and_they_snap_when_it_comes_up():
    phone = VirtualPhone(latency="realistic")
    pages = home_of(phone).pages
    phone.swipe(900, 1000, 500, 1000, 100)
    phone.wait_until_settled(0.0)                  # the finger's moves, not the snap
    while phone.gesture_ends_at():
        time.sleep(0.01)
        _ = phone.version
    time.sleep(0.05)
    _ = phone.version
    caught = pages.offset
    assert 0 < caught < WIDTH, "caught between the pages"
    phone.touch_down(540, 600)
    time.sleep(0.1)
    _ = phone.version
    assert pages.offset == caught, "the touch holds them"
    phone.touch_up(540, 600)
    assert phone.fg == "com.android.launcher3", "and does not tap what is under it"
    offsets_while_settling(phone, pages)
    assert pages.offset in (0, WIDTH) and pages.offset == pages.current * WIDTH


def test_on_the_quick_phone_a_short_slow_drag_springs_back_at_once():
    phone = VirtualPhone()
    pages = home_of(phone).pages
    phone.swipe(900, 1000, 700, 1000, 1000)
    assert pages.offset == 0 and pages.current == 0 and not phone.settling()
