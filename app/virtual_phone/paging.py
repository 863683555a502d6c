"""The home screen's pages, as Launcher3's PagedView moves them.

While the finger drags, the pages follow it (they stop at the first and the last page). On release the
workspace goes to a page, never stays between two: to the next page in the finger's direction when the
release is a fling (faster than 500 dp/s) or the drag went past 40 % of a page; back to the page it started
from when a fling goes against a drag of more than a third of a page; else to the page nearest the middle of
the screen. The snap takes 750 ms after a slow release; after a fling it takes about four times as long as
the finger would need to cover half a page (at least 1,500 dp/s), so a faster fling lands sooner. It moves
with Launcher3's scroll curve (1 − (1 − t)⁵). A new touch stops a snap where it is; the workspace snaps again
when that finger comes up. Home, pressed on the home screen, goes back to the first page.

Figures: Launcher3 `PagedView` (FLING_THRESHOLD_VELOCITY 500, MIN_FLING_VELOCITY 250, MIN_SNAP_VELOCITY 1500
dp/s, PAGE_SNAP_ANIMATION_DURATION 750 ms, SIGNIFICANT_MOVE_THRESHOLD 0.4, RETURN_TO_ORIGINAL_PAGE_THRESHOLD
0.33, snapToPageWithVelocity's duration) and `Interpolators.SCROLL`."""

from __future__ import annotations

import math
from dataclasses import dataclass

PAGE_SNAP_SECONDS = 0.75
FLING_THRESHOLD_DP_S = 500
MIN_FLING_DP_S = 250
MIN_SNAP_DP_S = 1500
SIGNIFICANT_MOVE = 0.4
RETURN_TO_ORIGINAL_PAGE = 0.33


def scroll_curve(share: float) -> float:
    """Launcher3's Interpolators.SCROLL: how far along a snap is at `share` of its time."""
    return 1 - (1 - share) ** 5


def snap_seconds(distance: float, page_width: int, velocity: float, per_dp: float) -> float:
    """How long a snap of `distance` px takes after a release at `velocity` px/s (snapToPageWithVelocity)."""
    if abs(velocity) < MIN_FLING_DP_S * per_dp:
        return PAGE_SNAP_SECONDS
    half = page_width / 2
    ratio = min(1.0, abs(distance) / page_width)
    moderated = half + half * math.sin((ratio - 0.5) * 0.3 * math.pi / 2)
    speed = max(MIN_SNAP_DP_S * per_dp, abs(velocity))
    return 4 * round(1000 * moderated / speed) / 1000


@dataclass
class Pages:
    """Where the workspace's pages are: `offset` px scrolled from the first page (a page is `width` px)."""

    count: int = 1
    width: int = 1
    offset: int = 0
    current: int = 0
    heading_to: int | None = None       # the page a snap in progress goes to (the indicator shows it already)

    @property
    def shown(self) -> int:
        """The page the page indicator marks."""
        return self.current if self.heading_to is None else self.heading_to

    @property
    def end(self) -> int:
        return (self.count - 1) * self.width

    def __call__(self, pixels: int) -> int:
        """The finger moved the pages by `pixels` (positive: towards later pages); returns how far they moved."""
        before = self.offset
        self.offset = max(0, min(self.end, self.offset + pixels))
        return self.offset - before

    def nearest(self) -> int:
        return max(0, min(self.count - 1, round(self.offset / max(1, self.width))))

    def release(self, finger_dx: int, finger_velocity: float, at: float, per_dp: float,
                scale: float = 1.0) -> PageSnap:
        """The finger came up `finger_dx` px from where it went down, moving at `finger_velocity` px/s (both
        positive to the right): the snap to the page the workspace goes to (PagedView's ACTION_UP)."""
        significant = abs(finger_dx) > self.width * SIGNIFICANT_MOVE
        fling = abs(finger_velocity) > FLING_THRESHOLD_DP_S * per_dp
        back_again = (fling and abs(finger_dx) > self.width * RETURN_TO_ORIGINAL_PAGE
                      and (finger_velocity > 0) != (finger_dx > 0))
        to_earlier = (significant and finger_dx > 0 and not fling) or (fling and finger_velocity > 0)
        to_later = (significant and finger_dx < 0 and not fling) or (fling and finger_velocity < 0)
        if to_earlier and self.current > 0:
            page = self.current if back_again else self.current - 1
        elif to_later and self.current < self.count - 1:
            page = self.current if back_again else self.current + 1
        else:
            return self.snap_to(self.nearest(), at, scale)
        distance = page * self.width - self.offset
        return self._snap(page, at, snap_seconds(distance, self.width, finger_velocity, per_dp) * scale)

    def snap_to(self, page: int, at: float, scale: float = 1.0) -> PageSnap:
        """A snap to `page` in Launcher3's own time (750 ms), times the phone's latency `scale`."""
        return self._snap(page, at, PAGE_SNAP_SECONDS * scale)

    def _snap(self, page: int, at: float, seconds: float) -> PageSnap:
        page = max(0, min(self.count - 1, page))
        self.heading_to = page
        return PageSnap(self, page, self.offset, at, seconds)


class PageSnap:
    """The workspace moving to a page by itself after the finger left; `advance(now)` brings it to `now`.
    It moves as a fling does for the phone's gestures (`advance`, `done`, `end_velocity`)."""

    end_velocity = 0.0                  # it never runs into an end: no edge effect

    def __init__(self, pages: Pages, page: int, start_offset: int, start: float, seconds: float) -> None:
        self.pages, self.page = pages, page
        self.start_offset, self.start, self.seconds = start_offset, start, seconds
        self.done = False

    def advance(self, now: float) -> bool:
        """Move the pages to where the snap has them at `now`; True when they moved."""
        if self.done:
            return False
        share = 1.0 if self.seconds <= 0 else min(1.0, max(0.0, (now - self.start) / self.seconds))
        target = self.page * self.pages.width
        before = self.pages.offset
        self.pages.offset = round(self.start_offset + (target - self.start_offset) * scroll_curve(share))
        if share >= 1.0:
            self.done = True
            self.pages.offset, self.pages.current, self.pages.heading_to = target, self.page, None
        return self.pages.offset != before

    def stop(self) -> None:
        """A finger caught the pages: they stay where they are until it comes up."""
        self.done = True
