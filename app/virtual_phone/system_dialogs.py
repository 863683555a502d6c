"""Dialogs the system puts over an app: a runtime permission request and "App isn't responding".

Both are faults a test or a bench turns on (`phone.pop_ups`, off by default, so other tests stay repeatable):
the next N apps started ask for a permission first, or stop responding. Each is a window of its own owner's
package (the permission controller; system_server's "android"), modal over the app, what `uiautomator dump`
writes as the active window, worded as Android 14 words them:

- "Allow Contacts to access your contacts?" with "Allow" and "Don't allow" (GrantPermissionsActivity); Back or a
  touch outside is "Don't allow";
- "Contacts isn't responding" with "Close app" and "Wait" (AppNotRespondingDialog, not cancelable).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from . import theme
from .faults import CountedFaults
from .views import FRAME, LINEAR, View
from .widgets import Ctx, button, dialog_box, text

PERMISSION_CONTROLLER = "com.android.permissioncontroller"
SYSTEM_SERVER = "android"
# what each app asks for the first time it runs (Android's words for the permission group)
ASKS_FOR = {"com.android.contacts": "access your contacts", "com.android.dialer": "make and manage phone calls",
            "com.android.messaging": "send and view SMS messages"}
ASKS_FOR_DEFAULT = "send you notifications"          # POST_NOTIFICATIONS, asked by apps since Android 13


@dataclass
class SystemDialog:
    package: str                                    # the window's owner
    title: str
    buttons: list[tuple[str, str, Callable[[], None]]]     # (label, resource id, what it does), top to bottom
    cancel: Callable[[], None] | None = None        # Back / a touch outside (None: neither dismisses it)
    message: str = ""

    def build(self, ctx: Ctx) -> View:
        """The dialog's views, centred in the content area."""
        width = min(ctx.width - ctx.dp(48), ctx.dp(312))
        height = ctx.dp(24 + 72 + 16) + (ctx.dp(48) if self.message else 0) + ctx.dp(56) * len(self.buttons)
        left, top, right, bottom = dialog_box(ctx, width, height)
        panel = View(LINEAR, (left, top, right, bottom), rid=f"{self.package}:id/dialog_container")
        y = top + ctx.dp(24)
        panel.add(text(ctx, (left + ctx.dp(24), y, right - ctx.dp(24), y + ctx.dp(64)), self.title, size=20,
                       lines=2, valign="top", rid=self._id("alertTitle", "permission_message")))
        y += ctx.dp(72)
        if self.message:
            panel.add(text(ctx, (left + ctx.dp(24), y, right - ctx.dp(24), y + ctx.dp(40)), self.message, size=14,
                           color=theme.TEXT_SECONDARY, rid="android:id/message"))
            y += ctx.dp(48)
        for label, rid, action in self.buttons:
            panel.add(button(ctx, (left + ctx.dp(24), y, right - ctx.dp(24), y + ctx.dp(48)), label, action,
                             variant="tonal", rid=rid))
            y += ctx.dp(56)
        return View(FRAME, (left, top, right, bottom), panel, bg=theme.SURFACE, radius=ctx.dp(28), shadow=True)

    def _id(self, system_name: str, controller_name: str) -> str:
        return f"android:id/{system_name}" if self.package == SYSTEM_SERVER else \
            f"{self.package}:id/{controller_name}"


@dataclass
class PopUpFaults(CountedFaults):
    """Dialogs to put over the next apps started (counters go down as each one fires)."""

    permission_requests: int = 0       # the next N apps started ask for a permission first
    not_responding: int = 0            # the next N apps started stop responding
    answers: dict[str, bool] = field(default_factory=dict)     # package → Allow (True) / Don't allow (False)



def permission_request(label: str, package: str, answer: Callable[[bool], None]) -> SystemDialog:
    wants = ASKS_FOR.get(package, ASKS_FOR_DEFAULT)
    controller = PERMISSION_CONTROLLER
    return SystemDialog(controller, f"Allow {label} to {wants}?",
                        [("Allow", f"{controller}:id/permission_allow_button", lambda: answer(True)),
                         ("Don\u2019t allow", f"{controller}:id/permission_deny_button", lambda: answer(False))],
                        cancel=lambda: answer(False))


def not_responding(label: str, close: Callable[[], None], wait: Callable[[], None]) -> SystemDialog:
    return SystemDialog(SYSTEM_SERVER, f"{label} isn\u2019t responding",
                        [("Close app", "android:id/aerr_close", close), ("Wait", "android:id/aerr_wait", wait)])
