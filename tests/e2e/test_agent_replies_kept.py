"""Nothing about a step is lost (issue 12, item 4): every model reply of a step is kept in steps.jsonl.

Cut off, invalid, failed or used: each reply is a record with its tokens, raw text, finish
reason, HTTP status and time, also when the step fails. A reply cut off by the output budget
is reported as such and sent again once with a larger budget. run.json names its report.
Each test checks the phone too: what reached it, or that nothing did.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.virtual_phone.phone import VirtualPhone
from tests.e2e.conftest import FIXED_TIME, ScriptedPerson, approve
from tests.support.openai_server import act, cut_off_reply, http_error, json_reply, text_reply

pytestmark = pytest.mark.asyncio

FINISH = json_reply(act("", status="FINISH"))
OPEN_SETTINGS = json_reply(act("launch_app", package_name="com.android.settings"))
BUDGET = 256          # the output budget the runs are configured with


def untouched_phone_state() -> dict:
    """The state of a phone nothing has acted on (the fixture's phone, freshly made)."""
    return VirtualPhone(clock=lambda: FIXED_TIME).state()


def steps_jsonl(outcome) -> list[dict]:
    """steps.jsonl as written, line by line (not through the tolerant reader)."""
    path = Path(outcome.result.run_dir) / "steps.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


async def test_cut_off_reply_is_reported_and_retried_with_a_larger_budget(run_agent):
    script = [cut_off_reply('{"thought": "I will open the settings and then look for'), OPEN_SETTINGS, FINISH]
    outcome = await run_agent("Open the settings", script, ScriptedPerson([approve, approve]),
                              provider={"max_output_tokens": BUDGET})
    assert outcome.result.status == "success", outcome.result
    assert outcome.state["foreground"] == "com.android.settings"          # the retry's action reached the phone
    budgets = [request.body.get("max_tokens") for request in outcome.model.chat_requests[:2]]
    assert budgets == [BUDGET, 2 * BUDGET]
    assert outcome.model.chat_requests[1].body["messages"] == outcome.model.chat_requests[0].body["messages"]
    first = outcome.steps()[0]
    cut, used = first.model_replies
    assert (cut.outcome, cut.finish_reason, cut.max_output_tokens) == ("cut_off", "length", BUDGET)
    assert f"cut off at {BUDGET} tokens" in cut.problem
    assert "invalid json" not in cut.problem.lower()
    assert cut.raw_text.startswith('{"thought": "I will open')
    assert (cut.prompt_tokens, cut.completion_tokens, cut.http_status) == (100, BUDGET, 200)
    assert (used.outcome, used.max_output_tokens, used.finish_reason) == ("accepted", 2 * BUDGET, "stop")
    assert used.raw_text_in_step and "com.android.settings" in first.raw_reply
    assert first.tokens == {"prompt": 200, "completion": BUDGET + 20}
    assert first.model_attempts == 1
    assert outcome.trajectory_problems() == []


async def test_reply_cut_off_twice_fails_the_step_with_that_reason(run_agent):
    script = [cut_off_reply('{"thought": "long'), cut_off_reply('{"thought": "longer still')]
    outcome = await run_agent("Open the settings", script, provider={"max_output_tokens": BUDGET})
    assert outcome.result.status == "failed"
    assert f"cut off at {2 * BUDGET} tokens" in outcome.result.completion_reason
    assert outcome.state == untouched_phone_state()          # no action reached the phone
    assert len(outcome.model.chat_requests) == 2
    [step] = steps_jsonl(outcome)
    assert [reply["outcome"] for reply in step["model_replies"]] == ["cut_off", "cut_off"]
    assert [reply["max_output_tokens"] for reply in step["model_replies"]] == [BUDGET, 2 * BUDGET]
    assert step["tokens"] == {"prompt": 200, "completion": 3 * BUDGET}
    assert outcome.trajectory_problems() == []


async def test_invalid_then_valid_reply_both_kept(run_agent):
    script = [text_reply("I will open the settings app now.", prompt_tokens=120, completion_tokens=9),
              OPEN_SETTINGS, FINISH]
    outcome = await run_agent("Open the settings", script, ScriptedPerson([approve, approve]))
    assert outcome.result.status == "success", outcome.result
    assert outcome.state["foreground"] == "com.android.settings"
    step = steps_jsonl(outcome)[0]
    invalid, used = step["model_replies"]
    assert invalid["outcome"] == "invalid" and "no json" in invalid["problem"].lower()
    assert invalid["raw_text"] == "I will open the settings app now."
    assert (invalid["prompt_tokens"], invalid["completion_tokens"]) == (120, 9)
    assert invalid["prompt"] == "step" and invalid["correction"] == ""
    assert used["outcome"] == "accepted" and used["correction"] == invalid["problem"]
    assert used["raw_text"] == "" and used["raw_text_in_step"] and "launch_app" in step["raw_reply"]
    assert (used["prompt_tokens"], used["completion_tokens"], used["http_status"]) == (100, 20, 200)
    assert used["duration_ms"] > 0
    assert step["tokens"] == {"prompt": 220, "completion": 29}
    assert step["prompt_text"], "the step's prompt is recorded once, the replies refer to it"


async def test_step_that_fails_after_every_retry_keeps_its_replies_tokens_and_prompt(run_agent):
    script = [text_reply("sorry"), text_reply("still sorry"), text_reply("so sorry")]
    outcome = await run_agent("Open the settings", script, reply_retries=3)
    assert outcome.result.status == "failed"
    assert outcome.state == untouched_phone_state()          # no invalid reply reached the phone
    [step] = steps_jsonl(outcome)
    assert [reply["outcome"] for reply in step["model_replies"]] == ["invalid"] * 3
    assert [reply["raw_text"] for reply in step["model_replies"]][:2] == ["sorry", "still sorry"]
    assert step["raw_reply"] == "so sorry" and step["model_replies"][2]["raw_text_in_step"]
    assert step["tokens"] == {"prompt": 300, "completion": 60}
    assert step["model_attempts"] == 3
    assert "Open the settings" in step["prompt_text"]
    assert outcome.trajectory_problems() == []


async def test_http_failures_of_a_failed_step_are_kept(run_agent):
    script = [http_error(500, "the model crashed")] * 3
    outcome = await run_agent("Open the settings", script)
    assert outcome.result.status == "failed"
    assert outcome.state == untouched_phone_state()
    [step] = steps_jsonl(outcome)
    replies = step["model_replies"]
    assert [(reply["outcome"], reply["http_status"]) for reply in replies] == [("error", 500)] * 3
    assert "the model crashed" in step["raw_reply"] and "HTTP 500" in replies[0]["problem"]
    assert "Open the settings" in step["prompt_text"]


async def test_run_json_names_an_existing_report_that_lists_the_replies(run_agent):
    script = [text_reply("I will open the settings app now."), OPEN_SETTINGS, FINISH]
    outcome = await run_agent("Open the settings", script, ScriptedPerson([approve, approve]))
    run_dir = Path(outcome.result.run_dir)
    run_json = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    assert run_json["report"] and (run_dir / run_json["report"]).is_file()
    assert Path(outcome.result.report_path) == run_dir / run_json["report"]
    assert run_json["result"]["report_path"] == outcome.result.report_path
    report = (run_dir / run_json["report"]).read_text(encoding="utf-8")
    assert "2 model replies, 1 not used" in report
    assert outcome.state["foreground"] == "com.android.settings"
