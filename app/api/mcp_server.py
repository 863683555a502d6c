"""`agentdesk mcp`: the task API's operations as MCP tools over stdio (the official `mcp` SDK).

Every tool is a call to a desk's HTTP API. When a desk is running (the window with the API on,
or `agentdesk serve`, found through its api.json) and accepts the user's token (AGENTDESK_API_TOKEN,
the keyring, or the token file in the config folder) the tools go there, so its person approves and
watches. Otherwise this process runs a desk of its own on loopback, with a token nobody else knows,
under the no-person policy: a step that needs a decision ends the task failed, saying so. The MCP
client is told that in the `initialize` reply's instructions and in every tool result (`notice`),
not only on stderr, which an MCP client seldom shows.

stdout belongs to the protocol: nothing here prints to it.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import sys
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import anyio
import httpx2
from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from app import __version__

from .path_ids import path_segment
from .server import read_discovery
from .token import ApiToken, TokenProblem, api_token

log = logging.getLogger(__name__)

POLL_SECONDS = 2.0
DONE = ("success", "failed", "timeout", "stopped")


class DeskClient:
    """The tools' way to a desk: HTTP with the bearer token; the desk's JSON errors become ToolErrors."""

    def __init__(self, url: str, token: str, *, where: str, notice: str = "") -> None:
        self.where = where
        self.notice = notice        # said with every result when this process runs its own desk
        self.http = httpx2.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=90,
                                       trust_env=False)         # never through a proxy: it would see the token

    async def call(self, method: str, path: str, **options: Any) -> httpx2.Response:
        try:
            response = await self.http.request(method, path, **options)
        except httpx2.HTTPError as exc:
            raise ToolError(self.noted(f"The desk ({self.where}) did not answer: {exc}")) from None
        if response.status_code >= 400:
            try:
                message = response.json().get("error") or response.text
            except ValueError:
                message = response.text
            raise ToolError(self.noted(f"{message} (HTTP {response.status_code})"))
        return response

    def noted(self, text: str) -> str:
        return f"{text}\n\n{self.notice}" if self.notice else text

    async def json(self, method: str, path: str, **options: Any) -> Any:
        """The desk's JSON answer; with this process's own desk, a dict answer carries the `notice` too."""
        answer = (await self.call(method, path, **options)).json()
        if self.notice and isinstance(answer, dict):
            answer = {**answer, "notice": self.notice}
        return answer

    async def close(self) -> None:
        await self.http.aclose()


def in_path(name: str, value: str) -> str:
    """`value` as one segment of a desk URL; a ToolError when it is no id (`../devices` would reach another
    route of the desk)."""
    try:
        return path_segment(name, value)
    except ValueError as exc:
        raise ToolError(f"{exc} Use an id from start_task or list_devices.") from None


def task_body(ai_prompt: str, device_id: str | None, mode: str, max_steps: int | None,
              timeout_seconds: float | None, output_question: str | None,
              output_schema: dict[str, Any] | None) -> dict[str, Any]:
    body: dict[str, Any] = {"ai_prompt": ai_prompt, "parameters": {"mode": mode}}
    for key, value in (("device_id", device_id), ("max_steps", max_steps), ("timeout_seconds", timeout_seconds)):
        if value is not None:
            body[key] = value
    if output_question:
        body["output"] = {"question": output_question, "json_schema": output_schema}
    return body


INSTRUCTIONS = (
    "Agent Desk drives Android phones with a supervised LLM agent. run_task does a task in plain words and "
    "returns its result (status success|failed|timeout|stopped, the actions taken, an optional output "
    "answered from the final screen, and the report's URL on the desk's task API). Use list_devices for device "
    "ids, get_ui_tree and take_screenshot to look at a phone without acting.")


def own_desk_notice(reason: str) -> str:
    """What the MCP client is told when this process runs its own desk, and why."""
    return (f"Note: this MCP server runs tasks in a desk of its own, because {reason}. Nobody can approve its "
            "steps: a task in step mode, or one that reaches a sensitive action, ends failed at once. For a person "
            "to approve steps, open the Agent Desk window with its Task API on (Settings › Connections) or run "
            "`agentdesk serve`, then restart this MCP server.")


def build_server(desk: DeskClient) -> MCPServer:
    instructions = f"{INSTRUCTIONS}\n\n{desk.notice}" if desk.notice else INSTRUCTIONS
    server = MCPServer("agentdesk", version=__version__, instructions=instructions)

    @server.tool()
    async def run_task(ai_prompt: str, ctx: Context, device_id: str | None = None, mode: str = "auto",
                       max_steps: int | None = None, timeout_seconds: float | None = None,
                       output_question: str | None = None,
                       output_schema: dict[str, Any] | None = None) -> dict[str, Any]:
        """Do a task on a phone and wait for its end, reporting progress as it goes. mode "auto" asks a person
        only for sensitive actions; "step" waits for a decision on every action (in the desk's window).
        output_question is answered from the final screen (as data when output_schema, a JSON schema, is
        given)."""
        accepted = await desk.json("POST", "/v1/tasks", json=task_body(
            ai_prompt, device_id, mode, max_steps, timeout_seconds, output_question, output_schema))
        task_id = accepted["task_id"]
        said = None
        try:
            while True:
                result = await desk.json("GET", f"/v1/tasks/{task_id}", params={"wait_seconds": POLL_SECONDS})
                words = _progress_words(result)
                if words != said:
                    said = words
                    await ctx.report_progress(result["steps_taken"], max_steps, words)
                if result["status"] in DONE:
                    return result
        except anyio.get_cancelled_exc_class():      # the client gave up on the call: stop the task too
            with anyio.CancelScope(shield=True), contextlib.suppress(ToolError):
                await desk.call("POST", f"/v1/tasks/{task_id}/cancel")
            raise

    @server.tool()
    async def start_task(ai_prompt: str, device_id: str | None = None, mode: str = "auto",
                         max_steps: int | None = None, timeout_seconds: float | None = None,
                         output_question: str | None = None,
                         output_schema: dict[str, Any] | None = None) -> dict[str, Any]:
        """Queue a task and return at once with its task_id; follow it with get_task."""
        return await desk.json("POST", "/v1/tasks", json=task_body(
            ai_prompt, device_id, mode, max_steps, timeout_seconds, output_question, output_schema))

    @server.tool()
    async def get_task(task_id: str, wait_seconds: float = 0) -> dict[str, Any]:
        """A task's result, or where it is (queued, running, waiting_for_person, and what it waits for).
        wait_seconds (at most 60) waits that long for it to end first."""
        return await desk.json("GET", f"/v1/tasks/{in_path('task_id', task_id)}",
                               params={"wait_seconds": min(wait_seconds, 60)})

    @server.tool()
    async def cancel_task(task_id: str) -> dict[str, Any]:
        """Stop a task; it ends "stopped" (a queued one never touches the phone)."""
        return await desk.json("POST", f"/v1/tasks/{in_path('task_id', task_id)}/cancel")

    @server.tool()
    async def decide_task(task_id: str, decision: str, proposal_id: str | None = None, feedback: str | None = None,
                          action: dict[str, Any] | None = None, answer: str | None = None) -> dict[str, Any]:
        """Answer what a task waits for (its waiting_for): approve, reject (with feedback for the agent), edit
        or override (with action {"function", "arguments"}), stop, or answer (a question, with answer).
        proposal_id is waiting_for.proposal_id, the proposal or question decided (every decision but stop needs
        it); a decision for anything else is refused and does nothing. A sensitive step (waiting_for.needs_person)
        is approved by a person in the desk's window unless the desk lets programs approve it."""
        body = {key: value for key, value in (("decision", decision), ("proposal_id", proposal_id),
                                               ("feedback", feedback), ("action", action), ("answer", answer))
                if value is not None}
        return await desk.json("POST", f"/v1/tasks/{in_path('task_id', task_id)}/decision", json=body)

    @server.tool()
    async def list_devices() -> dict[str, Any]:
        """The phones of every ADB server the desk knows: device_id, serial, server, state, model."""
        return await desk.json("GET", "/v1/devices")

    @server.tool()
    async def get_ui_tree(device_id: str) -> dict[str, Any]:
        """The screen's controls (a SemanticUITree): element_id, text, bounds, type, state."""
        return await desk.json("GET", f"/v1/devices/{in_path('device_id', device_id)}/ui-tree")

    @server.tool()
    async def take_screenshot(device_id: str, draw_ids: bool = False) -> list[Image | str]:
        """The phone's screen as a PNG; draw_ids draws the controls' numbered boxes."""
        response = await desk.call("GET", f"/v1/devices/{in_path('device_id', device_id)}/screenshot",
                                   params={"ids": "true" if draw_ids else "false"})
        shot: list[Image | str] = [Image(data=response.content, format="png")]
        return [*shot, desk.notice] if desk.notice else shot

    return server


def _progress_words(result: dict[str, Any]) -> str:
    status = result["status"]
    last = result["actions_executed"][-1]["description"] if result.get("actions_executed") else ""
    waiting = result.get("waiting_for") or {}
    if status == "waiting_for_person":
        what = waiting.get("description") or waiting.get("question") or "a decision"
        return f"step {result['steps_taken']}: waiting for a person's decision on {what}"
    return f"{status}, {result['steps_taken']} steps" + (f"; last: {last}" if last else "")


async def _running_desk() -> tuple[DeskClient | None, str]:
    """A client of the desk running on this machine when there is one that accepts our token; else None and
    why this process must run its own."""
    found = read_discovery()
    if found is None:
        return None, ("no desk is running on this machine (neither the Agent Desk window with its Task API on nor "
                      "`agentdesk serve`)")
    try:
        token = await anyio.to_thread.run_sync(lambda: api_token(create=False))
    except TokenProblem as exc:
        return None, f"a desk runs at {found.url}, but this process has no usable token for it: {exc}"
    theirs = f" (the desk's comes from {found.token_source})" if found.token_source else ""
    if token is None:
        return None, (f"a desk runs at {found.url}, but this process knows no token for it{theirs}; set "
                      "AGENTDESK_API_TOKEN to the token the window shows (API token… in its status bar)")
    client = DeskClient(found.url, token.value, where=found.url)
    try:
        response = await client.http.get("/v1/tasks", params={"status": "queued"}, timeout=3)
    except httpx2.HTTPError as exc:
        await client.close()
        return None, f"the desk at {found.url} did not answer ({type(exc).__name__})"
    if response.status_code == 200:
        return client, ""
    await client.close()
    if response.status_code == 401:
        return None, (f"the desk at {found.url} refused the token from {token.source}{theirs}; set "
                      "AGENTDESK_API_TOKEN to the token the window shows (API token… in its status bar)")
    return None, f"the desk at {found.url} answered HTTP {response.status_code}"


class OwnDesk(Protocol):
    """A desk this process runs for itself (the composition root makes it; the API never does)."""

    notes: list[str]

    @property
    def url(self) -> str: ...

    async def close(self) -> None: ...


OpenOwnDesk = Callable[[ApiToken], Awaitable[OwnDesk]]
"""Runs a desk on loopback whose API accepts only the token given, under the no-person policy."""


async def serve_stdio(open_own_desk: OpenOwnDesk, *, own: bool = False) -> None:
    desk, why = (None, "it was started with --own") if own else await _running_desk()
    own_desk = None
    if desk is None:
        token = ApiToken(secrets.token_urlsafe(32), "this MCP server only", False)
        own_desk = await open_own_desk(token)
        for note in own_desk.notes:
            print(note, file=sys.stderr)
        desk = DeskClient(own_desk.url, token.value, where="this MCP server's own desk", notice=own_desk_notice(why))
        print(f"agentdesk mcp: running tasks itself on {own_desk.url}, because {why}", file=sys.stderr)
    else:
        print(f"agentdesk mcp: using the desk at {desk.where}", file=sys.stderr)
    try:
        await build_server(desk).run_stdio_async()
    finally:
        await desk.close()
        if own_desk is not None:
            await own_desk.close()


def run_mcp_server(open_own_desk: OpenOwnDesk, *, own: bool = False) -> int:
    """Serve the MCP tools over stdio; `open_own_desk` makes this process's desk when none runs (or `own`)."""
    import asyncio

    try:
        asyncio.run(serve_stdio(open_own_desk, own=own))
    except KeyboardInterrupt:
        return 130
    return 0
