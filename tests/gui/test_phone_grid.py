"""The Phones window (issue 17 §1): two phones at once, each tile with its own live picture and run.

Two virtual phones on one ADB server; a loopback OpenAI-compatible model answers each run from its own
script (the request's words say which). Runs on both tiles go side by side and end on their own phone;
an approval is answered from a tile; a run started elsewhere shows on its phone's tile; closing the
window leaves no reader, subscription or task behind while the runs go on.
"""

from __future__ import annotations

import asyncio
import json

import pytest
import pytest_asyncio

from app.core.agent.supervisor import ReviewAnswer
from app.core.config import AgentSettings, ProviderSettings, Settings
from app.core.runs.service import RunRequest
from app.gui.phones.phone_grid import columns_for, show_phone_grid
from app.virtual_phone.apps import CALCULATOR, CLOCK, NOTES
from tests.gui.conftest import shown_window
from tests.support.openai_server import FakeOpenAIServer, act, json_reply
from tests.support.waiting import until

FIRST, SECOND = "emulator-5554", "emulator-5556"


def routed(scripts: dict[str, list], count: int = 40) -> list:
    """A script whose replies come from `scripts[word]`, for the run whose request holds `word`."""
    def respond(body):
        text = json.dumps(body.get("messages", []))
        word = next(w for w in scripts if w in text)
        return scripts[word].pop(0)(body)
    return [respond] * count


@pytest.fixture
def two_phones(private_home, virtual_adb, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-phone-grid-0123456789")
    virtual_adb.add_phone(serial=SECOND, model="Pixel 8")
    return virtual_adb


@pytest_asyncio.fixture
async def grid_window(qapp, two_phones):
    async with shown_window() as window:
        yield window


async def open_grid(window, model: FakeOpenAIServer | None = None):
    if model is not None:
        window.settings = Settings(provider=ProviderSettings(base_url=model.base_url, model="gpt-4o"),
                                   agent=AgentSettings())
    await window.start()
    grid = show_phone_grid(window)
    await until(lambda: len(grid.tiles) == 2 and all(f.session is not None for f in grid.followers.values()))
    return grid


def foreground(server, serial: str) -> str:
    return server.device(serial).phone.state()["foreground"]


async def close_grid(grid) -> None:
    grid.close()
    await grid.stopping


@pytest.mark.asyncio
async def test_two_phones_run_side_by_side_and_an_approval_is_answered_from_a_tile(grid_window, two_phones):
    window = grid_window
    scripts = {
        "alpha": [json_reply(act("launch_app", package_name=CLOCK)),          # rejected from the tile
                  json_reply(act("launch_app", package_name=NOTES)),
                  json_reply(act("", status="FINISH"))],
        "beta": [json_reply(act("launch_app", package_name=CALCULATOR)),
                 json_reply(act("", status="FINISH"))],
    }
    with FakeOpenAIServer(routed(scripts)) as model:
        grid = await open_grid(window, model)
        first, second = grid.tile_for(FIRST), grid.tile_for(SECOND)
        assert first.name_label.text() == f"{two_phones.device(FIRST).phone.model}  ·  {FIRST}"
        assert second.name_label.text() == f"Pixel 8  ·  {SECOND}"
        await until(lambda: first.thumb.frames_shown and second.thumb.frames_shown)     # a picture of each

        first.request.setText("alpha: open the notes app")
        first.mode_box.setCurrentIndex(first.mode_box.findData("step"))
        second.request.setText("beta: open the calculator")
        second.mode_box.setCurrentIndex(second.mode_box.findData("auto"))
        first.run_button.click()
        second.run_button.click()

        await until(lambda: first.awaiting_review, 20)
        assert first.action_label.text() == f"Open the app {CLOCK}"
        first.reject_reason.setText("not the clock: the notes app")
        first.reject_button.click()
        await until(lambda: first.awaiting_review and NOTES in first.action_label.text(), 20)
        assert first.state_label.text().startswith("Needs your OK")
        # the auto run on the other phone ends on its own while the first waits for the person
        await until(lambda: not second.running, 30)
        assert second.state_label.text().startswith("Run success"), second.state_label.text()
        assert "step 2" in second.step_label.text() and f"Open the app {CALCULATOR}" in second.step_label.text()
        assert foreground(two_phones, SECOND) == CALCULATOR
        assert foreground(two_phones, FIRST) != NOTES and first.running

        first.approve_button.click()
        await until(lambda: first.awaiting_review and "finish" in first.action_label.text().lower(), 20)
        first.approve_button.click()
        await until(lambda: not first.running, 30)
        assert first.state_label.text().startswith("Run success"), first.state_label.text()
        assert foreground(two_phones, FIRST) == NOTES
        assert foreground(two_phones, SECOND) == CALCULATOR
        rejected = [r.body for r in model.chat_requests if "not the clock: the notes app" in json.dumps(r.body)]
        assert rejected, "the rejection's reason reached the model"
        assert not any(s for s in scripts.values())          # each phone's run used its own replies
        await close_grid(grid)


@pytest.mark.asyncio
async def test_a_run_started_elsewhere_shows_on_its_tile_and_closing_leaves_nothing_behind(grid_window, two_phones):
    window = grid_window
    scripts = {"gamma": [json_reply(act("launch_app", package_name=NOTES)), json_reply(act("", status="FINISH"))]}
    with FakeOpenAIServer(routed(scripts)) as model:
        grid = await open_grid(window, model)
        second = grid.tile_for(SECOND)
        follower = grid.follower_for(SECOND)
        session = follower.session
        await until(lambda: follower.reading_frames and second.thumb.frames_shown)
        assert session.frames.subscriber_count == 1         # the tile's reader (the main window shows the other)

        # a task posted to the service (as the task API does), not from the tile
        handle = await window.core.run(window.service.start(RunRequest("gamma: open notes", phone=str(session.id),
                                                                        mode="step")))
        await until(lambda: second.awaiting_review, 20)
        assert second.running and second.request.text() == "gamma: open notes"
        listeners_before = len(window.service._listeners)
        readers_before = len(handle.events._subscribers)       # the tile's and the main window's

        await close_grid(grid)
        assert not grid.tasks and not grid.followers and not grid.tiles
        assert not follower.reading_frames and not follower.subscribed_runs
        assert session.frames.subscriber_count == 0
        assert len(window.service._listeners) == listeners_before - 1
        assert len(handle.events._subscribers) == readers_before - 1
        ours = await window.core.run(_tasks_of_the_grid())
        assert ours == []
        assert not handle.finished and handle.awaiting_review     # the run goes on, waiting for someone
        window.core.call(lambda: handle.answer(handle.pending_id, ReviewAnswer.approve()))
        await until(lambda: handle.awaiting_review and handle.pending_proposal.step == 2, 20)
        window.core.call(handle.stop, "test over")
        await until(lambda: handle.finished, 20)
        assert foreground(two_phones, SECOND) == NOTES


@pytest.mark.asyncio
async def test_a_tiles_approve_that_reaches_the_run_after_step_2_began_waiting_never_approves_step_2(
        grid_window, two_phones, monkeypatch):
    """The tile's answer names the proposal it shows: step 1 approved elsewhere while the tile had not yet
    caught up, the tile's Approve (still on step 1) is refused and step 2 still waits."""
    window = grid_window
    script = [json_reply(act("launch_app", package_name=NOTES)), json_reply(act("launch_app", package_name=CLOCK)),
              json_reply(act("", status="FINISH"))]
    with FakeOpenAIServer(script) as model:
        grid = await open_grid(window, model)
        first = grid.tile_for(FIRST)
        follower = next(f for f in grid.followers.values() if f.tile is first)
        first.request.setText("open the notes app")
        first.mode_box.setCurrentIndex(first.mode_box.findData("step"))
        first.run_button.click()
        await until(lambda: first.awaiting_review, 20)
        handle = follower.handle
        monkeypatch.setattr(follower, "_event", lambda *_: None)        # the tile is busy: it shows step 1 still
        step_1 = handle.pending_id
        window.core.call(lambda: handle.answer(step_1, ReviewAnswer.approve()))     # decided elsewhere
        await until(lambda: handle.awaiting_review and handle.pending_proposal.step == 2, 20)
        first.approve_button.click()
        await window.core.run(asyncio.sleep(0))                          # the click has reached the run
        assert handle.awaiting_review and handle.pending_proposal.step == 2
        window.core.call(handle.stop, "test over")
        await until(lambda: handle.finished, 20)
    assert foreground(two_phones, FIRST) == NOTES


async def _tasks_of_the_grid() -> list[str]:
    return [repr(t) for t in asyncio.all_tasks() if "PhoneFollower" in repr(t.get_coro())
            or "PhoneGridWindow" in repr(t.get_coro())]


@pytest.mark.asyncio
async def test_tiles_follow_the_phones_reflow_and_say_why_a_run_cannot_start(grid_window, two_phones, monkeypatch):
    window = grid_window
    monkeypatch.delenv("OPENAI_API_KEY")
    await window.start()
    grid = show_phone_grid(window)
    assert show_phone_grid(window) is grid                     # one Phones window
    await until(lambda: len(grid.tiles) == 2)
    assert (columns_for(900), columns_for(1280), columns_for(1920)) == (2, 3, 4)
    grid.resize(900, 700)
    await until(lambda: grid.columns == 2)
    grid.resize(1920, 900)
    await asyncio.sleep(0.2)
    assert grid.columns == 2                                   # two phones: two columns, however wide

    two_phones.add_phone(serial="emulator-5558", model="Pixel 9")
    await until(lambda: grid.tile_for("emulator-5558") is not None)
    assert len(grid.tiles) == 3 and grid.columns == 3          # side by side on a wide window
    grid.resize(900, 700)
    await until(lambda: grid.columns == 2)                      # the third tile wraps onto a second row
    third = grid.tile_for("emulator-5558")
    assert third.y() > grid.tile_for(FIRST).y() and third.x() == grid.tile_for(FIRST).x()
    two_phones.unplug("emulator-5558")
    await until(lambda: grid.tile_for("emulator-5558") is None)

    first = grid.tile_for(FIRST)
    await until(lambda: first.run_button.isEnabled())
    first.run_button.click()                                   # nothing typed
    assert "Type what the agent should do" in first.error_label.text()
    first.request.setText("open the notes app")
    first.run_button.click()                                   # no API key anywhere
    await until(lambda: first.error_label.text() and first.run_button.isEnabled())
    assert first.error_label.text() == "Add an API key in Settings to run the agent."

    first.show_button.click()                                  # already the main window's phone: stays
    second = grid.tile_for(SECOND)
    second.show_button.click()
    await until(lambda: window.phone.entry.serial == SECOND)
    await close_grid(grid)
    assert not grid.tasks

    assert show_phone_grid(window) is grid                     # opened again: the phones again
    await until(lambda: len(grid.tiles) == 2 and all(f.reading_frames for f in grid.followers.values()))
    window.close()                                             # the main window closes: so does the Phones window
    await grid.stopping
    assert not grid.open and not grid.isVisible() and not grid.tasks and not grid.followers
