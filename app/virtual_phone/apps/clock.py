"""Clock (com.android.deskclock): Alarm / Clock / Timer / Stopwatch tabs; alarms are fully working,
and the stopwatch runs: while it runs on screen, the screen never stops moving (uiautomator cannot
get an idle state there, as on a phone).

"Add alarm" opens a keyboard-input time picker (as Material's text-input mode): hour and minute
fields (select-all on focus, so typing replaces), AM/PM buttons, an optional label, Cancel / OK.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial

from .. import theme
from ..views import BUTTON, FRAME, LINEAR, VIEWGROUP, View
from ..widgets import (
    Ctx,
    Row,
    ScrollState,
    button,
    dialog_box,
    edit_text,
    fab,
    icon,
    scroll_list,
    switch,
    text,
    toolbar,
)
from . import CLOCK
from .base import App, Dialog, Screen
from .seed_data import ALARMS

MAIN = "com.android.deskclock.DeskClock"
TABS = [("Alarm", "alarm"), ("Clock", "clock"), ("Timer", "timer"), ("Stopwatch", "stopwatch")]


def time_label(hour: int, minute: int) -> tuple[str, str]:
    return f"{(hour % 12) or 12}:{minute:02d}", "AM" if hour < 12 else "PM"


class TimePickerDialog(Dialog):
    screen: DeskClockScreen
    field_keys = ("hour", "minute", "label")

    def __init__(self, screen: DeskClockScreen) -> None:
        super().__init__(screen)
        now = self.phone.now()
        self.pm = now.hour >= 12
        self.error = ""
        screen.add_field("hour", str((now.hour % 12) or 12), input_type="number", select_on_focus=True, max_length=2,
                         action=lambda: self.phone.focus_field(screen, "minute"))
        screen.add_field("minute", f"{now.minute:02d}", input_type="number", select_on_focus=True, max_length=2)
        screen.add_field("label", "", action=self.phone.hide_keyboard)

    def build(self, ctx: Ctx) -> View:
        w = min(ctx.width - ctx.dp(32), ctx.dp(328))
        h = ctx.dp(316)
        left, t, r, b = dialog_box(ctx, w, h)
        root = View(FRAME, (left, t, r, b), bg=theme.SURFACE, radius=ctx.dp(28), shadow=True)
        panel = View(LINEAR, (left, t, r, b), rid=ctx.rid("time_picker_panel"))
        panel.add(text(ctx, (left + ctx.dp(24), t + ctx.dp(20), r, t + ctx.dp(48)), "Enter time", size=13,
                       color=theme.TEXT_SECONDARY, rid="header_title"))
        y = t + ctx.dp(60)
        box_w = ctx.dp(96)
        hx = left + ctx.dp(24)
        panel.add(edit_text(ctx, (hx, y, hx + box_w, y + ctx.dp(72)), "hour", "Hour", rid="input_hour",
                            variant="outline", size=40, align="center", screen=self.screen))
        panel.add(text(ctx, (hx + box_w, y, hx + box_w + ctx.dp(24), y + ctx.dp(72)), ":", size=40, align="center"))
        mx = hx + box_w + ctx.dp(24)
        panel.add(edit_text(ctx, (mx, y, mx + box_w, y + ctx.dp(72)), "minute", "Minute", rid="input_minute",
                            variant="outline", size=40, align="center", screen=self.screen))
        ax = mx + box_w + ctx.dp(12)
        for i, (label, pm) in enumerate((("AM", False), ("PM", True))):
            on = self.pm == pm
            top = y + i * ctx.dp(36)
            panel.add(View(BUTTON, (ax, top, r - ctx.dp(24), top + ctx.dp(36)), text=label,
                           rid=ctx.rid(f"{label.lower()}_button"),
                           kind="text", clickable=True, checkable=True, checked=on,
                           on_click=partial(self._set_pm, pm), size=ctx.sp(15), bold=True, align="center",
                           color=theme.TEXT, bg=theme.PRIMARY_LIGHT if on else theme.SURFACE,
                           border=(theme.HINT, max(1, ctx.dp(1))), radius=ctx.dp(8)))
        y += ctx.dp(84)
        panel.add(text(ctx, (hx, y, hx + box_w, y + ctx.dp(20)), "Hour", size=12, color=theme.TEXT_SECONDARY))
        panel.add(text(ctx, (mx, y, mx + box_w, y + ctx.dp(20)), "Minute", size=12, color=theme.TEXT_SECONDARY))
        y += ctx.dp(32)
        panel.add(edit_text(ctx, (hx, y, r - ctx.dp(24), y + ctx.dp(56)), "label", "Label", rid="input_label",
                            variant="outline", screen=self.screen))
        y += ctx.dp(60)
        if self.error:
            panel.add(text(ctx, (hx, y, r - ctx.dp(24), y + ctx.dp(24)), self.error, size=13, color=theme.DANGER,
                           rid="error_text"))
        bar = View(LINEAR, (left, b - ctx.dp(64), r, b - ctx.dp(8)), rid="android:id/buttonPanel")
        bar.add(button(ctx, (r - ctx.dp(200), b - ctx.dp(60), r - ctx.dp(112), b - ctx.dp(20)), "Cancel", self.cancel,
                       variant="text", rid="android:id/button2"))
        bar.add(button(ctx, (r - ctx.dp(104), b - ctx.dp(60), r - ctx.dp(24), b - ctx.dp(20)), "OK", self.ok,
                       variant="text", rid="android:id/button1"))
        panel.add(bar)
        root.add(panel)
        return root

    def _set_pm(self, pm: bool) -> None:
        self.pm = pm

    def ok(self) -> None:
        f = self.screen.fields
        try:
            hour, minute = int(f["hour"].text), int(f["minute"].text)
        except ValueError:
            hour = minute = -1
        if not (1 <= hour <= 12 and 0 <= minute <= 59):
            self.error = "Enter a valid time"
            return
        hour24 = hour % 12 + (12 if self.pm else 0)
        self.screen.app.add_alarm(hour24, minute, f["label"].text.strip())
        self.screen.close_dialog()


class DeskClockScreen(Screen):
    app: ClockApp
    activity = MAIN
    background = theme.SURFACE

    def __init__(self, app: ClockApp) -> None:
        super().__init__(app)
        self.tab = "Alarm"
        self.scroll = ScrollState()
        self.expanded: int | None = None

    def close_dialog(self) -> None:
        super().close_dialog()
        for key in TimePickerDialog.field_keys:
            self.fields.pop(key, None)

    def build(self, ctx: Ctx) -> list[View]:
        left, t, r, b = ctx.content
        nav_h = ctx.dp(80)
        bar = toolbar(ctx, self.tab, nav=False, title_size=24)
        body_rect = (left, bar.bounds[3], r, b - nav_h)
        views = [bar]
        if self.tab == "Alarm":
            views += self._alarms(ctx, body_rect)
        elif self.tab == "Clock":
            now = self.phone.now()
            hm, ampm = time_label(now.hour, now.minute)
            cy = body_rect[1] + ctx.dp(120)
            views.append(text(ctx, (left, cy - ctx.dp(48), r, cy + ctx.dp(48)), f"{hm} {ampm}", size=56, align="center",
                              rid="digital_clock"))
            views.append(text(ctx, (left, cy + ctx.dp(52), r, cy + ctx.dp(84)), now.strftime("%a, %b ") + str(now.day),
                              size=16, align="center", color=theme.TEXT_SECONDARY, rid="date"))
        elif self.tab == "Timer":
            cy = body_rect[1] + ctx.dp(140)
            views.append(text(ctx, (left, cy - ctx.dp(48), r, cy + ctx.dp(48)), "00h 00m 00s", size=52, align="center",
                              rid="timer_setup_time"))
        else:
            views += self._stopwatch(ctx, body_rect)
        views.append(self._tabs(ctx, (left, b - nav_h, r, b)))
        return [View(FRAME, ctx.content, *views, rid=ctx.rid("desk_clock_pager"))]

    @property
    def animating(self) -> bool:  # type: ignore[override]  # computed here; other screens set it as an attribute
        return self.tab == "Stopwatch" and self.app.stopwatch.running

    def animation_frame(self) -> object:
        return self.app.stopwatch.text()

    def _stopwatch(self, ctx: Ctx, rect) -> list[View]:
        left, t, r, b = rect
        watch = self.app.stopwatch
        cy = t + ctx.dp(140)
        views = [text(ctx, (left, cy - ctx.dp(48), r, cy + ctx.dp(48)), watch.text(), size=52, align="center",
                      rid="stopwatch_time_text")]
        inner = Ctx(ctx.phone, ctx.app, self, ctx.m, rect)
        label = "Pause" if watch.running else "Start"
        views.append(fab(inner, label, "stopwatch", watch.toggle, label=label, rid="fab"))
        if not watch.running and watch.elapsed() > 0:
            views.append(button(ctx, (left + ctx.dp(24), b - ctx.dp(72), left + ctx.dp(124), b - ctx.dp(24)), "Reset",
                                watch.reset, variant="tonal", rid="left_button"))
        return views

    def _tabs(self, ctx: Ctx, rect) -> View:
        left, t, r, b = rect
        nav = View(LINEAR, rect, rid=ctx.rid("bottom_navigation"), bg=theme.BACKGROUND)
        w = (r - left) // len(TABS)
        for i, (label, glyph) in enumerate(TABS):
            box = (left + i * w, t, left + (i + 1) * w, b)
            on = self.tab == label
            cx = (box[0] + box[2]) // 2
            tab = View(FRAME, box, desc=label, rid=ctx.rid(f"tab_menu_{label.lower()}"), clickable=True, selected=on,
                       on_click=partial(self._select, label))
            tab.add(icon(ctx, cx, t + ctx.dp(26), glyph, color=theme.TEXT if on else theme.TEXT_SECONDARY,
                         circle=theme.PRIMARY_LIGHT if on else None, box=32 if not on else 32))
            tab.add(text(ctx, (box[0], t + ctx.dp(46), box[2], t + ctx.dp(70)), label, size=12, align="center",
                         bold=on, color=theme.TEXT if on else theme.TEXT_SECONDARY, rid="navigation_bar_item_label"))
            nav.add(tab)
        return nav

    def _select(self, label: str) -> None:
        self.tab = label

    def _alarms(self, ctx: Ctx, rect) -> list[View]:
        app: ClockApp = self.app
        rows = []
        for i, alarm in enumerate(app.alarms):
            h = ctx.dp(172 if self.expanded == i else 120)
            rows.append(Row(h, partial(self._alarm_card, ctx, index=i, alarm=alarm, h=h)))
        views = [scroll_list(ctx, rect, rows, self.scroll, rid="alarm_recycler_view", pad_bottom=ctx.dp(96))]
        if not app.alarms:
            views.append(text(ctx, rect, "No alarms", align="center", color=theme.TEXT_SECONDARY,
                              rid="alarms_empty_view"))
        inner = Ctx(ctx.phone, ctx.app, self, ctx.m, rect)
        views.append(fab(inner, "Add alarm", "plus", lambda: self.open_dialog(TimePickerDialog(self)), rid="fab"))
        return views

    def _alarm_card(self, ctx: Ctx, top: int, index: int, alarm: dict, h: int) -> View:
        left, r = ctx.left + ctx.dp(16), ctx.right - ctx.dp(16)
        box = (left, top + ctx.dp(6), r, top + h - ctx.dp(6))
        card = View(VIEWGROUP, box, rid=ctx.rid("alarm_item"), clickable=True, on_click=lambda: self._expand(index),
                    bg=theme.BACKGROUND, radius=ctx.dp(24))
        hm, ampm = time_label(alarm["hour"], alarm["minute"])
        on = alarm["enabled"]
        color = theme.TEXT if on else theme.TEXT_SECONDARY
        card.add(text(ctx, (left + ctx.dp(20), box[1] + ctx.dp(30), left + ctx.dp(190), box[1] + ctx.dp(86)),
                      f"{hm} {ampm}", size=36, color=color, rid="digital_clock"))
        card.add(text(ctx, (left + ctx.dp(20), box[1] + ctx.dp(6), r - ctx.dp(90), box[1] + ctx.dp(32)),
                      alarm["label"] or "Alarm", size=14, color=theme.TEXT_SECONDARY, rid="edit_label"))
        beside = (left + ctx.dp(200), box[1] + ctx.dp(40), r - ctx.dp(84), box[1] + ctx.dp(76))
        if beside[2] - beside[0] < ctx.dp(110):  # a narrow phone: under the time instead
            beside = (left + ctx.dp(20), box[1] + ctx.dp(86), r - ctx.dp(84), box[1] + ctx.dp(106))
        card.add(text(ctx, beside, "Tomorrow" if on else "Not scheduled", size=14, color=theme.TEXT_SECONDARY,
                      rid="upcoming_instance_label"))
        card.add(switch(ctx, r - ctx.dp(16), box[1] + ctx.dp(58), on, lambda: self.app.toggle_alarm(index),
                        rid="onoff", desc=f"{hm} {ampm}"))
        if self.expanded == index:
            card.add(button(ctx, (left + ctx.dp(16), box[3] - ctx.dp(52), left + ctx.dp(124), box[3] - ctx.dp(12)),
                            "Delete", lambda: self._delete(index), variant="text", rid="delete"))
        return card

    def _expand(self, index: int) -> None:
        self.expanded = None if self.expanded == index else index

    def _delete(self, index: int) -> None:
        self.expanded = None
        self.app.delete_alarm(index)


class Stopwatch:
    """Runs on the host's monotonic clock, so it keeps time in real seconds."""

    def __init__(self) -> None:
        self.running = False
        self._started = 0.0
        self._banked = 0.0

    def elapsed(self) -> float:
        return self._banked + (time.monotonic() - self._started if self.running else 0.0)

    def text(self) -> str:
        hundredths = int(self.elapsed() * 100)
        minutes, rest = divmod(hundredths, 6000)
        return f"{minutes:02d}:{rest // 100:02d}.{rest % 100:02d}"

    def toggle(self) -> None:
        if self.running:
            self._banked = self.elapsed()
        else:
            self._started = time.monotonic()
        self.running = not self.running

    def reset(self) -> None:
        self.running, self._banked = False, 0.0


class ClockApp(App):
    package = CLOCK
    label = "Clock"
    glyph = "alarm"
    main_activity = MAIN

    def __init__(self, phone) -> None:
        super().__init__(phone)
        self.alarms = [{"hour": h, "minute": m, "label": lb, "enabled": on} for h, m, lb, on in ALARMS]
        self.stopwatch = Stopwatch()

    def activities(self):
        return {MAIN: lambda: DeskClockScreen(self)}

    def pages(self) -> dict[str, Callable[[], object]]:
        def clock() -> DeskClockScreen:
            screen = self.ensure_started()
            assert isinstance(screen, DeskClockScreen)
            return screen

        def on_tab(label: str) -> Callable[[], None]:
            return lambda: setattr(clock(), "tab", label)

        def stopwatch_running() -> None:
            clock().tab = "Stopwatch"
            if not self.stopwatch.running:
                self.stopwatch.toggle()

        return {**{f"{label} tab": on_tab(label) for label, _glyph in TABS},
                "an alarm opened": lambda: setattr(clock(), "expanded", 0),
                "new alarm": lambda: clock().open_dialog(TimePickerDialog(clock())),
                "an alarm just set (its toast)": lambda: self.add_alarm(8, 0, "Walk"),
                "stopwatch running": stopwatch_running}

    def add_alarm(self, hour: int, minute: int, label: str = "") -> None:
        self.alarms.append({"hour": hour, "minute": minute, "label": label, "enabled": True})
        self.alarms.sort(key=lambda a: (a["hour"], a["minute"]))
        now = self.phone.now()
        delta = ((hour * 60 + minute) - (now.hour * 60 + now.minute) - 1) % (24 * 60) + 1
        self.phone.toast(f"Alarm set for {delta // 60} hours and {delta % 60} minutes from now.")

    def toggle_alarm(self, index: int) -> None:
        self.alarms[index]["enabled"] = not self.alarms[index]["enabled"]

    def delete_alarm(self, index: int) -> None:
        del self.alarms[index]

    def state(self) -> dict:
        return {"alarms": [dict(a) for a in self.alarms], "stopwatch_running": self.stopwatch.running}
