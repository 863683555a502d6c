"""The mirror's state in a person's words: where its pictures come from and how many it shows a second.

`ShownFrames` counts the frames the mirror actually painted (a frame replaced before it was painted is
not counted) over the last second; `mirror_state_words` turns that and the frame source into the words
above the mirror: "Live · 60 fps", "Live · screen still", "Screenshots · 2 fps", "Screenshots · still", "Connecting…".
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

WINDOW_S = 1.0
"""Frames painted within this many seconds make the readout."""
STILL_WORDS = "screen still"
SOURCE_WORDS = {"Stream": "Live", "Screenshots": "Screenshots"}
"""The frame source's short name (WindowPhone.frame_source) → what the person reads."""
READOUT_WORDS = ("Connecting…", "Disconnected", "Live · 999 fps", "Live · screen still", "Screenshots · 99 fps",
                 "Screenshots · still")
"""The longest texts the readout shows (its label is sized once for the widest)."""


class ShownFrames:
    """When the mirror painted a new frame, over the last second; `clock` is seconds (monotonic)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self._times: deque[float] = deque()
        self.total = 0

    def shown(self) -> None:
        """A new frame was painted now."""
        now = self.clock()
        self._times.append(now)
        self.total += 1
        self._forget_before(now - WINDOW_S)

    def per_second(self) -> float:
        """Frames painted in the last second."""
        self._forget_before(self.clock() - WINDOW_S)
        return float(len(self._times))

    def _forget_before(self, start: float) -> None:
        while self._times and self._times[0] <= start:
            self._times.popleft()


def mirror_state_words(source: str, fps: float, any_frame: bool, status: str = "") -> str:
    """The readout under the mirror for a frame source ("Stream", "Screenshots" or ""), the frames painted
    in the last second, whether any frame has been shown yet, and the source's status."""
    if status.startswith("disconnected"):
        return "Disconnected"       # the stream starts again by itself; the status bar says why
    if not any_frame:
        return "Connecting…"
    where = SOURCE_WORDS.get(source, "Live")
    if fps >= 1:
        return f"{where} · {fps:.0f} fps"
    return f"{where} · {STILL_WORDS if where == 'Live' else 'still'}"


def mirror_state_tip(source: str, status: str) -> str:
    """The readout's tooltip: what the words mean, and the frame source's whole status."""
    how = ("the phone streams its screen (H.264, as scrcpy does) and sends a picture only when the screen "
           "changes, so a still screen shows 0 pictures a second" if source != "Screenshots" else
           "the stream could not run, so the mirror polls screenshots (slower)")
    said = f"\nMirror: {status}" if status else ""
    return f"Pictures a second the mirror shows; {how}.{said}"
