"""A FLAG_SECURE screen (Settings › Security & privacy › Screen lock, the PIN screen): every picture
shows its window black, the bars and the keyboard still drawn, while the dump lists its controls."""

from __future__ import annotations

import io

import adbutils
import pytest
from PIL import Image

from app.virtual_phone import system_ui

from .conftest import UI

CHOOSE_PIN = "com.android.settings.password.ChooseLockPassword"


def open_pin_screen(ui: UI) -> None:
    ui.tap(text="Settings")
    w, h = ui.phone.display_size()
    while ui.find(text="Security & privacy") is None:
        ui.phone.swipe(w // 2, h * 3 // 4, w // 2, h // 4, 300)
    ui.tap(text="Security & privacy")
    ui.tap(text="Screen lock")


def colours(image: Image.Image, box) -> set:
    return {c for _, c in image.convert("RGB").crop(box).getcolors(1 << 20)}


def test_the_pin_screen_is_black_in_pictures_but_listed_in_the_dump(phone, ui):
    open_pin_screen(ui)
    assert phone.foreground() == ("com.android.settings", CHOOSE_PIN)
    ui.type_keys("1234")
    shot = phone.screenshot()
    m = phone.metrics()
    status = system_ui.status_bar_rect(m, 0)
    keyboard_top = min(ui.bounds(n)[1] for n in ui.find_all(package="com.android.inputmethod.latin"))
    assert colours(shot, (0, status[3], m.width, keyboard_top)) == {(0, 0, 0)}      # the app's window
    assert len(colours(shot, (0, keyboard_top, m.width, m.height))) > 5             # keyboard and navigation bar
    assert colours(shot, status) != {(0, 0, 0)}                                      # the status bar's icons
    dump = ui.parse(phone.dump_hierarchy())
    pin = dump.find(".//node[@resource-id='com.android.settings:id/password_entry']")
    assert pin.get("password") == "true" and pin.get("text") == "\u2022" * 4           # dots, never the PIN
    assert dump.find(".//node[@text='Set a PIN']") is not None
    assert dump.find(".//node[@text='Next']").get("enabled") == "true"


def test_setting_a_pin_through_the_secure_screen(phone, ui):
    open_pin_screen(ui)
    ui.type_keys("2468")
    ui.tap(text="Next")
    assert ui.find(text="Re-enter your PIN") is not None
    ui.type_keys("2468")
    ui.tap(text="Confirm")
    assert phone.state()["screen_lock"] == "pin"
    assert ui.find(text="PIN") is not None                                          # Security's summary
    assert colours(phone.screenshot(), phone.active_window().bounds) != {(0, 0, 0)}   # a plain screen again


def test_a_mistyped_confirmation_starts_over(phone, ui):
    open_pin_screen(ui)
    ui.type_keys("1111")
    ui.tap(text="Next")
    ui.type_keys("2222")
    ui.tap(text="Confirm")
    assert ui.find(text="Set a PIN") is not None and ui.find(text="PINs don\u2019t match") is not None
    assert phone.state()["screen_lock"] == "none"


def test_the_overview_thumbnail_of_a_secure_app_is_blank(phone, ui):
    open_pin_screen(ui)
    phone.key(187)
    snapshot = next(v for v in phone.active_window().root.walk() if v.rid.endswith(":id/snapshot"))
    image = snapshot.style["image"]
    opaque = image.convert("RGBA").getchannel("A").point(lambda a: 255 if a == 255 else 0)
    assert len({c for _, c in image.convert("RGB").getcolors(1 << 20)}) <= 2 and opaque.getbbox()
    inner = image.convert("RGB").crop((image.width // 8, image.height // 8, image.width * 7 // 8,
                                       image.height * 7 // 8))
    assert len(inner.getcolors(1 << 20)) == 1                                        # nothing of the screen in it


@pytest.mark.parametrize("command", ["screencap -p", "screencap"])
def test_screencap_over_adb_shows_it_black(virtual_adb, command):
    attached = virtual_adb.devices[0]
    ui = UI(attached.phone)
    open_pin_screen(ui)
    device = adbutils.AdbClient(host="127.0.0.1", port=virtual_adb.port).device(attached.serial)
    data = device.shell(command, encoding=None)
    if command == "screencap -p":
        image = Image.open(io.BytesIO(data))
    else:
        width, height = int.from_bytes(data[0:4], "little"), int.from_bytes(data[4:8], "little")
        image = Image.frombytes("RGBA", (width, height), data[16:16 + width * height * 4])
    m = attached.phone.metrics()
    middle = (0, m.height // 3, m.width, m.height // 2)
    assert colours(image, middle) == {(0, 0, 0)}
    assert "password_entry" in device.shell("uiautomator dump /dev/tty")
