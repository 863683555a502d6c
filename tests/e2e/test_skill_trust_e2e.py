"""Issue 25's trust rules for what is replayed, in real runs on the virtual phone in auto mode: a skill used
with new values, an imported skill, an edited run folder and an imported map's way stop for the person before
their first step (and only then), until a person has approved a run of them; a parameter never lands in
another control's label."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from app.core.agent.events import Message
from app.core.agent.supervisor import Proposal, ReviewAnswer
from app.core.learning.map_sharing import export_map, import_map
from app.core.learning.recorded_steps import script_from_run
from app.core.learning.skill_store import SkillStore
from app.core.learning.transitions import TransitionStore
from app.core.paths import data_dir
from tests.e2e.conftest import ScriptedPerson
from tests.e2e.test_agent_tasks import WIFI_SCRIPT
from tests.e2e.test_map_navigation import WIFI_PAGE
from tests.e2e.test_replay import put_back
from tests.support.openai_server import act, click, json_reply

pytestmark = pytest.mark.asyncio

NO_SKILLS = {"use_skills": False}
STOP_HERE = [json_reply(act("", status="FAIL", thought="stop here"))]


def approve_because(words: str) -> Callable[[Proposal], ReviewAnswer]:
    """The person's answer to the first replayed step: it must say why it asks, then it is approved."""
    def answer(proposal: Proposal) -> ReviewAnswer:
        assert words in proposal.sensitive_reason, proposal.sensitive_reason
        return ReviewAnswer.approve()
    return answer


def told(outcome) -> list[str]:
    return [event.text for event in outcome.run.events.history if isinstance(event, Message)]


async def test_a_skill_used_with_new_values_asks_first_and_renames_no_other_row(run_agent, phone_server):
    """The attack: "Turn on Wi-Fi in Settings" reused for Bluetooth went ahead in auto mode, with "Bluetooth"
    put into the unrelated row "Network & internet, Mobile, Wi‑Fi, hotspot"."""
    phone = phone_server.devices[0].phone
    first = await run_agent("Turn on Wi-Fi in Settings", WIFI_SCRIPT, mode="auto")
    assert first.result.status == "success"
    skill = SkillStore().find("Turn on Wi-Fi in Settings").generalised({"item"})   # the person lets it take others
    SkillStore().save(skill, replace=True)
    assert skill.trigger == "Turn on {item} in Settings", skill.trigger
    put_back(phone)

    person = ScriptedPerson([approve_because("used with new values for the first time")])
    outcome = await run_agent("Turn on Bluetooth in Settings", STOP_HERE, person, mode="auto")
    assert len(person.shown) == 1 and person.shown[0].action.function == "launch_app"   # asked once, first
    assert "Mobile, Bluetooth" not in "\n".join(told(outcome))
    network_row = skill.script({"item": "Bluetooth"}).steps[1]
    assert network_row.target.name == "Network & internet, Mobile, Wi‑Fi, hotspot"
    assert "Bluetooth" not in network_row.action_text
    assert outcome.state["wifi"] is False, "the Wi-Fi switch was tapped for Bluetooth"
    assert SkillStore().find(skill.name).approved_runs == 0          # it handed over: no run of it succeeded


async def test_an_imported_skill_asks_before_its_first_step_until_a_person_approved_a_run(run_agent, phone_server,
                                                                                        tmp_path):
    """The attack: an imported skill with a broad trigger takes over requests in auto mode without asking."""
    phone = phone_server.devices[0].phone
    await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, mode="auto")
    store = SkillStore()
    shared = store.export("Turn on Wi-Fi", tmp_path / "shared.yaml")
    store.delete("Turn on Wi-Fi")
    store.import_file(shared)                          # as `agentdesk skills import` and the dialog do
    put_back(phone)

    person = ScriptedPerson([approve_because("was imported and has not been approved by you yet")])
    outcome = await run_agent("Turn on Wi-Fi", [], person, mode="auto")
    assert outcome.result.status == "success", outcome.result
    assert len(person.shown) == 1 and outcome.model.chat_requests == []
    skill = SkillStore().find("Turn on Wi-Fi")
    assert skill.imported and skill.approved_runs == 1
    assert "approved_runs: 1" in SkillStore().path_of("Turn on Wi-Fi").read_text(encoding="utf-8")

    put_back(phone)
    again = await run_agent("Turn on Wi-Fi", [], ScriptedPerson(), mode="auto")   # no review expected now
    assert again.result.status == "success" and again.state["wifi"] is True


async def test_an_edited_run_folders_replay_asks_before_its_first_step(run_agent, phone_server):
    """The attack: a run folder's steps.jsonl changed after the run, replayed in auto mode without asking."""
    phone = phone_server.devices[0].phone
    recorded = await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, mode="auto", request_options=NO_SKILLS)
    run_dir = recorded.result.run_dir
    put_back(phone)
    untouched = await run_agent("Turn on Wi-Fi", [], ScriptedPerson(), mode="auto", request_options={
        "replay": script_from_run(run_dir), "model_takes_over": False, **NO_SKILLS})
    assert untouched.result.status == "success"                   # this desk's own record: no review

    steps = Path(run_dir) / "steps.jsonl"                         # one letter of words changed, nothing else
    steps.write_bytes(steps.read_bytes().replace(b"Network & internet", b"Network & Internet", 1))
    put_back(phone)
    person = ScriptedPerson([approve_because("not as this desk recorded them")])
    outcome = await run_agent("Turn on Wi-Fi", [], person, mode="auto", request_options={
        "replay": script_from_run(run_dir), "model_takes_over": False, **NO_SKILLS})
    assert outcome.result.status == "success", outcome.result
    assert len(person.shown) == 1 and person.shown[0].step == 1


async def test_an_imported_maps_way_asks_before_its_first_step_until_a_run_here_took_it(run_agent, phone_server,
                                                                                      tmp_path):
    """The attack: a shared map's way walked in auto mode without asking."""
    phone = phone_server.devices[0].phone
    await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, mode="auto", request_options=NO_SKILLS)
    [kind] = TransitionStore().kinds()
    shared = export_map(kind, tmp_path / "map.zip")
    shutil.rmtree(data_dir() / "graph")                           # this desk knows only the shared map now
    import_map(shared)
    put_back(phone)

    script = [json_reply(act("go_to_screen", screen=WIFI_PAGE)), click("Use Wi-Fi"),
              json_reply(act("", status="FINISH", thought="Wi-Fi is on"))]
    person = ScriptedPerson([approve_because("came from an imported map")])
    outcome = await run_agent("Please enable wireless networking", script, person, mode="auto",
                              request_options=NO_SKILLS)
    assert outcome.result.status == "success", outcome.result
    assert len(person.shown) == 1 and person.shown[0].action.function == "launch_app"

    put_back(phone)                                               # the way was taken here: it is this map's own
    again = await run_agent("Please enable wireless networking", script, ScriptedPerson(), mode="auto",
                            request_options=NO_SKILLS)
    assert again.result.status == "success" and again.state["wifi"] is True


async def test_a_first_step_that_is_also_sensitive_is_asked_once(run_agent, phone_server, tmp_path):
    """An imported skill whose first step is sensitive too: one review, not a second one at its next step."""
    phone = phone_server.devices[0].phone
    await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, mode="auto")
    store = SkillStore()
    skill = store.find("Turn on Wi-Fi")
    skill.steps = skill.steps[1:]                          # it begins in Settings, on "Network & internet"
    store.save(skill)
    shared = store.export(skill.name, tmp_path / "shared.yaml")
    store.delete(skill.name)
    store.import_file(shared)
    put_back(phone)
    phone.launch("com.android.settings")

    person = ScriptedPerson([approve_because("Network")])
    outcome = await run_agent("Turn on Wi-Fi", [], person, mode="auto", sensitive_words=["network"])
    assert outcome.result.status == "success", outcome.result
    assert len(person.shown) == 1
    assert SkillStore().find(skill.name).approved_runs == 1
