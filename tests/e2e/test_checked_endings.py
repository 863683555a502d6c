"""Endings that are checked: a FINISH is followed by one completion check on a fresh screen.

The phone's own state decides what the run should say: verified by the screen when the
model named what the screen shows and it does; verified by the model when only the model's
answer on the fresh screen says so; back into the loop when the check finds it not done.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.agent.report import write_report
from tests.support.openai_server import act, check_answer, click, is_completion_check, json_reply, user_texts

pytestmark = pytest.mark.asyncio

TO_WIFI = [json_reply(act("launch_app", package_name="com.android.settings")),
           click("Network & internet"), click("Wi-Fi")]


def finish(comment: str = "Wi-Fi is on", expect: dict | None = None):
    reply = act("", status="FINISH")
    reply["comment"] = comment
    if expect is not None:
        reply["expect"] = expect
    return json_reply(reply)


def turn_on_and_finish(expect: dict | None):
    """Tap “Use Wi-Fi” with status FINISH: the action that completes the task, carried by the FINISH."""
    def respond(body):
        reply = json.loads(click("Use Wi-Fi")(body).content)
        reply["action"]["status"] = "FINISH"
        reply["comment"] = "Wi-Fi is on"
        if expect is not None:
            reply["expect"] = expect
        return json_reply(reply)(body)
    return respond


async def test_a_finish_naming_the_switch_is_verified_by_the_screen(run_agent):
    script = [*TO_WIFI, click("Use Wi-Fi"), finish(expect={"control": "Use Wi-Fi", "checked": True})]
    outcome = await run_agent("Turn on Wi-Fi", script, mode="auto", completion_checks="no")
    assert outcome.state["wifi"] is True
    assert outcome.result.status == "success", outcome.result
    assert outcome.result.verification == "screen"
    assert "“Use Wi-Fi” is on" in outcome.result.verification_note
    assert outcome.model.completion_check_requests == [], "the screen settled it: the model was not asked"
    last = outcome.steps()[-1]
    assert last.completion_check == {"done": True, "verified_by": "screen",
                                     "reason": outcome.result.verification_note}
    write_report(outcome.result.run_dir)
    report = (Path(outcome.result.run_dir) / "report.html").read_text(encoding="utf-8")
    assert "verified by the screen" in report
    assert outcome.trajectory_problems() == []


async def test_a_finish_carrying_an_action_runs_it_then_looks_again(run_agent):
    script = [*TO_WIFI, turn_on_and_finish({"control": "Use Wi-Fi", "checked": True})]
    outcome = await run_agent("Turn on Wi-Fi", script, mode="auto", completion_checks="no")
    assert outcome.state["wifi"] is True, "the FINISH's own action reached the phone"
    assert outcome.result.status == "success" and outcome.result.verification == "screen", outcome.result
    assert outcome.result.steps_taken == 4
    assert outcome.steps()[-1].result.success


async def test_a_finish_that_names_a_wrong_state_is_asked_of_the_model(run_agent):
    """The model claims Wi-Fi is on while it is off: the screen does not verify it; the check
    (asked on the fresh screen, which lists the switch unchecked) says no; the run goes on."""
    script = [*TO_WIFI, finish(expect={"control": "Use Wi-Fi", "checked": True}),
              check_answer(False, "the Use Wi-Fi switch is off"),
              click("Use Wi-Fi"), finish(expect={"control": "Use Wi-Fi", "checked": True})]
    outcome = await run_agent("Turn on Wi-Fi", script, mode="auto", completion_checks="script")
    assert outcome.state["wifi"] is True
    assert outcome.result.status == "success" and outcome.result.verification == "screen", outcome.result
    checks = outcome.model.completion_check_requests
    assert len(checks) == 1
    asked = " ".join(user_texts(checks[0].body))
    assert "Turn on Wi-Fi" in asked and "unchecked" in asked, "the check sees the fresh screen's controls"
    after_refusal = [r for r in outcome.model.chat_requests if not is_completion_check(r.body)][4]
    assert "the Use Wi-Fi switch is off" in " ".join(user_texts(after_refusal.body)), "the reason went back"
    steps = outcome.steps()
    assert steps[3].completion_check["done"] is False and steps[3].completion_check["verified_by"] == "model"
    assert steps[3].tokens["prompt"] > 100, "the check's tokens are counted in its step"


async def test_a_finish_without_an_expectation_is_verified_by_the_model(run_agent):
    script = [*TO_WIFI, click("Use Wi-Fi"), finish(), check_answer(True, "the switch shows Wi-Fi on")]
    outcome = await run_agent("Turn on Wi-Fi", script, mode="auto", completion_checks="script")
    assert outcome.state["wifi"] is True
    assert outcome.result.status == "success"
    assert outcome.result.verification == "model"
    assert outcome.result.verification_note == "the switch shows Wi-Fi on"
    check = outcome.model.completion_check_requests[0]
    assert any(part.get("type") == "image_url" for part in check.body["messages"][-1]["content"]), \
        "a seeing model gets the fresh picture"


async def test_a_check_that_keeps_saying_no_ends_the_run_failed(run_agent):
    script = [finish("Wi-Fi is on"), check_answer(False, "Wi-Fi is off"),
              finish("Wi-Fi is on"), check_answer(False, "Wi-Fi is still off")]
    outcome = await run_agent("Turn on Wi-Fi", script, mode="auto", completion_checks="script",
                              max_unconfirmed_finishes=1)
    assert outcome.state["wifi"] is False
    assert outcome.result.status == "failed", outcome.result
    assert "said the task was done 2 times" in outcome.result.completion_reason
    assert "Wi-Fi is still off" in outcome.result.completion_reason
    assert outcome.result.actions_executed == [], "nothing reached the phone"
    assert outcome.trajectory_problems() == []


async def test_an_unreadable_check_leaves_the_ending_claimed_only(run_agent):
    script = [finish("nothing to do"), json_reply({"verdict": "maybe"})]
    outcome = await run_agent("Look at the home screen", script, mode="auto", completion_checks="script")
    assert outcome.result.status == "success"
    assert outcome.result.verification == "claimed"
    assert "no yes or no" in outcome.result.verification_note
    assert outcome.result.actions_executed == []


async def test_the_completion_check_can_be_turned_off(run_agent):
    outcome = await run_agent("Look at the home screen", [finish("nothing to do")], mode="auto",
                              completion_checks="no", completion_check="off")
    assert outcome.result.status == "success" and outcome.result.verification == "claimed"
    assert outcome.model.completion_check_requests == []
    assert outcome.phone_actions() == []
