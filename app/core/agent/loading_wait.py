"""A step does not read a screen that is still loading: a progress indicator shows and the screen keeps
moving (a spinner turning while a list comes over the network). The wait after an action ends on stillness
or at `agent.settle_seconds`; a list may take longer than that (1-3 s from a network), so the step that
reads such a screen waits on (at most `agent.loading_wait_seconds`) until the screen stands still, and
reads it again. A progress indicator that does not move (a storage gauge) costs one quiet period."""

from __future__ import annotations

import time

from app.core.device.screen_tree import TreeReading
from app.core.device.settle import wait_until_still
from app.core.perception.loading import loading_indicator

from .pipeline import StepContext
from .run_context import RunContext

RECHECK_SECONDS = 0.5
"""How long one wait for stillness lasts before the screen is read again (a spinner never stands still)."""


async def wait_out_loading(rc: RunContext, ctx: StepContext, reading: TreeReading) -> TreeReading:
    """The reading of the screen once it no longer loads: `reading` itself when no progress indicator
    shows; else, after waiting for the screen to stand still, a new one (the step's picture is the frame
    it stood still on). The wait goes into the step's timings as "loading"."""
    agent = rc.settings.agent
    tree = rc.screen_tree
    if not agent.loading_wait_seconds or tree is None or loading_indicator(reading.snapshot.hierarchy) is None:
        return reading
    from .collection_strategies import screenshot_of  # collection_strategies calls this

    started = time.monotonic()
    try:
        while (left := agent.loading_wait_seconds - (time.monotonic() - started)) > 0:
            waited = await rc.control.interruptible(wait_until_still(
                rc.frames, quiet_seconds=agent.settle_quiet_seconds, cap_seconds=min(left, RECHECK_SECONDS),
                started=time.monotonic()))
            frame = waited.frame
            if frame is None:             # no frame came in the wait: one taken now
                frame = await rc.control.interruptible(rc.frames.frame_after(time.monotonic()))
            reading = await rc.control.interruptible(tree.read(frame))
            ctx.set("screenshot_frame", frame)
            ctx.set("screenshot", await screenshot_of(frame))
            if not waited.capped:       # still: loaded (or an indicator that does not move, a gauge)
                break
    finally:
        ctx.timings_ms["loading"] = round((time.monotonic() - started) * 1000, 1)
    return reading
