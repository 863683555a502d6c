"""Keys, text and the keyboards: the on-screen one and ADB Keyboard (any Unicode)."""

from __future__ import annotations

import threading

ADB_IME = "com.android.adbkeyboard/.AdbIME"
LATIN_IME = "com.android.inputmethod.latin/.LatinIME"


def open_new_note(phone, ui):
    ui.tap(text="Notes")
    ui.tap(desc="New note")


def test_keyboard_window_shows_only_while_a_field_has_focus(phone, ui):
    ui.tap(text="Notes")
    assert not phone.keyboard_visible and ui.find(package="com.android.inputmethod.latin") is None
    ui.tap(desc="New note")
    assert phone.keyboard_visible and phone.state()["keyboard_visible"]
    keys = {n.get("content-desc") for n in ui.find_all(package="com.android.inputmethod.latin")
            if n.get("clickable") == "true"}
    assert set("qwertyuiopasdfghjklzxcvbnm") | {"Shift", "Delete", "Space", "Enter", "Symbols"} <= keys
    # the app's content shrinks above the keyboard
    kb_top = min(ui.bounds(n)[1] for n in ui.find_all(package="com.android.inputmethod.latin"))
    content = ui.find(rid="android:id/content")
    assert ui.bounds(content)[3] == kb_top


def test_typing_keys_shift_delete_symbols(phone, ui):
    open_new_note(phone, ui)
    ui.type_keys("Hi there")
    assert phone.state()["focused_text"] == "Hi there"
    ime = "com.android.inputmethod.latin"
    ui.tap(desc="Delete", package=ime)           # (the editor has a "Delete" button too)
    ui.tap(desc="Symbols", package=ime)
    ui.tap(desc="!", package=ime)
    ui.tap(desc="Letters", package=ime)
    ui.tap(desc="x", package=ime)
    assert phone.state()["focused_text"] == "Hi ther!x"
    ui.tap(desc="Enter", package=ime)                          # single-line title: moves on to the body
    assert ui.find(text="Note").get("focused") == "true"


def test_input_text_and_keycodes(phone, ui):
    open_new_note(phone, ui)
    phone.input_text("hello world")
    phone.key(67)                                  # DEL
    phone.key(122)                                 # MOVE_HOME
    phone.key(112)                                 # FORWARD_DEL
    phone.key(36)                                  # 'h'
    phone.key(123)                                 # MOVE_END
    phone.key(62)                                  # SPACE
    phone.key(8)                                   # '1'
    assert phone.state()["focused_text"] == "hello worl 1"
    phone.key(9999)                                # unknown: ignored
    phone.key(82)                                  # MENU: nothing here
    assert phone.state()["focused_text"] == "hello worl 1"


def test_multiline_body_gets_newlines(phone, ui):
    open_new_note(phone, ui)
    ui.tap(text="Note")
    phone.input_text("one\ntwo")
    phone.key(66)
    phone.input_text("three")
    assert phone.state()["focused_text"] == "one\ntwo\nthree"


def test_input_text_without_a_focused_field_does_nothing(phone, ui):
    ui.tap(text="Settings")
    v = phone.version
    phone.input_text("ignored")
    assert phone.version == v
    assert phone.state()["focused_text"] is None


def test_adb_keyboard_types_unicode_only_when_it_is_the_ime(make_ui):
    ui = make_ui(adb_keyboard_installed=True)
    phone = ui.phone
    assert phone.ime_ids == [LATIN_IME, ADB_IME]
    assert "com.android.adbkeyboard" in phone.installed_packages(third_party_only=True)
    open_new_note(phone, ui)
    assert phone.adb_keyboard_input("Grüße 你好 👋") is False      # the latin IME is current
    assert phone.set_ime(ADB_IME)
    assert phone.get_setting("secure", "default_input_method") == ADB_IME
    assert phone.adb_keyboard_input("Grüße 你好 👋") is True
    assert phone.state()["focused_text"] == "Grüße 你好 👋"
    assert ui.find(text="Grüße 你好 👋") is not None
    assert ui.find(text="ADB Keyboard {ON}") is not None            # its bar replaces the keys
    assert ui.find(desc="q") is None
    phone.key(4)
    assert phone.adb_keyboard_input("more") is True                 # focus stays: text still arrives
    phone.key(4)                                                     # leave the editor: saved
    assert phone.state()["notes"][0]["title"] == "Grüße 你好 👋more"
    assert phone.adb_keyboard_input("nowhere") is False


def test_set_ime_rejects_unknown(phone):
    assert phone.ime_ids == [LATIN_IME]
    assert not phone.set_ime(ADB_IME)
    assert phone.current_ime == LATIN_IME


def test_power_turns_the_screen_off_and_on(phone, ui):
    phone.key(26)
    assert phone.screenshot().getextrema()[0] == (0, 0)
    before = phone.state()
    phone.tap(*ui.center(text="Settings"))
    assert phone.state()["foreground"] == before["foreground"]
    phone.key(26)
    ui.tap(text="Settings")
    assert phone.foreground()[0] == "com.android.settings"


def test_swipe_without_movement_is_a_tap_or_a_long_press(phone, ui):
    x, y = ui.center(text="Clock")
    phone.swipe(x, y, x + 3, y + 2, 100)
    assert phone.foreground()[0] == "com.android.deskclock"
    phone.key(3)
    x, y = ui.center(text="Notes")
    phone.swipe(x, y, x, y, 800)                   # long press on an icon: its pop-up, no launch
    assert phone.foreground()[0] == "com.android.launcher3"
    assert ui.find(text="App info") is not None
    phone.tap(10, phone.display_size()[1] // 2)    # a touch outside closes it
    assert ui.find(text="App info") is None
    phone.long_press(x, y)
    ui.tap(text="App info")
    assert phone.foreground()[0] == "com.android.settings"


def test_many_threads_at_once(phone, ui):
    ui.tap(text="Notes")
    ui.tap(desc="New note")
    errors = []

    def worker(i):
        try:
            for _ in range(20):
                phone.input_text("a")
                phone.dump_hierarchy()
                phone.screenshot()
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert phone.state()["focused_text"] == "a" * 80
