"""Settings › Apps › See all apps: a list that arrives late, as Android's does.

Android's Settings loads the list of installed apps in the background (ApplicationsState): the page opens with a
spinner, and the rows arrive a moment later, many more than a screen holds. On the realistic latency profile the
rows come after `phone.list_load_seconds` (`LOAD_SECONDS` unless a test chose `FEED_LOAD_SECONDS`; seeded,
scaled like every cost); the spinner turns meanwhile, so `uiautomator
dump` and the screen stream see a screen that is not still yet. Then each row's icon pops in a moment after its
row (`ICON_LOAD_SECONDS`): the picture changes again, the dump does not. On the quick profile the rows and their
icons are there at once. Each row opens the app's info page."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from .. import theme
from ..views import FRAME, LINEAR, View
from ..widgets import Ctx, Row, text
from .settings_base import SettingsPage
from .settings_system import PROGRESS_BAR, SPIN_STEP_DEGREES, SPIN_STEP_SECONDS

if TYPE_CHECKING:
    from .base import App

LOAD_SECONDS = (0.6, 1.2)     # from opening to the rows (a chosen band for a mid-range phone; see virtual-phone.md)
ICON_LOAD_SECONDS = (0.15, 0.5)
"""From the rows to their icons: ApplicationsState loads each app's icon in the background after the list, and a
row shows a grey placeholder until then (a chosen band; see virtual-phone.md)."""
FEED_LOAD_SECONDS = (1.0, 3.0)
"""A list that comes over the network (a feed, a store's search) instead: `phone.list_load_seconds` set to this
makes the page wait as long (tests that need a list slower than the wait after an action)."""


def installed_apps(app: App) -> list[tuple[str, str]]:
    """(label, package) of every installed package with a label, by label."""
    phone = app.phone
    labelled = ((phone.app_label(package), package) for package in phone.installed_packages())
    return sorted(((label, package) for label, package in labelled if label), key=lambda item: item[0].casefold())


class AllAppsPage(SettingsPage):
    title = "All apps"

    def __init__(self, app: App) -> None:
        super().__init__(app, "com.android.settings.Settings$ManageApplicationsActivity")
        phone = app.phone
        delay = phone.timing.draw(*phone.list_load_seconds) if phone.moves_in_time else 0.0
        self.ready_at = time.monotonic() + delay
        self.icons_at = self.ready_at + (phone.timing.draw(*ICON_LOAD_SECONDS) if phone.moves_in_time else 0.0)
        self._icons_drawn = not phone.moves_in_time

    def timed_change(self, now: float) -> bool:
        """The icons pop in after their rows: the screen changes then, with no input."""
        changed = super().timed_change(now)
        if not self._icons_drawn and now >= self.icons_at:
            self._icons_drawn = True
            return True
        return changed

    @property
    def loading(self) -> bool:
        return time.monotonic() < self.ready_at

    @property
    def animating(self) -> bool:          # type: ignore[override]  # the spinner turns until the rows come
        return self.loading

    def animation_frame(self) -> object:
        return int(time.monotonic() / SPIN_STEP_SECONDS) * SPIN_STEP_DEGREES % 360 if self.loading else "loaded"

    def rows(self, ctx: Ctx) -> list[Row]:
        if self.loading:
            return [Row(ctx.dp(120), lambda top: self._spinner(ctx, top))]
        apps, loaded = self.phone.apps, time.monotonic() >= self.icons_at
        return [self.row(ctx, label, package, on_click=self._info(label), icon_loaded=loaded,
                         glyph=apps[package].glyph if package in apps else "apps")
                for label, package in installed_apps(self.app)]

    def _info(self, label: str) -> Callable[[], None]:
        return self.open(lambda: AppInfoPage(self.app, label))

    def _spinner(self, ctx: Ctx, top: int) -> View:
        cx, size = (ctx.left + ctx.right) // 2, ctx.dp(48)
        box = View(LINEAR, (ctx.left, top, ctx.right, top + ctx.dp(120)), rid=ctx.rid("loading_container"))
        box.add(View(PROGRESS_BAR, (cx - size // 2, top + ctx.dp(36), cx + size // 2, top + ctx.dp(36) + size),
                     rid="android:id/progress", kind="spinner", angle=self.animation_frame()))
        return View(FRAME, box.bounds, box)


class AppInfoPage(SettingsPage):
    """An app's info page (what it shows beyond its name is not modelled)."""

    def __init__(self, app: App, label: str) -> None:
        super().__init__(app, "com.android.settings.applications.InstalledAppDetails")
        self.title = label

    def rows(self, ctx: Ctx) -> list[Row]:
        return [Row(ctx.dp(56), lambda top: text(ctx, (ctx.left + ctx.dp(16), top, ctx.right, top + ctx.dp(56)),
                                                 "App info", size=16, color=theme.TEXT_SECONDARY,
                                                 rid=ctx.rid("app_info_title")))]
