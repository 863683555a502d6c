"""Launcher3 (com.android.launcher3): the home screen with app icons, and the Overview (recents) screen."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from PIL import Image

from .. import theme
from ..paging import Pages, PageSnap
from ..views import BUTTON, FRAME, IMAGE, LINEAR, SCROLL, TEXT, VIEW, VIEWGROUP, View
from ..widgets import Ctx, ScrollState
from . import LAUNCHER
from .base import App, Dialog, Screen

WORKSPACE = ["com.android.settings", "com.agentdesk.notes", "com.agentdesk.calculator", "com.android.deskclock"]
HOTSEAT = ["com.android.dialer", "com.android.messaging", "com.android.contacts"]
MAIN = "com.android.launcher3.uioverride.QuickstepLauncher"
CLOCK = "com.android.deskclock"
WIDGET_HOST = "com.android.launcher3.widget.LauncherAppWidgetHostView"
TEXT_CLOCK = "android.widget.TextClock"


def _columns(ctx: Ctx) -> int:
    """Icon columns of the workspace and the dock: one per 100 dp of width, at least four."""
    return max(4, (ctx.right - ctx.left) // ctx.dp(100))


class IconPopup(Dialog):
    """The menu a long press on an icon opens (Launcher3's shortcuts pop-up)."""

    dim = False

    screen: HomeScreen

    def __init__(self, screen: HomeScreen, package: str) -> None:
        super().__init__(screen)
        self.package = package

    def build(self, ctx: Ctx) -> View:
        left, t, r, b = self.screen.icon_boxes[self.package]     # laid out just before, in this picture
        w, h = ctx.dp(200), ctx.dp(56)
        x = max(ctx.left + ctx.dp(8), min((left + r) // 2 - w // 2, ctx.right - ctx.dp(8) - w))
        y = t - h - ctx.dp(8) if t - h - ctx.dp(8) > ctx.top else b + ctx.dp(8)
        root = View(FRAME, (x, y, x + w, y + h), rid=ctx.rid("popup_container"), bg=theme.SURFACE,
                    radius=ctx.dp(20), shadow=True)
        row = View(VIEWGROUP, (x, y, x + w, y + h), rid=ctx.rid("system_shortcuts_container"), clickable=True,
                   on_click=self._info, desc="App info")
        row.add(View(IMAGE, (x + ctx.dp(16), y + ctx.dp(16), x + ctx.dp(40), y + ctx.dp(40)), kind="icon",
                     glyph="info", gsize=ctx.dp(20), color=theme.TEXT_SECONDARY))
        row.add(View(TEXT, (x + ctx.dp(52), y, x + w - ctx.dp(12), y + h), text="App info", rid=ctx.rid("bubble_text"),
                     kind="text", size=ctx.sp(15), color=theme.TEXT, lines=1))
        root.add(row)
        return root

    def _info(self) -> None:
        self.screen.close_dialog()
        self.phone.launch("com.android.settings", "com.android.settings.Settings$ManageApplicationsActivity")


class HomeScreen(Screen):
    """Launcher3's workspace: two pages the finger moves between (paging.py). The first holds the date and the
    app icons, the second DeskClock's digital clock widget; the dock (hotseat) and the page dots stay put."""

    activity = MAIN
    bar_color = None

    def __init__(self, app: App) -> None:
        super().__init__(app)
        self.icon_boxes: dict[str, tuple[int, int, int, int]] = {}   # where each icon was laid out last
        self.pages = Pages(count=2)

    def _icon(self, ctx: Ctx, package: str, box: tuple[int, int, int, int]) -> View:
        app = self.phone.apps[package]
        self.icon_boxes[package] = box
        d = ctx.dp(56)
        return View(TEXT, box, text=app.label, desc=app.label, kind="appicon", clickable=True, long_clickable=True,
                    on_click=lambda: self.phone.launch(package), glyph=app.glyph,
                    on_long_click=lambda: self.open_dialog(IconPopup(self, package)),
                    color=theme.APP_COLORS.get(package, theme.PRIMARY), icon=d, icon_top=ctx.dp(8),
                    size=ctx.sp(12))

    def build(self, ctx: Ctx) -> list[View]:
        rid = ctx.rid
        left, t, r, b = ctx.content
        launcher = View(FRAME, ctx.content, rid=rid("launcher"))
        drag = View(FRAME, ctx.content, rid=rid("drag_layer"))
        launcher.add(drag)
        pages = self.pages
        pages.width = r - left
        pages.offset = max(0, min(pages.end, pages.offset))
        workspace = View(SCROLL, (left, t, r, b), rid=rid("workspace"), scrollable=pages.count > 1,
                         on_hscroll=pages)
        hotseat_h = ctx.dp(112)
        for index, build_page in enumerate((self._first_page, self._clock_page)):
            shift = index * pages.width - pages.offset
            if left + shift < r and r + shift > left:             # a page off the screen is not laid out
                workspace.add(build_page(ctx, (left + ctx.dp(16) + shift, t, r - ctx.dp(16) + shift,
                                               b - hotseat_h - ctx.dp(24))))
        drag.add(workspace, self._page_dots(ctx, b - hotseat_h - ctx.dp(24), b - hotseat_h),
                 self._hotseat(ctx, hotseat_h))
        return [launcher]

    def _first_page(self, ctx: Ctx, box: tuple[int, int, int, int]) -> View:
        """The date at the top (At a Glance), the app icons in the last row above the dock."""
        left, t, r, b = box
        page = View(VIEWGROUP, box)
        now = self.phone.now()
        glance_h = ctx.dp(96) if not ctx.m.landscape else ctx.dp(56)
        glance = View(VIEWGROUP, (left, t, r, t + glance_h), rid=ctx.rid("search_container_workspace"))
        glance.add(View(TEXT, (left + ctx.dp(8), t + ctx.dp(16), r - ctx.dp(8), t + ctx.dp(16) + ctx.dp(40)),
                        text=now.strftime("%A, %b ") + str(now.day), rid=ctx.rid("date"), kind="text",
                        size=ctx.sp(22), color=theme.WHITE, lines=1))
        cols = _columns(ctx)
        cell_w, cell_h = (r - left) // cols, ctx.dp(100)
        grid_top = max(t + glance_h, b - cell_h)
        icons = View(VIEWGROUP, (left, grid_top, r, grid_top + cell_h))
        for i, package in enumerate(p for p in WORKSPACE if p in self.phone.apps):
            col, row = i % cols, i // cols
            icons.add(self._icon(ctx, package, (left + col * cell_w, grid_top + row * cell_h,
                                                left + (col + 1) * cell_w, grid_top + (row + 1) * cell_h)))
        return page.add(glance, icons)

    def _clock_page(self, ctx: Ctx, box: tuple[int, int, int, int]) -> View:
        """DeskClock's digital clock widget (its RemoteViews: time, date; a tap opens the Clock app)."""
        left, t, r, b = box
        page = View(VIEWGROUP, box)
        if CLOCK not in self.phone.apps:
            return page
        now = self.phone.now()
        top, h = t + ctx.dp(24), ctx.dp(150)
        host = View(WIDGET_HOST, (left, top, r, top + h), desc="Digital clock")
        widget = View(LINEAR, (left, top, r, top + h), rid=f"{CLOCK}:id/digital_widget", clickable=True,
                      on_click=lambda: self.phone.launch(CLOCK))
        widget.add(View(TEXT_CLOCK, (left, top + ctx.dp(8), r, top + ctx.dp(96)), rid=f"{CLOCK}:id/clock",
                        text=f"{now.hour % 12 or 12}:{now.minute:02d}", kind="text", size=ctx.sp(64),
                        color=theme.WHITE, align="center", lines=1),
                   View(TEXT_CLOCK, (left, top + ctx.dp(100), r, top + ctx.dp(132)), rid=f"{CLOCK}:id/date",
                        text=now.strftime("%a, %b ") + str(now.day), kind="text", size=ctx.sp(18),
                        color=theme.WHITE, align="center", lines=1))
        return page.add(host.add(widget))

    def _page_dots(self, ctx: Ctx, t: int, b: int) -> View:
        """The page indicator: a dot a page, the shown page's white (drawn only: no nodes of their own)."""
        left, r = ctx.content[0], ctx.content[2]
        indicator = View(VIEW, (left, t, r, b), rid=ctx.rid("page_indicator"))
        d, gap = ctx.dp(8), ctx.dp(8)
        x = (left + r) // 2 - (self.pages.count * d + (self.pages.count - 1) * gap) // 2
        cy = (t + b) // 2
        for page in range(self.pages.count):
            colour = theme.WHITE if page == self.pages.shown else (150, 150, 150)
            indicator.add(View(VIEW, (x, cy - d // 2, x + d, cy + d // 2), dump=False, bg=colour, radius=d // 2))
            x += d + gap
        return indicator

    def _hotseat(self, ctx: Ctx, hotseat_h: int) -> View:
        left, t, r, b = ctx.content
        cols = _columns(ctx)
        cell_h = ctx.dp(100)
        hot = View(VIEWGROUP, (left, b - hotseat_h, r, b), rid=ctx.rid("hotseat"))
        hot_row = View(VIEWGROUP, (left + ctx.dp(16), b - hotseat_h, r - ctx.dp(16), b - hotseat_h + cell_h))
        apps = [p for p in HOTSEAT if p in self.phone.apps]
        hw = (r - left - 2 * ctx.dp(16)) // max(cols, len(apps))
        start = left + ctx.dp(16) + ((r - left - 2 * ctx.dp(16)) - hw * len(apps)) // 2
        for i, package in enumerate(apps):
            hot_row.add(self._icon(ctx, package, (start + i * hw, b - hotseat_h, start + (i + 1) * hw,
                                                  b - hotseat_h + cell_h)))
        return hot.add(hot_row)

    def to_first_page(self, at: float, scale: float) -> PageSnap | None:
        """Home pressed on the home screen: back to the first page (Launcher's moveToDefaultScreen)."""
        if self.pages.offset == 0 and self.pages.heading_to in (None, 0):
            return None
        return self.pages.snap_to(0, at, scale)


class LauncherApp(App):
    package = LAUNCHER
    label = "Quickstep"
    glyph = "apps"
    main_activity = MAIN
    appcompat = False

    def __init__(self, phone) -> None:
        super().__init__(phone)
        self.recents_scroll = ScrollState()
        self.thumbs: dict[str, Image.Image] = {}

    def activities(self):
        return {MAIN: lambda: HomeScreen(self)}

    def back(self) -> None:
        """Back on the home screen closes its pop-up, if one is open; else it does nothing."""
        home = self.top
        if home is not None and home.back():
            self.phone.changed()

    def pages(self) -> dict[str, Callable[[], object]]:
        def recent_apps() -> None:
            for package in reversed(HOTSEAT):
                self.phone.launch(package)
            self.phone.show_recents()

        def icon_menu() -> None:
            home = self.ensure_started()
            assert isinstance(home, HomeScreen)
            home.open_dialog(IconPopup(home, WORKSPACE[0]))

        # the lock screen is the phone's, shown over whatever is in front: here, the home screen
        return {"home": lambda: None, "an icon's menu": icon_menu, "recent apps": recent_apps,
                "lock screen": self.phone.lock_screen}

    def reset_recents_scroll(self) -> None:
        self.recents_scroll = ScrollState()

    def _clear_all(self) -> None:
        for package in list(self.phone.recents):
            self.phone.apps[package].reset()
        self.phone.recents.clear()
        self.thumbs.clear()
        self.phone.go_home()

    def build_overview(self, ctx: Ctx) -> list[View]:
        phone = self.phone
        left, t, r, b = ctx.content
        root = View(FRAME, ctx.content, rid=ctx.rid("overview_panel"))
        if not phone.recents:
            root.add(View(TEXT, (left, (t + b) // 2 - ctx.dp(24), r, (t + b) // 2 + ctx.dp(24)), text="No recent items",
                          kind="text", size=ctx.sp(16), color=(220, 220, 220), align="center"))
            return [root]
        card_w = int((r - left) * (0.62 if not ctx.m.landscape else 0.42))
        card_h = int((b - t) * (0.68 if not ctx.m.landscape else 0.7))
        gap = ctx.dp(24)
        top = t + (b - t - card_h) // 2 - ctx.dp(24)
        state = self.recents_scroll
        n = len(phone.recents)
        state.max_offset = (n - 1) * (card_w + gap)
        state.offset = max(0, min(state.offset, state.max_offset))
        row = View(VIEWGROUP, (left, t, r, b), clip=True, on_hscroll=lambda d: state.scroll(-d))
        cx0 = (left + r) // 2
        for i, package in enumerate(phone.recents):
            app = phone.apps[package]
            cx = cx0 - i * (card_w + gap) + state.offset
            box = (cx - card_w // 2, top, cx + card_w // 2, top + card_h)
            if box[2] < left or box[0] > r:
                continue
            thumb = self._thumbnail(package, card_w, card_h)
            card = View(FRAME, box, desc=app.label, rid=ctx.rid("task_view"), clickable=True,
                        on_click=partial(phone.bring_to_front, app))
            card.add(View(VIEW, box, desc=app.label, rid=ctx.rid("snapshot"), kind="image", image=thumb))
            d = ctx.dp(40)
            card.add(View(IMAGE, (cx - d // 2, top - d - ctx.dp(12), cx + d // 2, top - ctx.dp(12)), desc=app.label,
                          rid=ctx.rid("icon"), kind="icon", glyph=app.glyph, gsize=int(d * 0.55), color=theme.WHITE,
                          circle=theme.APP_COLORS.get(package, theme.PRIMARY)))
            row.add(card)
        root.add(row)
        bw, bh = ctx.dp(120), ctx.dp(40)
        by = top + card_h + ctx.dp(32)
        root.add(View(BUTTON, ((left + r - bw) // 2, by, (left + r + bw) // 2, by + bh), text="Clear all",
                      rid=ctx.rid("clear_all"), kind="text", clickable=True, on_click=self._clear_all,
                      size=ctx.sp(14), color=theme.WHITE, bold=True, align="center", bg=(70, 72, 78), radius=bh // 2))
        return [root]

    def _thumbnail(self, package: str, w: int, h: int) -> Image.Image:
        img = self.thumbs.get(package)
        if img is None or img.size != (w, h):
            img = self.phone.app_picture(self.phone.apps[package]).resize((w, h), Image.Resampling.BILINEAR)
            mask = Image.new("L", (w, h), 0)
            from ..sprites import fill_round_rect
            fill_round_rect(mask, (0, 0, w, h), max(8, w // 24), 255)
            img.putalpha(mask)
            self.thumbs[package] = img
        return img

    def state(self) -> dict:
        return {}
