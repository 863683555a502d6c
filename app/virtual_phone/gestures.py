"""Touch gestures in time: the content follows the finger, and a release with speed flings on.

A finger goes down, moves and comes up (`touch_down` / `touch_move` / `touch_up`, from scrcpy's control socket or
`input motionevent`). Until it has moved more than the touch slop (8 dp) it is a press: a release is a tap, or a
long press when held 500 ms. Past the slop the view under the finger takes the gesture: a slider's thumb follows
it, a scrollable list scrolls with it, from the point where the slop was crossed (as Android's views scroll). On
release the finger's speed over the last 100 ms (VelocityTracker's horizon) flings the list on when it is above
50 dp/s, at most 8000 dp/s (ViewConfiguration), for the distance and time OverScroller gives that speed; a fling
stops at the list's end, where the list stretches and comes back (edge_effect.py), and a new touch catches it (that
touch does not click).

`swipe(x1, y1, x2, y2, ms)` (what `input swipe` does) is the same gesture made of moves at the display's 60 Hz.
On the quick latency profile every gesture happens at once, its fling included; on the realistic one the finger
moves in time and the fling decelerates in time, each step a new picture for the screen stream (`advance_gestures`
runs whenever the phone is looked at)."""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from PIL import Image

from .edge_effect import EdgeStretch
from .paging import Pages, PageSnap
from .phone_parts import PhoneParts
from .views import Rect, View, contains, hit_test

TOUCH_SLOP_DP = 8
MIN_FLING_DP_S = 50
MAX_FLING_DP_S = 8000
VELOCITY_HORIZON_S = 0.1
LONG_PRESS_S = 0.5              # ViewConfiguration.DEFAULT_LONG_PRESS_TIMEOUT up to Android 11
LONG_PRESS_S_SINCE_12 = 0.4     # and from Android 12 (API 31) on
FRAME_S = 1 / 60
# OverScroller's spline: the fling's remaining distance goes as its remaining time to this power
DECELERATION_RATE = math.log(0.78) / math.log(0.9)
INFLEXION = 0.35
SCROLL_FRICTION = 0.015
GRAVITY_EARTH = 9.80665

Scroll = Callable[[int], int]          # moves the content by a number of pixels; returns how far it moved


def fling_path(velocity: float, density_dpi: int) -> tuple[float, float]:
    """(pixels, seconds) a fling starting at `velocity` px/s travels on a screen of `density_dpi`, as OverScroller
    works them out (its spline deceleration, ViewConfiguration's scroll friction)."""
    physical = GRAVITY_EARTH * 39.37 * density_dpi * 0.84          # OverScroller's mPhysicalCoeff
    speed = abs(velocity)
    if speed <= 0:
        return 0.0, 0.0
    exponent = math.log(INFLEXION * speed / (SCROLL_FRICTION * physical))
    seconds = math.exp(exponent / (DECELERATION_RATE - 1))
    pixels = SCROLL_FRICTION * physical * math.exp(DECELERATION_RATE / (DECELERATION_RATE - 1) * exponent)
    return pixels, seconds


class Fling:
    """Content moving on after a release: `advance(now)` brings it to where it is at `now`. A fling that reaches
    the list's end stops there, with the speed it had (`end_velocity`, px/s) for the list's edge effect."""

    def __init__(self, scroll: Scroll, velocity: float, density_dpi: int, start: float, scale: float = 1.0) -> None:
        self.scroll, self.start = scroll, start
        self.sign = 1 if velocity >= 0 else -1
        self.distance, seconds = fling_path(velocity, density_dpi)
        self.duration = seconds * scale
        self.scale = scale
        self.applied = 0
        self.done = self.distance < 1
        self.end_velocity = 0.0

    def velocity_at(self, now: float) -> float:
        """The content's speed at `now`, px/s in the phone's own time (signed as the fling)."""
        if self.duration <= 0:
            return 0.0
        share = min(1.0, max(0.0, (now - self.start) / self.duration))
        return self.sign * self.distance * DECELERATION_RATE * (1 - share) ** (DECELERATION_RATE - 1) \
            / (self.duration / self.scale)

    def advance(self, now: float) -> bool:
        """Move the content to its place at `now`; True when it moved."""
        if self.done:
            return False
        share = 1.0 if self.duration <= 0 else min(1.0, max(0.0, (now - self.start) / self.duration))
        target = round(self.sign * self.distance * (1 - (1 - share) ** DECELERATION_RATE))
        step = target - self.applied
        moved = self.scroll(step) if step else 0
        self.applied = target
        if step and moved != step:                          # the list's end
            self.done, self.end_velocity = True, self.velocity_at(now)
        elif share >= 1.0:                                  # its whole way
            self.done = True
        return bool(moved)


@dataclass
class Touch:
    """A finger that is down: where and when it went down, its recent positions, what it drags."""

    x: int
    y: int
    since: float
    samples: deque[tuple[float, int, int]] = field(default_factory=deque)
    dragging: bool = False
    caught_fling: bool = False          # it went down on a flinging list: it stops it, and does not click
    caught_pages: Pages | None = None   # it stopped the home screen's pages between two: they snap on its release
    vertical: bool = True
    scroll: Scroll | None = None
    scrolled: Rect | None = None        # the bounds of the list it scrolls
    slider: View | None = None
    last: tuple[int, int] = (0, 0)      # where the content last followed the finger to

    def velocity(self) -> float:
        """The finger's speed along the drag's axis over the last 100 ms, px/s (positive: down / right)."""
        if len(self.samples) < 2:
            return 0.0
        (t0, x0, y0), (t1, x1, y1) = self.samples[0], self.samples[-1]
        if t1 - t0 <= 0:
            return 0.0
        return ((y1 - y0) if self.vertical else (x1 - x0)) / (t1 - t0)


@dataclass
class ScriptedSwipe:
    """`input swipe` on a phone that moves in time: the finger goes from one point to another at a steady pace."""

    start: tuple[int, int]
    end: tuple[int, int]
    began: float
    duration: float

    @property
    def ends_at(self) -> float:
        return self.began + self.duration

    def point_at(self, now: float) -> tuple[int, int]:
        share = 1.0 if self.duration <= 0 else min(1.0, max(0.0, (now - self.began) / self.duration))
        return (round(self.start[0] + (self.end[0] - self.start[0]) * share),
                round(self.start[1] + (self.end[1] - self.start[1]) * share))


class GesturesMixin(PhoneParts):
    """Mixed into VirtualPhone."""

    _touch: Touch | None = None
    _fling: Fling | PageSnap | None = None
    _flung: tuple[Rect | None, bool] = (None, True)     # the bounds and axis of the list the fling moves
    _edge: EdgeStretch | None = None
    _scripted: ScriptedSwipe | None = None

    def note_input(self, what: str) -> None:
        """Note input that came while the screen was not settled (a list still loading, content still flinging,
        pages still snapping): what an agent acting too early does. Tests read `inputs_while_unsettled`; a person
        does it too, so the phone takes the input as usual."""
        fling = self._fling is not None and not self._fling.done
        loading = getattr(self.foreground_app.top, "loading", False) if self.screen_on else False
        if fling or loading:
            why = ("the home screen's pages still moving" if isinstance(self._fling, PageSnap)
                   else "a list still flinging" if fling else "a list still loading")
            self.inputs_while_unsettled.append(f"{what} on {why}")

    @property
    def long_press_seconds(self) -> float:
        """ViewConfiguration.getLongPressTimeout(): Accessibility › Touch & hold delay when set (secure
        long_press_timeout, ms), else the release's default (400 ms since Android 12, 500 ms before)."""
        chosen = self.settings.as_int("secure", "long_press_timeout", 0)
        if chosen > 0:
            return chosen / 1000
        return LONG_PRESS_S_SINCE_12 if self.profile.sdk >= 31 else LONG_PRESS_S

    @property
    def moves_in_time(self) -> bool:
        """Whether gestures take their time (the realistic profile) or happen at once (the quick one)."""
        return self.timing.profile.animation[1] > 0

    # ------------------------------------------------------------------ one finger
    def touch_down(self, x: int, y: int, at: float | None = None) -> None:
        with self.lock:
            self._finish_scripted()
            if self.input_blocked():
                return
            at = time.monotonic() if at is None else at
            self.note_input(f"a touch at ({int(x)}, {int(y)})")
            moving = self._fling if self._fling is not None and not self._fling.done else None
            self._fling = None
            if isinstance(moving, PageSnap):
                moving.stop()
            self._touch = Touch(int(x), int(y), at, deque([(at, int(x), int(y))]), caught_fling=moving is not None,
                                caught_pages=moving.pages if isinstance(moving, PageSnap) else None)

    def touch_move(self, x: int, y: int, at: float | None = None) -> None:
        with self.lock:
            touch = self._touch
            if touch is None:
                return
            x, y, at = int(x), int(y), time.monotonic() if at is None else at
            touch.samples.append((at, x, y))
            while len(touch.samples) > 2 and at - touch.samples[0][0] > VELOCITY_HORIZON_S:
                touch.samples.popleft()
            if not touch.dragging and not self._start_drag(touch, x, y):
                return
            if touch.slider is not None and touch.slider.on_slide is not None:
                touch.slider.on_slide(x)
                self.changed()
            elif touch.scroll is not None:
                lx, ly = touch.last
                moved = touch.scroll(-(y - ly) if touch.vertical else -(x - lx))   # finger up: content scrolls on
                touch.last = (x, y)
                if moved:
                    self.motion.ui_event()
                    self.changed()

    def touch_up(self, x: int, y: int, at: float | None = None) -> None:
        with self.lock:
            at = time.monotonic() if at is None else at
            self.touch_move(x, y, at)
            touch, self._touch = self._touch, None
            if touch is None:
                return
            if touch.dragging:
                self._release_drag(touch, at)
            elif touch.caught_pages is not None:
                pages = touch.caught_pages
                self.move_on(pages.snap_to(pages.nearest(), at, self.timing.profile.scale))
            elif not touch.caught_fling and not self.input_blocked():
                if at - touch.since >= self.long_press_seconds:
                    self.long_press(touch.x, touch.y, int((at - touch.since) * 1000))
                else:
                    self.tap(touch.x, touch.y)

    def touch_cancel(self) -> None:
        with self.lock:
            self._touch = None

    def _start_drag(self, touch: Touch, x: int, y: int) -> bool:
        """Past the touch slop the view under the finger takes the gesture; False while still within it."""
        dx, dy = x - touch.x, y - touch.y
        slop = self.metrics().dp(TOUCH_SLOP_DP)
        if abs(dx) <= slop and abs(dy) <= slop:
            return False
        touch.dragging = True
        touch.vertical = abs(dy) >= abs(dx)
        win = self._window_at(touch.x, touch.y)
        if win is None or not contains(win.bounds, touch.x, touch.y):
            return True
        slider = hit_test(win, touch.x, touch.y, "slide")
        if slider is not None and slider.on_slide is not None and slider.enabled:
            touch.slider = slider
            return True
        view = hit_test(win, touch.x, touch.y, "scroll" if touch.vertical else "hscroll")
        touch.scroll = None if view is None else view.on_scroll if touch.vertical else view.on_hscroll
        touch.scrolled = None if view is None else view.bounds
        # the content starts following where the slop was crossed, as a view's scroll does
        crossed = (touch.x + (slop if dx > 0 else -slop) if not touch.vertical else x,
                   touch.y + (slop if dy > 0 else -slop) if touch.vertical else y)
        touch.last = crossed
        return True

    def _release_drag(self, touch: Touch, at: float) -> None:
        if touch.scroll is None:
            return
        per_dp = self.density / 160
        velocity = max(-MAX_FLING_DP_S * per_dp, min(MAX_FLING_DP_S * per_dp, -touch.velocity()))
        if isinstance(touch.scroll, Pages):               # the home screen's pages snap to one, never stop between
            finger_dx = touch.samples[-1][1] - touch.x
            self.move_on(touch.scroll.release(finger_dx, -velocity, at, per_dp, self.timing.profile.scale))
            return
        if abs(velocity) < MIN_FLING_DP_S * per_dp:
            return
        self.move_on(Fling(touch.scroll, velocity, self.density, at, self.timing.profile.scale),
                     touch.scrolled, touch.vertical)

    def move_on(self, motion: Fling | PageSnap, rect: Rect | None = None, vertical: bool = True) -> None:
        """Content moves on by itself (a fling after the finger left, the home screen's pages snapping): in
        time, or at once on the quick profile. `rect` and `vertical`: the list a fling moves, for its edge."""
        self._fling, self._flung = motion, (rect, vertical)
        if not self.moves_in_time:
            motion.advance(math.inf)
            self.changed()

    # ------------------------------------------------------------------ in time
    def advance_gestures(self) -> None:
        """Bring a scripted swipe and a fling to where they are now (called whenever the phone is looked at)."""
        now = time.monotonic()
        scripted = self._scripted
        if scripted is not None:
            if now >= scripted.ends_at:
                self._finish_scripted()
            else:
                self.touch_move(*scripted.point_at(now), now)
        fling = self._fling
        if fling is not None and fling.advance(now):
            self.motion.ui_event()
            self.changed()
        if fling is not None and fling.done:
            self._fling = None
            rect, vertical = self._flung
            if fling.end_velocity and rect is not None and self.moves_in_time:
                self._edge = EdgeStretch(rect, fling.end_velocity, now, vertical=vertical,
                                         scale=self.timing.profile.scale)
        edge = self._edge
        if edge is not None:
            if not edge.advance(now):
                self._edge = None
            self.changed()                  # each frame of the stretch is a new picture; then the plain one

    def edge_stretched(self, picture: Image.Image) -> Image.Image:
        """The screen's picture with a list's edge effect drawn over it, while one shows."""
        edge = self._edge
        return picture if edge is None else edge.draw(picture, time.monotonic())

    def gesture_ends_at(self) -> float:
        """When the finger of a swipe in progress comes up (monotonic seconds; 0 when none is in progress)."""
        scripted = self._scripted
        return scripted.ends_at if scripted is not None else 0.0

    def settling(self) -> bool:
        """Whether content still moves by itself after a gesture (a fling decelerating, a list's edge stretched)."""
        with self.lock:
            return (self._scripted is not None or (self._fling is not None and not self._fling.done)
                    or self._edge is not None)

    def wait_until_settled(self, timeout: float = 10.0) -> bool:
        """Block until no swipe or fling moves the content any more (for callers in this process that need the
        gesture's end, as `input swipe` waits for its finger); False when it still moved after `timeout` s."""
        deadline = time.monotonic() + timeout
        while self.settling():
            if time.monotonic() >= deadline:
                return False
            time.sleep(FRAME_S)
            with self.lock:
                self.advance_gestures()
        return True

    def _finish_scripted(self) -> None:
        scripted, self._scripted = self._scripted, None
        if scripted is not None:
            self.touch_up(*scripted.end, scripted.ends_at)

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        """`input swipe`: down, moves at 60 Hz for `duration_ms`, up. At once on the quick profile; in time on
        the realistic one (this returns at once; `gesture_ends_at` says when the finger comes up)."""
        with self.lock:
            x1, y1, x2, y2 = int(x1), int(y1), int(x2), int(y2)
            seconds = max(0, duration_ms) / 1000
            now = time.monotonic()
            if self.moves_in_time:
                self.touch_down(x1, y1, now)
                self._scripted = ScriptedSwipe((x1, y1), (x2, y2), now, self.timing.scaled(seconds))
                return
            began = now - seconds
            self.touch_down(x1, y1, began)
            path = ScriptedSwipe((x1, y1), (x2, y2), began, seconds)
            frames = max(1, math.ceil(seconds / FRAME_S))
            for frame in range(1, frames):
                at = began + seconds * frame / frames
                self.touch_move(*path.point_at(at), at)
            self.touch_up(x2, y2, now)
