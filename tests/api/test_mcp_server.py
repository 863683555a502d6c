"""`agentdesk mcp` over stdio, driven by the official MCP client: on its own (no desk running) and as a
thin client of a running desk, whose person then decides."""

from __future__ import annotations

import json
import os
import sys

import keyring
import pytest
from keyring.backends import fail
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from app.api.token import TOKEN_VARIABLE
from app.core import paths
from tests.api.conftest import TOKEN
from tests.api.test_token_file import NO_KEYRING
from tests.conftest import REPO_ROOT
from tests.e2e.test_agent_tasks import WIFI_SCRIPT
from tests.support.openai_server import FakeOpenAIServer

pytestmark = pytest.mark.asyncio


def mcp_command(*args: str, **env: str) -> StdioServerParameters:
    environment = {key: os.environ[key] for key in ("AGENTDESK_HOME", "PATH", "PYTHONPATH") if key in os.environ}
    environment.update(env)
    environment.pop("ANDROID_ADB_SERVER_PORT", None)
    return StdioServerParameters(command=sys.executable, args=["-m", "app.cli", "mcp", *args],
                                 env=environment, cwd=str(REPO_ROOT))


def structured(result) -> dict:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return result.structured_content.get("result", result.structured_content)
    return json.loads(result.content[0].text)


async def test_mcp_on_its_own_runs_a_task_with_progress_and_shows_the_phone(agent_home):
    with FakeOpenAIServer(WIFI_SCRIPT) as model:
        params = mcp_command("--own", "--virtual", "--base-url", model.base_url, "--model", "gpt-4o")
        progress: list[tuple[float, str]] = []

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress.append((done, message or ""))

        with open(agent_home.parent / "mcp-stderr.txt", "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                hello = await session.initialize()
                assert "desk of its own" in hello.instructions and "--own" in hello.instructions
                tools = {tool.name for tool in (await session.list_tools()).tools}
                assert {"run_task", "start_task", "get_task", "cancel_task", "decide_task", "list_devices",
                        "get_ui_tree", "take_screenshot"} <= tools
                listing = structured(await session.call_tool("list_devices", {}))
                assert "desk of its own" in listing["notice"]            # told in every result, not only on stderr
                devices = listing["devices"]
                assert len(devices) == 1 and devices[0]["virtual"] and devices[0]["ready"]
                phone = devices[0]["device_id"]
                tree = structured(await session.call_tool("get_ui_tree", {"device_id": phone}))
                assert tree["elements"] and tree["device_id"] == phone
                shot = await session.call_tool("take_screenshot", {"device_id": phone, "draw_ids": True})
                assert shot.content[0].type == "image" and shot.content[0].mime_type == "image/png"
                assert "desk of its own" in shot.content[1].text
                result = structured(await session.call_tool("run_task", {"ai_prompt": "Turn on Wi-Fi"},
                                                            progress_callback=on_progress))
                assert result["status"] == "success", result
                assert [a["action_type"] for a in result["actions_executed"]][:1] == ["launch_app"]
                assert progress and progress[-1][0] == 5 and "success" in progress[-1][1]
                # nobody to ask: a step-mode task ends failed, saying so, instead of waiting forever
                model.add(*WIFI_SCRIPT)
                stuck = structured(await session.call_tool("run_task", {"ai_prompt": "Turn on Wi-Fi",
                                                                        "mode": "step"}))
                assert stuck["status"] == "failed" and "nobody to ask" in stuck["completion_reason"]
                bad = await session.call_tool("get_task", {"task_id": "nope"})
                assert bad.is_error and "no task" in bad.content[0].text and "desk of its own" in bad.content[0].text


async def test_mcp_is_a_thin_client_of_a_running_desk_whose_person_decides(make_desk, agent_home):
    desk = await make_desk(WIFI_SCRIPT, announce=True)
    params = mcp_command(AGENTDESK_API_TOKEN=TOKEN)
    with open(agent_home.parent / "mcp-stderr.txt", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            started = structured(await session.call_tool("start_task", {"ai_prompt": "Turn on Wi-Fi",
                                                                        "mode": "step"}))
            task_id = started["task_id"]
            assert desk.service.get(task_id) is not None          # the desk's own run: its window shows it
            waiting = structured(await session.call_tool("get_task", {"task_id": task_id, "wait_seconds": 0}))
            for _ in range(100):
                if waiting["status"] == "waiting_for_person":
                    break
                waiting = structured(await session.call_tool("get_task", {"task_id": task_id, "wait_seconds": 0.2}))
            assert waiting["status"] == "waiting_for_person" and waiting["waiting_for"]["kind"] == "review"
            desk.api.board.decide(task_id, _approve(waiting["waiting_for"]["proposal_id"]))
            stopped = structured(await session.call_tool("cancel_task", {"task_id": task_id}))
            assert stopped["status"] == "stopped"
    errors = (agent_home.parent / "mcp-stderr.txt").read_text()
    assert "using the desk at" in errors and TOKEN not in errors


def _approve(proposal_id: str):
    from app.api.schemas import DecisionRequest

    return DecisionRequest(decision="approve", proposal_id=proposal_id)


async def test_the_windows_token_works_from_mcp_with_no_keyring_and_no_variable(make_desk, agent_home):
    keyring.set_keyring(fail.Keyring())             # this process has no keyring (the fixture puts its own back)
    desk = await make_desk(WIFI_SCRIPT, announce=True, token=None)      # its token found or made as the window's
    assert desk.api.token.kind == "file"
    params = mcp_command(PYTHON_KEYRING_BACKEND=NO_KEYRING)             # only the same folder: no token variable
    assert TOKEN_VARIABLE not in params.env and desk.api.token.value not in str(params.env)
    with open(agent_home.parent / "mcp-stderr.txt", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            hello = await session.initialize()
            assert "desk of its own" not in hello.instructions
            started = structured(await session.call_tool("start_task", {"ai_prompt": "Turn on Wi-Fi",
                                                                        "mode": "step"}))
            assert desk.service.get(started["task_id"]) is not None and "notice" not in started  # the desk's run
            stopped = structured(await session.call_tool("cancel_task", {"task_id": started["task_id"]}))
            assert stopped["status"] == "stopped"
    errors = (agent_home.parent / "mcp-stderr.txt").read_text()
    assert "using the desk at" in errors and desk.api.token.value not in errors


async def test_mcp_says_in_its_initialize_reply_why_it_runs_its_own_desk(make_desk, agent_home):
    await make_desk(announce=True)                  # a desk runs, with a token this MCP server does not have
    mine = paths.api_token_path()
    mine.write_text("a-token-the-desk-does-not-accept-0123\n")
    mine.chmod(0o600)
    params = mcp_command("--virtual", PYTHON_KEYRING_BACKEND=NO_KEYRING)
    with open(agent_home.parent / "mcp-stderr.txt", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            hello = await session.initialize()
            assert "desk of its own" in hello.instructions and "refused the token" in hello.instructions
            assert "Nobody can approve" in hello.instructions
            listing = structured(await session.call_tool("list_devices", {}))
            assert "refused the token" in listing["notice"] and [d["virtual"] for d in listing["devices"]] == [True]
    assert "a-token-the-desk" not in (agent_home.parent / "mcp-stderr.txt").read_text()
