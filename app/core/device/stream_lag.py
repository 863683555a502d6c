"""How far behind the phone a scrcpy stream's pictures run (read from each packet's pts)."""

from __future__ import annotations

import collections


class StreamLag:
    """How much later than usual the stream's pictures arrive.

    A media packet carries the phone's capture time (pts, µs since the stream began); the least
    `received - pts` seen so far is the stream's own delay, and a picture that took longer ran behind
    by the difference (a busy phone, encoder, link or decoder). While pictures run behind, a change on
    the phone shows up that much later: readers that take "no new picture" for "no change" wait for
    `seconds` more (at most MAX_SECONDS)."""

    MAX_SECONDS = 1.0
    KEPT = 8                                     # the last pictures whose delay counts

    def __init__(self) -> None:
        self._least_offset: float | None = None
        self._recent: collections.deque[float] = collections.deque(maxlen=self.KEPT)

    def observe(self, pts_us: int, received: float) -> None:
        offset = received - pts_us / 1_000_000
        if self._least_offset is None or offset < self._least_offset:
            self._least_offset = offset
        self._recent.append(offset - self._least_offset)

    @property
    def seconds(self) -> float:
        return min(self.MAX_SECONDS, max(self._recent, default=0.0))
