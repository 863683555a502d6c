"""docs/api.md as a user reads it: its Python example runs as written in the project's own environment against
a desk (the token found the way the docs say, with no variable and no keyring), its MCP configuration is valid
JSON, and no 'seed' (a design document's name) is in anything a user reads about the API."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys

import keyring
import pytest
from keyring.backends import fail

from app.api.mcp_server import DeskClient, build_server
from tests.api.test_token_file import NO_KEYRING
from tests.conftest import REPO_ROOT
from tests.e2e.test_agent_tasks import WIFI_SCRIPT
from tests.support.openai_server import json_reply

DOCS = REPO_ROOT / "docs" / "api.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.DOTALL)


@pytest.mark.asyncio
async def test_the_python_example_runs_as_written_finding_the_token_as_the_docs_say(make_desk, agent_home, tmp_path):
    keyring.set_keyring(fail.Keyring())             # the desk finds or makes its token as a keyring-less window's
    desk = await make_desk([*WIFI_SCRIPT, json_reply({"answer": {"on": True}, "reason": "the switch is on"})],
                           announce=True, token=None)
    (example,) = blocks("python")
    commands = tmp_path / "bin"                     # `agentdesk` on PATH: this checkout's command line
    commands.mkdir()
    (commands / "agentdesk").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m app.cli "$@"\n')
    (commands / "agentdesk").chmod(0o755)
    env = {"PATH": f"{commands}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(REPO_ROOT),
           "AGENTDESK_HOME": os.environ["AGENTDESK_HOME"], "PYTHON_KEYRING_BACKEND": NO_KEYRING,
           "AGENTDESK_URL": desk.api.url}
    process = await asyncio.create_subprocess_exec(sys.executable, "-c", example, cwd=tmp_path, env=env,
                                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    lines = out.decode().splitlines()
    assert lines[0].startswith("success ") and lines[0].endswith("{'on': True}"), lines
    assert lines[1] == f"report: {desk.api.url}/v1/tasks/{desk.service.handles()[0].id}/report"
    report = await desk.http.get(lines[1].removeprefix("report: "))
    assert report.status_code == 200 and "Turn on Wi-Fi" in report.text
    assert desk.api.token.value not in out.decode() + err.decode()


def test_the_mcp_configuration_is_json_that_needs_no_token_variable():
    (config,) = blocks("json")
    server = json.loads(config)["mcpServers"]["agentdesk"]
    assert server == {"command": "agentdesk", "args": ["mcp"]}


@pytest.mark.asyncio
async def test_nothing_a_user_reads_about_the_api_says_seed(make_desk):
    desk = await make_desk()
    said = [DOCS.read_text(encoding="utf-8"), (await desk.http.get("/openapi.json")).text,
            (await desk.http.get("/docs")).text]
    client = DeskClient(desk.api.url, "unused-token-0123456789", where="test")
    try:
        server = build_server(client)
        said.append(server.instructions or "")
        said.extend(json.dumps(tool.model_dump(mode="json")) for tool in await server.list_tools())
    finally:
        await client.close()
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    for command in (["serve"], ["api"], ["api", "token"], ["mcp"]):
        shown = subprocess.run([sys.executable, "-m", "app.cli", *command, "--help"], cwd=REPO_ROOT, env=env,
                               capture_output=True, text=True, timeout=60)
        assert shown.returncode == 0, shown.stderr
        said.append(shown.stdout)
    top = subprocess.run([sys.executable, "-m", "app.cli", "--help"], cwd=REPO_ROOT, env=env, capture_output=True,
                         text=True, timeout=60).stdout
    said.extend(line for line in top.splitlines() if re.match(r"\s+(serve|api|mcp)\s", line))
    for text in said:
        assert not re.search(r"\bseed\b", text, re.IGNORECASE), re.search(r".{60}\bseed\b.{60}", text,
                                                                           re.IGNORECASE | re.DOTALL)
