"""Before acting on what a person approved, the screen must still show its target where it was (GUIDE §6)."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

from app.core.agent.actions import Action
from app.core.agent.screen_recheck import rechecked_after, screen_moved_since_review
from app.core.device.errors import DeviceError
from app.core.perception.controls import Control

SEND = Control(id=3, name="Send", type="button", class_name="android.widget.Button", resource_id="app:id/send",
               text="Send", content_desc="", rect=(800, 2100, 1000, 2200), clickable=True)
FIELD = Control(id=4, name="Message", type="edit", class_name="android.widget.EditText", resource_id="app:id/body",
                text="", content_desc="", rect=(0, 2100, 780, 2200), clickable=True, focused=True)


class Tree:
    """A screen tree whose next read shows `controls` (or fails with `error`)."""

    def __init__(self, controls: list[Control] | None = None, error: Exception | None = None):
        self.controls, self.error = controls, error

    async def read_now(self):
        if self.error is not None:
            raise self.error
        return SimpleNamespace(controls=self.controls)


CLICK = Action(function="click_control", arguments={"control_id": 3})
TAP = Action(function="tap", arguments={"x": 900, "y": 2150})


@pytest.mark.asyncio
async def test_the_same_screen_lets_the_action_run():
    assert await screen_moved_since_review(Tree([SEND, FIELD]), CLICK, [SEND, FIELD]) == ""
    assert await screen_moved_since_review(Tree([SEND, FIELD]), TAP, [SEND, FIELD]) == ""


@pytest.mark.asyncio
async def test_a_target_that_moved_or_changed_its_words_stops_the_action():
    moved = dataclasses.replace(SEND, rect=(800, 1900, 1000, 2000))
    renamed = dataclasses.replace(SEND, text="Delete", name="Delete")
    for now in (moved, renamed):
        for action in (CLICK, TAP):
            reason = await screen_moved_since_review(Tree([now, FIELD]), action, [SEND, FIELD])
            assert "Nothing was done" in reason and "“Send”" in reason


@pytest.mark.asyncio
async def test_a_field_being_typed_into_may_show_other_text():
    typed = dataclasses.replace(FIELD, text="On my way")
    action = Action(function="type_text", arguments={"text": "late", "control_id": 4})
    assert await screen_moved_since_review(Tree([SEND, typed]), action, [SEND, FIELD]) == ""


@pytest.mark.asyncio
async def test_a_screen_that_cannot_be_read_again_gets_nothing():
    reason = await screen_moved_since_review(Tree(error=DeviceError("the phone went away")), CLICK, [SEND, FIELD])
    assert reason.startswith("Nothing was done") and "the phone went away" in reason


def test_which_decisions_are_checked_again():
    assert rechecked_after("approve", TAP) and rechecked_after("edit", CLICK) and rechecked_after("override", CLICK)
    assert not rechecked_after("override", TAP)           # the person's own point, on the live mirror
    assert not rechecked_after("auto", CLICK) and not rechecked_after("person", CLICK)
