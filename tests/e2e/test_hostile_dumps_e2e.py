"""Hostile dumps from the phone itself (through its real `uiautomator dump`): a flood of nodes, absurd
bounds, a clickable node hidden off the screen. Each run ends defined, and the phone only ever gets
what the run says it did."""

from __future__ import annotations

import asyncio

import pytest

from app.virtual_phone.hostile_dumps import ABSURD_BOUNDS, ENDLESS, NODE_FLOOD, OFF_SCREEN_TEXT
from tests.e2e.conftest import ScriptedPerson
from tests.support.openai_server import act, controls_in_request, is_completion_check, json_reply

pytestmark = pytest.mark.asyncio

FINISH = json_reply({**act("", status="FINISH"), "comment": "done"})


def step_requests(outcome):
    return [request for request in outcome.model.chat_requests if not is_completion_check(request.body)]


async def test_a_flood_of_nodes_is_refused_and_the_step_goes_on_with_the_screenshot(run_agent, phone_server):
    phone_server.devices[0].faults.hostile_dumps = [NODE_FLOOD] * 3      # every retry of the first step's dump
    outcome = await run_agent("Go home", [json_reply(act("press_key", key_code="HOME")), FINISH],
                              ScriptedPerson(), mode="auto", completion_check="off")
    assert outcome.result.status == "success", outcome.result
    first = outcome.steps()[0]
    assert first.screen_only and first.controls_count == 0
    assert "limits.max_dump_nodes" in " ".join(event.text for event in outcome.run.events.history
                                              if getattr(event, "kind", "") == "message")
    assert controls_in_request(step_requests(outcome)[0].body) == {}, "no flood reached the model"
    assert [argv[-1] for argv in outcome.phone_actions()] == ["3"]
    assert outcome.trajectory_problems() == []


def peak_memory_since_reset() -> tuple[int, int]:
    """(resident now, peak resident) in bytes, the peak counted from now on (Linux's clear_refs 5
    resets VmHWM), so the figure is this test's and not an earlier one's."""
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")
    return resident_kb("VmRSS") * 1024, resident_kb("VmHWM") * 1024


def resident_kb(field: str) -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(field + ":"))


async def test_an_endless_dump_is_read_to_the_cap_and_the_step_goes_on_with_the_screenshot(run_agent, phone_server):
    device = phone_server.devices[0]
    device.faults.hostile_dumps = [ENDLESS]           # the first dump never ends: the phone writes rows for ever
    resident_before, _ = peak_memory_since_reset()
    outcome = await run_agent("Go home", [json_reply(act("press_key", key_code="HOME")), FINISH],
                              ScriptedPerson(), mode="auto", completion_check="off")
    growth = resident_kb("VmHWM") * 1024 - resident_before
    assert growth < 300_000_000, f"the endless dump took {growth / 1e6:.0f} MB"
    assert outcome.result.status == "success", outcome.result
    first = outcome.steps()[0]
    assert first.screen_only and first.controls_count == 0
    messages = " ".join(event.text for event in outcome.run.events.history if getattr(event, "kind", "") == "message")
    assert "limits.max_dump_mb" in messages, "the step says the dump passed the cap (not that the phone timed out)"
    for _ in range(100):                              # the phone's thread sees the closed connection soon after
        if device.faults.endless_dumps_ended:
            break
        await asyncio.sleep(0.1)
    assert device.faults.endless_dumps_ended == 1, "the reader closed the connection: nothing still reads the dump"
    assert [argv[-1] for argv in outcome.phone_actions()] == ["3"]
    assert outcome.trajectory_problems() == []


async def test_absurd_bounds_never_become_controls_and_a_hidden_button_cannot_be_tapped(run_agent, phone_server):
    phone_server.devices[0].faults.hostile_dumps = [ABSURD_BOUNDS]

    def tap_the_hidden_button(body):
        listed = controls_in_request(body)
        assert OFF_SCREEN_TEXT not in listed.values()
        assert not {"Everything", "Inverted", "Nothing", "Above"} & set(listed.values())
        return json_reply(act("click_control", control_id=max(listed) + 1, control_name=OFF_SCREEN_TEXT))(body)

    script = [tap_the_hidden_button, json_reply(act("press_key", key_code="HOME")), FINISH]
    outcome = await run_agent("Pay", script, ScriptedPerson(), mode="auto", completion_check="off")
    assert outcome.result.status == "success", outcome.result
    retry = str(step_requests(outcome)[1].body["messages"][-1])
    assert "does not exist on this screen" in retry, "the hallucinated id was refused before anything ran"
    assert [argv[-1] for argv in outcome.phone_actions()] == ["3"], "no tap reached the phone"
    assert outcome.trajectory_problems() == []
