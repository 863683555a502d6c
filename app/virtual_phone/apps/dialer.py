"""Phone (com.android.dialer): a dial pad, and the in-call screen (calls are recorded, nobody answers)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from .. import theme
from ..views import FRAME, LINEAR, View
from ..widgets import Ctx, avatar, icon_button, text
from . import DIALER, contacts_of
from .base import App, Screen

MAIN = "com.android.dialer.main.impl.MainActivity"
IN_CALL = "com.android.incallui.InCallActivity"
KEYS = [("1", ""), ("2", "ABC"), ("3", "DEF"), ("4", "GHI"), ("5", "JKL"), ("6", "MNO"), ("7", "PQRS"), ("8", "TUV"),
        ("9", "WXYZ"), ("*", ""), ("0", "+"), ("#", "")]


class DialpadScreen(Screen):
    app: DialerApp
    activity = MAIN
    background = theme.SURFACE

    def __init__(self, app: DialerApp) -> None:
        super().__init__(app)
        self.number = ""

    def build(self, ctx: Ctx) -> list[View]:
        left, t, r, b = ctx.content
        key_h = ctx.dp(76 if not ctx.m.landscape else 44)
        pad_top = b - ctx.dp(120) - 4 * key_h
        shown = self.number
        contact = contacts_of(self.phone).find(self.number) if len(self.number) >= 7 else None
        views = [text(ctx, (left + ctx.dp(24), pad_top - ctx.dp(120), r - ctx.dp(24), pad_top - ctx.dp(56)), shown,
                      size=34, align="center", rid="digits", cls="android.widget.EditText")]
        if contact:
            views.append(text(ctx, (left, pad_top - ctx.dp(56), r, pad_top - ctx.dp(24)), contact["name"], size=16,
                              align="center", color=theme.TEXT_SECONDARY, rid="contact_name"))
        if self.number:
            views.append(icon_button(ctx, r - ctx.dp(48), pad_top - ctx.dp(88), "backspace", "backspace",
                                     self._backspace, rid="deleteButton", color=theme.TEXT_SECONDARY))
        pad = View(LINEAR, (left, pad_top, r, pad_top + 4 * key_h), rid=ctx.rid("dialpad"))
        w = (r - left - ctx.dp(48)) // 3
        for i, (digit, letters) in enumerate(KEYS):
            x = left + ctx.dp(24) + (i % 3) * w
            y = pad_top + (i // 3) * key_h
            key = View(FRAME, (x, y, x + w, y + key_h), desc=digit, rid=ctx.rid(f"dialpad_key_{i}"), clickable=True,
                       on_click=partial(self._press, digit))
            key.add(text(ctx, (x, y + ctx.dp(4), x + w, y + key_h - ctx.dp(22)), digit, size=30, align="center",
                         rid="dialpad_key_number"))
            if letters:
                key.add(text(ctx, (x, y + key_h - ctx.dp(26), x + w, y + key_h - ctx.dp(8)), letters, size=11,
                             align="center", color=theme.TEXT_SECONDARY, rid="dialpad_key_letters"))
            pad.add(key)
        views.append(pad)
        cy = b - ctx.dp(64)
        views.append(icon_button(ctx, (left + r) // 2, cy, "phone", "dial", self._dial,
                                 rid="dialpad_floating_action_button",
                                 color=theme.WHITE, circle=theme.CALL_GREEN, size=64, glyph_size=28))
        return [View(FRAME, ctx.content, *views, rid=ctx.rid("dialpad_view"))]

    def _press(self, digit: str) -> None:
        self.number += digit

    def _backspace(self) -> None:
        self.number = self.number[:-1]

    def _dial(self) -> None:
        if not self.number:
            return
        contact = contacts_of(self.phone).find(self.number)
        self.app.push(self.app.call_screen(contact["name"] if contact else self.number, self.number))
        self.number = ""


class InCallScreen(Screen):
    activity = IN_CALL
    background = (32, 33, 36)
    bar_color = (32, 33, 36)

    def __init__(self, app: DialerApp, name: str, number: str) -> None:
        super().__init__(app)
        self.name, self.number = name, number

    def build(self, ctx: Ctx) -> list[View]:
        left, t, r, b = ctx.content
        white, grey = theme.WHITE, (189, 193, 198)
        views = [
            text(ctx, (left, t + ctx.dp(48), r, t + ctx.dp(76)), "Calling…", size=16, color=grey, align="center",
                 rid="contactgrid_status_text"),
            text(ctx, (left + ctx.dp(16), t + ctx.dp(84), r - ctx.dp(16), t + ctx.dp(136)), self.name, size=34,
                 color=white, align="center", rid="contactgrid_contact_name"),
            text(ctx, (left, t + ctx.dp(140), r, t + ctx.dp(168)),
                 "Mobile " + self.number if self.name != self.number else "",
                 size=16, color=grey, align="center", rid="contactgrid_bottom_text"),
            avatar(ctx, (left + r) // 2, t + ctx.dp(260), 120, self.name, rid="contactgrid_avatar"),
            icon_button(ctx, (left + r) // 2, b - ctx.dp(96), "call_end", "End call", self.app.pop,
                        rid="incall_end_call", color=white, circle=theme.DANGER, size=72, glyph_size=32),
        ]
        return [View(FRAME, ctx.content, *views, rid=ctx.rid("incall_screen"))]


class DialerApp(App):
    package = DIALER
    label = "Phone"
    glyph = "phone"
    main_activity = MAIN

    def __init__(self, phone) -> None:
        super().__init__(phone)
        self.calls: list[dict] = []

    def activities(self):
        return {MAIN: lambda: DialpadScreen(self)}

    def pages(self) -> dict[str, Callable[[], object]]:
        def number_typed() -> None:
            pad = self.ensure_started()
            assert isinstance(pad, DialpadScreen)
            pad.number = "5550100"

        return {"dial pad": lambda: None, "a number typed": number_typed,
                "in a call": lambda: self.push(InCallScreen(self, "Mom", "(555) 010-0142"))}

    def call_screen(self, name: str, number: str) -> Screen:
        self.calls.append({"to": name, "number": number})
        return InCallScreen(self, name, number)

    def state(self) -> dict:
        return {"calls": [dict(c) for c in self.calls]}
