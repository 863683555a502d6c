"""The mirror's extras wired to the phone, as scrcpy users expect them: the keyboard, wheel and files dropped on
the mirror, and the manual bar's More menu (rotation, the phone's screen, show touches, clipboard, ADB Keyboard)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.gui.main_window import MainWindow


def connect_phone_extras(window: MainWindow) -> None:
    """Carry the mirror's and the More menu's requests out through the window's phone (or the run the person
    has taken over); sets `window.adb_keyboard`, whose offer shows in the status bar when typing needs it."""
    from app.gui.phones.adb_keyboard import AdbKeyboardInstall

    phone, manual, keys, person = window.phone, window.manual, window.mirror.phone_input, window.person_input
    keys.key_requested.connect(person.press_key)
    keys.text_requested.connect(person.type_text)
    keys.wheel_requested.connect(person.wheel)
    keys.files_dropped.connect(phone.send_files)
    manual.rotate_requested.connect(phone.rotate)
    manual.screen_off_changed.connect(lambda off: phone.set_screen_power(
        not off, lambda: manual.set_toggle("screen_off", not off)))
    manual.show_touches_changed.connect(lambda on: phone.set_show_touches(
        on, lambda: manual.set_toggle("show_touches", not on)))
    manual.copy_clipboard_requested.connect(phone.copy_clipboard)
    manual.paste_clipboard_requested.connect(phone.paste_to_phone)
    window.adb_keyboard = AdbKeyboardInstall(window)
    manual.install_keyboard_requested.connect(window.adb_keyboard.start)
    manual.set_toggle("show_touches", window.settings.mirror.show_touches)
