"""A step's app-side work overlaps its waits: the model's picture is shrunk while the controls are still
on their way, and the images made from it are the ones made from scratch."""

from __future__ import annotations

import pytest
from PIL import Image

from app.core.agent import collection_strategies
from app.core.agent.collection_strategies import (
    CaptureScreenshot,
    CollectControls,
    PrepareModelImages,
    prepare_model_images,
)
from app.core.perception.controls import Control
from app.core.perception.model_image import fit_for_model
from tests.e2e.conftest import ScriptedPerson
from tests.e2e.test_agent_tasks import WIFI_SCRIPT


def test_images_from_a_picture_shrunk_earlier_are_the_images_made_from_scratch():
    screen = Image.new("RGB", (1080, 2400), (240, 240, 240))
    screen.paste((20, 120, 200), (100, 300, 900, 500))
    controls = [Control(id=1, name="Wi-Fi", type="Button", class_name="android.widget.Button", resource_id="",
                        text="Wi-Fi", content_desc="", clickable=True, rect=(100, 300, 900, 500))]
    fresh = prepare_model_images(screen, controls, 1280, "jpeg", 80, "both")
    early = prepare_model_images(screen, controls, 1280, "jpeg", 80, "both", shrunk=fit_for_model(screen, 1280))
    assert fresh.urls == early.urls and fresh.image_size == early.image_size == (540, 1200)
    assert fresh.annotated.tobytes() == early.annotated.tobytes()


@pytest.mark.asyncio
async def test_each_step_starts_shrinking_its_picture_before_its_controls_are_read(run_agent, monkeypatch):
    order: list[tuple[str, int]] = []
    step_now = [0]
    shrinks = [0]
    capture, collect, prepare = CaptureScreenshot.run, CollectControls.run, PrepareModelImages.run
    submit = collection_strategies.on_picture_thread

    def shrink(image, max_side):
        shrinks[0] += 1
        return fit_for_model(image, max_side)

    def submit_and_note(work, *args):
        order.append(("shrink started", step_now[0]))
        return submit(work, *args)

    async def capture_and_note(self, ctx) -> None:
        step_now[0] = ctx.step
        await capture(self, ctx)

    async def collect_and_note(self, ctx) -> None:
        await collect(self, ctx)
        order.append(("controls", ctx.step))

    async def prepare_and_note(self, ctx) -> None:
        await prepare(self, ctx)
        order.append(("images", ctx.step))

    monkeypatch.setattr(collection_strategies, "fit_for_model", shrink)
    monkeypatch.setattr(collection_strategies, "on_picture_thread", submit_and_note)
    monkeypatch.setattr(CaptureScreenshot, "run", capture_and_note)
    monkeypatch.setattr(CollectControls, "run", collect_and_note)
    monkeypatch.setattr(PrepareModelImages, "run", prepare_and_note)

    outcome = await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, ScriptedPerson([]), mode="auto")
    assert outcome.result.status == "success", outcome.result
    steps = sorted({step for _, step in order})
    assert steps == [1, 2, 3, 4, 5]
    for step in steps:
        events = [kind for kind, at in order if at == step]
        assert events == ["shrink started", "controls", "images"], (step, events)
    # shrunk again in PrepareModelImages only when a newer frame replaced a step's picture: not on every step
    assert len(steps) <= shrinks[0] < 2 * len(steps)
