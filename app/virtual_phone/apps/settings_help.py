"""Settings › Tips & support: a help page shown in a WebView.

Its nodes are the ones Chromium reports through its accessibility provider, as in real dumps of
WebView pages: an outer `android.webkit.WebView` for the host, an inner one titled with the page,
`android.view.View` / `android.widget.TextView` / `android.widget.Button` nodes with bare HTML ids
as resource-ids ("main", "topics"), a ListView for the list, list markers ("• ") that stand left of
their item's bounds, and drawing order 0 throughout. Each question opens its answer below it.
"""

from __future__ import annotations

from .. import theme
from ..views import BUTTON, BY_WEBVIEW, FRAME, TEXT, VIEW, WEBVIEW, View
from ..widgets import Ctx, ScrollState, text, text_height, toolbar
from .base import App, Screen

HELP = "com.android.settings.Settings$SupportDashboardActivity"
PAGE_TITLE = "Tips & support"
TOPICS = [
    ("How do I connect to Wi\u2011Fi?",
     "Open Settings, tap Network & internet, then Wi\u2011Fi. Turn Use Wi\u2011Fi on and tap a network."),
    ("How do I set a screen lock?",
     "Open Settings, tap Security & privacy, then Screen lock, and choose a PIN of at least 4 digits."),
    ("How do I make the screen darker?",
     "Open Settings, tap Display and turn on Dark theme, or move the brightness slider."),
    ("Where are my alarms?",
     "Open the Clock app. The Alarm tab lists every alarm; tap + to add one."),
]
LINK = (26, 115, 232)


class HelpPage(Screen):
    activity = HELP
    background = theme.BACKGROUND
    bar_color = theme.BACKGROUND

    def __init__(self, app: App) -> None:
        super().__init__(app)
        self.open_topics: set[int] = set()
        self.scroll = ScrollState()

    def build(self, ctx: Ctx) -> list[View]:
        left, t, r, b = ctx.content
        bar = toolbar(ctx, PAGE_TITLE, bg=self.background)
        rect = (left, bar.bounds[3], r, b)
        host = View(WEBVIEW, rect, provider=BY_WEBVIEW, bg=theme.SURFACE, clip=True)
        page = self._page(ctx, rect)
        host.add(page)
        container = View(FRAME, rect, host, rid=ctx.rid("webview_container"))
        return [View(FRAME, ctx.content, bar, container, rid=ctx.rid("content_parent"))]

    def _page(self, ctx: Ctx, rect) -> View:
        left, t, r, b = rect
        pad = ctx.dp(20)
        x0, x1 = left + pad, r - pad
        y = t + ctx.dp(16) - self.scroll.offset
        blocks: list[View] = []
        h1 = text_height(ctx, "How can we help?", 26, x1 - x0)
        blocks.append(text(ctx, (x0, y, x1, y + h1), "How can we help?", size=26, bold=True, lines=0,
                           provider=BY_WEBVIEW))
        y += h1 + ctx.dp(8)
        intro = "Answers to common questions about your phone."
        ih = text_height(ctx, intro, 15, x1 - x0)
        blocks.append(text(ctx, (x0, y, x1, y + ih), intro, size=15, color=theme.TEXT_SECONDARY, lines=0,
                           provider=BY_WEBVIEW))
        y += ih + ctx.dp(16)
        top = y
        items = []
        indent = ctx.dp(20)
        for i, (question, answer) in enumerate(TOPICS):
            item, y = self._topic(ctx, i, question, answer, x0 + indent, x1, y)
            items.append(item)
        topics = View("android.widget.ListView", (x0 + indent, top, x1, y), *items, rid="topics", provider=BY_WEBVIEW)
        y += ctx.dp(16)
        contact_h = ctx.dp(48)
        contact = View(BUTTON, (x0, y, x0 + ctx.dp(200), y + contact_h), text="Contact support", kind="text",
                       clickable=True, focusable=True, provider=BY_WEBVIEW, on_click=self._contact, size=ctx.sp(15),
                       color=theme.WHITE, bold=True, align="center", bg=LINK, radius=contact_h // 2)
        y += contact_h + ctx.dp(24)
        main = View(VIEW, (left, t - self.scroll.offset, r, y), *blocks, topics, contact, rid="main",
                    provider=BY_WEBVIEW)
        self.scroll.max_offset = max(0, y + self.scroll.offset - b)
        self.scroll.offset = min(self.scroll.offset, self.scroll.max_offset)
        scrollable = self.scroll.max_offset > 0
        document = View(WEBVIEW, rect, View(VIEW, main.bounds, main, provider=BY_WEBVIEW), text=PAGE_TITLE,
                        focusable=True, provider=BY_WEBVIEW, scrollable=scrollable,
                        on_scroll=self.scroll.scroll if scrollable else None)
        return document

    def _topic(self, ctx: Ctx, index: int, question: str, answer: str, x0: int, x1: int, y: int) -> tuple[View, int]:
        """One list item: its marker, the question (a button) and, when open, the answer."""
        qh = max(ctx.dp(40), text_height(ctx, question, 16, x1 - x0))
        item_top = y
        marker = View(VIEW, (x0 - ctx.dp(20), y, x0 - ctx.dp(2), y + qh), text="\u2022 ", kind="text",
                      provider=BY_WEBVIEW, size=ctx.sp(16), color=theme.TEXT)
        opened = index in self.open_topics
        button = View(BUTTON, (x0, y, x1, y + qh), text=question, kind="text", clickable=True, focusable=True,
                      provider=BY_WEBVIEW, on_click=lambda: self._toggle(index), size=ctx.sp(16), color=LINK, lines=0,
                      bold=opened)
        y += qh
        parts = [marker, button]
        if opened:
            ah = text_height(ctx, answer, 15, x1 - x0)
            parts.append(text(ctx, (x0, y, x1, y + ah), answer, size=15, lines=0, provider=BY_WEBVIEW, cls=TEXT))
            y += ah + ctx.dp(8)
        return View(VIEW, (x0, item_top, x1, y), *parts, provider=BY_WEBVIEW), y + ctx.dp(4)

    def _toggle(self, index: int) -> None:
        self.open_topics ^= {index}

    def _contact(self) -> None:
        self.phone.toast("Support isn\u2019t available on this phone")
