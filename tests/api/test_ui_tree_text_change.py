"""`GET /v1/devices/{id}/ui-tree` after a text-only change of the screen (issue 25 §4): a new tree and a new
screen_id, not the kept controls (a 64-px thumbnail counted "3 new messages" → "4 new messages" as unchanged)."""

from __future__ import annotations

import asyncio

import pytest

from app.virtual_phone.apps import NOTES

pytestmark = pytest.mark.asyncio


def show_in_first_note(phone, body: str) -> None:
    phone.apps[NOTES].notes[0]["body"] = body
    phone.changed()


async def test_a_changed_digit_gives_a_new_ui_tree_and_screen_id(make_desk):
    desk = await make_desk()
    path = f"/v1/devices/{desk.phone_ids[0]}/ui-tree"
    assert desk.phone().launch(NOTES)
    show_in_first_note(desk.phone(), "3 new messages")
    for _ in range(100):          # the launch settles; the tree then shows the note as it is
        before = (await desk.http.get(path)).json()
        if "3 new messages" in str(before["elements"]):
            break
        await asyncio.sleep(0.05)
    assert "3 new messages" in str(before["elements"])
    again = (await desk.http.get(path)).json()
    assert again["from_cache"] is True and again["screen_id"] == before["screen_id"]     # still screen: kept
    show_in_first_note(desk.phone(), "4 new messages")
    for _ in range(100):          # the mirror shows the change a moment after it happened
        after = (await desk.http.get(path)).json()
        if not after["from_cache"]:
            break
        await asyncio.sleep(0.05)
    assert after["from_cache"] is False and "4 new messages" in str(after["elements"])
    assert "3 new messages" not in str(after["elements"]) and after["screen_id"] != before["screen_id"]
