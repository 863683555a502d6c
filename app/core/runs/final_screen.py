"""The screen a run left behind: the "after" picture of its last step (each other step's is the next
step's screenshot). The recorder asks for it once every step is on disk.

It is a frame of the run's frame source taken after the last action (the newest one when the screen
has not changed since: a streamed mirror sends no frame for a still screen), written as
`final_screen.png` beside the steps. Nothing is taken when the last step did nothing on the phone,
and a phone that has gone away or a full disk only means there is no such picture.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.core.agent.events import ActionExecuted, RunEvent
from app.core.agent.report_images import FINAL_SCREEN_FILE
from app.core.agent.trajectory import _save_png_atomically

log = logging.getLogger(__name__)

FRAME_WAIT_SECONDS = 1.5
"""How long a new frame is waited for; a streamed mirror sends none for a screen that did not change."""


class FinalScreen:
    """Remembers when the last action happened; `save()` writes the screen after it."""

    def __init__(self, now: Callable[[], float] = time.monotonic) -> None:
        self.frames: Any = None            # the run's FrameSource (set when the run's pipeline is built)
        self._now = now
        self._acted_at: float | None = None
        self._after: float | None = None   # the moment after which a frame shows the last action's outcome

    def on_event(self, event: RunEvent) -> None:
        if isinstance(event, ActionExecuted):
            self._acted_at = self._now()

    def step_finished(self, step: Any) -> None:
        """A step ended: if it acted on the phone, the final screen is the one after it."""
        if getattr(step, "result", None) is None or self._acted_at is None:
            self._after = None             # the last step did nothing: its "after" is its own screen
            return
        self._after = self._acted_at - float(getattr(step, "settle_ms", 0.0) or 0.0) / 1000

    @property
    def wanted(self) -> bool:
        return self.frames is not None and self._after is not None

    async def save(self, run_dir: Path) -> str:
        """Write the final screen into `run_dir`; its file name, or "" when there is none."""
        if not self.wanted:
            return ""
        try:
            frame = await self._frame()
            if frame is None:
                return ""
            await asyncio.to_thread(_save_png_atomically, frame.image, Path(run_dir) / FINAL_SCREEN_FILE)
        except asyncio.CancelledError:
            raise
        except Exception as exc:          # no phone, no frame, no room: the report says it has no picture
            log.info("the final screen of %s was not saved: %s", run_dir, exc)
            return ""
        return FINAL_SCREEN_FILE

    async def _frame(self) -> Any:
        latest = self.frames.latest()
        if latest is not None and latest.captured_at >= self._after:
            return latest
        try:
            return await asyncio.wait_for(self.frames.frame_after(self._after), FRAME_WAIT_SECONDS)
        except TimeoutError:      # a still screen sends no new frame: the newest is the screen now
            return self.frames.latest()
