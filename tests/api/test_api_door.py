"""The API's door: the queue cap under simultaneous requests, schemas too deep to check, ids that are paths,
Host headers of other names, /docs without another host's script, and the token's rotation."""

from __future__ import annotations

import asyncio
import logging
import re

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from app.api.mcp_server import DeskClient, build_server
from app.api.token import TOKEN_VARIABLE, ApiToken, api_token, rotate_api_token
from app.core.secrets import SecretStore
from tests.api.conftest import TOKEN


@pytest.mark.asyncio
async def test_simultaneous_posts_never_pass_the_queue_cap(make_desk):
    desk = await make_desk(max_queued_tasks=3)
    answers = await asyncio.gather(*(desk.post_task(f"Task {n}", parameters={"mode": "step"}) for n in range(24)))
    statuses = [answer.status_code for answer in answers]
    assert statuses.count(202) == 3, statuses
    assert set(statuses) == {202, 429}
    assert all("the most it takes is 3" in answer.json()["error"] for answer in answers if answer.status_code == 429)


@pytest.mark.asyncio
async def test_a_json_schema_nested_too_deep_is_422_naming_the_field_and_logs_one_line(make_desk, caplog):
    desk = await make_desk()
    depth = 300                 # jsonschema's checker exhausted the stack on this: HTTP 500 and a long traceback
    schema = '{"properties":{"a":' * depth + '{}' + '}}' * depth
    body = '{"ai_prompt":"What is the battery level?","output":{"question":"Level?","json_schema":' + schema + '}}'
    caplog.set_level(logging.INFO, logger="app.api")
    answer = await desk.http.post("/v1/tasks", content=body, headers={"Content-Type": "application/json"})
    assert answer.status_code == 422, answer.text
    assert answer.json()["field"] == "output.json_schema"
    assert "nested more than 32 deep" in answer.json()["error"]
    records = [record for record in caplog.records if record.name.startswith("app.api")]
    assert len(records) == 1 and records[0].exc_info is None and "\n" not in records[0].getMessage()
    too_big = {"type": "object", "properties": {f"p{n}": {"type": "string"} for n in range(1500)}}
    answer = await desk.post_task("Read it", output={"question": "Which?", "json_schema": too_big})
    assert answer.status_code == 422 and answer.json()["field"] == "output.json_schema", answer.text


@pytest.mark.asyncio
async def test_json_nested_past_what_python_reads_is_refused_with_a_sentence(make_desk, caplog):
    desk = await make_desk()
    caplog.set_level(logging.INFO, logger="app.api")
    body = '{"ai_prompt":"x","output":' + '[' * 5000 + ']' * 5000 + '}'
    answer = await desk.http.post("/v1/tasks", content=body, headers={"Content-Type": "application/json"})
    assert answer.status_code in (400, 422) and "nested too deeply" in answer.json()["error"], answer.text
    assert not any(record.exc_info for record in caplog.records)


@pytest.mark.asyncio
async def test_docs_have_no_script_or_style_from_another_host(make_desk):
    desk = await make_desk()
    page = await desk.http.get("/docs")
    assert page.status_code == 200 and "/v1/tasks/{task_id}/decision" in page.text
    assert "<script" not in page.text.lower()
    for path in ("/docs", "/redoc"):
        text = (await desk.http.get(path)).text
        assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text, re.IGNORECASE), (path, text[:500])
    assert (await desk.http.get("/openapi.json")).json()["info"]["title"] == "Agent Desk task API"


@pytest.mark.asyncio
async def test_ids_with_a_slash_or_dots_are_refused_over_http_and_mcp(make_desk):
    desk = await make_desk()
    for path in ("/v1/tasks/..%2Fdevices", "/v1/tasks/a..b/cancel", "/v1/devices/..%5Cx/ui-tree"):
        answer = await desk.http.request("POST" if path.endswith("cancel") else "GET", path)
        assert answer.status_code in (404, 422), (path, answer.text)
        assert '"devices"' not in answer.text
    answer = await desk.http.get("/v1/tasks/a..b")
    assert answer.status_code == 422 and answer.json()["field"] == "path.task_id", answer.text
    client = DeskClient(desk.api.url, TOKEN, where="the test's desk")
    try:
        server = build_server(client)
        for tool, arguments in (("get_task", {"task_id": "../devices"}), ("cancel_task", {"task_id": "../../v1/x"}),
                                ("get_ui_tree", {"device_id": "../../tasks"})):
            with pytest.raises(ToolError, match="contains"):
                await server.call_tool(tool, arguments)
    finally:
        await client.close()


@pytest.mark.asyncio
async def test_a_request_for_another_host_name_is_refused(make_desk):
    """DNS rebinding: a web page points a name it owns at 127.0.0.1; the browser sends that name as Host."""
    desk = await make_desk()
    port = desk.api.server.port
    answer = await desk.http.get("/v1/devices", headers={"Host": f"attacker.example:{port}"})
    assert answer.status_code == 421, answer.text
    assert "attacker.example" in answer.json()["error"] and "devices" not in answer.json()
    for name in (f"localhost:{port}", f"127.0.0.1:{port}", "[::1]", "LOCALHOST"):
        assert (await desk.http.get("/v1/devices", headers={"Host": name})).status_code == 200, name


@pytest.mark.asyncio
async def test_a_rotated_token_replaces_the_old_one(make_desk, agent_home):
    store = SecretStore("AgentDesk API door test")
    old = api_token({}, store)
    new = rotate_api_token({}, store)
    assert new.value != old.value and api_token({}, store).value == new.value
    with pytest.raises(Exception, match="environment variable"):
        rotate_api_token({TOKEN_VARIABLE: "a-token-from-the-environment-0123"}, store)
    desk = await make_desk()
    assert (await desk.http.get("/v1/devices")).status_code == 200
    desk.api.use_token(ApiToken(new.value, "the keyring", True))
    assert (await desk.http.get("/v1/devices")).status_code == 401            # the old token, at once
    fresh = await desk.http.get("/v1/devices", headers={"Authorization": f"Bearer {new.value}"})
    assert fresh.status_code == 200
