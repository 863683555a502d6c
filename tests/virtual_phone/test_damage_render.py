"""Render only what changed (app/virtual_phone/damage.py): a picture made by repainting the changed part of the
last one is, pixel for pixel, the picture a whole render gives. Checked on a random walk through the phone's
apps, on a running stopwatch, and on made-up screens with what needs a whole render (a shadow crossing the
damaged box, a dialog's dim layer) and what does not (a clipping list whose rows move)."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import pytest
from PIL import Image, ImageChops

from app.virtual_phone import render
from app.virtual_phone.apps.clock import ClockApp
from app.virtual_phone.damage import DamageRenderer
from app.virtual_phone.phone import VirtualPhone
from app.virtual_phone.views import FRAME, TEXT, VIEWGROUP, View, Window

from .conftest import bounds, parse

CLOCK = "com.android.deskclock"
SIZE = (400, 600)


def differs(a: Image.Image, b: Image.Image) -> tuple[int, int, int, int] | None:
    return ImageChops.difference(a.convert("RGB"), b.convert("RGB")).getbbox()


def checked_picture(phone: VirtualPhone) -> tuple[Image.Image, Image.Image] | None:
    """(the phone's picture, the same screen rendered whole), or None when the screen changed in between."""
    shown = phone.screenshot()
    whole = phone.whole_picture()
    return (shown, whole) if phone.screenshot() is shown else None     # the same object: the same screen


class StoppedClock:
    """The phone's wall clock, moved only by the test (a status bar minute that ticks on its own would make the
    two pictures of one check differ)."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 10, 8, 15)

    def __call__(self) -> datetime:
        return self.now


@pytest.mark.parametrize("seed", [1, 2])
def test_a_random_walk_through_the_apps_gets_the_whole_pictures_pixels(seed):
    clock = StoppedClock()
    phone = VirtualPhone(clock=clock)
    rng = random.Random(seed)
    compared = 0
    for step in range(120):
        roll = rng.random()
        if roll < 0.06:
            phone.press_back()
        elif roll < 0.09:
            phone.go_home()
        elif roll < 0.15:
            phone.input_text("ab1")
        elif roll < 0.2:
            phone.swipe(540, 1700, 540, 900, 200)
        elif roll < 0.23:
            clock.now += timedelta(minutes=1)              # the status bar's clock, the home screen's date
            phone.changed()
        else:
            nodes = [n for n in parse(phone.dump_all_windows()).iter("node") if n.get("clickable") == "true"]
            left, top, right, bottom = bounds(rng.choice(nodes))
            phone.tap((left + right) // 2, (top + bottom) // 2)
        pair = checked_picture(phone)
        if pair is not None:
            compared += 1
            assert differs(*pair) is None, f"seed {seed}, step {step}: repainted wrong at {differs(*pair)}"
    assert compared >= 100
    assert phone._damage is not None and phone._damage.partial >= 20, "it repainted only what changed, often"


def test_a_running_stopwatch_repaints_only_its_digits():
    phone = VirtualPhone(clock=StoppedClock())
    phone.launch(CLOCK)
    clock = phone.apps[CLOCK]
    assert isinstance(clock, ClockApp)
    clock.pages()["stopwatch running"]()
    phone.changed()
    phone.screenshot()
    renderer = phone._damage
    assert renderer is not None
    partial = renderer.partial
    shown_time = [12.34]
    clock.stopwatch.elapsed = lambda: shown_time[0]     # type: ignore[method-assign]  # ticks when the test says
    for tick in range(12):
        shown_time[0] += 0.01 * (1 + tick % 3)
        pair = checked_picture(phone)
        assert pair is not None
        assert differs(*pair) is None
        box = renderer.last_box
        assert box is not None and box != (0, 0, 0, 0)
        width, height = phone.display_size()
        assert (box[2] - box[0]) * (box[3] - box[1]) < 0.15 * width * height, f"repainted {box}"
    assert renderer.partial - partial == 12


def screen(label: str, *, shadow_top: int | None = None, rows_from: int = 0, dialog: bool = False) -> list[Window]:
    """A made-up screen: a label, a clipping list of rows (scrolled by `rows_from` px), and a card with a
    shadow at `shadow_top` when asked."""
    root = View(FRAME, (0, 0) + SIZE, bg=(250, 250, 250))
    root.add(View(TEXT, (20, 20, 380, 60), text=label, kind="text", size=24, color=(20, 20, 20)))
    rows = View(VIEWGROUP, (0, 300, 400, 420), clip=True)
    for i in range(6):
        top = 300 + i * 30 - rows_from
        rows.add(View(TEXT, (0, top, 400, top + 30), text=f"Row {i}", kind="text", size=20, color=(40, 40, 40),
                      bg=(230, 235, 250) if i % 2 else (255, 255, 255)))
    root.add(rows)
    if shadow_top is not None:
        root.add(View(FRAME, (40, shadow_top, 360, shadow_top + 120), bg=(255, 255, 255), radius=16, shadow=True))
    windows = [Window(root, "test", "app")]
    if dialog:
        windows.append(Window(View(FRAME, (50, 200, 350, 400), bg=(255, 255, 255), radius=12), "test", "dialog"))
    return windows


def test_made_up_screens_repaint_exactly_or_whole():
    renderer = DamageRenderer()
    renderer.render(screen("One"), SIZE, None)
    assert renderer.whole == 1

    shown = renderer.render(screen("Two"), SIZE, None)
    assert renderer.last_box is not None and renderer.last_box[3] < 120, "the label's box only"
    assert differs(shown, render.render(screen("Two"), SIZE, None)) is None

    shown = renderer.render(screen("Two", rows_from=20), SIZE, None)      # rows move inside their clip
    assert renderer.partial == 2
    assert differs(shown, render.render(screen("Two", rows_from=20), SIZE, None)) is None

    renderer.render(screen("Two", rows_from=20, shadow_top=60), SIZE, None)     # a card appears: it has a shadow
    whole_before = renderer.whole
    shown = renderer.render(screen("Three", rows_from=20, shadow_top=60), SIZE, None)
    assert renderer.whole == whole_before + 1, "the label's box crosses the card's shadow: a whole render"
    assert differs(shown, render.render(screen("Three", rows_from=20, shadow_top=60), SIZE, None)) is None

    renderer.render(screen("Three", dialog=True), SIZE, None)
    whole_before = renderer.whole
    shown = renderer.render(screen("Four", dialog=True), SIZE, None)
    assert renderer.whole == whole_before + 1, "a dialog dims all under it: a whole render"
    assert differs(shown, render.render(screen("Four", dialog=True), SIZE, None)) is None

    same = renderer.render(screen("Four", dialog=True), SIZE, None)
    assert same is not shown and differs(same, shown) is None, "nothing changed: a copy of the last picture"


def test_the_bench_baseline_phone_renders_whole_pictures():
    phone = VirtualPhone()
    phone.repaint_only_changes = False
    phone.launch(CLOCK)
    phone.screenshot()
    phone.changed()
    phone.screenshot()
    assert phone._damage is not None and phone._damage.partial == 0 and phone._damage.whole == 2


def cramped(label: str) -> list[Window]:
    """A label in a box shorter than its line: its glyphs spill above and below the box, as render.py draws."""
    root = View(FRAME, (0, 0) + SIZE, bg=(250, 250, 250))
    root.add(View(TEXT, (20, 100, 380, 108), text=label, kind="text", size=28, color=(20, 20, 20)))
    return [Window(root, "test", "app")]


def test_what_a_view_draws_past_its_bounds_is_repainted_too():
    renderer = DamageRenderer()
    renderer.render(cramped("Hg"), SIZE, None)
    shown = renderer.render(cramped("Wy"), SIZE, None)
    assert renderer.partial == 1
    assert differs(shown, render.render(cramped("Wy"), SIZE, None)) is None
    assert differs(render.render(cramped("Hg"), SIZE, None), render.render(cramped("Wy"), SIZE, None))[1] < 100, \
        "the glyphs do reach past the box's top"
