"""System UI windows (package com.android.systemui): the status bar and the 3-button navigation bar."""

from __future__ import annotations

from collections.abc import Callable

from . import theme
from .theme import Metrics
from .views import FRAME, IMAGE, LINEAR, TEXT, Rect, View

PKG = "com.android.systemui"


def _rid(name: str) -> str:
    return f"{PKG}:id/{name}"


def status_bar_rect(m: Metrics, rotation: int) -> Rect:
    nav = m.nav_size if m.landscape else 0
    if rotation == 3:
        return (nav, 0, m.width, m.status_h)
    return (0, 0, m.width - nav, m.status_h)


def nav_bar_rect(m: Metrics, rotation: int) -> Rect:
    if not m.landscape:
        return (0, m.height - m.nav_size, m.width, m.height)
    if rotation == 3:
        return (0, 0, m.nav_size, m.height)
    return (m.width - m.nav_size, 0, m.width, m.height)


def build_status_bar(m: Metrics, rotation: int, *, clock: str, wifi: bool, bluetooth: bool, airplane: bool,
                     bg, battery: int = 100) -> View:
    rect = status_bar_rect(m, rotation)
    left, t, r, b = rect
    fg = theme.WHITE if bg is None or theme.is_dark(bg) else theme.TEXT
    root = View(FRAME, rect)  # transparent: the app paints the colour behind it
    container = View(FRAME, rect, rid=_rid("status_bar_container"))
    bar = View(FRAME, rect, rid=_rid("status_bar"))
    pad = m.dp(16)
    contents = View(LINEAR, (left + pad, t, r - pad, b), rid=_rid("status_bar_contents"))
    px = m.dp(14)
    left_box = View(LINEAR, (left + pad, t, left + pad + m.dp(64), b), rid=_rid("phone_status_bar_left_container"))
    left_box.add(View(TEXT, (left + pad, t, left + pad + m.dp(64), b), text=clock, rid=_rid("clock"), kind="text",
                  size=px, color=fg, bold=True, lines=1))
    icons: list[tuple[str, str, str]] = []  # (glyph, content-desc, resource-id)
    if airplane:
        icons.append(("airplane", "Airplane mode.", ""))
    if bluetooth:
        icons.append(("bluetooth", "Bluetooth on.", ""))
    if wifi:
        icons.append(("wifi", "Wifi signal full.", "wifi_combo"))
    if not airplane:
        icons.append(("signal", "Phone signal full.", "mobile_combo"))
    size = m.dp(16)
    step = m.dp(22)
    battery_w = m.dp(20)
    x = r - pad - battery_w - m.dp(4) - step * len(icons)
    area = View(LINEAR, (x, t, r - pad, b), rid=_rid("system_icon_area"))
    status_icons = View(LINEAR, (x, t, r - pad - battery_w - m.dp(4), b), rid=_rid("statusIcons"))
    cy = (t + b) // 2
    for glyph, desc, rid in icons:
        status_icons.add(View(IMAGE if not rid else FRAME, (x, cy - step // 2, x + step, cy + step // 2), desc=desc,
                              rid=_rid(rid) if rid else "", kind="icon", glyph=glyph, gsize=size, color=fg))
        x += step
    area.add(status_icons)
    bx = r - pad - battery_w
    area.add(View(LINEAR, (bx, t, r - pad, b), rid=_rid("battery"), desc=f"Battery {battery} percent.",
                  kind="icon", glyph="battery", gsize=m.dp(20), color=fg))
    contents.add(left_box, area)
    bar.add(contents)
    container.add(bar)
    root.add(container)
    return root


def build_nav_bar(m: Metrics, rotation: int, *, on_back: Callable[[], None], on_home: Callable[[], None],
                  on_recents: Callable[[], None], ime_shown: bool, transparent: bool) -> View:
    rect = nav_bar_rect(m, rotation)
    left, t, r, b = rect
    fg = theme.WHITE if transparent else (60, 64, 67)
    frame = View(FRAME, rect, rid=_rid("navigation_bar_frame"), bg=None if transparent else theme.NAV_BG)
    view = View(FRAME, rect, rid=_rid("navigation_bar_view"))
    inflater = View(FRAME, rect, rid=_rid("navigation_inflater"))
    buttons = View(FRAME, rect, rid=_rid("nav_buttons"))
    ends = View(LINEAR, rect, rid=_rid("ends_group"))
    center = View(LINEAR, rect, rid=_rid("center_group"))
    key = m.dp(70)
    gsize = m.dp(22)
    specs = [("back", "Back", "chevron_down" if ime_shown else "nav_back", on_back, 0.25),
             ("home", "Home", "nav_home", on_home, 0.5),
             ("recent_apps", "Overview", "nav_recents", on_recents, 0.75)]
    for rid, desc, glyph, cb, frac in specs:
        if not m.landscape:
            cx = int(m.width * frac)
            box = (cx - key // 2, t, cx + key // 2, b)
        else:
            cy = int(m.height * (1 - frac if rotation != 3 else frac))
            box = (left, cy - key // 2, r, cy + key // 2)
        button = View(IMAGE, box, rid=_rid(rid), desc=desc, kind="icon", glyph=glyph, gsize=gsize, color=fg,
                      clickable=True, long_clickable=rid == "home", on_click=cb,
                      on_long_click=cb if rid == "home" else None)
        (center if rid == "home" else ends).add(button)
    buttons.add(ends, center)
    inflater.add(buttons)
    view.add(inflater)
    frame.add(view)
    return frame
