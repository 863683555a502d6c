"""Settings › System, and its System update page: a check for updates that never ends.

The virtual phone reaches no update server, so "Checking for update…" spins for as long as the page
is open — a screen that never goes idle, as a real phone's loading spinner, a video or a ticker:
`uiautomator dump` fails there with "could not get idle state" while uiautomator2's server, whose
wait for idle is bounded, still answers (issue 28)."""

from __future__ import annotations

import time

from .. import theme
from ..views import FRAME, LINEAR, View
from ..widgets import Ctx, Row, text
from .settings_base import SettingsPage

PROGRESS_BAR = "android.widget.ProgressBar"
SPIN_STEP_SECONDS = 0.05     # the arc moves 18° every 50 ms: a turn in a second, as Material's spinner
SPIN_STEP_DEGREES = 18


class SystemPage(SettingsPage):
    title = "System"

    def rows(self, ctx: Ctx) -> list[Row]:
        return [self.row(ctx, "Languages", "English (United States)", glyph="info"),
                self.row(ctx, "Gestures", "", glyph="info"),
                self.row(ctx, "Date & time", "GMT", glyph="info"),
                self.row(ctx, "Backup", "Off", glyph="info"),
                self.row(ctx, "System update", "Updated to Android 14", glyph="info",
                         on_click=self.open(lambda: SystemUpdatePage(self.app)))]


class SystemUpdatePage(SettingsPage):
    title = "System update"
    animating = True        # the spinner turns without end

    def animation_frame(self) -> object:
        return int(time.monotonic() / SPIN_STEP_SECONDS) * SPIN_STEP_DEGREES % 360

    def rows(self, ctx: Ctx) -> list[Row]:
        return [Row(ctx.dp(160), lambda top: self._checking(ctx, top))]

    def _checking(self, ctx: Ctx, top: int) -> View:
        left, r = ctx.left, ctx.right
        box = View(LINEAR, (left, top, r, top + ctx.dp(160)), rid=ctx.rid("update_status"))
        cx, size = (left + r) // 2, ctx.dp(48)
        box.add(View(PROGRESS_BAR, (cx - size // 2, top + ctx.dp(24), cx + size // 2, top + ctx.dp(24) + size),
                     rid=ctx.rid("progress"), kind="spinner", angle=self.animation_frame()))
        box.add(text(ctx, (left, top + ctx.dp(88), r, top + ctx.dp(120)), "Checking for update\u2026", size=16,
                     align="center", color=theme.TEXT_SECONDARY, rid=ctx.rid("status_text")))
        return View(FRAME, box.bounds, box)
