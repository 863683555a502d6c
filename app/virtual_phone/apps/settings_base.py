"""What every Settings page is made of: preference rows, section headers, the main switch bar and
`SettingsPage` (a toolbar over a scrolling list of rows)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .. import theme
from ..views import FRAME, IMAGE, LINEAR, RELATIVE, VIEW, View
from ..widgets import Ctx, Row, ScrollState, scroll_list, switch, text, toolbar
from .base import App, Screen

if TYPE_CHECKING:
    from .settings import SettingsApp

SUB = "com.android.settings.SubSettings"


def pref_row(ctx: Ctx, top: int, title: str, summary: str = "", *, glyph: str | None = None,
             on_click: Callable[[], None] | None = None, checked: bool | None = None,
             on_switch: Callable[[], None] | None = None, primary: bool = False, icon_loaded: bool = True) -> View:
    """A preference row: icon, title, summary and an optional switch (a primary switch has its own target). An
    icon not loaded yet is its grey placeholder: the same ImageView in the dump, another picture."""
    h = ctx.dp(72 if summary else 56)
    left, r = ctx.left, ctx.right
    row = View(LINEAR, (left, top, r, top + h), clickable=on_click is not None, on_click=on_click)
    x = left + ctx.dp(16)
    if glyph:
        frame = View(LINEAR, (left, top, left + ctx.dp(72), top + h), rid=ctx.rid("icon_frame"))
        frame.add(View(IMAGE,
                       (left + ctx.dp(16), top + h // 2 - ctx.dp(20), left + ctx.dp(56), top + h // 2 + ctx.dp(20)),
                       rid="android:id/icon", kind="icon", glyph=glyph if icon_loaded else None, gsize=ctx.dp(22),
                       color=theme.PRIMARY, circle=theme.PRIMARY_LIGHT if icon_loaded else theme.SURFACE_VARIANT))
        row.add(frame)
        x = left + ctx.dp(72)
    text_right = r - ctx.dp(16) - (ctx.dp(84 if primary else 68) if checked is not None else 0)
    body = View(RELATIVE, (x, top, text_right, top + h))
    if summary:
        body.add(text(ctx, (x, top + ctx.dp(12), text_right, top + ctx.dp(40)), title, size=18, rid="android:id/title"))
        body.add(text(ctx, (x, top + ctx.dp(38), text_right, top + ctx.dp(60)), summary, size=14,
                      color=theme.TEXT_SECONDARY, rid="android:id/summary"))
    else:
        body.add(text(ctx, (x, top, text_right, top + h), title, size=18, rid="android:id/title"))
    row.add(body)
    if checked is not None:
        frame = View(LINEAR, (text_right, top, r, top + h), rid="android:id/widget_frame")
        if primary:
            frame.add(View(VIEW,
                           (text_right + ctx.dp(12), top + ctx.dp(16), text_right + ctx.dp(13), top + h - ctx.dp(16)),
                           kind="fill", bg=theme.DIVIDER, dump=False))
        frame.add(switch(ctx, r - ctx.dp(16), top + h // 2, checked, on_switch))
        row.add(frame)
    return row


def header_row(ctx: Ctx, top: int, title: str) -> View:
    return text(ctx, (ctx.left + ctx.dp(72), top, ctx.right, top + ctx.dp(48)), title, size=14, color=theme.PRIMARY,
                bold=True, rid="android:id/title")


class SettingsPage(Screen):
    """A page = a toolbar and a scrolling list of rows."""

    app: SettingsApp

    activity = SUB
    title = ""
    background = theme.BACKGROUND
    bar_color = theme.BACKGROUND

    def __init__(self, app: App, activity: str | None = None) -> None:
        super().__init__(app)
        if activity:
            self.activity = activity
        self.scroll = ScrollState()

    @property
    def settings(self):
        return self.phone.settings

    def rows(self, ctx: Ctx) -> list[Row]:
        return []

    def build(self, ctx: Ctx) -> list[View]:
        bar = toolbar(ctx, self.title, bg=self.background)
        lst = scroll_list(ctx, (ctx.left, bar.bounds[3], ctx.right, ctx.bottom), self.rows(ctx), self.scroll,
                          rid="recycler_view", pad_bottom=ctx.dp(16))
        return [View(FRAME, ctx.content, bar, lst, rid=ctx.rid("content_parent"))]

    def row(self, ctx: Ctx, title: str, summary: str = "", **kw) -> Row:
        return Row(ctx.dp(72 if summary else 56), lambda top: pref_row(ctx, top, title, summary, **kw))

    def toggle(self, namespace: str, key: str) -> Callable[[], None]:
        return lambda: self.phone.set_setting_flag(namespace, key, not self.settings.flag(namespace, key))

    def open(self, make: Callable[[], Screen]) -> Callable[[], None]:
        return lambda: self.app.push(make())


def main_switch_bar(ctx: Ctx, top: int, label: str, checked: bool, on_toggle: Callable[[], None]) -> View:
    box = (ctx.left + ctx.dp(16), top + ctx.dp(8), ctx.right - ctx.dp(16), top + ctx.dp(80))
    bar = View(LINEAR, box, rid=ctx.rid("main_switch_bar"), clickable=True, on_click=on_toggle,
               bg=theme.PRIMARY_LIGHT if checked else theme.SURFACE_VARIANT, radius=ctx.dp(28))
    bar.add(text(ctx, (box[0] + ctx.dp(24), box[1], box[2] - ctx.dp(84), box[3]), label, size=20,
                 rid="switch_text"))
    bar.add(switch(ctx, box[2] - ctx.dp(20), (box[1] + box[3]) // 2, checked, on_toggle))
    return bar
