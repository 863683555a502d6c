"""Typed run records: one writer, one tolerant reader, and what a step keeps to find its target again."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from PIL import Image

from app.core.agent.action_strategies import Remember
from app.core.agent.actions import Action
from app.core.agent.memory import AgentMemory
from app.core.agent.pipeline import StepContext
from app.core.agent.records import ActionOutcome, Decision, ModelReplyRecord, RunRecord, RunResult, StepRecord
from app.core.agent.supervisor import Proposal
from app.core.agent.trajectory import RUN_FILE, STEPS_FILE, TrajectoryWriter, check_run, list_runs, load_run
from app.core.perception.controls import Control
from app.core.redaction import PASSWORD_MASK

PASSWORD = "correct-horse-42"


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path))
    return tmp_path


def sign_in_screen() -> list[Control]:
    def control(id, name, type, rect, **fields):
        return Control(id=id, name=name, type=type, class_name=f"android.widget.{type}",
                       resource_id=fields.pop("resource_id", ""), text=fields.pop("text", name),
                       content_desc="", rect=rect, **fields)
    return [
        control(1, "Email", "TextView", (40, 400, 300, 460)),
        control(2, "ann@example.com", "EditText", (320, 400, 1040, 460), clickable=True,
                resource_id="com.example:id/email"),
        control(3, "Password", "TextView", (40, 500, 300, 560)),
        control(4, "password", "EditText", (320, 500, 1040, 560), text=PASSWORD, password=True, focused=True,
                clickable=True, resource_id="com.example:id/password", node_path=(0, 3, 1),
                locator='//*[@resource-id="com.example:id/password"]'),
        control(5, "Sign in", "Button", (320, 700, 1040, 800), clickable=True),
    ]


def full_step() -> StepRecord:
    controls = sign_in_screen()
    step = StepRecord(3, "Sign in", thought="Tap Sign in", action={"function": "click_control",
                                                                   "arguments": {"control_id": 5}},
                      action_text="Tap “Sign in” (#5)", decision=Decision("edit", feedback="not that one"),
                      result=ActionOutcome(True, "tapped", 12.5), reflection={"verdict": "success"},
                      foreground="com.example", activity="com.example.LoginActivity", controls_count=5,
                      screen_signature="abc123", timings_ms={"llm_interaction": 900.0}, tokens={"prompt": 10})
    step.record_screen(controls, controls[4])
    return step


def test_a_step_record_reads_back_as_it_was_written():
    writer = TrajectoryWriter.create("Sign in", {"serial": "emulator-5554"}, {"name": "m"}, {})
    step = full_step()
    writer.append_step(step)
    writer.finish(RunResult("success", 1, ["Tap “Sign in” (#5)"], 3.0, tokens={"prompt": 10}))
    record = load_run(writer.run_dir)
    assert record.problems == [] and record.steps == [step]
    assert record.run.result == RunResult("success", 1, ["Tap “Sign in” (#5)"], 3.0, tokens={"prompt": 10})
    assert record.run.report == "report.html" and record.run.version == 2 and record.run.finished_at
    target = record.steps[0].target
    assert target.name == "Sign in" and target.bounds == [320, 700, 1040, 800]
    assert [(a.name, a.relation) for a in target.anchors][:1] == [("Password", "above")]
    line = json.loads((writer.run_dir / STEPS_FILE).read_text(encoding="utf-8"))
    assert line["controls"][0] == {"id": 1, "name": "Email", "type": "TextView", "text": "Email",
                                   "rect": [40, 400, 300, 460]}
    assert "problems" not in line and line["screen_signature"] == "abc123"


def test_an_older_step_record_loads_without_problems():
    old = {"step": 1, "request": "r", "action": {"function": "press_key"}, "screen_fingerprint": "f00d",
           "decision": {"kind": "auto", "by": "auto"}, "result": {"success": True, "message": "ok"},
           "timestamp": "2024-05-01T09:00:00+02:00", "something_new_in_v9": {"x": 1}}
    step = StepRecord.from_dict(old)
    assert step.problems == []
    assert step.screen_signature == "f00d" and step.target is None and step.controls == [] and step.activity == ""
    assert step.decision == Decision("auto", by="auto") and step.result == ActionOutcome(True, "ok")


def test_a_damaged_step_record_still_loads_and_lists_each_problem():
    damaged = {"step": 2, "request": "r", "tokens": "lots", "cost_usd": "cheap", "screen_only": "yes",
               "decision": {"kind": "approve", "feedback": 5}, "result": "ok", "plan": ["a", 3, "b"],
               "timings_ms": {"llm_interaction": 12, "data_collection": "slow"},
               "controls": [{"id": 1, "name": "OK", "type": "Button"}, "junk", {"name": "no id"}],
               "target": {"name": "OK", "bounds": [1, 2, 3, 4], "anchors": [{"name": "Cancel"}]}}
    step = StepRecord.from_dict(damaged, "line 2 of steps.jsonl")
    assert step.step == 2 and step.tokens == {} and step.cost_usd == 0.0 and step.screen_only is False
    assert step.decision == Decision("approve") and step.result is None and step.plan == ["a", "b"]
    assert step.timings_ms == {"llm_interaction": 12.0}
    assert [(c.id, c.name) for c in step.controls] == [(1, "OK"), (0, "no id")]   # a bad item is left out
    assert step.target.bounds == [1, 2, 3, 4] and step.target.anchors[0].relation == ""
    problems = "\n".join(step.problems)
    for words in ("'tokens' should be an object but is the text 'lots'; it was read as {}", "'cost_usd'",
                  "'screen_only'", "'decision.feedback'", "'result'", "'plan[1]'", "'timings_ms.data_collection'",
                  "'controls[1]' should be an object but is the text 'junk'; it was left out",
                  "has no 'controls[2].id'", "has no 'target.anchors[0].relation'"):
        assert words in problems
    assert all(problem.startswith("line 2 of steps.jsonl") for problem in step.problems)
    assert len(step.problems) == 11


def test_a_step_record_without_its_number_or_not_an_object_is_still_a_record():
    assert StepRecord.from_dict({"request": "r"}).problems == ["step record has no 'step'"]
    nothing = StepRecord.from_dict(["not", "an", "object"])
    assert nothing.step == 0 and "not a JSON object" in nothing.problems[0]


def test_a_damaged_run_file_loads_and_check_run_lists_its_problems():
    writer = TrajectoryWriter.create("Sign in", {}, {}, {})
    writer.append_step(StepRecord(1, "Sign in"))
    writer.finish(RunResult("success", 1, [], 1.0))
    run_file = writer.run_dir / RUN_FILE
    data = json.loads(run_file.read_text(encoding="utf-8"))
    data.update(request=42, device="a phone", started_at=None, future={"x": 1})
    data["result"].update(status="exploded", steps_taken="one", actions_executed=["tap", 7])
    del data["version"]
    run_file.write_text(json.dumps(data), encoding="utf-8")
    record = load_run(writer.run_dir)
    run = record.run
    assert run.request == "" and run.device == {} and run.started_at == "" and run.version == 0
    assert run.result.status == "exploded" and run.result.steps_taken == 0 and run.result.actions_executed == ["tap"]
    problems = check_run(writer.run_dir)
    assert "run.json has no 'version'" in problems
    assert "run.json: 'request' should be text but is the number 42; it was read as ''" in problems
    assert "run.json: 'result.status' has the unknown value 'exploded'" in problems
    assert any("'result.steps_taken'" in p for p in problems) and any("'device'" in p for p in problems)
    assert "run.json says 0 steps were taken, but steps.jsonl holds 1" in problems
    [summary] = list_runs()
    assert summary.status == "exploded" and summary.steps == 1


def test_a_version_1_run_file_reads_without_problems():
    old = {"request": "r", "device": {"serial": "x"}, "model": {}, "settings": {}, "started_at": "2024-05-01T09:00:00",
           "result": {"status": "stopped", "steps_taken": 0, "actions_executed": [], "time_seconds": 1.5},
           "finished_at": "2024-05-01T09:00:02", "version": 1}
    run = RunRecord.from_dict(old)
    assert run.problems == [] and run.report == "" and run.result.status == "stopped" and run.version == 1


def remember_context(action: Action, proposal_action: Action | None = None, raw_reply: str = ""):
    controls = sign_in_screen()
    events = []
    rc = SimpleNamespace(request="Sign in", plan=[], memory=AgentMemory(), previous=None,
                         client=SimpleNamespace(estimate_cost=lambda *args: 0.0),
                         settings=SimpleNamespace(provider=SimpleNamespace(model="m")),
                         events=SimpleNamespace(emit=events.append), observed=lambda *args, **kwargs: None)
    proposed = proposal_action or action
    proposal = Proposal(step=1, action=proposed, action_text=f"Type “{proposed.arguments.get('text', '')}”",
                        thought="Type the password", controls=controls)
    ctx = StepContext(1, values={
        "screenshot": SimpleNamespace(image=Image.new("RGB", (10, 10)), size=(1080, 2400)),
        "controls": controls, "proposal": proposal, "approved_action": action, "decision": Decision("approve"),
        "outcome": ActionOutcome(True, "typed"), "foreground": "com.example", "fingerprint": "sig",
        "activity": "com.example.LoginActivity",
        "model_usage": {"prompt": 1, "completion": 1, "attempts": 1, "raw_reply": raw_reply, "prompt_text": "p"}})
    return rc, ctx, events


@pytest.mark.asyncio
async def test_remember_records_the_target_the_controls_and_the_screen():
    action = Action(function="click_control", arguments={"control_id": 5, "control_name": "Sign in"})
    rc, ctx, events = remember_context(action)
    await Remember(rc, fail_fast=False).run(ctx)
    item = ctx.get("memory_item")
    assert item.target.name == "Sign in" and item.target.anchors[0].name == "Password"
    assert [c.id for c in item.controls] == [1, 2, 3, 4, 5] and item.controls_count == 5
    assert item.activity == "com.example.LoginActivity" and item.screen_signature == "sig"
    assert rc.memory.items == [item] and events[-1].item is item


@pytest.mark.asyncio
@pytest.mark.parametrize("arguments", [{"text": PASSWORD, "control_id": 4}, {"text": PASSWORD}])   # by id; focus
async def test_text_typed_into_a_password_field_is_never_recorded(arguments):
    action = Action(function="type_text", arguments=arguments)
    rc, ctx, _ = remember_context(action, raw_reply=f'{{"action": {{"arguments": {{"text": "{PASSWORD}"}}}}}}')
    await Remember(rc, fail_fast=False).run(ctx)
    item = ctx.get("memory_item")
    writer = TrajectoryWriter.create("Sign in", {}, {}, {})
    writer.append_step(item)
    written = (writer.run_dir / STEPS_FILE).read_text(encoding="utf-8")
    assert PASSWORD not in written and PASSWORD_MASK in written
    assert item.action["arguments"]["text"] == PASSWORD_MASK and PASSWORD not in item.raw_reply
    assert item.target.resource_id == "com.example:id/password" and item.target.text == PASSWORD_MASK


@pytest.mark.asyncio
async def test_text_typed_into_an_ordinary_field_is_kept():
    action = Action(function="type_text", arguments={"text": "ann@example.com", "control_id": 2})
    rc, ctx, _ = remember_context(action)
    await Remember(rc, fail_fast=False).run(ctx)
    assert ctx.get("memory_item").action["arguments"]["text"] == "ann@example.com"


def test_model_replies_are_written_and_read_back_and_an_older_step_has_none():
    step = StepRecord(step=1, request="r", raw_reply="{}", model_replies=[
        ModelReplyRecord(attempt=1, outcome="cut_off", problem="the reply was cut off at 256 tokens",
                         raw_text='{"thought": "lo', prompt_tokens=100, completion_tokens=256, max_output_tokens=256,
                         finish_reason="length", http_status=200, duration_ms=12.5),
        ModelReplyRecord(attempt=2, outcome="error", problem="HTTP 500", http_status=None)])
    line = json.loads(json.dumps(step.to_dict()))
    assert line["model_replies"][0]["finish_reason"] == "length" and line["model_replies"][1]["http_status"] is None
    again = StepRecord.from_dict(line)
    assert again.problems == [] and again.model_replies == step.model_replies
    assert StepRecord.from_dict({"step": 1, "request": "r"}).model_replies == []


def test_a_damaged_model_reply_is_left_out_and_named():
    step = StepRecord.from_dict({"step": 1, "request": "r",
                                 "model_replies": [{"outcome": "invalid", "prompt_tokens": "many"}, "junk"]})
    assert [reply.outcome for reply in step.model_replies] == ["invalid"]
    assert step.model_replies[0].prompt_tokens == 0
    problems = "\n".join(step.problems)
    assert "'model_replies[0].prompt_tokens'" in problems and "'model_replies[1]'" in problems


def test_a_password_is_masked_in_every_model_reply():
    step = StepRecord(step=1, request="r", model_replies=[
        ModelReplyRecord(raw_text=f"type {PASSWORD}", correction=f"not {PASSWORD}")])
    step.mask_text(PASSWORD)
    assert PASSWORD not in json.dumps(step.to_dict()) and PASSWORD_MASK in step.model_replies[0].raw_text
