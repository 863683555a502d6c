"""Navigation by the map of screens in real runs on the virtual phone: after a recorded run, the model
is told where the phone is and goes to a known screen with one call; a way that no longer works hands
back to the model where it stopped."""

from __future__ import annotations

import pytest

from app.core.agent.events import Message
from app.core.learning.transitions import TransitionStore
from tests.e2e.test_agent_tasks import WIFI_SCRIPT, click
from tests.e2e.test_replay import put_back
from tests.support.openai_server import act, json_reply

pytestmark = pytest.mark.asyncio
NO_SKILLS = {"use_skills": False}
WIFI_PAGE = "Settings › Network & internet › Wi‑Fi"


def step_requests(outcome) -> list[str]:
    """The model's step calls (the completion check's question is not one)."""
    return [str(r.body) for r in outcome.model.chat_requests
            if "Reply with one JSON object." in str(r.body)]      # user.txt's "next"


def messages(outcome) -> list[str]:
    return [event.text for event in outcome.run.events.history if isinstance(event, Message)]


async def recorded(run_agent, phone_server) -> None:
    """One Wi-Fi run recorded (skills off), and the phone put back as it was."""
    first = await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, mode="auto", request_options=NO_SKILLS)
    assert first.result.status == "success"
    put_back(phone_server.devices[0].phone)


async def test_the_model_goes_to_a_known_screen_with_one_call(run_agent, phone_server):
    await recorded(run_agent, phone_server)
    script = [json_reply(act("go_to_screen", screen="Settings › Wi-Fi")),          # not listed: told, asked again
              json_reply(act("go_to_screen", screen=WIFI_PAGE)), click("Use Wi-Fi"),
              json_reply(act("", status="FINISH", thought="Wi-Fi is on"))]
    outcome = await run_agent("Please enable wireless networking", script, mode="auto", request_options=NO_SKILLS)
    assert outcome.result.status == "success", outcome.result
    assert outcome.state["wifi"] is True
    requests = step_requests(outcome)
    assert len(requests) == 4, "the way's three steps need no model call"
    first = requests[0]
    assert "Where you are, by the map of screens earlier runs visited: Home screen" in first
    assert f'- "{WIFI_PAGE}" (3 steps)' in first and "go_to_screen(screen: str" in first
    assert "'go_to_screen'" in first                     # in the reply tool's function list too
    assert "There is no known screen called 'Settings › Wi-Fi'" in requests[1]
    assert "Where you are, by the map of screens earlier runs visited: " + WIFI_PAGE in requests[2]
    told = messages(outcome)
    assert any(f"the model chose to go to “{WIFI_PAGE}”" in line for line in told)
    assert any(f"arrived at “{WIFI_PAGE}” in 3 steps, without the model" in line for line in told)


async def test_a_way_whose_edge_now_leads_elsewhere_hands_back_to_the_model(run_agent, phone_server):
    await recorded(run_agent, phone_server)
    store = TransitionStore()
    [kind] = store.kinds()
    path = store.path_for(kind)
    path.write_text(path.read_text(encoding="utf-8").replace("Network & internet", "Connected devices"),
                    encoding="utf-8")     # the map now says tapping "Connected devices" leads to the Wi-Fi list's page
    script = [json_reply(act("go_to_screen", screen=WIFI_PAGE)),
              json_reply(act("", status="FAIL", thought="stop here"))]
    outcome = await run_agent("Please enable wireless networking", script, mode="auto", request_options=NO_SKILLS)
    requests = step_requests(outcome)
    assert len(requests) == 2
    told = messages(outcome)
    stopped = [line for line in told if "stopped —" in line]
    assert stopped and "instead of" in stopped[0], told
    assert "The first steps were done by the way to" in requests[1]
    assert outcome.state["wifi"] is False

    transitions, _ = TransitionStore().read(kind)          # the tap was recorded where it really led
    taps = [t for t in transitions if "Connected devices" in t.action_text]
    assert len({t.to_screen for t in taps}) == 2


async def test_the_map_can_be_turned_off_for_a_run(run_agent, phone_server):
    await recorded(run_agent, phone_server)
    outcome = await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, mode="auto",
                              request_options={**NO_SKILLS, "use_map": False})
    assert outcome.result.status == "success"
    assert "go_to_screen" not in str(outcome.model.chat_requests[0].body)
    assert "Where you are" not in str(outcome.model.chat_requests[0].body)
