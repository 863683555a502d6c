"""Skills in real runs: saved from a successful run, replayed by the planner the second time without a
model call, refused by the person, and never stopped by a broken skill file."""

from __future__ import annotations

import copy

import pytest

from app.core.agent.events import Message
from app.core.agent.supervisor import ReviewAnswer
from app.core.learning.skill_store import SkillStore
from app.core.paths import data_dir
from tests.e2e.conftest import ScriptedPerson, approve
from tests.e2e.test_agent_tasks import WIFI_SCRIPT
from tests.e2e.test_replay import put_back
from tests.support.openai_server import act, json_reply

pytestmark = pytest.mark.asyncio


def messages(outcome) -> list[str]:
    return [event.text for event in outcome.run.events.history if isinstance(event, Message)]


async def test_a_successful_run_becomes_a_skill_and_the_repeat_needs_no_model(run_agent, phone_server):
    first = await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, mode="auto")
    assert first.result.status == "success"
    skills, problems = SkillStore().load()
    assert problems == [] and [skill.name for skill in skills] == ["Turn on Wi-Fi"]
    assert skills[0].trigger == "Turn on Wi-Fi" and skills[0].parameters == {}     # one run: this request exactly
    assert any("Saved as the skill" in line for line in messages(first))

    put_back(phone_server.devices[0].phone)
    again = await run_agent("Turn on Wi-Fi", [], mode="auto")
    assert again.result.status == "success", again.result
    assert again.state["wifi"] is True
    assert again.model.chat_requests == [], "the repeat must come from the skill, not the model"
    assert any("Using skill “Turn on Wi-Fi”" in line for line in messages(again))
    skill = SkillStore().find("Turn on Wi-Fi")
    assert skill.history.successes == 1 and skill.history.last_outcome


async def test_the_person_can_refuse_a_skill_and_the_model_decides(run_agent, phone_server):
    await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, mode="auto")
    put_back(phone_server.devices[0].phone)

    def refuse(proposal):
        assert "skill" in proposal.thought
        return ReviewAnswer.reject("do not use the old way")

    person = ScriptedPerson([refuse] + [approve] * 5)
    outcome = await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, person, mode="step")
    assert outcome.result.status == "success", outcome.result
    assert outcome.model.chat_requests, "after refusing the skill the model decides"
    assert "do not use the old way" in str(outcome.model.chat_requests[0].body)
    skill = SkillStore().find("Turn on Wi-Fi")
    assert skill.history.failures == 1


async def test_a_broken_skill_file_is_reported_and_the_run_goes_on(run_agent):
    folder = data_dir() / "skills"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "broken.yaml").write_text("name: [unclosed\nsteps: {", encoding="utf-8")
    (folder / "nonsense.yaml").write_text("name: Turn on Wi-Fi\ntrigger: Turn on {item}\nsteps: 12\n",
                                          encoding="utf-8")
    outcome = await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, mode="auto")
    assert outcome.result.status == "success"
    skipped = [line for line in messages(outcome) if line.startswith("A skill file was skipped")]
    assert any("broken.yaml" in line for line in skipped) and any("nonsense.yaml" in line for line in skipped)
    assert len(outcome.model.chat_requests) >= 4


async def test_skills_can_be_turned_off_for_a_run(run_agent, phone_server):
    await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, mode="auto")
    put_back(phone_server.devices[0].phone)
    outcome = await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, mode="auto", request_options={"use_skills": False})
    assert outcome.result.status == "success"
    assert len(outcome.model.chat_requests) >= 4


async def test_the_model_may_choose_an_offered_skill(run_agent, phone_server):
    """No trigger fits "Please enable wireless networking": the model is offered the skills and picks one."""
    await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, mode="auto")
    put_back(phone_server.devices[0].phone)
    script = [json_reply(act("use_skill", name="Turn on WiFi")),          # no such skill: told, and asked again
              json_reply(act("use_skill", name="Turn on Wi-Fi"))]
    outcome = await run_agent("Please enable wireless networking", script, mode="auto")
    assert outcome.result.status == "success", outcome.result
    assert outcome.state["wifi"] is True
    requests = outcome.model.chat_requests
    assert len(requests) == 2, "after choosing the skill, its steps need no model call"
    first = str(requests[0].body)
    assert "use_skill(name: str" in first and "Saved skills" in first and "Turn on Wi-Fi" in first
    assert "There is no skill called 'Turn on WiFi'" in str(requests[1].body)
    assert any("the model chose to use the skill “Turn on Wi-Fi”" in line for line in messages(outcome))
    assert SkillStore().find("Turn on Wi-Fi").history.successes == 1


async def test_no_skills_no_skill_function(run_agent, phone_server):
    """A saved skill the model would be offered (no trigger fits the request): with skills off for the run,
    the model is not offered `use_skill` nor told of the saved skills, and the request goes to the model."""
    await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, mode="auto")
    assert [skill.name for skill in SkillStore().load()[0]] == ["Turn on Wi-Fi"]
    put_back(phone_server.devices[0].phone)
    outcome = await run_agent("Please enable wireless networking", WIFI_SCRIPT, mode="auto",
                              request_options={"use_skills": False})
    assert outcome.result.status == "success", outcome.result
    first = str(outcome.model.chat_requests[0].body)
    assert "use_skill" not in first and "Saved skills" not in first and "Turn on {item}" not in first


async def test_after_a_skill_stops_fitting_the_model_may_choose_another(run_agent, phone_server):
    """"Turn on Wi-Fi"'s skill no longer finds its switch; the model picks the skill that flips it."""
    await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, mode="auto")
    store = SkillStore()
    whole = store.find("Turn on Wi-Fi")
    flip = copy.deepcopy(whole)
    flip.name, flip.trigger, flip.request, flip.parameters = "Flip the Wi-Fi switch", "", "Flip the Wi-Fi switch", {}
    flip.steps, flip.final_screen = flip.steps[3:], ""
    flip.created_at = "2026-01-01T00:00:00.000+00:00"
    store.save(flip)
    whole.steps[3].target.name = "Use mobile data"            # the recorded switch is gone from the screen
    store.save(whole)
    put_back(phone_server.devices[0].phone)
    outcome = await run_agent("Turn on Wi-Fi", [json_reply(act("use_skill", name="Flip the Wi-Fi switch"))],
                              mode="auto")
    assert outcome.result.status == "success", outcome.result
    assert outcome.state["wifi"] is True
    assert len(outcome.model.chat_requests) == 1
    assert "Flip the Wi-Fi switch" in str(outcome.model.chat_requests[0].body)
    assert SkillStore().find("Turn on Wi-Fi").history.failures == 1
    assert SkillStore().find("Flip the Wi-Fi switch").history.successes == 1
