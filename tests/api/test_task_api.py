"""The task API over real HTTP (httpx2 against uvicorn), with virtual phones and a scripted model.

The phone's own state decides whether a task was done; the queue's order is read from the
tasks' own times; every response body is kept and searched for the model's API key.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx2
import pytest

from tests.api.conftest import API_KEY, TOKEN
from tests.e2e.test_agent_tasks import WIFI_SCRIPT
from tests.e2e.test_drag import DRAG_SCRIPT
from tests.support.openai_server import act, click, delayed, json_reply

pytestmark = pytest.mark.asyncio


async def test_every_route_but_health_needs_the_token(make_desk):
    desk = await make_desk()
    async with httpx2.AsyncClient(base_url=desk.api.url) as anonymous:
        assert (await anonymous.get("/v1/health")).json()["name"] == "agentdesk"
        for method, path in (("GET", "/v1/tasks"), ("POST", "/v1/tasks"), ("GET", "/v1/devices"),
                             ("GET", f"/v1/devices/{desk.phone_ids[0]}/ui-tree"), ("GET", "/v1/tasks/x/events")):
            response = await anonymous.request(method, path, json={"ai_prompt": "x"})
            assert response.status_code == 401, (method, path)
            assert response.headers["www-authenticate"] == "Bearer"
            assert "token" in response.json()["error"]
        wrong = await anonymous.get("/v1/tasks", headers={"Authorization": f"Bearer {TOKEN[:-1]}x"})
        assert wrong.status_code == 401
        assert "access-control-allow-origin" not in {k.lower() for k in wrong.headers}
    assert desk.model.chat_requests == []


async def test_a_wifi_task_in_auto_mode_ends_success_with_its_actions_and_report(make_desk):
    desk = await make_desk(WIFI_SCRIPT)
    accepted = await desk.post_task("Turn on Wi-Fi", task_id="wifi-1", device_id="emulator-5554")
    assert accepted.status_code == 202, accepted.text
    assert accepted.json()["task_id"] == "wifi-1"
    result = await desk.wait_for("wifi-1")
    assert result["status"] == "success", result
    assert desk.phone().state()["wifi"] is True
    assert result["steps_taken"] == 5
    actions = result["actions_executed"]
    assert [a["action_type"] for a in actions] == ["launch_app", "click_control", "click_control", "click_control"]
    assert all(a["result"]["success"] for a in actions)
    assert actions[1]["element_id"] is not None and actions[0]["action_id"] == "wifi-1-1"
    assert result["report_url"] == f"{desk.api.url}/v1/tasks/wifi-1/report"      # on the API, not a file path
    assert result["run_dir"] and Path(result["run_dir"]).is_dir()
    page = await desk.http.get(result["report_url"])
    assert page.status_code == 200 and "Turn on Wi-Fi" in page.text
    assert any(run.request == "Turn on Wi-Fi" for run in desk.service.past())      # a run like any other
    listed = (await desk.http.get("/v1/tasks", params={"status": "success"})).json()["tasks"]
    assert [task["task_id"] for task in listed] == ["wifi-1"]
    assert listed[0]["report_url"] == result["report_url"]
    assert all(API_KEY not in body for body in desk.bodies)


async def test_a_step_mode_task_waits_for_decisions_posted_by_the_caller(make_desk):
    desk = await make_desk(WIFI_SCRIPT)
    task_id = (await desk.post_task("Turn on Wi-Fi", parameters={"mode": "step"})).json()["task_id"]
    decisions = 0
    while True:
        result = (await desk.http.get(f"/v1/tasks/{task_id}", params={"wait_seconds": 0})).json()
        if result["status"] in ("success", "failed", "timeout", "stopped"):
            break
        if result["status"] != "waiting_for_person":
            await asyncio.sleep(0.05)
            continue
        waiting = result["waiting_for"]
        assert waiting["kind"] == "review" and "approve" in waiting["decisions"]
        if decisions == 1:        # the second proposal: reject once, the model is told why
            desk.model.script.insert(0, click("Network & internet"))     # what the model proposes again
            answer = await desk.http.post(f"/v1/tasks/{task_id}/decision",
                                          json={"decision": "reject", "feedback": "tap Network & internet",
                                                "proposal_id": waiting["proposal_id"]})
        else:
            answer = await desk.http.post(f"/v1/tasks/{task_id}/decision",
                                          json={"decision": "approve", "proposal_id": waiting["proposal_id"]})
        assert answer.status_code == 200, answer.text
        decisions += 1
    assert result["status"] == "success", result
    assert desk.phone().state()["wifi"] is True
    assert decisions == 6
    assert any("tap Network & internet" in json.dumps(request.body) for request in desk.model.chat_requests)
    late = await desk.http.post(f"/v1/tasks/{task_id}/decision", json={"decision": "approve"})
    assert late.status_code == 409 and "ended" in late.json()["error"]


async def test_two_tasks_on_one_phone_run_one_after_the_other_and_on_two_phones_side_by_side(make_desk):
    slow = [delayed(0.4, reply) for reply in (json_reply(act("press_key", key_code="HOME")),
                                               json_reply(act("", status="FINISH")))]
    desk = await make_desk(slow * 4, phones=2)
    first, second = desk.phone_ids
    assert first != second and first.split("@")[0] == second.split("@")[0] == "emulator-5554"
    ambiguous = await desk.post_task("Go home", device_id="emulator-5554")
    assert ambiguous.status_code == 409 and ambiguous.json()["field"] == "device_id"

    a = (await desk.post_task("Go home", device_id=first)).json()
    b = (await desk.post_task("Go home again", device_id=first)).json()
    assert a["position"] == 0 and b["position"] == 1 and b["status"] == "queued"
    ra, rb = await desk.wait_for(a["task_id"]), await desk.wait_for(b["task_id"])
    assert ra["status"] == rb["status"] == "success"
    assert rb["created_at"] >= ra["created_at"] and _started(desk, b["task_id"]) >= _ended(desk, a["task_id"])

    c = (await desk.post_task("Go home", device_id=first)).json()
    d = (await desk.post_task("Go home", device_id=second)).json()
    rc, rd = await desk.wait_for(c["task_id"]), await desk.wait_for(d["task_id"])
    assert rc["status"] == rd["status"] == "success"
    assert _started(desk, d["task_id"]) < _ended(desk, c["task_id"])      # overlapped


def _started(desk, task_id: str) -> float:
    return next(e.at for e in desk.service.get(task_id).events.history if e.kind == "run_started")


def _ended(desk, task_id: str) -> float:
    return next(e.at for e in desk.service.get(task_id).events.history if e.kind == "run_finished")


async def test_a_task_over_its_time_ends_timeout(make_desk):
    desk = await make_desk([delayed(1.5, json_reply(act("press_key", key_code="HOME")))] * 3)
    task_id = (await desk.post_task("Go home", timeout_seconds=0.5)).json()["task_id"]
    result = await desk.wait_for(task_id)
    assert result["status"] == "timeout", result


async def test_a_decision_nobody_gives_ends_the_task_after_the_review_timeout(make_desk):
    desk = await make_desk(WIFI_SCRIPT)
    task_id = (await desk.post_task("Turn on Wi-Fi", parameters={"mode": "step", "review_timeout_seconds": 0.3})
               ).json()["task_id"]
    result = await desk.wait_for(task_id)
    assert result["status"] == "failed"
    assert "review timeout" in result["completion_reason"] and "0.3 seconds" in result["completion_reason"]
    assert desk.phone().state()["wifi"] is False


async def test_cancel_stops_a_task_and_a_queued_one_never_touches_the_phone(make_desk):
    desk = await make_desk([delayed(3, json_reply(act("press_key", key_code="HOME")))] * 2)
    running = (await desk.post_task("Go home")).json()["task_id"]
    queued = (await desk.post_task("Go home later")).json()["task_id"]
    stopped = (await desk.http.post(f"/v1/tasks/{queued}/cancel")).json()
    assert stopped["status"] == "stopped" and stopped["steps_taken"] == 0
    result = (await desk.http.post(f"/v1/tasks/{running}/cancel")).json()
    assert result["status"] == "stopped"


async def test_the_event_stream_starts_from_the_beginning_and_ends_with_the_run(make_desk):
    desk = await make_desk(WIFI_SCRIPT)
    task_id = (await desk.post_task("Turn on Wi-Fi")).json()["task_id"]
    await desk.wait_for(task_id)
    kinds, payloads = [], []
    async with desk.http.stream("GET", f"/v1/tasks/{task_id}/events") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        async for line in stream.aiter_lines():
            if line.startswith("event: "):
                kinds.append(line[7:])
            elif line.startswith("data: "):
                payloads.append(json.loads(line[6:]))
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished"
    assert kinds.count("step_started") == 5 and "action_executed" in kinds
    assert payloads[-1]["result"]["status"] == "success"
    assert not any(API_KEY in json.dumps(p) for p in payloads)


@pytest.mark.parametrize("body, status, field", [
    ({}, 422, "body.ai_prompt"),
    ({"ai_prompt": "   "}, 422, "body.ai_prompt"),
    ({"ai_prompt": "x", "parameters": {"mode": "sometimes"}}, 422, "body.parameters.mode"),
    ({"ai_prompt": "x", "max_steps": 0}, 422, "body.max_steps"),
    ({"ai_prompt": "x", "colour": "red"}, 422, "body.colour"),
    ({"ai_prompt": "x", "task_id": "no spaces please"}, 422, "body.task_id"),
    ({"ai_prompt": "x", "device_id": "nokia-3310"}, 404, "device_id"),
    ({"ai_prompt": "x", "parameters": {"base_url": "ftp://x"}}, 422, "body.parameters.base_url"),
    ({"ai_prompt": "x", "output": {"question": "q", "json_schema": {"type": "nonsense"}}}, 422,
     "output.json_schema"),
])
async def test_bad_task_bodies_get_a_4xx_naming_the_field(make_desk, body, status, field):
    desk = await make_desk()
    response = await desk.http.post("/v1/tasks", json=body)
    assert response.status_code == status, response.text
    assert response.json()["field"] == field
    assert "Traceback" not in response.text


async def test_broken_json_an_oversized_body_and_a_full_queue_are_refused_plainly(make_desk):
    desk = await make_desk([delayed(5, json_reply(act("press_key", key_code="HOME")))], max_queued_tasks=2,
                           max_body_kb=4)
    broken = await desk.http.post("/v1/tasks", content=b'{"ai_prompt": "x"',
                                  headers={"content-type": "application/json"})
    assert broken.status_code == 422 and broken.json()["field"].startswith("body")
    huge = await desk.http.post("/v1/tasks", json={"ai_prompt": "x" * 6000})
    assert huge.status_code == 413 and "KB" in huge.json()["error"]
    assert (await desk.post_task("one")).status_code == 202
    assert (await desk.post_task("two")).status_code == 202
    full = await desk.post_task("three")
    assert full.status_code == 429 and "try again" in full.json()["error"]
    taken = await desk.post_task("again", task_id=(await desk.http.get("/v1/tasks")).json()["tasks"][0]["task_id"])
    assert taken.status_code in (409, 429)
    for task in (await desk.http.get("/v1/tasks")).json()["tasks"]:
        await desk.http.post(f"/v1/tasks/{task['task_id']}/cancel")


async def test_decisions_that_do_not_fit_are_refused_naming_the_field(make_desk):
    desk = await make_desk(WIFI_SCRIPT)
    task_id = (await desk.post_task("Turn on Wi-Fi", parameters={"mode": "step"})).json()["task_id"]
    while (waiting := (await desk.http.get(f"/v1/tasks/{task_id}")).json())["status"] != "waiting_for_person":
        await asyncio.sleep(0.05)
    pending = waiting["waiting_for"]["proposal_id"]
    for body, field in (({"decision": "edit"}, "action"), ({"decision": "reject"}, "feedback"),
                        ({"decision": "maybe"}, "body.decision"),
                        ({"decision": "override", "action": {"function": "fly", "arguments": {}}}, "action"),
                        ({"decision": "answer"}, "answer"), ({"decision": "approve", "proposal_id": None},
                                                             "proposal_id")):
        response = await desk.http.post(f"/v1/tasks/{task_id}/decision", json={"proposal_id": pending, **body})
        assert response.status_code in (409, 422), (body, response.text)
        if response.status_code == 422:
            assert response.json()["field"] == field, body
    missing = await desk.http.post("/v1/tasks/no-such-task/decision", json={"decision": "approve"})
    assert missing.status_code == 404
    await desk.http.post(f"/v1/tasks/{task_id}/cancel")


async def test_a_task_can_ask_for_data_answered_from_the_final_screen(make_desk):
    schema = {"type": "object", "properties": {"wifi_on": {"type": "boolean"}}, "required": ["wifi_on"]}
    desk = await make_desk([*WIFI_SCRIPT, json_reply({"answer": {"wifi_on": "yes"}}),      # does not fit: asked again
                            json_reply({"answer": {"wifi_on": True}, "reason": "the switch is on"})])
    task_id = (await desk.post_task("Turn on Wi-Fi", output={"question": "Is Wi-Fi on?", "json_schema": schema})
               ).json()["task_id"]
    result = await desk.wait_for(task_id)
    assert result["status"] == "success"
    assert result["output"] == {"wifi_on": True} and result["output_error"] is None
    question = desk.model.chat_requests[-1].body
    assert "Is Wi-Fi on?" in json.dumps(question) and "wifi_on" in json.dumps(question)


async def test_devices_ui_tree_and_screenshot(make_desk):
    desk = await make_desk(phones=2)
    devices = (await desk.http.get("/v1/devices")).json()["devices"]
    assert {d["device_id"] for d in devices} == set(desk.phone_ids)
    assert all(d["serial"] == "emulator-5554" and d["state"] == "device" and d["ready"] for d in devices)
    phone = desk.phone_ids[0]
    tree = (await desk.http.get(f"/v1/devices/{phone}/ui-tree")).json()
    assert tree["device_id"] == phone and tree["elements"] and tree["screen_id"]
    first = tree["elements"][0]
    assert {"element_id", "text", "bounds", "type", "state"} <= set(first)
    again = (await desk.http.get(f"/v1/devices/{phone}/ui-tree")).json()
    assert again["from_cache"] is True and again["screen_id"] == tree["screen_id"]
    png = await desk.http.get(f"/v1/devices/{phone}/screenshot", params={"ids": "true"})
    assert png.status_code == 200 and png.content.startswith(b"\x89PNG")
    unknown = await desk.http.get("/v1/devices/nokia@127.0.0.1:1/ui-tree")
    assert unknown.status_code == 404 and unknown.json()["field"] == "device_id"


async def test_the_openapi_schema_and_docs_are_served(make_desk):
    desk = await make_desk()
    schema = (await desk.http.get("/openapi.json")).json()
    assert {"/v1/tasks", "/v1/tasks/{task_id}", "/v1/tasks/{task_id}/events", "/v1/tasks/{task_id}/decision",
            "/v1/tasks/{task_id}/cancel", "/v1/devices", "/v1/devices/{device_id}/ui-tree",
            "/v1/devices/{device_id}/screenshot"} <= set(schema["paths"])
    assert "MobileTaskRequest" in schema["components"]["schemas"]
    assert (await desk.http.get("/docs")).status_code == 200


@pytest.mark.parametrize("confirm", [True, False])
async def test_sensitive_actions_in_auto_mode_wait_for_a_person_unless_the_task_says_not_to(make_desk, confirm):
    """Where the desk lets programs approve sensitive actions (see test_decision_binding.py for the default)."""
    desk = await make_desk(WIFI_SCRIPT, agent={"sensitive_words": ["network"]}, programs_may_approve_sensitive=True)
    task_id = (await desk.post_task("Turn on Wi-Fi", parameters={"confirm_sensitive": confirm})).json()["task_id"]
    waited = []
    while True:
        result = (await desk.http.get(f"/v1/tasks/{task_id}", params={"wait_seconds": 0.2})).json()
        if result["status"] == "waiting_for_person":
            waited.append(result["waiting_for"])
            await desk.http.post(f"/v1/tasks/{task_id}/decision",
                                 json={"decision": "approve", "proposal_id": result["waiting_for"]["proposal_id"]})
        elif result["status"] not in ("queued", "running"):
            break
    assert result["status"] == "success" and desk.phone().state()["wifi"] is True
    if confirm:
        assert len(waited) == 1 and "network" in waited[0]["sensitive_reason"].lower()
    else:
        assert waited == []
    assert [a["decision"] for a in result["actions_executed"]][1] == "approve"


async def test_a_repeated_task_replays_its_skill_unless_the_task_says_not_to(make_desk):
    desk = await make_desk(WIFI_SCRIPT + WIFI_SCRIPT)
    first = (await desk.post_task("Turn on Wi-Fi")).json()["task_id"]
    assert (await desk.wait_for(first))["status"] == "success"
    calls = len(desk.model.chat_requests)
    phone = desk.phone()
    phone.set_setting_flag("global", "wifi_on", False)
    phone.force_stop("com.android.settings")
    phone.go_home()
    again = (await desk.post_task("Turn on Wi-Fi")).json()["task_id"]
    result = await desk.wait_for(again)
    assert result["status"] == "success" and phone.state()["wifi"] is True
    assert len(desk.model.chat_requests) == calls, "the saved skill replays without the model"
    phone.set_setting_flag("global", "wifi_on", False)
    phone.force_stop("com.android.settings")
    phone.go_home()
    fresh = (await desk.post_task("Turn on Wi-Fi", parameters={"use_skills": False})).json()["task_id"]
    assert (await desk.wait_for(fresh))["status"] == "success"
    assert len(desk.model.chat_requests) > calls


async def test_a_drag_task_reports_the_control_it_picked_up(make_desk):
    desk = await make_desk(DRAG_SCRIPT)
    accepted = await desk.post_task("Turn the brightness up", task_id="drag-1", device_id="emulator-5554")
    assert accepted.status_code == 202, accepted.text
    result = await desk.wait_for("drag-1")
    assert result["status"] == "success", result
    assert desk.phone().state()["brightness"] > 200
    dragged = result["actions_executed"][2]
    assert dragged["action_type"] == "drag" and dragged["result"]["success"]
    assert dragged["element_id"] == dragged["arguments"]["from_control_id"]
    assert dragged["description"].startswith("Drag “Brightness level”")
