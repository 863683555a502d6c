"""`agentdesk bench tasks`: the suite's checkers, the oracle model, and a few first runs on the quick phone.

The checkers must reject the phone before the task is done (else a run that did nothing
counts); the oracle must find each control on the screen it is shown (else a wrong script
would pass); the table must say what it measured and what it could not.
"""

from __future__ import annotations

import dataclasses
import json
import threading
import urllib.request

import pytest

from app.bench.oracle_model import MAX_SCROLLS, OracleModel, find_control, find_control_id, screen_controls
from app.bench.phones import PhoneChoice
from app.bench.table import BenchTable
from app.bench.task_suite import TASKS, Target, click, phone_state, task_named
from app.bench.tasks_bench import (
    BENCH_TIME,
    NOT_AVAILABLE,
    PhoneSpec,
    TaskOutcome,
    fill_table,
    oracle_settings,
    run_task,
    run_tasks_bench,
)
from app.core.agent.prompts import PromptBuilder, ScreenContext
from app.core.config import Settings
from app.core.perception.hierarchy import extract_controls
from app.virtual_phone.phone import VirtualPhone

QUICK = PhoneSpec("quick", "quick")


@pytest.fixture(autouse=True)
def bench_home(tmp_path, monkeypatch):
    """The runs' records and skills under a temporary folder."""
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path / "home"))


def fresh_phone() -> VirtualPhone:
    return VirtualPhone(clock=lambda: BENCH_TIME)


def step_body(phone: VirtualPhone, request: str) -> dict:
    """A chat request as the agent sends it for the phone's current screen (system + step message)."""
    builder = PromptBuilder(Settings())
    controls = extract_controls(phone.dump_hierarchy(), phone.display_size())
    screen = ScreenContext(controls=controls, screen_size=phone.display_size(), image_size=phone.display_size(),
                           foreground_package=phone.foreground()[0])
    return {"messages": [builder.system_message(), builder.user_message(request, screen)]}


def oracle_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "oracle-model"]


# ----------------------------------------------------------------------------- the suite


def test_the_suite_has_a_dozen_tasks_across_the_apps():
    assert len(TASKS) >= 12
    assert len({task.name for task in TASKS}) == len(TASKS)
    assert len({task.request for task in TASKS}) == len(TASKS)
    assert {task.app for task in TASKS} >= {"settings", "notes", "clock", "contacts", "messages", "dialer",
                                           "calculator", "launcher"}


@pytest.mark.parametrize("task", TASKS, ids=lambda task: task.name)
def test_every_checker_rejects_the_phone_before_the_task(task):
    phone = fresh_phone()
    task.prepare(phone)
    done, why = task.check(phone_state(phone))
    assert not done, f"{task.name}'s checker passes before the task is run: {why}"
    assert why


def test_a_checker_accepts_the_state_the_task_asks_for():
    phone = fresh_phone()
    phone.put_setting("global", "wifi_on", "1")
    assert task_named("wifi_on").check(phone_state(phone))[0]
    assert not task_named("wifi_off").check(phone_state(phone))[0]
    with pytest.raises(ValueError, match="wifi_on"):
        task_named("no_such_task")


# ----------------------------------------------------------------------------- the oracle


def test_the_oracle_finds_a_control_by_its_name_on_the_prompted_screen():
    phone = fresh_phone()
    phone.launch("com.android.settings")
    body = step_body(phone, "Turn on Wi-Fi")
    control_id = find_control_id(body, "Network & internet")
    listed = {c.id: c.name for c in extract_controls(phone.dump_hierarchy(), phone.display_size())}
    assert listed[control_id].startswith("Network & internet")
    assert listed[find_control_id(body, "Bluetooth")].startswith("Connected devices")   # a part of a row's name
    with pytest.raises(LookupError, match="Network & internet"):                       # it names what is shown
        find_control_id(body, "Teleport")


def test_the_oracle_follows_the_script_on_the_screens_it_is_shown():
    task = task_named("wifi_on")
    phone = fresh_phone()
    oracle = OracleModel([task])
    oracle.begin(task.request)
    replies = []
    for _ in range(len(task.script) + 1):
        reply = oracle.answer(step_body(phone, task.request)).reply
        replies.append(reply)
        action = reply["action"]
        if action["function"] == "launch_app":
            phone.launch(action["arguments"]["package_name"])
        elif action["function"] == "click_control":
            control = next(c for c in extract_controls(phone.dump_hierarchy(), phone.display_size())
                           if c.id == action["arguments"]["control_id"])
            phone.tap(*control.center)
    assert [r["action"]["status"] for r in replies] == ["CONTINUE"] * len(task.script) + ["FINISH"]
    assert replies[-1]["expect"] == task.expect
    assert phone_state(phone)["wifi"] is True
    assert oracle.tally.calls == {"step": len(task.script) + 1} and oracle.tally.prompt_tokens > 0


def test_the_oracle_answers_fail_when_the_scripted_control_is_not_shown():
    task = dataclasses.replace(task_named("wifi_on"), script=(click("Teleport"),))
    oracle = OracleModel([task])
    phone = fresh_phone()
    replies = [oracle.answer(step_body(phone, task.request)).reply for _ in range(MAX_SCROLLS + 1)]
    looked = [reply["action"]["function"] for reply in replies[:-1]]
    assert looked == ["scroll"] * MAX_SCROLLS, "the home screen's pages scroll: it looks there first, a few times"
    reply = replies[-1]
    assert reply["action"]["status"] == "FAIL" and "Teleport" in reply["thought"]
    assert oracle.problems and "Teleport" in oracle.problems[0]


def test_the_oracle_skips_ahead_only_when_it_is_first_asked_mid_task():
    """Resuming after a replayed skill it goes on from what is shown; once it drives it never skips a step."""
    task = dataclasses.replace(task_named("airplane_on"), script=(
        task_named("airplane_on").script[0], click("Network & internet"), click("Teleport"), click("Airplane mode")))
    phone = fresh_phone()
    oracle = OracleModel([task])
    oracle.begin(task.request)

    def act(action: dict) -> None:
        if action["function"] == "launch_app":
            phone.launch(action["arguments"]["package_name"])
        elif action["function"] == "click_control":
            controls = extract_controls(phone.dump_hierarchy(), phone.display_size())
            phone.tap(*next(c.center for c in controls if c.id == action["arguments"]["control_id"]))

    driving = []
    for _ in range(3):
        driving.append(oracle.answer(step_body(phone, task.request)).reply["action"])
        act(driving[-1])
    assert [a["function"] for a in driving] == ["launch_app", "click_control", ""]
    assert driving[2]["status"] == "FAIL" and "Teleport" in oracle.problems[0]     # not “Airplane mode”
    assert phone_state(phone)["airplane"] is False
    oracle.begin(task.request)                      # a new run on the same screen: asked mid-task
    assert oracle.answer(step_body(phone, task.request)).reply["action"]["function"] == "launch_app"
    resumed = oracle.answer(step_body(phone, task.request)).reply["action"]
    assert resumed["function"] == "click_control" and resumed["arguments"]["control_name"] == "Airplane mode"


def test_the_oracle_finds_a_field_above_its_label():
    phone = fresh_phone()
    phone.launch("com.android.deskclock")
    phone.tap(*next(c.center for c in extract_controls(phone.dump_hierarchy(), phone.display_size())
                    if c.name == "Add alarm"))
    controls = screen_controls(step_body(phone, "Set an alarm for 7:30 AM"))
    hour = find_control(controls, Target(kind="EditText", above="Hour"))
    minute = find_control(controls, Target(kind="EditText", above="Minute"))
    assert (hour.name, minute.name) == ("9", "41")         # the fixed clock's time, as the picker starts


def test_the_oracle_server_answers_over_http_and_stops_its_thread():
    builder = PromptBuilder(Settings())
    messages = builder.completion_check_messages("Turn on Wi-Fi", "done", [], (1, 1), None)
    check = {"model": "oracle", "messages": messages, "stream": True, "stream_options": {"include_usage": True}}
    with OracleModel() as oracle:
        assert oracle_threads()
        request = urllib.request.Request(f"{oracle.base_url}/chat/completions", json.dumps(check).encode(),
                                         {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            events = [line[6:] for line in response.read().decode().splitlines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    text = "".join(json.loads(e)["choices"][0]["delta"].get("content") or "" for e in events[:-1]
                   if json.loads(e)["choices"])
    assert json.loads(text)["done"] is True
    assert oracle.tally.calls == {"completion_check": 1}
    assert not oracle_threads()


# ----------------------------------------------------------------------------- runs


def test_first_runs_with_the_oracle_succeed_by_the_checker(monkeypatch):
    monkeypatch.setattr("app.bench.tasks_bench.ORACLE_THINK_SECONDS", 0.0)    # the bench's model time, not the test's
    names = ["wifi_on", "note_create", "alarm_enable"]
    table = run_tasks_bench(1, PhoneChoice(), tasks=names, kinds=("first",), quick_only=True)
    assert table.columns == ["quick first"]
    for name in names:
        assert table.value(f"{name}: success") == 100.0, table.render()
        assert table.value(f"{name}: model calls") > 0
        assert table.value(f"{name}: steps") >= len(task_named(name).script)
        assert table.value(f"{name}: tokens") > 0
    assert table.value("all tasks: success rate") == 100.0
    assert table.value("all tasks: model calls") == sum(table.value(f"{n}: model calls") for n in names)
    assert table.within_budget()
    assert not [note for note in table.notes if note.startswith("FAILED")]
    assert not oracle_threads()


@pytest.mark.asyncio
async def test_a_wrong_script_fails_its_checker():
    right = task_named("wifi_on")
    wrong = dataclasses.replace(right, script=right.script[:2] + (click("Airplane mode"),))
    with OracleModel([wrong]) as oracle:
        outcome = await run_task(wrong, "first", QUICK, oracle_settings(oracle.base_url), oracle=oracle,
                                 api_key="oracle-key")
    assert not outcome.success and "Wi-Fi is off" in outcome.reason
    assert outcome.calls > 0 and outcome.status == "success"      # the agent thought it was done; the checker did not


@pytest.mark.asyncio
async def test_a_kind_of_run_the_run_service_cannot_do_is_reported(monkeypatch):
    import app.bench.tasks_bench as tasks_bench

    def old_run_request(request, **options):      # a RunRequest from before skills and replay
        unknown = sorted(set(options) & {"use_skills", "replay"})
        if unknown:
            raise TypeError(f"RunRequest.__init__() got an unexpected keyword argument {unknown[0]!r}")
        raise AssertionError("only the repeat is asked for here")
    monkeypatch.setattr(tasks_bench, "RunRequest", old_run_request)
    task = task_named("wifi_on")
    outcome = await run_task(task, "repeat", QUICK, Settings(), api_key="k")
    assert not outcome.available and NOT_AVAILABLE in outcome.reason and outcome.calls == 0


def test_the_table_has_every_column_a_summary_and_says_what_is_missing():
    tasks = [task_named("wifi_on"), task_named("note_create")]
    specs = [QUICK, PhoneSpec("realistic", "realistic")]
    outcomes = []
    for spec in specs:
        for task in tasks:
            outcomes.append(TaskOutcome(task.name, "first", spec.column, True, "ok", calls=6, tokens=600, steps=5,
                                        seconds=2.0))
            outcomes.append(TaskOutcome(task.name, "repeat", spec.column, True, "ok", calls=2, tokens=200, steps=5,
                                        seconds=1.0))
            outcomes.append(TaskOutcome(task.name, "replay", spec.column, available=False,
                                        reason=f"{NOT_AVAILABLE}: no replay="))
    table = BenchTable("t", [f"{s.column} {k}" for s in specs for k in ("first", "repeat", "replay")])
    fill_table(table, outcomes, tasks, specs, ("first", "repeat", "replay"), success_budget=True)
    figures = [row.figure for row in table.rows]
    assert "all tasks: success rate" in figures and "repeat / first: model calls" in figures
    assert table.value("all tasks: model calls", "realistic first") == 12
    assert table.value("repeat / first: model calls", "quick repeat") == pytest.approx(2 / 6)
    assert table.value("repeat / first: wall time", "realistic repeat") == pytest.approx(0.5)
    rendered = table.render()
    assert NOT_AVAILABLE in rendered and "quick replay: not available" in rendered
    assert table.within_budget()
    outcomes[1].calls = 5                      # a repeat that saved nothing is over its budget
    slow = BenchTable("t", table.columns)
    fill_table(slow, outcomes, tasks, specs, ("first", "repeat", "replay"), success_budget=True)
    assert not slow.within_budget()
    for outcome in outcomes:
        if outcome.kind == "repeat":
            outcome.success = False            # ratios of runs that did not do the task would mean nothing
    failed = BenchTable("t", table.columns)
    fill_table(failed, outcomes, tasks, specs, ("first", "repeat", "replay"), success_budget=True)
    ratio = next(row for row in failed.rows if row.figure == "repeat / first: model calls")
    assert not ratio.cells and ratio.missing == "no task succeeded in both"
    assert failed.value("all tasks: success rate", "quick repeat") == 0 and not failed.within_budget()
    assert sum(note.startswith("FAILED quick repeat") for note in failed.notes) == 2


def test_an_attached_phone_is_refused():
    with pytest.raises(SystemExit, match="attached phone"):
        run_tasks_bench(choice=PhoneChoice(device="R58M123"))
    assert not oracle_threads()

