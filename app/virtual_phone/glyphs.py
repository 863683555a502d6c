"""Material-like icons drawn with Pillow primitives on a 24-unit grid (like Material icons).

Each glyph is a function (draw, point-mapper, unit) that paints white (255) on an 'L' image;
`sprites.glyph_mask` rasterises it once at 4× and caches the downsampled mask.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from PIL import ImageDraw

Glyph = Callable[[ImageDraw.ImageDraw, Callable[[float, float], tuple[float, float]], float], None]
GLYPHS: dict[str, Glyph] = {}


def glyph(name: str):
    def register(fn: Glyph) -> Glyph:
        GLYPHS[name] = fn
        return fn
    return register


def _line(d, p, u, pts, w):
    xy = [p(*pt) for pt in pts]
    d.line(xy, fill=255, width=max(1, int(w * u)), joint="curve")
    r = w * u / 2
    for x, y in (xy[0], xy[-1]):
        d.ellipse((x - r, y - r, x + r, y + r), fill=255)


def _poly(d, p, pts, fill=255):
    d.polygon([p(*pt) for pt in pts], fill=fill)


def _circle(d, p, u, cx, cy, r, width=0.0, fill=255):
    x, y = p(cx, cy)
    box = (x - r * u, y - r * u, x + r * u, y + r * u)
    if width:
        d.ellipse(box, outline=fill, width=max(1, int(width * u)))
    else:
        d.ellipse(box, fill=fill)


@glyph("arrow_back")
def _g_back(d, p, u):
    _line(d, p, u, [(20, 12), (5, 12)], 2.2)
    _line(d, p, u, [(11.5, 5.5), (5, 12), (11.5, 18.5)], 2.2)


@glyph("search")
def _g_search(d, p, u):
    _circle(d, p, u, 10, 10, 6.2, width=2.2)
    _line(d, p, u, [(14.6, 14.6), (20, 20)], 2.6)


@glyph("more")
def _g_more(d, p, u):
    for y in (5, 12, 19):
        _circle(d, p, u, 12, y, 2)


@glyph("plus")
def _g_plus(d, p, u):
    _line(d, p, u, [(12, 5), (12, 19)], 2.4)
    _line(d, p, u, [(5, 12), (19, 12)], 2.4)


@glyph("send")
def _g_send(d, p, u):
    _poly(d, p, [(3, 20.5), (21.5, 12), (3, 3.5), (3, 10), (15, 12), (3, 14)])


@glyph("delete")
def _g_delete(d, p, u):
    _poly(d, p, [(6, 8), (18, 8), (17, 21), (7, 21)])
    _poly(d, p, [(4, 5), (20, 5), (20, 7), (4, 7)])
    _poly(d, p, [(9, 3), (15, 3), (15, 5), (9, 5)])
    for x in (10, 14):
        _poly(d, p, [(x - 0.6, 10.5), (x + 0.6, 10.5), (x + 0.6, 18.5), (x - 0.6, 18.5)], fill=0)


@glyph("check")
def _g_check(d, p, u):
    _line(d, p, u, [(4.5, 12.5), (9.5, 17.5), (19.5, 6.5)], 2.6)


@glyph("close")
def _g_close(d, p, u):
    _line(d, p, u, [(6, 6), (18, 18)], 2.2)
    _line(d, p, u, [(18, 6), (6, 18)], 2.2)


@glyph("wifi")
def _g_wifi(d, p, u):
    x, y = p(12, 21)
    r = 18 * u
    d.pieslice((x - r, y - r, x + r, y + r), 225, 315, fill=255)


@glyph("wifi_off")
def _g_wifi_off(d, p, u):
    x, y = p(12, 21)
    r = 18 * u
    d.pieslice((x - r, y - r, x + r, y + r), 225, 315, outline=255, width=max(1, int(1.6 * u)))
    _line(d, p, u, [(4, 4), (20, 20)], 1.8)


@glyph("bluetooth")
def _g_bluetooth(d, p, u):
    _line(d, p, u, [(6.5, 7), (17, 16.5), (12, 21.5), (12, 2.5), (17, 7.5), (6.5, 17)], 1.9)


@glyph("airplane")
def _g_airplane(d, p, u):
    _line(d, p, u, [(12, 3), (12, 19)], 3)
    _poly(d, p, [(12, 8.5), (22, 14.5), (22, 16.5), (12, 13.5), (2, 16.5), (2, 14.5)])
    _poly(d, p, [(12, 17.5), (16, 20.5), (16, 22), (12, 20.8), (8, 22), (8, 20.5)])


@glyph("signal")
def _g_signal(d, p, u):
    _poly(d, p, [(22, 2), (22, 22), (2, 22)])


@glyph("battery")
def _g_battery(d, p, u):
    _poly(d, p, [(7, 4), (17, 4), (17, 22), (7, 22)])
    _poly(d, p, [(10, 2), (14, 2), (14, 4), (10, 4)])


@glyph("nav_back")
def _g_nav_back(d, p, u):
    d.polygon([p(17.5, 4.5), p(17.5, 19.5), p(5, 12)], outline=255, width=max(1, int(2 * u)))


@glyph("nav_home")
def _g_nav_home(d, p, u):
    _circle(d, p, u, 12, 12, 8, width=2)


@glyph("nav_recents")
def _g_nav_recents(d, p, u):
    x0, y0 = p(5.5, 5.5)
    x1, y1 = p(18.5, 18.5)
    d.rounded_rectangle((x0, y0, x1, y1), radius=1.5 * u, outline=255, width=max(1, int(2 * u)))


@glyph("chevron_down")
def _g_chevron_down(d, p, u):
    _line(d, p, u, [(5, 9), (12, 16), (19, 9)], 2.2)


@glyph("chevron_right")
def _g_chevron_right(d, p, u):
    _line(d, p, u, [(9, 5), (16, 12), (9, 19)], 2.2)


@glyph("shift")
def _g_shift(d, p, u):
    d.polygon([p(12, 3), p(21, 12.5), p(16, 12.5), p(16, 20), p(8, 20), p(8, 12.5), p(3, 12.5)],
              outline=255, width=max(1, int(1.8 * u)))


@glyph("shift_on")
def _g_shift_on(d, p, u):
    _poly(d, p, [(12, 3), (21, 12.5), (16, 12.5), (16, 20), (8, 20), (8, 12.5), (3, 12.5)])


@glyph("backspace")
def _g_backspace(d, p, u):
    d.polygon([p(8, 5), p(22, 5), p(22, 19), p(8, 19), p(2, 12)], outline=255, width=max(1, int(1.8 * u)))
    _line(d, p, u, [(12, 9), (18, 15)], 1.8)
    _line(d, p, u, [(18, 9), (12, 15)], 1.8)


@glyph("space")
def _g_space(d, p, u):
    _line(d, p, u, [(4, 11), (4, 16), (20, 16), (20, 11)], 2)


@glyph("enter")
def _g_enter(d, p, u):
    _line(d, p, u, [(19, 5), (19, 13), (6, 13)], 2.2)
    _line(d, p, u, [(10, 9), (6, 13), (10, 17)], 2.2)


@glyph("phone")
def _g_phone(d, p, u):
    _poly(d, p, [(6.5, 2.5), (10, 2.5), (11, 8), (8.5, 10), (14, 15.5), (16, 13), (21.5, 14),
                 (21.5, 17.5), (18.5, 21.5), (13, 20), (4, 11), (2.5, 6)])


@glyph("message")
def _g_message(d, p, u):
    x0, y0 = p(3, 3)
    x1, y1 = p(21, 17)
    d.rounded_rectangle((x0, y0, x1, y1), radius=2.5 * u, fill=255)
    _poly(d, p, [(5, 16), (5, 21.5), (11, 16)])


@glyph("email")
def _g_email(d, p, u):
    x0, y0 = p(3, 5)
    x1, y1 = p(21, 19)
    d.rounded_rectangle((x0, y0, x1, y1), radius=1.5 * u, outline=255, width=max(1, int(2 * u)))
    _line(d, p, u, [(4, 6.5), (12, 12.5), (20, 6.5)], 2)


@glyph("video")
def _g_video(d, p, u):
    x0, y0 = p(2.5, 6.5)
    x1, y1 = p(15.5, 17.5)
    d.rounded_rectangle((x0, y0, x1, y1), radius=2 * u, fill=255)
    _poly(d, p, [(15, 12), (21.5, 7.5), (21.5, 16.5)])


@glyph("alarm")
def _g_alarm(d, p, u):
    _circle(d, p, u, 12, 13, 7.8, width=2)
    _line(d, p, u, [(12, 9), (12, 13.5), (15, 15.5)], 2)
    _line(d, p, u, [(3, 6), (6.5, 2.8)], 2)
    _line(d, p, u, [(21, 6), (17.5, 2.8)], 2)


@glyph("clock")
def _g_clock(d, p, u):
    _circle(d, p, u, 12, 12, 9, width=2)
    _line(d, p, u, [(12, 6.5), (12, 12), (16, 14.5)], 2)


@glyph("timer")
def _g_timer(d, p, u):
    _line(d, p, u, [(6, 3), (18, 3)], 2)
    _line(d, p, u, [(6, 21), (18, 21)], 2)
    _line(d, p, u, [(7.5, 3.5), (16.5, 20.5)], 1.8)
    _line(d, p, u, [(16.5, 3.5), (7.5, 20.5)], 1.8)
    _poly(d, p, [(9.2, 18.5), (14.8, 18.5), (12, 13.5)])


@glyph("stopwatch")
def _g_stopwatch(d, p, u):
    _circle(d, p, u, 12, 14, 7.5, width=2)
    _line(d, p, u, [(9.5, 2.5), (14.5, 2.5)], 2)
    _line(d, p, u, [(12, 14), (12, 9.5)], 2)
    _line(d, p, u, [(18.5, 6), (19.8, 4.8)], 2)


@glyph("gear")
def _g_gear(d, p, u):
    for i in range(8):
        a = i * math.pi / 4
        pts = []
        for da, r in ((-0.22, 7.0), (-0.17, 10.5), (0.17, 10.5), (0.22, 7.0)):
            pts.append((12 + r * math.cos(a + da), 12 + r * math.sin(a + da)))
        _poly(d, p, pts)
    _circle(d, p, u, 12, 12, 7.6)
    _circle(d, p, u, 12, 12, 3.2, fill=0)


@glyph("person")
def _g_person(d, p, u):
    _circle(d, p, u, 12, 8, 4.2)
    x0, y0 = p(4, 14)
    x1, y1 = p(20, 30)
    d.chord((x0, y0, x1, y1), 180, 360, fill=255)


@glyph("sun")
def _g_sun(d, p, u):
    _circle(d, p, u, 12, 12, 4.5)
    for i in range(8):
        a = i * math.pi / 4
        _line(d, p, u, [(12 + 7 * math.cos(a), 12 + 7 * math.sin(a)), (12 + 9.5 * math.cos(a), 12 + 9.5 * math.sin(a))],
              1.8)


@glyph("apps")
def _g_apps(d, p, u):
    for x in (5, 12, 19):
        for y in (5, 12, 19):
            _circle(d, p, u, x, y, 2.1)


@glyph("bell")
def _g_bell(d, p, u):
    _poly(d, p, [(12, 3.5), (16.5, 6), (17.5, 10), (17.5, 15), (20, 17.5), (4, 17.5), (6.5, 15), (6.5, 10), (7.5, 6)])
    _circle(d, p, u, 12, 19.5, 2)


@glyph("storage")
def _g_storage(d, p, u):
    for y in (5, 12, 19):
        _line(d, p, u, [(4, y), (20, y)], 3)


@glyph("volume")
def _g_volume(d, p, u):
    _poly(d, p, [(3, 9), (7, 9), (12, 4), (12, 20), (7, 15), (3, 15)])
    x, y = p(12, 12)
    for r in (4.5, 8):
        d.arc((x - r * u, y - r * u, x + r * u, y + r * u), -50, 50, fill=255, width=max(1, int(1.8 * u)))


@glyph("info")
def _g_info(d, p, u):
    _circle(d, p, u, 12, 12, 9, width=2)
    _line(d, p, u, [(12, 11), (12, 17)], 2.2)
    _circle(d, p, u, 12, 7.5, 1.3)


@glyph("lock")
def _g_lock(d, p, u):
    _poly(d, p, [(5, 10), (19, 10), (19, 21), (5, 21)])
    x0, y0 = p(8, 3.5)
    x1, y1 = p(16, 14)
    d.arc((x0, y0, x1, y1), 180, 360, fill=255, width=max(1, int(2 * u)))
    _line(d, p, u, [(8, 8.5), (8, 10)], 2)
    _line(d, p, u, [(16, 8.5), (16, 10)], 2)


@glyph("location")
def _g_location(d, p, u):
    _circle(d, p, u, 12, 9.5, 6.5)
    _poly(d, p, [(6.6, 12.5), (17.4, 12.5), (12, 21.5)])
    _circle(d, p, u, 12, 9.5, 2.3, fill=0)


@glyph("note")
def _g_note(d, p, u):
    x0, y0 = p(5, 3)
    x1, y1 = p(19, 21)
    d.rounded_rectangle((x0, y0, x1, y1), radius=2 * u, outline=255, width=max(1, int(2 * u)))
    for y in (8, 12, 16):
        _line(d, p, u, [(8.5, y), (15.5 if y < 16 else 12.5, y)], 1.8)


@glyph("edit")
def _g_edit(d, p, u):
    _poly(d, p, [(3, 21), (4, 16.5), (16, 4.5), (19.5, 8), (7.5, 20)])


@glyph("calculator")
def _g_calculator(d, p, u):
    x0, y0 = p(5, 2.5)
    x1, y1 = p(19, 21.5)
    d.rounded_rectangle((x0, y0, x1, y1), radius=2 * u, outline=255, width=max(1, int(2 * u)))
    _poly(d, p, [(8, 5.5), (16, 5.5), (16, 9), (8, 9)])
    for x in (9, 12, 15):
        for y in (12.5, 15.5, 18.5):
            _circle(d, p, u, x, y, 1.1)


@glyph("dialpad")
def _g_dialpad(d, p, u):
    for x in (6, 12, 18):
        for y in (4, 10, 16):
            _circle(d, p, u, x, y, 2.1)
    _circle(d, p, u, 12, 21.5, 2.1)


@glyph("call_end")
def _g_call_end(d, p, u):
    x0, y0 = p(2, 8)
    x1, y1 = p(22, 26)
    d.chord((x0, y0, x1, y1), 200, 340, fill=255)
    _poly(d, p, [(2.5, 12), (7, 10.5), (7.5, 14.5), (3, 15)])
    _poly(d, p, [(21.5, 12), (17, 10.5), (16.5, 14.5), (21, 15)])


@glyph("dark")
def _g_dark(d, p, u):
    _circle(d, p, u, 12, 12, 8.5)
    _circle(d, p, u, 15.5, 9, 7, fill=0)


@glyph("mic")
def _g_mic(d, p, u):
    x0, y0 = p(9, 2.5)
    x1, y1 = p(15, 14.5)
    d.rounded_rectangle((x0, y0, x1, y1), radius=3 * u, fill=255)
    x0, y0 = p(5.5, 5)
    x1, y1 = p(18.5, 18)
    d.arc((x0, y0, x1, y1), 0, 180, fill=255, width=max(1, int(1.8 * u)))
    _line(d, p, u, [(12, 18), (12, 21.5)], 1.8)
