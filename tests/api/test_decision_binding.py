"""Decisions over the task API name what they decide (issue 25 §2), and a program cannot approve what only a
person may (§6): over real HTTP, with a virtual phone and a scripted model."""

from __future__ import annotations

import asyncio

import pytest

from app.core.agent.supervisor import ReviewAnswer
from tests.e2e.test_agent_tasks import WIFI_SCRIPT
from tests.support.openai_server import act, json_reply

pytestmark = pytest.mark.asyncio

SENSITIVE = {"sensitive_words": ["network"]}      # the Settings row "Network & internet" needs a person


async def waiting_for(desk, task_id: str, step: int | None = None) -> dict:
    """The task's result once it waits for a person (at `step`, when given)."""
    for _ in range(600):
        result = (await desk.http.get(f"/v1/tasks/{task_id}", params={"wait_seconds": 0})).json()
        pending = result["waiting_for"]
        if result["status"] == "waiting_for_person" and pending and (step is None or pending["step"] == step):
            return result
        assert result["status"] in ("queued", "running", "waiting_for_person"), result
        await asyncio.sleep(0.05)
    raise AssertionError(f"task {task_id} never waited for a person at step {step}: {result}")


async def decide(desk, task_id: str, **body):
    return await desk.http.post(f"/v1/tasks/{task_id}/decision", json=body)


async def test_an_approval_resent_after_step_2_is_waiting_gets_409_and_step_2_still_waits(make_desk):
    desk = await make_desk(WIFI_SCRIPT)
    task_id = (await desk.post_task("Turn on Wi-Fi", parameters={"mode": "step"})).json()["task_id"]
    first = (await waiting_for(desk, task_id, step=1))["waiting_for"]
    unnamed = await decide(desk, task_id, decision="approve")
    assert unnamed.status_code == 422 and unnamed.json()["field"] == "proposal_id"
    approve_step_1 = {"decision": "approve", "proposal_id": first["proposal_id"]}
    assert (await decide(desk, task_id, **approve_step_1)).status_code == 200

    second = (await waiting_for(desk, task_id, step=2))["waiting_for"]
    assert second["proposal_id"] != first["proposal_id"]
    retry = await decide(desk, task_id, **approve_step_1)          # a client's retry, a second supervisor
    assert retry.status_code == 409 and "already decided" in retry.json()["error"]
    made_up = await decide(desk, task_id, decision="approve", proposal_id="step2-000000000000")
    assert made_up.status_code == 409 and "nothing was done" in made_up.json()["error"]

    after = (await desk.http.get(f"/v1/tasks/{task_id}")).json()
    assert after["status"] == "waiting_for_person" and after["waiting_for"]["proposal_id"] == second["proposal_id"]
    assert [a["action_type"] for a in after["actions_executed"]] == ["launch_app"]    # step 2 never ran
    answered = [event for event in desk.service.get(task_id).events.history if event.kind == "review_answered"]
    assert [(event.step, event.by) for event in answered] == [(1, "a program through the task API")]
    await desk.http.post(f"/v1/tasks/{task_id}/cancel")


async def test_a_program_cannot_approve_a_sensitive_step_the_person_in_the_window_can(make_desk):
    desk = await make_desk(WIFI_SCRIPT, agent=SENSITIVE)
    task_id = (await desk.post_task("Turn on Wi-Fi")).json()["task_id"]          # auto mode
    pending = (await waiting_for(desk, task_id))["waiting_for"]
    assert "network" in pending["sensitive_reason"].lower()
    assert pending["needs_person"] is True and pending["decisions"] == ["reject", "stop"]
    for body in ({"decision": "approve"},
                 {"decision": "edit", "action": pending["action"]},
                 {"decision": "override", "action": {"function": "press_key", "arguments": {"key_code": "BACK"}}}):
        refused = await decide(desk, task_id, proposal_id=pending["proposal_id"], **body)
        assert refused.status_code == 403, (body, refused.text)
        assert "a person must decide it" in refused.json()["error"], refused.text
        assert "Programs may approve sensitive actions" in refused.json()["error"]
    still = (await desk.http.get(f"/v1/tasks/{task_id}")).json()
    assert still["status"] == "waiting_for_person" and still["waiting_for"]["proposal_id"] == pending["proposal_id"]
    assert desk.phone().state()["wifi"] is False

    desk.service.get(task_id).answer(pending["proposal_id"], ReviewAnswer.approve())     # the person decides
    result = await desk.wait_for(task_id)
    assert result["status"] == "success" and desk.phone().state()["wifi"] is True
    network = next(a for a in result["actions_executed"] if a["step"] == pending["step"])
    assert network["decision"] == "approve"


async def test_a_program_cannot_override_a_step_into_a_sensitive_action(make_desk):
    desk = await make_desk(WIFI_SCRIPT, agent=SENSITIVE)
    task_id = (await desk.post_task("Turn on Wi-Fi", parameters={"mode": "step"})).json()["task_id"]
    first = (await waiting_for(desk, task_id, step=1))["waiting_for"]
    desk.model.script.insert(0, json_reply(act("press_key", key_code="HOME")))      # step 2: nothing sensitive
    assert (await decide(desk, task_id, decision="approve", proposal_id=first["proposal_id"])).status_code == 200
    second = (await waiting_for(desk, task_id, step=2))["waiting_for"]
    assert second["needs_person"] is False and second["action"]["function"] == "press_key"
    tree = (await desk.http.get(f"/v1/devices/{desk.phone_ids[0]}/ui-tree")).json()
    network = next(e for e in tree["elements"] if e["name"].startswith("Network & internet"))
    box = network["bounds"]
    by_id = {"function": "click_control", "arguments": {"control_id": network["element_id"]}}
    by_point = {"function": "tap", "arguments": {"x": (box["left"] + box["right"]) // 2,
                                                  "y": (box["top"] + box["bottom"]) // 2}}
    for kind, sensitive in (("override", by_id), ("edit", by_id), ("override", by_point)):
        refused = await decide(desk, task_id, decision=kind, action=sensitive, proposal_id=second["proposal_id"])
        assert refused.status_code == 403 and refused.json()["field"] == "action", refused.text
        assert "network" in refused.json()["error"].lower()
    still = (await desk.http.get(f"/v1/tasks/{task_id}")).json()
    assert still["waiting_for"]["proposal_id"] == second["proposal_id"]
    harmless = {"function": "press_key", "arguments": {"key_code": "BACK"}}
    allowed = await decide(desk, task_id, decision="override", action=harmless, proposal_id=second["proposal_id"])
    assert allowed.status_code == 200, allowed.text
    await desk.http.post(f"/v1/tasks/{task_id}/cancel")


async def test_a_task_that_would_take_sensitive_actions_without_asking_is_refused_unless_the_desk_allows(make_desk):
    desk = await make_desk(WIFI_SCRIPT)
    refused = await desk.post_task("Turn on Wi-Fi", parameters={"confirm_sensitive": False})
    assert refused.status_code == 403 and refused.json()["field"] == "parameters.confirm_sensitive"
    assert "Programs may approve sensitive actions" in refused.json()["error"]
    assert (await desk.http.get("/v1/tasks")).json()["tasks"] == [] and desk.model.chat_requests == []


async def test_actions_executed_lists_only_actions_that_ran(make_desk):
    desk = await make_desk(WIFI_SCRIPT, agent=SENSITIVE)
    task_id = (await desk.post_task("Turn on Wi-Fi")).json()["task_id"]
    pending = (await waiting_for(desk, task_id))["waiting_for"]
    stopped = await decide(desk, task_id, decision="stop", proposal_id=pending["proposal_id"])
    assert stopped.status_code == 200, stopped.text
    result = await desk.wait_for(task_id)
    assert result["status"] == "stopped"
    assert [(a["action_type"], a["decision"]) for a in result["actions_executed"]] == [("launch_app", "auto")]
    assert all(a["result"] is not None for a in result["actions_executed"])


async def test_over_mcp_a_resent_approval_is_refused_and_a_sensitive_step_waits_for_the_person(make_desk, agent_home):
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    from tests.api.conftest import TOKEN
    from tests.api.test_mcp_server import mcp_command, structured

    await make_desk(WIFI_SCRIPT, announce=True, agent=SENSITIVE)
    with open(agent_home.parent / "mcp-stderr.txt", "w") as errlog:
        async with stdio_client(mcp_command(AGENTDESK_API_TOKEN=TOKEN), errlog=errlog) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            task_id = structured(await session.call_tool("start_task", {"ai_prompt": "Turn on Wi-Fi",
                                                                        "mode": "step"}))["task_id"]

            async def waiting_at(step: int) -> dict:
                for _ in range(100):
                    task = structured(await session.call_tool("get_task", {"task_id": task_id, "wait_seconds": 0.2}))
                    if task["status"] == "waiting_for_person" and task["waiting_for"]["step"] == step:
                        return task["waiting_for"]
                raise AssertionError(f"never waited at step {step}: {task}")

            first = await waiting_at(1)
            approve_step_1 = {"task_id": task_id, "decision": "approve", "proposal_id": first["proposal_id"]}
            structured(await session.call_tool("decide_task", approve_step_1))
            second = await waiting_at(2)
            retry = await session.call_tool("decide_task", approve_step_1)
            assert retry.is_error and "already decided" in retry.content[0].text and "409" in retry.content[0].text
            own = await session.call_tool("decide_task", {"task_id": task_id, "decision": "approve",
                                                          "proposal_id": second["proposal_id"]})
            assert own.is_error and "403" in own.content[0].text and "a person must decide" in own.content[0].text
            still = structured(await session.call_tool("get_task", {"task_id": task_id}))
            assert still["status"] == "waiting_for_person"
            assert still["waiting_for"]["proposal_id"] == second["proposal_id"]
            assert [a["action_type"] for a in still["actions_executed"]] == ["launch_app"]
            structured(await session.call_tool("cancel_task", {"task_id": task_id}))
