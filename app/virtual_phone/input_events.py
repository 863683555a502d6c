"""Input as `adb shell input` delivers it: taps, long presses, swipes, key events and text.

Coordinates are display (rotated) pixels. A touch goes to the topmost window under it; inside
that window, to the deepest view that handles it (Android's dispatch order).
"""

from __future__ import annotations

from .phone_parts import PhoneParts
from .views import View, Window, contains, hit_test

KEYCODE_CHARS = {62: " ", 55: ",", 56: ".", 69: "-", 70: "=", 71: "[", 72: "]", 73: "\\", 74: ";", 75: "'",
                 76: "/", 77: "@", 81: "+", 17: "*", 18: "#", 68: "`"}
KEYCODE_CHARS.update({7 + i: str(i) for i in range(10)})
KEYCODE_CHARS.update({144 + i: str(i) for i in range(10)})  # numpad digits
KEYCODE_CHARS.update({29 + i: chr(ord("a") + i) for i in range(26)})

HOME, BACK, ENTER, DEL, APP_SWITCH, POWER, ESCAPE = 3, 4, 66, 67, 187, 26, 111
PASTE = 279


class InputEventsMixin(PhoneParts):
    """Mixed into VirtualPhone."""

    last_target: View | None = None
    clipboard: str | None = None     # the primary clip's text; None while nothing was copied
    clipboard_version: int = 0       # goes up at every change (scrcpy's clipboard sync watches it)
    display_power_on: bool = True    # the physical panel; scrcpy can turn it off while the picture streams on

    # ------------------------------------------------------------------ clipboard
    def set_clipboard(self, text: str) -> None:
        with self.lock:
            self.clipboard = text
            self.clipboard_version += 1

    def paste_clipboard(self) -> None:
        """KEYCODE_PASTE: the clipboard's text goes into the focused field."""
        with self.lock:
            focus = self.focused()
            if focus is None or not self.clipboard or self.input_blocked():
                return
            focus[0].fields[focus[1]].insert(self.clipboard)
            self.changed()

    # ------------------------------------------------------------------ touch
    def _hit_order(self) -> list[Window]:
        _, dump = self._windows()
        order = {"ime": 0, "navbar": 1, "statusbar": 2, "dialog": 3, "app": 4}
        return sorted(dump, key=lambda w: order.get(w.role, 5))

    def _window_at(self, x: int, y: int) -> Window | None:
        for win in self._hit_order():
            if contains(win.bounds, x, y):
                return win
            if win.role == "dialog":
                return win  # modal: a touch outside the dialog belongs to it (it cancels)
        return None

    def hit_test(self, x: int, y: int, want: str = "click") -> View | None:
        """The view a touch at (x, y) would reach (for tests and the inspector)."""
        with self.lock:
            win = self._window_at(x, y)
            if win is None or not contains(win.bounds, x, y):
                return None
            return hit_test(win, x, y, want)

    def tap(self, x: int, y: int) -> None:
        with self.lock:
            if self.input_blocked():
                return
            x, y = int(x), int(y)
            self.note_input(f"a tap at ({x}, {y})")
            win = self._window_at(x, y)
            if win is None:
                return
            if not contains(win.bounds, x, y):
                if win.on_outside is not None:
                    win.on_outside()
                    self.changed()
                return
            slider = hit_test(win, x, y, "slide")
            if slider is not None and slider.on_slide is not None and slider.enabled:  # a tap moves a SeekBar's thumb
                self.last_target = slider
                slider.on_slide(x)
                self.changed()
                return
            view = hit_test(win, x, y, "click")
            self.last_target = view
            if view is not None and view.enabled and view.on_click is not None:
                view.on_click()
                self.changed()

    def long_press(self, x: int, y: int, duration_ms: int = 600) -> None:
        with self.lock:
            if self.input_blocked():
                return
            win = self._window_at(int(x), int(y))
            if win is None or not contains(win.bounds, int(x), int(y)):
                return
            view = hit_test(win, int(x), int(y), "long")
            if view is not None and view.on_long_click is not None and view.enabled:
                self.note_input(f"a long press at ({int(x)}, {int(y)})")
                self.last_target = view
                view.on_long_click()
                self.changed()
            else:
                self.tap(x, y)  # not long-clickable: the release still clicks, as on Android

    # ------------------------------------------------------------------ keys
    def key(self, keycode: int) -> None:
        with self.lock:
            code = int(keycode)
            self.note_input(f"key {code}")
            if code == POWER:
                self.screen_on = not self.screen_on
                self.hide_keyboard() if not self.screen_on else None
                self.screen_turned_off() if not self.screen_on else None
                self.changed()
                return
            if code in (224, 223):  # WAKEUP, SLEEP
                if self.screen_on != (code == 224):
                    self.screen_on = code == 224
                    self.screen_turned_off() if not self.screen_on else None
                    self.changed()
                return
            if code in (24, 25, 164):  # volume up / down / mute
                vol = self.settings.as_int("system", "volume_music", 5)
                vol = 0 if code == 164 else max(0, min(15, vol + (1 if code == 24 else -1)))
                self.settings.put("system", "volume_music", str(vol), notify=False)
                return
            if self.input_blocked():
                return
            if code == HOME:
                self.go_home()
            elif code in (BACK, ESCAPE):
                self.press_back()
            elif code == APP_SWITCH:
                self.show_recents()
            elif code == PASTE:
                self.paste_clipboard()
            else:
                self._field_key(code)

    def _field_key(self, code: int) -> None:
        focus = self.focused()
        if focus is None:
            return
        screen, key = focus
        f = screen.fields[key]
        if code in KEYCODE_CHARS:
            f.insert(KEYCODE_CHARS[code])
        elif code == DEL:
            f.backspace()
        elif code == 112:
            f.forward_delete()
        elif code in (ENTER, 160):
            self.field_enter(screen, key)
        elif code == 61:  # TAB
            self.focus_next(screen, key)
        elif code in (21, 22):
            f.move("left" if code == 21 else "right")
        elif code in (122, 123):
            f.move("home" if code == 122 else "end")
        else:
            return
        self.changed()

    def field_enter(self, screen, key: str) -> None:
        f = screen.fields[key]
        if not f.single_line:
            f.insert("\n")
        elif f.action is not None:
            f.action()
        elif not self.focus_next(screen, key):
            self.hide_keyboard()
        self.changed()

    def focus_next(self, screen, key: str) -> bool:
        keys = list(screen.dialog.field_keys) if screen.dialog is not None else list(screen.fields)
        if key in keys and keys.index(key) + 1 < len(keys):
            self.focus_field(screen, keys[keys.index(key) + 1])
            return True
        return False

    # ------------------------------------------------------------------ text
    def input_text(self, text: str) -> None:
        """`input text`: types into the focused field (as key events, so Enter acts); no field → nothing."""
        with self.lock:
            if self.input_blocked():
                return
            focus = self.focused()
            if focus is None:
                return
            screen, key = focus
            for part in _split_newlines(text):
                if part == "\n":
                    self.field_enter(screen, key)
                    focus = self.focused()
                    if focus is None:
                        break
                    screen, key = focus
                else:
                    screen.fields[key].insert(part)
            self.changed()

    def adb_keyboard_input(self, text: str) -> bool:
        """The ADB Keyboard broadcast: commits any Unicode text when it is the current IME."""
        from .keyboard import ADB_IME
        with self.lock:
            if self.current_ime != ADB_IME or self.input_blocked():
                return False
            focus = self.focused()
            if focus is None:
                return False
            screen, key = focus
            screen.fields[key].insert(text)
            self.changed()
            return True

    def clear_focused_text(self) -> bool:
        with self.lock:
            focus = self.focused()
            if focus is None:
                return False
            focus[0].fields[focus[1]].set("")
            self.changed()
            return True

    def ime_key(self, code: str) -> None:
        """A key of the on-screen keyboard was tapped."""
        with self.lock:
            focus = self.focused()
            if code == "SHIFT":
                self.kb_shift = not self.kb_shift
            elif code in ("SYM", "ABC"):
                self.kb_mode = "symbols" if code == "SYM" else "letters"
                self.kb_shift = False
            elif focus is None:
                return
            elif code == "DEL":
                focus[0].fields[focus[1]].backspace()
            elif code == "ENTER":
                self.field_enter(*focus)
            else:
                ch = code.upper() if self.kb_shift and self.kb_mode == "letters" else code
                focus[0].fields[focus[1]].insert(ch)
                self.kb_shift = False
            self.changed()


def _split_newlines(text: str) -> list[str]:
    parts: list[str] = []
    for i, chunk in enumerate(text.split("\n")):
        if i:
            parts.append("\n")
        if chunk:
            parts.append(chunk)
    return parts
