"""Settings › Security & privacy, and the PIN screen behind "Screen lock".

The PIN screen is what Android's ChooseLockPassword is: a FLAG_SECURE window (screen captures show
it black, the dump still lists its controls), a numeric password field that shows dots, "Next"
once four digits are in, then the same PIN again to confirm.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import theme
from ..views import FRAME, LINEAR, View
from ..widgets import Ctx, Row, button, edit_text, icon, text
from .base import App, Screen
from .settings_base import SettingsPage

if TYPE_CHECKING:
    from .settings import SettingsApp

CHOOSE_LOCK_PASSWORD = "com.android.settings.password.ChooseLockPassword"
MIN_PIN = 4


class SecurityPage(SettingsPage):
    title = "Security & privacy"

    def rows(self, ctx: Ctx) -> list[Row]:
        lock = "PIN" if self.app.pin else "None"
        return [
            self.row(ctx, "Screen lock", lock, glyph="lock", on_click=self.open(lambda: ChoosePinScreen(self.app))),
            self.row(ctx, "Device unlock", "Face & Fingerprint Unlock", glyph="person"),
            self.row(ctx, "App security", "Apps scanned today", glyph="apps"),
            self.row(ctx, "Privacy controls", "Permissions, account activity, personal data", glyph="lock"),
        ]


class ChoosePinScreen(Screen):
    app: SettingsApp
    activity = CHOOSE_LOCK_PASSWORD
    secure = True
    auto_focus = "pin"

    def __init__(self, app: App) -> None:
        super().__init__(app)
        self.first: str | None = None   # the PIN typed the first time, while confirming it
        self.error = ""
        self.add_field("pin", input_type="number", max_length=16, action=self._next)

    def build(self, ctx: Ctx) -> list[View]:
        left, t, r, b = ctx.content
        pad = ctx.dp(24)
        pin = self.fields["pin"].text
        confirming = self.first is not None
        header = "Re-enter your PIN" if confirming else "Set a PIN"
        message = self.error or ("" if confirming else "For security, set a PIN of at least 4 digits")
        views = [icon(ctx, left + pad + ctx.dp(16), t + ctx.dp(56), "lock", color=theme.PRIMARY, size=32,
                      rid="sud_layout_icon"),
                 text(ctx, (left + pad, t + ctx.dp(88), r - pad, t + ctx.dp(136)), header, size=30,
                      rid="suc_layout_title"),
                 text(ctx, (left + pad, t + ctx.dp(140), r - pad, t + ctx.dp(184)), message, size=14, lines=2,
                      color=theme.DANGER if self.error else theme.TEXT_SECONDARY, rid="sud_layout_description"),
                 edit_text(ctx, (left + pad, t + ctx.dp(200), r - pad, t + ctx.dp(256)), "pin", "",
                           rid="password_entry", size=22, align="center", password=True)]
        bar = View(LINEAR, (left, b - ctx.dp(72), r, b), rid=ctx.rid("suc_layout_footer"))
        bar.add(button(ctx, (left + pad, b - ctx.dp(60), left + pad + ctx.dp(96), b - ctx.dp(20)), "Cancel",
                       self.app.pop, variant="text", rid="suc_layout_secondary_button"),
                button(ctx, (r - pad - ctx.dp(104), b - ctx.dp(60), r - pad, b - ctx.dp(20)),
                       "Confirm" if confirming else "Next", self._next, enabled=len(pin) >= MIN_PIN,
                       rid="suc_layout_primary_button"))
        views.append(bar)
        return [View(FRAME, ctx.content, *views, rid=ctx.rid("setup_wizard_layout"))]

    def _next(self) -> None:
        field = self.fields["pin"]
        if len(field.text) < MIN_PIN:
            return
        if self.first is None:
            self.first, self.error = field.text, ""
            field.set("")
        elif field.text == self.first:
            self.app.pin = field.text
            self.app.pop()
        else:
            self.first, self.error = None, "PINs don\u2019t match"
            field.set("")
        self.phone.changed()
