"""`settings get/put` and the Settings app stay in step, both ways."""

from __future__ import annotations

WIFI = "Wi\u2011Fi"


def test_defaults(phone):
    assert phone.get_setting("global", "wifi_on") == "0"
    assert phone.get_setting("global", "airplane_mode_on") == "0"
    assert phone.get_setting("system", "screen_brightness") == "102"
    assert phone.get_setting("secure", "default_input_method") == "com.android.inputmethod.latin/.LatinIME"
    assert phone.get_setting("global", "no_such_key") is None


def test_put_wifi_is_shown_by_the_settings_screen(phone, ui):
    ui.tap(text="Settings")
    ui.tap(text="Network & internet")
    wifi_row_switch = ui.find_all(cls="android.widget.Switch")[0]
    assert wifi_row_switch.get("checked") == "false"
    v = phone.version
    phone.put_setting("global", "wifi_on", "1")
    assert phone.version > v
    assert ui.find_all(cls="android.widget.Switch")[0].get("checked") == "true"
    assert ui.find(text="AndroidWifi") is not None          # the row's summary


def test_put_airplane_mode_turns_radios_off(phone):
    phone.put_setting("global", "wifi_on", "1")
    phone.put_setting("global", "airplane_mode_on", "1")
    assert phone.get_setting("global", "wifi_on") == "0"
    phone.put_setting("global", "airplane_mode_on", "0")
    assert phone.get_setting("global", "wifi_on") == "1"


def test_brightness_setting_moves_the_slider(phone, ui):
    ui.tap(text="Settings")
    ui.tap(text="Display")
    phone.put_setting("system", "screen_brightness", "255")
    assert ui.find(text="100%") is not None
    phone.put_setting("system", "screen_brightness", "999")
    assert phone.get_setting("system", "screen_brightness") == "255"


def test_user_rotation_applies_when_auto_rotate_is_off(phone):
    phone.put_setting("system", "accelerometer_rotation", "0")
    phone.put_setting("system", "user_rotation", "1")
    assert phone.rotation == 1 and phone.display_size() == (2400, 1080)
    assert '<hierarchy rotation="1">' in phone.dump_hierarchy()
    phone.put_setting("system", "user_rotation", "0")
    assert phone.rotation == 0
    phone.put_setting("system", "accelerometer_rotation", "1")
    phone.put_setting("system", "user_rotation", "3")
    assert phone.rotation == 0                                # the sensor decides


def test_set_rotation_records_user_rotation(phone):
    phone.set_rotation(3)
    assert phone.get_setting("system", "user_rotation") == "3"
    assert phone.screenshot().size == (2400, 1080)


def test_default_input_method_setting_switches_ime(make_ui):
    ui = make_ui(adb_keyboard_installed=True)
    ui.phone.put_setting("secure", "default_input_method", "com.android.adbkeyboard/.AdbIME")
    assert ui.phone.current_ime == "com.android.adbkeyboard/.AdbIME"
    assert ui.phone.get_setting("secure", "enabled_input_methods") == (
        "com.android.inputmethod.latin/.LatinIME:com.android.adbkeyboard/.AdbIME")


def test_dark_theme_switch_writes_ui_night_mode(phone, ui):
    ui.tap(text="Settings")
    ui.tap(text="Display")
    ui.tap(text="Dark theme")
    assert phone.get_setting("secure", "ui_night_mode") == "2"
    assert phone.state()["dark_theme"] is True
