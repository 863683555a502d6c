"""An app installed from an APK. The phone cannot run its code, so each of its activities shows a
plain screen: an app bar with the app's label, as a real app's first frame would."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .apps.base import App, Screen
from .views import FRAME, View
from .widgets import Ctx, toolbar

if TYPE_CHECKING:
    from .phone import VirtualPhone


class PlainScreen(Screen):
    def __init__(self, app: InstalledApp, activity: str) -> None:
        super().__init__(app)
        self.activity = activity

    def build(self, ctx: Ctx) -> list[View]:
        bar = toolbar(ctx, self.app.label, nav=False, rid="action_bar")
        return [View(FRAME, ctx.content, bar, rid="android:id/content")]


class InstalledApp(App):
    third_party = True

    def __init__(self, phone: VirtualPhone, package: str, label: str, activities: list[str],
                 launcher_activity: str | None) -> None:
        super().__init__(phone)
        self.package, self.label = package, label
        self.activity_names = list(activities)
        # What starts when the task is resumed; `am start -n` can start any of its activities.
        self.main_activity = launcher_activity or (activities[0] if activities else "")
        self.launchable = bool(activities)

    def activities(self):
        return {name: (lambda name=name: PlainScreen(self, name)) for name in self.activity_names}
