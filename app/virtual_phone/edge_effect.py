"""The stretch a list shows when a fling reaches its end (Android 12's EdgeEffect, TYPE_STRETCH).

The fling's speed at the end is absorbed by a spring (`EdgeEffect.onAbsorb`: the speed × 13, natural frequency
24.657 rad/s, damping ratio 0.98, from 0): the pulled distance rises for about 40 ms and falls back for about
a quarter of a second. The content is drawn stretched away from that end by 1.6% of the distance's share of the
list, plus up to 1.6% more as it grows (`LINEAR_STRETCH_INTENSITY`, `EXP_STRETCH_INTENSITY`). It is drawing
only: the views keep their bounds (a dump during the stretch lists them where they are), and it sends no
accessibility event. Each frame of it is a new picture for the screen stream, so whoever waits for the screen
to stand still after a fling waits it out too.
"""

from __future__ import annotations

import math

from PIL import Image

from .views import Rect

NATURAL_FREQUENCY = 24.657
DAMPING_RATIO = 0.98
ON_ABSORB_VELOCITY_ADJUSTMENT = 13.0
LINEAR_STRETCH_INTENSITY = 0.016
EXP_STRETCH_INTENSITY = 0.016
SCROLL_DIST_AFFECTED_BY_EXP_STRETCH = 0.33
_DAMPED_FREQUENCY = NATURAL_FREQUENCY * math.sqrt(1 - DAMPING_RATIO ** 2)
_DECAY = DAMPING_RATIO * NATURAL_FREQUENCY
LONGEST_SECONDS = math.pi / _DAMPED_FREQUENCY
"""The spring's distance is back to 0 by then (0.64 s); in practice under a pixel of stretch well before."""


class EdgeStretch:
    """A list's stretch after a fling hit one of its ends at `velocity` px/s (positive: toward its end below or
    to the right), from `start` (monotonic seconds), `scale` the phone's time scale."""

    def __init__(self, rect: Rect, velocity: float, start: float, *, vertical: bool = True,
                 scale: float = 1.0) -> None:
        self.rect, self.start, self.vertical = rect, start, vertical
        self.scale = max(scale, 1e-6)
        self.speed = abs(velocity) * ON_ABSORB_VELOCITY_ADJUSTMENT
        self.at_far_end = velocity > 0
        self.done = self.speed <= 0 or self._length() <= 0

    def _length(self) -> int:
        left, top, right, bottom = self.rect
        return (bottom - top) if self.vertical else (right - left)

    def distance(self, now: float) -> float:
        """The spring's pulled distance in pixels at `now` (0 before the start and once it has come back)."""
        t = (now - self.start) / self.scale
        if t <= 0 or t >= LONGEST_SECONDS:
            return 0.0
        return math.exp(-_DECAY * t) * self.speed / _DAMPED_FREQUENCY * math.sin(_DAMPED_FREQUENCY * t)

    def stretch(self, now: float) -> float:
        """How much longer the content is drawn at `now` (0.01: 1% longer), as EdgeEffect's stretch shader."""
        share = self.distance(now) / self._length()
        return (LINEAR_STRETCH_INTENSITY * share
                + EXP_STRETCH_INTENSITY * (1 - math.exp(-share * math.e / SCROLL_DIST_AFFECTED_BY_EXP_STRETCH)))

    def stretched_pixels(self, now: float) -> int:
        return round(self._length() * self.stretch(now))

    def advance(self, now: float) -> bool:
        """Whether the stretch still shows at `now` (False once it has come back: then it is done)."""
        if self.done:
            return False
        peaked = (now - self.start) / self.scale > math.atan(_DAMPED_FREQUENCY / _DECAY) / _DAMPED_FREQUENCY
        if peaked and self.stretched_pixels(now) < 1:
            self.done = True
        return not self.done

    def draw(self, picture: Image.Image, now: float) -> Image.Image:
        """`picture` with the list's area stretched away from the end the fling hit (a copy; `picture` is kept)."""
        extra = self.stretched_pixels(now)
        if self.done or extra < 1:
            return picture
        left, top, right, bottom = self.rect
        area = picture.crop(self.rect)
        width, height = area.size
        if self.vertical:
            longer = area.resize((width, height + extra), Image.Resampling.BILINEAR)
            box = (0, extra, width, height + extra) if self.at_far_end else (0, 0, width, height)
        else:
            longer = area.resize((width + extra, height), Image.Resampling.BILINEAR)
            box = (extra, 0, width + extra, height) if self.at_far_end else (0, 0, width, height)
        drawn = picture.copy()
        drawn.paste(longer.crop(box), (left, top))
        return drawn
