"""The lock screen (keyguard) of the virtual phone: its state, the person's unlock, and its window.

A phone with a screen lock (`lock_screen()`) shows the keyguard at once and again each time the
screen goes off. While it shows, no touch, key (other than power, wake, sleep and volume) or text
reaches an app; each one refused is counted in `inputs_refused_while_locked`, so a test can see
that nothing was done to a locked phone. Only the person unlocks a secure keyguard
(`unlock_by_hand()`, standing for the PIN typed on the phone itself); `wm dismiss-keyguard` only
dismisses one without a PIN, as on Android.
"""

from __future__ import annotations

from . import system_ui, theme
from .phone_parts import PhoneParts
from .theme import Metrics
from .views import FRAME, TEXT, View, Window

KEYGUARD_BG = (18, 22, 30)


class KeyguardMixin(PhoneParts):
    keyguard_showing: bool = False
    keyguard_secure: bool = False          # a PIN is set: sleeping locks the phone, only the person unlocks it
    inputs_refused_while_locked: int = 0

    def lock_screen(self, secure: bool = True) -> None:
        """Set a screen lock (a PIN when `secure`) and show the keyguard now."""
        with self.lock:
            self.keyguard_secure = secure
            if not self.keyguard_showing:
                self.keyguard_showing = True
                self.hide_keyboard()
                self.changed()

    def unlock_by_hand(self) -> None:
        """The person unlocks the phone on the phone itself (wakes it and enters the PIN)."""
        with self.lock:
            self.screen_on = True
            if self.keyguard_showing:
                self.keyguard_showing = False
            self.changed()

    def dismiss_keyguard(self) -> bool:
        """`wm dismiss-keyguard`: dismisses a keyguard without a PIN; a secure one stays. True if it went."""
        with self.lock:
            if self.keyguard_showing and not self.keyguard_secure:
                self.keyguard_showing = False
                self.changed()
                return True
            return False

    def screen_turned_off(self) -> None:
        """The screen went off: a phone with a screen lock locks."""
        if self.keyguard_secure and not self.keyguard_showing:
            self.keyguard_showing = True
            self.hide_keyboard()

    def input_blocked(self) -> bool:
        """Whether input cannot reach an app now (screen off or keyguard up); a refusal by the keyguard is counted."""
        if self.keyguard_showing:
            self.inputs_refused_while_locked += 1
            return True
        return not self.screen_on

    @property
    def stay_on_setting(self) -> str:
        """`settings get global stay_on_while_plugged_in` as the phone answers it."""
        return self.settings.get("global", "stay_on_while_plugged_in") or "null"

    def keyguard_window(self, m: Metrics) -> Window:
        """The lock screen, as SystemUI draws it: the clock and what unlocks it."""
        full = (0, 0, m.width, m.height)
        cx, top = m.width // 2, m.height // 4
        clock = View(TEXT, (0, top, m.width, top + m.dp(96)), text=self._clock_text(),
                     rid=f"{system_ui.PKG}:id/keyguard_clock", kind="text", size=m.dp(72), color=theme.WHITE,
                     align="center")
        hint = "Enter PIN" if self.keyguard_secure else "Swipe up to unlock"
        message = View(TEXT, (cx - m.dp(160), m.height - m.dp(200), cx + m.dp(160), m.height - m.dp(170)),
                       text=hint, rid=f"{system_ui.PKG}:id/keyguard_message_area", kind="text", size=m.dp(16),
                       color=theme.WHITE, align="center")
        root = View(FRAME, full, View(FRAME, full, clock, message, rid=f"{system_ui.PKG}:id/keyguard_host_view"),
                    rid=f"{system_ui.PKG}:id/notification_panel", bg=KEYGUARD_BG)
        return Window(root, system_ui.PKG, "app")
