"""After an action a step waits for the screen to stand still, not a fixed time: on a phone whose
screens move for a while after each tap, the next step still sees where the action led."""

from __future__ import annotations

import asyncio

import pytest
from PIL import ImageChops, ImageStat

from app.core.agent.collection_strategies import CaptureScreenshot, CollectControls
from app.core.agent.run_context import RunContext
from tests.e2e.conftest import ScriptedPerson
from tests.e2e.test_agent_tasks import WIFI_SCRIPT

pytestmark = pytest.mark.asyncio

CAP_SECONDS = 2.0


def same_picture(seen, settled) -> bool:
    """The same screen: pixel for pixel from a screenshot; from the video stream (lossy, scaled
    down and back up) the same but for compression noise, which averages out over 10×10 blocks
    where a screen in transition (a blend, a slide) does not."""
    if ImageChops.difference(seen, settled).getbbox() is None:
        return True
    blocks = ImageChops.difference(seen.reduce(10), settled.reduce(10))
    # The stream's own loss (4:2:0 colour, scaling to 1280 and back, compression) stays under about
    # 2.5 on text-heavy screens; a screen caught in a transition differs by 4.8 and (much) more.
    return max(ImageStat.Stat(blocks).mean) < 3.5


@pytest.fixture
def screenshots_checked(monkeypatch, phone_server):
    """For each step: whether the screenshot it saw is the picture the phone's screen settled on.

    Nothing moves the screen between a step's screenshot and its action, so once the phone's
    transition (if any) is over, its picture is what the screenshot should have shown. Checked once the
    controls are read (a screen that changed during the dump gives the step its newest picture), as the
    model's images and the record are made from it."""
    phone = phone_server.devices[0].phone
    checked: list[tuple[int, bool]] = []
    collect = CollectControls.run

    async def run_and_check(self, ctx) -> None:
        await collect(self, ctx)
        while phone.motion.moving():
            await asyncio.sleep(0.005)
        settled = phone.screenshot().convert("RGB")
        seen = ctx.get("screenshot").image.convert("RGB")
        checked.append((ctx.step, seen.size == settled.size and same_picture(seen, settled)))

    monkeypatch.setattr(CollectControls, "run", run_and_check)
    return checked


@pytest.mark.phone_latency("realistic@0.25")
async def test_steps_wait_for_a_moving_screen_to_settle_and_record_the_wait(run_agent, screenshots_checked):
    outcome = await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, ScriptedPerson([]), mode="auto",
                              settle_seconds=CAP_SECONDS, settle_quiet_seconds=0.2)
    assert outcome.result.status == "success", outcome.result
    assert outcome.state["wifi"] is True
    assert outcome.trajectory_problems() == []
    steps = outcome.steps()
    acted = [step for step in steps if step.action.get("function")]
    assert len(acted) == 4
    for step in acted:
        assert step.timings_ms["settle"] == step.settle_ms
        assert 200 <= step.settle_ms < CAP_SECONDS * 1000, step.settle_ms   # the quiet period, not the cap
    assert all(step.settle_ms == 0 for step in steps if not step.action.get("function"))
    assert len(screenshots_checked) >= len(steps)
    assert all(settled for _step, settled in screenshots_checked), screenshots_checked


@pytest.mark.phone_latency("realistic@0.25")
async def test_without_waiting_the_next_step_sees_the_screen_still_moving(run_agent, screenshots_checked,
                                                                           monkeypatch):
    """The check above can fail: with no wait at all, and the picture kept from before the dump, a step's
    screenshot shows a screen in motion."""
    async def keep_the_first_picture(self, ctx) -> None:
        return None
    monkeypatch.setattr(CollectControls, "_picture_of_the_dumped_screen", keep_the_first_picture)
    outcome = await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, ScriptedPerson([]), mode="auto", settle_seconds=0)
    assert all(step.settle_ms == 0 and "settle" not in step.timings_ms for step in outcome.steps())
    assert not all(settled for _step, settled in screenshots_checked), screenshots_checked


@pytest.mark.phone_latency("realistic@0.25")
async def test_a_screen_that_moves_during_the_dump_gives_the_step_its_newest_picture(run_agent, screenshots_checked):
    """Without a settle wait the first picture may be caught mid-transition; the dump waits for the phone to be
    idle, and the step's picture is then the newest frame: picture and controls show the same, settled screen."""
    outcome = await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, ScriptedPerson([]), mode="auto", settle_seconds=0)
    assert outcome.result.status == "success", outcome.result
    assert not any(step.screen_only for step in outcome.steps())     # every step read its controls
    assert all(settled for _step, settled in screenshots_checked), screenshots_checked


@pytest.fixture
def made_during_wait() -> list[bool]:
    """For each step given the wait's full-size picture: whether the step's screenshot is that picture."""
    return []


@pytest.fixture
def pictures_taken(monkeypatch, made_during_wait):
    """For each step, in order: whether its picture was the frame the last action's wait found still
    (given by RunContext.take_settled_frame), and whether the step's picture is that very frame."""
    taken: list[tuple[int, bool, bool]] = []
    capture, take = CaptureScreenshot.run, RunContext.take_settled_frame
    given: list = []

    def take_and_note(self, now):
        settled = take(self, now)
        given.append(settled)
        return settled

    async def capture_and_note(self, ctx) -> None:
        given.clear()
        await capture(self, ctx)
        settled = given[0] if given else None
        frame = settled.frame if settled is not None else None
        taken.append((ctx.step, frame is not None, frame is not None and ctx.get("screenshot_frame") is frame))
        if settled is not None and settled.display is not None:      # the full-size picture made during the wait
            made_during_wait.append(ctx.get("screenshot") is settled.display.result())

    monkeypatch.setattr(RunContext, "take_settled_frame", take_and_note)
    monkeypatch.setattr(CaptureScreenshot, "run", capture_and_note)
    return taken


@pytest.mark.phone_latency("realistic@0.25")
async def test_a_step_right_after_a_settled_action_looks_at_the_picture_found_still(run_agent, screenshots_checked,
                                                                                    pictures_taken, made_during_wait):
    """The wait after an action ends on a picture of the still screen: the next step takes it instead of
    asking the phone for another (a screenshot, or the stream's freshness wait), and it shows the settled
    screen. The first step follows no action, so it asks; so may the step after the app's launch, when
    the wait saw nothing move yet (the app still starting): it looks again. The taps each move the screen."""
    outcome = await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, ScriptedPerson([]), mode="auto",
                              settle_seconds=CAP_SECONDS, settle_quiet_seconds=0.2)
    assert outcome.result.status == "success", outcome.result
    assert [step for step, _, _ in pictures_taken] == [1, 2, 3, 4, 5]
    assert [from_wait for _, from_wait, _ in pictures_taken][2:] == [True, True, True]
    assert not pictures_taken[0][1]
    assert all(same for _, from_wait, same in pictures_taken if from_wait)
    assert all(settled for _step, settled in screenshots_checked), (screenshots_checked, pictures_taken)
    # the stream is scaled (mirror.max_size): the step took the full-size picture the wait made, not its own
    assert made_during_wait and all(made_during_wait), made_during_wait


@pytest.mark.phone_latency("realistic@0.25")
async def test_without_a_wait_after_the_action_every_step_asks_for_its_own_picture(run_agent, pictures_taken):
    outcome = await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, ScriptedPerson([]), mode="auto", settle_seconds=0)
    assert outcome.result.status == "success", outcome.result
    assert pictures_taken and not any(from_wait for _, from_wait, _ in pictures_taken)
