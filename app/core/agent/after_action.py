"""The wait after an action (`Execute`): until the screen stands still, and what it starts meanwhile - the
next step's tree dump and, for a scaled stream, the still picture at the display's size."""

from __future__ import annotations

import logging
import time
from concurrent.futures import Future

from app.core.device.frames import Frame
from app.core.device.screen_capture import Screenshot
from app.core.device.settle import StillHint, wait_until_still

from .collection_strategies import on_picture_thread
from .pipeline import StepContext
from .run_context import RunContext, SettledScreen

log = logging.getLogger(__name__)

PREFETCH_STILL_SECONDS = 0.1
"""After an action, how long the frames must stand still before a quick tree dump (uiautomator2's server)
starts: a little before the wait for stillness ends, so the dump is done about when it does."""


async def settle_after_action(rc: RunContext, ctx: StepContext) -> None:
    """Wait until the screen has stood still for agent.settle_quiet_seconds (at most
    agent.settle_seconds), so the next step sees where the action led, not the way there.
    The wait goes into the step's timings as "settle"; a Stop or the time limit ends it."""
    agent = rc.settings.agent
    outcome = ctx.get_or("outcome")
    # The next step's dump starts during the wait, so it overlaps it. Only once the screen shows that
    # the phone took the action in (input sent over scrcpy's socket is handled a moment later; a dump
    # started before that would show the old screen). `uiautomator dump` is slow and waits for idle by
    # itself: it starts as the screen first moves. uiautomator2's server is quick: it starts once the
    # frames have stood still for PREFETCH_STILL_SECONDS, without the phone's own idle wait, and starts
    # again if the screen moves after that - done about when the wait ends.
    device = rc.device
    prefetch = outcome is not None and outcome.success
    rc.settled = None
    if not agent.settle_seconds:
        return
    started = time.monotonic()
    moved = False
    early = prefetch and device.dump_waits_for_idle
    resting: Future[Screenshot] | None = None     # the still picture at the display's size, made meanwhile

    def still(frame: Frame | None) -> None:
        nonlocal resting
        if not early:
            device.prefetch_controls(settled=True)
        if frame is not None and frame.device_size != frame.size:
            # a scaled stream frame: the next step wants it at full size (tens of ms); a stream sends a
            # still screen again now and then, so the wait may end on another frame of the same picture
            resting = on_picture_thread(frame.display_shot)

    def moved_again() -> None:
        nonlocal resting
        resting = None
        if not early:
            device.drop_prefetch()
    hint = StillHint(min(PREFETCH_STILL_SECONDS, agent.settle_quiet_seconds), still=still,
                     moved=moved_again) if prefetch else None

    def on_change() -> None:
        nonlocal moved
        moved = True
        if early:
            device.prefetch_controls()
    try:
        settled = await rc.control.interruptible(wait_until_still(
            rc.frames, quiet_seconds=agent.settle_quiet_seconds, cap_seconds=agent.settle_seconds,
            started=started, on_change=on_change, hint=hint))
        ctx.timings_ms["settle"] = settled.waited_ms
        # The picture the screen came to rest on is the next step's, if that step comes at once. Only
        # after the screen was seen to move: a still screen may just not show the action yet (an app
        # still starting), and the next step had better look again.
        if moved and not settled.capped and settled.frame is not None:
            rc.settled = SettledScreen(settled.frame, rc.device.input_generation, time.monotonic(),
                                            resting)
        if settled.capped:
            log.debug("step %d: the screen did not settle within %.1f s (%d frames compared)",
                      ctx.step, agent.settle_seconds, settled.frames_compared)
    except Exception as exc:       # the action was done: a failed wait must not make it a failure
        log.warning("step %d: waiting for the screen to settle failed: %s", ctx.step, exc)
        ctx.timings_ms["settle"] = round((time.monotonic() - started) * 1000, 1)
    except BaseException:          # Stop or the time limit: the record still shows the wait
        ctx.timings_ms["settle"] = round((time.monotonic() - started) * 1000, 1)
        raise
