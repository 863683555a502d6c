"""Screens that keep moving after an action, and the idle wait `uiautomator dump` does.

On a real phone an `input tap` returns before the screen has settled: the next two frames show
the old picture, the next few hundred ms a half-changed one, then the new one, and accessibility events
keep coming meanwhile. `uiautomator dump` waits for one second without events (ten at most)
and fails with "ERROR: could not get idle state." when the screen never settles. In the quick
latency profile none of this happens: changes are instant and the phone is always idle.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from .latency import Timing

if TYPE_CHECKING:
    from PIL import Image

# How long after an action a capture still shows the old picture: the app handles the input on the
# next VSYNC and SurfaceFlinger composes its frame on the one after ("at least two frames", AOSP's
# implement-vsync page; "app plus composition typically takes under 33 ms"). Then the animation shows.
FIRST_NEW_FRAME_SECONDS = 2 / 60


class ScreenMotion:
    def __init__(self, timing: Timing, clock: Callable[[], float] = time.monotonic) -> None:
        self.timing = timing
        self._clock = clock
        self._lock = threading.Lock()
        self._before: Image.Image | None = None
        self._start = self._end = 0.0
        self._last_event = float("-inf")

    def action_changed_screen(self, before: Image.Image | None) -> float:
        """An action changed the screen: it moves from `before` to the new picture for a while.

        Returns how long the screen moves (0 in the quick profile)."""
        duration = self.timing.animation()
        if duration <= 0:
            return 0.0
        now = self._clock()
        with self._lock:
            if now >= self._end:  # a new transition; one already running keeps its start picture
                self._before, self._start = before, now
            self._end = max(self._end, now + duration)
            self._last_event = max(self._last_event, self._end)
        return duration

    def ui_event(self) -> None:
        """Something on screen changed without an action (a toast, a ticking clock)."""
        with self._lock:
            self._last_event = max(self._last_event, self._clock())

    def moving(self) -> bool:
        return self._clock() < self._end

    def picture(self, settled: Image.Image) -> Image.Image:
        """What a capture shows now, given the picture the screen will settle on."""
        with self._lock:
            before, start, end = self._before, self._start, self._end
        now = self._clock()
        if now >= end or before is None or before.size != settled.size:
            return settled
        first_new_frame = min(self.timing.scaled(FIRST_NEW_FRAME_SECONDS), (end - start) / 2)
        if now - start < first_new_frame:
            return before
        from PIL import Image

        fraction = (now - start - first_new_frame) / max(end - start - first_new_frame, 1e-9)
        return Image.blend(before.convert(settled.mode), settled, fraction)

    def wait_for_idle(self, never_idle: Callable[[], bool] = lambda: False, timeout: float | None = None,
                      give_up: Callable[[], bool] = lambda: False, quiet: float | None = None) -> bool:
        """Wait as UiAutomation.waitForIdle(1000, 10000) does; False when the screen never settled.

        `never_idle` says whether something on screen animates without end right now; `timeout`
        (phone seconds, scaled like every cost) replaces the profile's 10 s bound, as uiautomator2's
        server does with Configurator's waitForIdleTimeout; `give_up` ends the wait early (False);
        `quiet` (phone seconds, at most the profile's) replaces the quiet time that counts as idle."""
        profile = self.timing.profile
        quiet = self.timing.scaled(profile.idle_quiet if quiet is None else min(quiet, profile.idle_quiet))
        timeout = self.timing.scaled(profile.idle_timeout if timeout is None else max(0.0, timeout))
        if quiet <= 0:
            return True
        deadline = self._clock() + timeout
        while True:
            if give_up():
                return False
            now = self._clock()
            if never_idle():
                with self._lock:
                    self._last_event = now
            with self._lock:
                idle_at = self._last_event + quiet
            if now >= idle_at:
                return True
            if now >= deadline:
                return False
            time.sleep(min(idle_at - now, deadline - now, 0.1) if not never_idle() else min(0.05, deadline - now))
