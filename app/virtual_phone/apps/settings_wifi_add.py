"""Settings › Network & internet › Wi-Fi › Add network: a form whose buttons sit at the bottom of the screen,
in a window that pans for the keyboard instead of resizing (`keyboard_pans`, windowSoftInputMode adjustPan).

The network name field has the focus when the page opens, so the keyboard comes up over the lower part of
the screen and covers Cancel and Save. They stay in the dump, visible to uiautomator (the app's window is
not resized, and accessibility does not say another window covers a view), but a touch there reaches the
keyboard: a key, not Save. A person closes the keyboard first (Back), as an agent must. Save adds the
network to the list, "Saved"."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import theme
from ..views import FRAME, LINEAR, View
from ..widgets import Ctx, button, edit_text, text, toolbar
from .base import Screen

if TYPE_CHECKING:
    from .base import App

ADD_NETWORK = "com.android.settings.wifi.addappnetworks.AddNetworkActivity"


class AddNetworkPage(Screen):
    activity = ADD_NETWORK
    auto_focus = "ssid"
    keyboard_pans = True
    background = theme.BACKGROUND
    bar_color = theme.BACKGROUND

    def __init__(self, app: App) -> None:
        super().__init__(app)
        self.add_field("ssid", "")

    def build(self, ctx: Ctx) -> list[View]:
        left, _top, right, bottom = ctx.content
        bar = toolbar(ctx, "Add network", bg=self.background, on_nav=self.app.pop)
        y = bar.bounds[3] + ctx.dp(16)
        name = edit_text(ctx, (left + ctx.dp(24), y, right - ctx.dp(24), y + ctx.dp(56)), "ssid", "Network name",
                         variant="outline", rid="com.android.settings:id/ssid")
        y += ctx.dp(72)
        security = View(LINEAR, (left + ctx.dp(24), y, right - ctx.dp(24), y + ctx.dp(64)),
                        rid="com.android.settings:id/security_fields")
        security.add(text(ctx, (left + ctx.dp(24), y, right - ctx.dp(24), y + ctx.dp(28)), "Security", size=14,
                          color=theme.TEXT_SECONDARY))
        security.add(text(ctx, (left + ctx.dp(24), y + ctx.dp(28), right - ctx.dp(24), y + ctx.dp(64)), "None",
                          size=16, rid="com.android.settings:id/security"))
        buttons_top = bottom - ctx.dp(72)
        has_name = bool(self.fields["ssid"].text.strip())
        cancel = button(ctx, (right - ctx.dp(232), buttons_top + ctx.dp(16), right - ctx.dp(128),
                              buttons_top + ctx.dp(56)), "Cancel", self.app.pop, variant="text",
                        rid="com.android.settings:id/cancel")
        save = button(ctx, (right - ctx.dp(112), buttons_top + ctx.dp(16), right - ctx.dp(24),
                            buttons_top + ctx.dp(56)), "Save", self._save, enabled=has_name,
                      rid="com.android.settings:id/save")
        buttons = View(LINEAR, (left, buttons_top, right, bottom), cancel, save,
                       rid="com.android.settings:id/button_bar")
        return [View(FRAME, ctx.content, bar, name, security, buttons, rid=ctx.rid("content_parent"))]

    def _save(self) -> None:
        name = self.fields["ssid"].text.strip()
        if not name:
            return
        added = self.app.added_networks       # type: ignore[attr-defined]  # SettingsApp's
        if name not in added:
            added.append(name)
        self.phone.hide_keyboard()
        self.app.pop()
