"""A task's report over the API (its `report_url`, with the token, never another file), and `GET /v1/tasks`'s
filters as docs/api.md writes them (`?status=&device_id=`)."""

from __future__ import annotations

import os

import httpx2
import pytest

from tests.support.openai_server import act, json_reply

pytestmark = pytest.mark.asyncio


async def two_ended_tasks(desk) -> tuple[dict, dict]:
    desk.model.add(json_reply(act("press_key", key_code="HOME")), json_reply(act("press_key", key_code="HOME")))
    first = (await desk.post_task("Go home, first", task_id="first", max_steps=1)).json()["task_id"]
    first_result = await desk.wait_for(first)
    second = (await desk.post_task("Go home, second", task_id="second", max_steps=1)).json()["task_id"]
    return first_result, await desk.wait_for(second)


async def test_the_report_is_served_from_the_runs_own_folder_only_and_only_with_the_token(make_desk):
    desk = await make_desk()
    first, second = await two_ended_tasks(desk)
    assert first["report_url"] == f"{desk.api.url}/v1/tasks/first/report"
    page = await desk.http.get(first["report_url"])
    assert page.status_code == 200 and "Go home, first" in page.text
    async with httpx2.AsyncClient() as stranger:                               # the same URL without the token
        assert (await stranger.get(first["report_url"])).status_code == 401
        wrong = await stranger.get(first["report_url"], headers={"Authorization": "Bearer not-the-token-0123456"})
        assert wrong.status_code == 401 and "Go home" not in wrong.text
    assert (await desk.http.get("/v1/tasks/..%2Fsecond/report")).status_code in (404, 422)

    handle = desk.service.get("first")
    own = handle.result.report_path
    other_run = desk.service.get("second").result.report_path
    outside = os.path.join(handle.run_dir, "..", "..", "report.html")
    for named in (other_run, outside, os.path.join(handle.run_dir, "..", "second", "report.html")):
        handle.result.report_path = named                   # a run whose record names another file
        refused = await desk.http.get("/v1/tasks/first/report")
        assert refused.status_code == 404 and "Go home, second" not in refused.text, named
    handle.result.report_path = own
    os.replace(own, own + ".kept")
    os.symlink(other_run, own)                              # its report.html a link to another run's report
    refused = await desk.http.get("/v1/tasks/first/report")
    assert refused.status_code == 404 and "Go home, second" not in refused.text
    os.remove(own)
    os.replace(own + ".kept", own)
    assert (await desk.http.get("/v1/tasks/first/report")).status_code == 200


async def test_the_list_filters_work_as_documented(make_desk):
    desk = await make_desk()
    first, second = await two_ended_tasks(desk)
    assert first["status"] == second["status"] == "failed"

    async def listed(query: str) -> list[str]:
        answer = await desk.http.get(f"/v1/tasks?{query}")
        assert answer.status_code == 200, (query, answer.text)
        return [task["task_id"] for task in answer.json()["tasks"]]

    assert await listed("status=&device_id=") == ["first", "second"]        # empty: no filter
    assert await listed("status=") == ["first", "second"]
    assert await listed("status=failed") == ["first", "second"]
    assert await listed("status=running") == []
    assert await listed("status=success,failed") == ["first", "second"]
    assert await listed("device_id=emulator-5554") == ["first", "second"]
    assert await listed("device_id=emulator-9999") == []
    wrong = await desk.http.get("/v1/tasks?status=done")
    assert wrong.status_code == 422 and wrong.json()["field"] == "query.status"
    assert "waiting_for_person" in wrong.json()["error"]
