"""Which pictures reach the model in a run with the default setting (images.send "auto"): the annotated
one, and the clean one too on the step after the model asked for it."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import ScriptedPerson, approve
from tests.support.openai_server import act, click, json_reply

ASK_FOR_CLEAN = {**act("launch_app", package_name="com.android.settings"), "clean_image": True}
SCRIPT = [json_reply(ASK_FOR_CLEAN), click("Display"), json_reply(act("", status="FINISH"))]


def step_requests(model) -> list[dict]:
    """The bodies of the step decisions (not the completion check's question)."""
    return [request.body for request in model.requests
            if request.path.endswith("/chat/completions")
            and str(request.body["messages"][0].get("content", "")).startswith("You operate an Android phone")]


def images_of(body: dict) -> list[dict]:
    return [part["image_url"] for part in body["messages"][-1]["content"] if part.get("type") == "image_url"]


@pytest.mark.asyncio
async def test_the_clean_picture_goes_on_the_step_after_the_model_asks(run_agent):
    outcome = await run_agent("Open the display settings", SCRIPT, ScriptedPerson([approve] * 3))
    assert outcome.result.status == "success", outcome.result
    first, asked, after = step_requests(outcome.model)[:3]
    assert len(images_of(asked)) == 2                                   # the clean screen, then the annotated
    assert "the screen, then the same with control ids drawn" in asked["messages"][-1]["content"][-1]["text"]
    assert len(images_of(after)) == 1                                   # nobody asked again: the annotated one
    assert "with control ids drawn on it" in after["messages"][-1]["content"][-1]["text"]
    # a loopback server is no preset's host: no `detail` is sent (OpenAI's and Azure's get "high")
    assert all("detail" not in image for body in (first, asked, after) for image in images_of(body))
