"""The screenshot: size, caching by version, and pixels that agree with the dump."""

from __future__ import annotations

from datetime import datetime, timedelta

from app.virtual_phone import theme
from app.virtual_phone.phone import VirtualPhone


def pixel(phone, x, y):
    return phone.screenshot().getpixel((x, y))[:3]


def test_size_mode_and_cache(phone, ui):
    img = phone.screenshot()
    assert img.mode == "RGBA" and img.size == (1080, 2400)
    v = phone.version
    assert phone.screenshot() is img                     # a cache hit: same picture
    phone.tap(540, 700)                                  # wallpaper: nothing happens
    assert phone.version == v and phone.screenshot() is img
    ui.tap(text="Settings")
    assert phone.version > v
    assert phone.screenshot() is not img


def test_screens_look_different(phone, ui):
    shots = [phone.screenshot().tobytes()]
    for label in ("Settings", "Notes", "Contacts", "Messages", "Clock"):
        phone.key(3)
        ui.tap(text=label)
        shots.append(phone.screenshot().tobytes())
    assert len(set(shots)) == len(shots)


def test_switch_pixels_follow_the_checked_state(phone, ui):
    ui.tap(text="Settings")
    ui.tap(text="Network & internet")
    left, t, r, b = ui.bounds(ui.find_all(cls="android.widget.Switch")[0])
    y = (t + b) // 2
    assert pixel(phone, left + (r - left) * 6 // 10, y) == theme.SWITCH_OFF_TRACK   # the track, right of the thumb
    phone.tap((left + r) // 2, y)
    assert pixel(phone, left + (r - left) // 4, y) == theme.PRIMARY                 # the thumb moved right


def test_keyboard_keys_are_drawn_where_the_dump_says(phone, ui):
    ui.tap(text="Notes")
    ui.tap(desc="New note")
    for desc in ("q", "m", "Space"):
        left, t, r, b = ui.bounds(ui.find(desc=desc, package="com.android.inputmethod.latin"))
        assert pixel(phone, left + 14, (t + b) // 2) == theme.KEY                # the key cap, beside its letter
    x, y = ui.center(desc="Enter", package="com.android.inputmethod.latin")
    assert pixel(phone, x - 40, y - 30) == theme.KEY_ACTION
    left, t, r, b = ui.bounds(ui.find(desc="q", package="com.android.inputmethod.latin"))
    assert pixel(phone, left + 1, t + 1) == theme.KEYBOARD_BG   # the gap between keys


def test_list_rows_are_drawn_at_their_bounds(phone, ui):
    ui.tap(text="Contacts")
    avatar = ui.find(rid="com.android.contacts:id/photo")
    x, y = ui.node_center(avatar)
    assert pixel(phone, x - 30, y - 30) == theme.avatar_color("Aisha Khan")


def test_landscape_screenshot(phone):
    phone.set_rotation(1)
    assert phone.screenshot().size == (2400, 1080)


def test_clock_minute_changes_the_picture():
    now = [datetime(2024, 6, 4, 9, 41)]
    phone = VirtualPhone(clock=lambda: now[0])
    img, v = phone.screenshot(), phone.version
    now[0] += timedelta(minutes=1)
    assert phone.version > v
    assert phone.screenshot().tobytes() != img.tobytes()
    assert 'text="9:42"' in phone.dump_all_windows()     # the status bar's clock


def test_toast_is_drawn_but_not_dumped(phone, ui):
    ui.tap(text="Contacts")
    ui.tap(text="Emma Thompson")
    before = phone.screenshot().tobytes()
    ui.tap(desc="Email")
    assert phone.screenshot().tobytes() != before
    assert "No app can perform this action" not in phone.dump_hierarchy()


def test_dialog_dims_the_app(phone, ui):
    ui.tap(text="Clock")
    x, y = 20, ui.bounds(ui.find(rid="com.android.deskclock:id/toolbar"))[3] + 4
    bright = pixel(phone, x, y)
    ui.tap(desc="Add alarm")
    dim = pixel(phone, x, y)
    assert sum(dim) < sum(bright) - 100
