"""The console answers only the proposal it showed: a late answer typed for step 1 never approves step 2."""

from __future__ import annotations

import asyncio
import io

import pytest

from app import console as console_module
from app.cli_agent import follow_on_console
from app.console import ConsoleSupervisor
from app.core.agent.actions import Action
from app.core.agent.supervisor import Proposal, ReviewAnswer
from app.core.runs.handle import RunHandle


def proposal(step: int) -> Proposal:
    return Proposal(step, Action(function="click_control", arguments={"control_id": step}), f"Tap control {step}")


@pytest.mark.asyncio
async def test_an_approval_typed_for_step_1_after_step_2_is_shown_does_not_approve_step_2(monkeypatch):
    lines: list[asyncio.Future] = []           # one per prompt the console shows, in order

    async def typed(_prompt: str) -> str | None:
        line = asyncio.get_running_loop().create_future()
        lines.append(line)
        return await line
    monkeypatch.setattr(console_module, "read_line", typed)
    out = io.StringIO()
    handle = RunHandle("run-1", "do it", "phone")
    follow_on_console(handle, ConsoleSupervisor(out))

    first = asyncio.ensure_future(handle.review(proposal(1)))
    while not lines:
        await asyncio.sleep(0)
    handle.answer(handle.pending_id, ReviewAnswer.approve())      # decided elsewhere (the window, a script)
    await first
    second = asyncio.ensure_future(handle.review(proposal(2)))
    while len(lines) < 2:
        await asyncio.sleep(0)
    assert "(your answer is for step1-" in out.getvalue() and "(your answer is for step2-" in out.getvalue()

    lines[0].set_result("")                    # Enter at step 1's prompt, typed late
    for _ in range(20):
        await asyncio.sleep(0)
    assert handle.awaiting_review and handle.pending_proposal.step == 2 and not second.done()
    assert "Your decision on step 1 was not used" in out.getvalue() and "already decided" in out.getvalue()

    lines[1].set_result("")                    # Enter at step 2's own prompt approves it
    assert (await second).kind == "approve"
