"""A spending cap the person sets ends the run before the next model call, in a defined state, with the reason."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from app.core.agent.events import Message
from app.core.agent.usage_estimate import estimate_prompt_tokens
from app.core.providers import UNKNOWN, Pricing, image_rule_for
from tests.e2e.conftest import e2e_settings
from tests.support.openai_server import act, json_reply

pytestmark = pytest.mark.asyncio

OPEN_SETTINGS = json_reply(act("launch_app", package_name="com.android.settings"))      # 100 + 20 tokens each
GO_HOME = json_reply(act("press_key", key_code="HOME"))
OPEN_CALCULATOR = json_reply(act("launch_app", package_name="com.agentdesk.calculator"))
FINISH = json_reply(act("", status="FINISH"))


def messages(outcome) -> list[str]:
    told: list[str] = []
    outcome.run.events.subscribe(lambda event: told.append(event.text) if isinstance(event, Message) else None)
    return told


async def test_token_cap_ends_the_run_before_the_next_model_call(run_agent):
    outcome = await run_agent("Open settings, go home, open the calculator",
                              [OPEN_SETTINGS, GO_HOME, OPEN_CALCULATOR, FINISH], mode="auto", max_tokens_per_run=200)
    result = outcome.result
    assert result.status == "failed"
    assert result.completion_reason == "the run's spending cap of 200 tokens was reached (used 240)"
    assert len(outcome.model.chat_requests) == 2                 # the third call was never made
    assert result.tokens == {"prompt": 200, "completion": 40}
    # the phone: the two paid-for actions ran, the third never reached it
    assert outcome.state["foreground"] == "com.android.launcher3"
    assert [step.action.get("function") for step in outcome.steps()][:2] == ["launch_app", "press_key"]
    assert "spending cap" in outcome.steps()[-1].error
    assert outcome.trajectory_problems() == []


async def test_money_cap_with_a_known_price(run_agent, monkeypatch):
    # the loopback server stands for a priced provider: $2.50 in, $10 out per million, so 120 tokens cost $0.00045
    monkeypatch.setattr("app.core.agent.spending.pricing_for", lambda settings: Pricing("known", (2.5, 10.0)))
    outcome = await run_agent("Open settings, go home, open the calculator",
                              [OPEN_SETTINGS, GO_HOME, OPEN_CALCULATOR, FINISH], mode="auto",
                              max_cost_usd_per_run=0.0008)
    assert outcome.result.status == "failed"
    assert outcome.result.completion_reason.startswith(
        "the run's spending cap of $0.0008 was reached (used about $0.0009")
    assert len(outcome.model.chat_requests) == 2
    assert outcome.state["foreground"] == "com.android.launcher3"
    assert outcome.trajectory_problems() == []


async def test_money_cap_of_an_unpriced_model_is_told_once_and_the_token_cap_still_applies(run_agent, monkeypatch):
    monkeypatch.setattr("app.core.agent.spending.pricing_for", lambda settings: UNKNOWN)
    outcome = await run_agent("Open settings, go home, open the calculator",
                              [OPEN_SETTINGS, GO_HOME, OPEN_CALCULATOR, FINISH], mode="auto",
                              max_cost_usd_per_run=0.0001, max_tokens_per_run=300, provider={"model": "my-model"})
    assert outcome.result.status == "failed"
    assert outcome.result.completion_reason == "the run's spending cap of 300 tokens was reached (used 360)"
    told = [text for text in messages(outcome) if "cannot be checked" in text]
    assert len(told) == 1 and "my-model" in told[0] and "token cap of 300" in told[0]
    assert len(outcome.model.chat_requests) == 3
    assert outcome.state["foreground"] == "com.agentdesk.calculator"      # the third action ran, no fourth call
    assert outcome.trajectory_problems() == []


def unreported(responder):
    """The same reply from a server that reports no usage (many local servers): the client estimates."""
    return lambda body: dataclasses.replace(responder(body), usage=False)


async def test_without_reported_usage_the_cap_counts_the_estimate_pictures_included_and_says_so(run_agent):
    outcome = await run_agent("Open settings, go home", [unreported(OPEN_SETTINGS), unreported(GO_HOME), FINISH],
                              mode="auto", max_tokens_per_run=1)
    result = outcome.result
    [request] = outcome.model.chat_requests                      # the cap ended the run before the second call
    body = request.body
    provider = e2e_settings(outcome.model.base_url, "auto", None).provider      # the run's own
    text, pictures = estimate_prompt_tokens(body["messages"], body.get("tools"), image_rule_for(provider))
    assert pictures > 0 and "image_url" in str(body["messages"])     # the step's picture, by its model's rule
    assert result.tokens["prompt"] == text + pictures            # what the cap counted: text and pictures
    assert result.tokens["completion"] > 0                       # the reply's words, estimated too
    used = result.tokens["prompt"] + result.tokens["completion"]
    assert result.completion_reason == f"the run's spending cap of 1 tokens was reached (used {used:,})"
    assert result.tokens_estimated
    [reply] = outcome.steps()[0].model_replies
    assert reply.prompt_estimated
    report = Path(result.report_path).read_text(encoding="utf-8")
    assert "partly estimated: the model server reported no usage" in report
    assert "estimated (the server reported no usage)" in report


async def test_reported_usage_is_never_marked_as_estimated(run_agent):
    outcome = await run_agent("Open settings", [OPEN_SETTINGS, FINISH], mode="auto")
    assert not outcome.result.tokens_estimated
    assert all(not reply.prompt_estimated for step in outcome.steps() for reply in step.model_replies)
    assert "estimated" not in Path(outcome.result.report_path).read_text(encoding="utf-8")
