"""Builders for the standard widgets (app bars, rows, switches, fields, buttons, lists).

Each builder returns a `View` whose bounds are final: the layout is computed here, once, and the
renderer and the dump writer both read it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import fonts, theme
from .theme import Metrics
from .views import BUTTON, EDIT, FRAME, IMAGE, IMAGE_BUTTON, LINEAR, RECYCLER, SWITCH, TEXT, VIEW, VIEWGROUP, Rect, View

if TYPE_CHECKING:
    from .apps.base import App, Screen
    from .phone import VirtualPhone


@dataclass
class Ctx:
    """What a screen needs to lay itself out: the phone, sizes, and the content rectangle."""

    phone: VirtualPhone
    app: App
    screen: Screen
    m: Metrics
    content: Rect
    keyboard_top: int | None = None  # top of the on-screen keyboard when it is visible

    def dp(self, v: float) -> int:
        return self.m.dp(v)

    sp = dp

    @property
    def pkg(self) -> str:
        return self.app.package

    def rid(self, name: str) -> str:
        if not name or ":" in name:
            return name
        return f"{self.app.package}:id/{name}"

    @property
    def left(self) -> int:
        return self.content[0]

    @property
    def top(self) -> int:
        return self.content[1]

    @property
    def right(self) -> int:
        return self.content[2]

    @property
    def bottom(self) -> int:
        return self.content[3]

    @property
    def width(self) -> int:
        return self.content[2] - self.content[0]


def text(ctx: Ctx, bounds: Rect, s: str, *, size: float = 16, color=theme.TEXT, bold: bool = False,
         align: str = "left", valign: str = "center", lines: int = 1, rid: str = "", cls: str = TEXT,
         **kw) -> View:
    style = dict(size=ctx.sp(size), color=color, bold=bold, align=align, valign=valign, lines=lines)
    for key in ("bg", "radius", "pad", "border", "shadow"):
        if key in kw:
            style[key] = kw.pop(key)
    return View(cls, bounds, text=s, rid=ctx.rid(rid), kind="text", **kw, **style)


def text_height(ctx: Ctx, s: str, size: float, max_w: int) -> int:
    px = ctx.sp(size)
    return len(fonts.wrap(s, px, max_w)) * fonts.line_height(px)


def icon_button(ctx: Ctx, cx: int, cy: int, glyph: str, desc: str, on_click: Callable[[], None] | None,
                *, color=theme.TEXT, size: float = 48, rid: str = "", cls: str = IMAGE_BUTTON,
                glyph_size: float = 24, **kw) -> View:
    half = ctx.dp(size) // 2
    return View(cls, (cx - half, cy - half, cx + half, cy + half), desc=desc, rid=ctx.rid(rid),
                kind="icon", clickable=on_click is not None, on_click=on_click, glyph=glyph, color=color,
                gsize=ctx.dp(glyph_size), **kw)


def icon(ctx: Ctx, cx: int, cy: int, glyph: str, *, color=theme.TEXT_SECONDARY, size: float = 24,
         circle=None, box: float | None = None, desc: str = "", rid: str = "") -> View:
    half = ctx.dp(box or size) // 2
    return View(IMAGE, (cx - half, cy - half, cx + half, cy + half), desc=desc, rid=ctx.rid(rid), kind="icon",
                glyph=glyph, color=color, gsize=ctx.dp(size), circle=circle)


def button(ctx: Ctx, bounds: Rect, label: str, on_click: Callable[[], None] | None, *, variant: str = "filled",
           enabled: bool = True, rid: str = "", desc: str = "", color=theme.PRIMARY, size: float = 14) -> View:
    if variant == "filled":
        bg, fg = (color if enabled else theme.SURFACE_VARIANT), (theme.WHITE if enabled else theme.HINT)
    elif variant == "tonal":
        bg, fg = theme.PRIMARY_LIGHT, theme.TEXT
    else:
        bg, fg = None, (color if enabled else theme.HINT)
    border = (theme.DISABLED, max(1, ctx.dp(1))) if variant == "outlined" else None
    return text(ctx, bounds, label, size=size, color=fg, bold=True, align="center", rid=rid, cls=BUTTON,
                desc=desc, bg=bg, radius=(bounds[3] - bounds[1]) // 2, clickable=True, enabled=enabled,
                on_click=on_click if enabled else None, border=border)


def switch(ctx: Ctx, right: int, cy: int, checked: bool, on_toggle: Callable[[], None] | None, *,
           rid: str = "android:id/switch_widget", desc: str = "", enabled: bool = True) -> View:
    w, h = ctx.dp(52), ctx.dp(32)
    return View(SWITCH, (right - w, cy - h // 2, right, cy + h // 2), rid=ctx.rid(rid), desc=desc, kind="switch",
                checkable=True, checked=checked, clickable=on_toggle is not None, focusable=True,
                enabled=enabled, on_click=on_toggle)


def edit_text(ctx: Ctx, bounds: Rect, key: str, hint: str, *, rid: str = "", variant: str = "underline",
              size: float = 16, desc: str = "", align: str = "left", screen: Screen | None = None,
              password: bool | None = None) -> View:
    """An EditText bound to `screen.fields[key]`; tapping it focuses it and shows the keyboard.

    Its accessibility text is what TextView reports: the hint while empty, the dots a password
    field shows otherwise; `hint` goes to the dump's `hint` attribute as well."""
    screen = screen or ctx.screen
    f = screen.fields[key]
    focused = screen.focus == key
    secret = f.input_type == "password" if password is None else password
    shown = ("\u2022" * len(f.text) if secret else f.text) if f.text else hint
    return View(EDIT, bounds, text=shown, rid=ctx.rid(rid), desc=desc, kind="edit",
                clickable=True, long_clickable=True, focusable=True, focused=focused, password=secret,
                on_click=lambda: ctx.phone.focus_field(screen, key),
                value=f.text, hint=hint, cursor=f.cursor, selected_all=f.selected_all and focused,
                variant=variant, size=ctx.sp(size), multiline=not f.single_line, align=align,
                show_cursor=focused, pad=ctx.dp(16) if variant in ("outline", "pill") else 0)


def fab(ctx: Ctx, desc: str, glyph: str, on_click: Callable[[], None], *, label: str = "", rid: str = "fab",
        color=theme.PRIMARY_LIGHT, fg=theme.TEXT, lift: int = 0) -> View:
    """A floating action button at the bottom right (`lift` pixels higher: over a snackbar)."""
    size = ctx.dp(56)
    margin = ctx.dp(16)
    r, b = ctx.right - margin, ctx.bottom - margin - lift
    if label:
        w = ctx.dp(16 + 24 + 12 + 20) + fonts.width(label, ctx.sp(15))
        box = (r - w, b - size, r, b)
        return View(BUTTON, box, text=label, desc=desc, rid=ctx.rid(rid), kind="fab", clickable=True,
                    on_click=on_click, glyph=glyph, bg=color, fg=fg, radius=ctx.dp(16), shadow=True,
                    size=ctx.sp(15))
    return View(IMAGE_BUTTON, (r - size, b - size, r, b), desc=desc, rid=ctx.rid(rid), kind="fab",
                clickable=True, on_click=on_click, glyph=glyph, bg=color, fg=fg, radius=ctx.dp(16), shadow=True)


def divider(ctx: Ctx, y: int, x0: int, x1: int, color=theme.DIVIDER) -> View:
    return View(VIEW, (x0, y, x1, y + max(1, ctx.dp(1) // 2 + 1)), kind="fill", bg=color, dump=False)


def avatar(ctx: Ctx, cx: int, cy: int, diameter: float, name: str, *, rid: str = "", desc: str = "") -> View:
    d = ctx.dp(diameter)
    letter = next((ch for ch in name if ch.isalnum()), "#").upper()
    return View(IMAGE, (cx - d // 2, cy - d // 2, cx - d // 2 + d, cy - d // 2 + d), rid=ctx.rid(rid), desc=desc,
                kind="avatar", letter=letter, color=theme.avatar_color(name), size=int(d * 0.45))


def toolbar(ctx: Ctx, title: str, *, top: int | None = None, nav: bool = True,
            on_nav: Callable[[], None] | None = None, actions: list[View] | None = None,
            bg=theme.SURFACE, rid: str = "toolbar", title_size: float = 22) -> View:
    """An app bar: optional 'Navigate up', a title, and action views laid out from the right."""
    top = ctx.top if top is None else top
    h = ctx.m.appbar_h
    bar = View(VIEWGROUP, (ctx.left, top, ctx.right, top + h), rid=ctx.rid(rid), bg=bg)
    x = ctx.left + ctx.dp(16)
    cy = top + h // 2
    if nav:
        bar.add(icon_button(ctx, ctx.left + ctx.dp(28), cy, "arrow_back", "Navigate up",
                            on_nav or ctx.phone.press_back))
        x = ctx.left + ctx.dp(64)
    right = ctx.right - ctx.dp(4)
    placed = []
    for action in actions or []:
        w = action.bounds[2] - action.bounds[0]
        ah = action.bounds[3] - action.bounds[1]
        action.bounds = (right - w, cy - ah // 2, right, cy - ah // 2 + ah)
        right -= w + ctx.dp(4)
        placed.append(action)
    bar.add(text(ctx, (x, top, max(x + 1, right - ctx.dp(8)), top + h), title, size=title_size))
    bar.add(*reversed(placed))
    return bar


@dataclass
class ScrollState:
    offset: int = 0
    max_offset: int = 0
    at_end: bool = False  # keep pinned to the end (chat lists)

    def scroll(self, dy: int) -> int:
        """Move by `dy` pixels within the content's ends; returns how far it moved (0 at an end)."""
        before = self.offset
        self.offset = max(0, min(self.max_offset, self.offset + dy))
        self.at_end = self.offset >= self.max_offset
        return self.offset - before


@dataclass
class Row:
    height: int
    build: Callable[[int], View]  # top → row view


def scroll_list(ctx: Ctx, rect: Rect, rows: list[Row], state: ScrollState, *, rid: str = "list",
                cls: str = RECYCLER, pad_top: int = 0, pad_bottom: int = 0, bg=None) -> View:
    """A vertical list showing only the rows that intersect the viewport, as RecyclerView does."""
    total = pad_top + sum(r.height for r in rows) + pad_bottom
    viewport = rect[3] - rect[1]
    state.max_offset = max(0, total - viewport)
    if state.at_end:
        state.offset = state.max_offset
    state.offset = max(0, min(state.offset, state.max_offset))
    kw = {"bg": bg} if bg else {}
    lst = View(cls, rect, rid=ctx.rid(rid), scrollable=state.max_offset > 0, focusable=True, clip=True,
               on_scroll=state.scroll, **kw)
    y = rect[1] + pad_top - state.offset
    for row in rows:
        if y + row.height > rect[1] and y < rect[3]:
            lst.add(row.build(y))
        y += row.height
    return lst


def content_frame(ctx: Ctx, *children: View, rid: str = "", bg=None) -> View:
    kw = {"bg": bg} if bg else {}
    return View(FRAME, ctx.content, *children, rid=ctx.rid(rid), **kw)


def dialog_frame(ctx: Ctx, width: int, height: int, *children: View, bg=theme.SURFACE) -> View:
    """A dialog window root centred in the content area (above the keyboard when it shows)."""
    cx = (ctx.left + ctx.right) // 2
    cy = (ctx.top + ctx.bottom) // 2
    box = (cx - width // 2, cy - height // 2, cx - width // 2 + width, cy - height // 2 + height)
    return View(FRAME, box, *children, bg=bg, radius=ctx.dp(28), shadow=True)


def dialog_box(ctx: Ctx, width: int, height: int) -> Rect:
    cx = (ctx.left + ctx.right) // 2
    cy = (ctx.top + ctx.bottom) // 2
    return (cx - width // 2, cy - height // 2, cx - width // 2 + width, cy - height // 2 + height)


def snackbar(ctx: Ctx, bottom: int, message: str, action: str, on_action: Callable[[], None]) -> View:
    """A Material snackbar above `bottom`: the message and its action button (ids as Material Components')."""
    left, right = ctx.left + ctx.dp(8), ctx.right - ctx.dp(8)
    box = (left, bottom - ctx.dp(56), right, bottom - ctx.dp(8))
    bar = View(LINEAR, box, rid="com.google.android.material:id/snackbar_layout", bg=(50, 50, 50), radius=ctx.dp(4))
    bar.add(text(ctx, (left + ctx.dp(16), box[1], right - ctx.dp(96), box[3]), message, size=14, color=theme.WHITE,
                 rid="com.google.android.material:id/snackbar_text"))
    bar.add(button(ctx, (right - ctx.dp(88), box[1] + ctx.dp(6), right - ctx.dp(8), box[3] - ctx.dp(6)), action,
                   on_action, variant="text", color=(208, 188, 255),
                   rid="com.google.android.material:id/snackbar_action"))
    return bar
