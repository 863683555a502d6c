"""Hostile inputs end to end (issue 12, item 5): a model reply far over the cap fails the step with
the cap's words, the run ends in a defined state, nothing reached the phone and little is stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.openai_server import huge_reply

pytestmark = pytest.mark.asyncio


def stored_bytes(run_dir) -> int:
    return sum(path.stat().st_size for path in Path(run_dir).rglob("*") if path.is_file())


@pytest.mark.parametrize("undeclared", [False, True])
async def test_huge_model_reply_fails_the_run_before_any_action(run_agent, phone_server, undeclared):
    attached = phone_server.devices[0]
    before = attached.phone.state()
    outcome = await run_agent("Go home", [huge_reply(20, undeclared_length=undeclared)] * 4,
                              provider={"max_reply_mb": 1})
    assert outcome.result.status == "failed", outcome.result
    reason = outcome.result.completion_reason
    assert "over the 1 MB cap" in reason and "provider.max_reply_mb" in reason
    assert len(outcome.model.chat_requests) == 1                      # refused once, never asked again
    # the phone: no input command was sent and its state is as it was
    assert not any(argv[:1] == ["input"] for argv in attached.command_lines())
    assert outcome.state == before
    # memory stays bounded: the 20 MB reply is in no file of the run
    assert stored_bytes(outcome.result.run_dir) < 2_000_000
    assert outcome.trajectory_problems() == []
