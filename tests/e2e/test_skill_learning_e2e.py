"""Issue 27: skills that learn the right thing, in real runs on the virtual phone in auto mode, with a model
that reads each screen (the bench's oracle) and finishes as soon as the screen shows the task done.

The person's report: after one Wi-Fi run the skill's trigger took any item, so a Bluetooth request replayed the
Wi-Fi way and an airplane-mode request ran wrong steps before noticing; a run that found Wi-Fi already on
replaced the good 4-step skill with a shorter one, and later runs with Wi-Fi off failed.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import pytest

from app.bench import task_suite as suite
from app.bench.oracle_model import OracleModel, expectation_shown
from app.bench.task_suite import NOTES, BenchTask, task_named
from app.core.agent.completion_check import normalise
from app.core.agent.llm_client import ModelClient
from app.core.device.adb_transport import AdbTransport
from app.core.device.phone_session import PhoneRegistry
from app.core.learning.skill_store import SkillStore
from app.core.runs.service import RunRequest, RunService
from tests.e2e.conftest import API_KEY, QUICK_PHONE_QUIET_SECONDS, ScriptedPerson, approve, e2e_settings
from tests.e2e.test_agent_tasks import WIFI_SCRIPT
from tests.e2e.test_replay import put_back
from tests.e2e.test_skills_e2e import messages
from tests.e2e.test_take_over import TakingOverPerson, action
from tests.support.openai_server import act, click, json_reply

pytestmark = pytest.mark.asyncio

SETTINGS_APP = "com.android.settings"
WIFI, BLUETOOTH, AIRPLANE = task_named("wifi_on"), task_named("bluetooth_on"), task_named("airplane_on")
ON_THE_WAY = {      # the controls each task's way taps (a row's first part, as a person reads it)
    WIFI.request: {"network & internet", "wi-fi", "use wi-fi"},
    BLUETOOTH.request: {"connected devices", "bluetooth", "use bluetooth"},
    AIRPLANE.request: {"network & internet", "airplane mode"},
}


def note_task(title: str, body: str) -> BenchTask:
    def check(state: dict) -> tuple[bool, str]:
        notes = [(note.get("title"), note.get("body")) for note in state.get("notes", [])]
        return (title, body) in notes, f"notes: {notes}"
    return BenchTask(f"note_{title}", "notes", f"Create a note called {title} with {body}",
                     (suite.launch(NOTES), suite.click("New note"), suite.type_into("Title", title),
                      suite.type_into("Note", body), suite.click("Save")), check,
                     expect={"control": title, "text": body})


NOTE_TASKS = [note_task("Groceries", "milk"), note_task("Chores", "laundry"), note_task("Books", "novels")]


class SeeingOracle(OracleModel):
    """The oracle, told which request it answers (the prompt also lists saved skills by their requests), that
    looks at every screen before acting: one that shows its task done is answered FINISH, as a model would."""

    def __init__(self, tasks: list[BenchTask]) -> None:
        super().__init__(tasks)
        self.current = ""

    def begin(self, request: str) -> None:
        super().begin(request)
        self.current = request

    def _task_of(self, body: dict[str, Any]) -> BenchTask | None:
        return self.tasks.get(self.current)

    def _step(self, task, progress, controls, prompt: str = "") -> dict[str, Any]:
        if task.expect and expectation_shown(task.expect, controls):
            progress.cursor = len(task.script)
        return super()._step(task, progress, controls, prompt)

    @property
    def step_calls(self) -> int:
        return self.tally.calls.get("step", 0)


@dataclass
class Ran:
    result: Any
    steps: list
    person: ScriptedPerson
    step_calls: int


def off_the_way(ran: Ran, request: str) -> list[str]:
    """The executed actions of a run that no way of doing `request` takes."""
    wrong = []
    for step in ran.steps:
        function = str(step.action.get("function") or "")
        if not function or step.result is None or not step.result.success:
            continue
        if function == "launch_app" and step.action.get("arguments", {}).get("package_name") == SETTINGS_APP:
            continue
        label = normalise((step.target.name if step.target is not None else "").split(",", 1)[0])
        if function != "click_control" or label not in ON_THE_WAY[request]:
            wrong.append(step.action_text)
    return wrong


@pytest.fixture
def run_with_oracle(phone_server):
    """Run a request in auto mode through the run service, answered by a seeing oracle; a person approves
    whatever they are asked (and it is recorded)."""
    oracle = SeeingOracle([WIFI, BLUETOOTH, AIRPLANE, *NOTE_TASKS]).start()

    async def run(task: BenchTask) -> Ran:
        from app.core.agent.trajectory import load_run
        before = oracle.step_calls
        oracle.begin(task.request)
        person = ScriptedPerson([approve] * 10)
        transport = AdbTransport("127.0.0.1", phone_server.port)
        phones = PhoneRegistry()
        phones.open(transport, transport.list_devices()[0], virtual=True, timeout=10)
        settings = e2e_settings(oracle.base_url, "auto", settle_quiet_seconds=QUICK_PHONE_QUIET_SECONDS)
        service = RunService(phones, settings, client_factory=functools.partial(ModelClient, backoff_seconds=0.01))
        try:
            handle = await service.start(RunRequest(task.request, api_key=API_KEY))
            person.attach(handle)
            result = await handle.wait()
        finally:
            await service.shutdown()
            await phones.close()
        person.raise_failure()
        return Ran(result, load_run(result.run_dir).steps, person, oracle.step_calls - before)

    yield run
    oracle.stop()


async def test_wifi_bluetooth_airplane_then_wifi_already_on_then_off_keeps_the_wifi_skill(run_with_oracle,
                                                                                       phone_server):
    phone = phone_server.devices[0].phone

    def closed_settings() -> None:          # the person closed Settings and went home
        phone.force_stop(SETTINGS_APP)
        phone.go_home()

    def check(ran: Ran, task: BenchTask) -> None:
        assert ran.result.status == "success", ran.result
        done, why = task.check(phone.state())
        assert done, f"{task.request}: {why}"
        assert off_the_way(ran, task.request) == [], f"{task.request}: wrong actions"

    wifi = await run_with_oracle(WIFI)
    check(wifi, WIFI)
    store = SkillStore()
    skill = store.find(WIFI.request)
    assert skill is not None and skill.trigger == "Turn on Wi-Fi" and skill.parameters == {}   # exact: one run
    good_steps = [step.words for step in skill.steps]
    assert len(good_steps) == 4 and skill.runs == [wifi.result.run_dir]

    closed_settings()
    bluetooth = await run_with_oracle(BLUETOOTH)
    check(bluetooth, BLUETOOTH)                   # the model's own way, not the Wi-Fi skill's with a new value
    assert bluetooth.person.shown == []
    assert store.find(BLUETOOTH.request).trigger == "Turn on Bluetooth"     # different ways: no parameter

    closed_settings()
    airplane = await run_with_oracle(AIRPLANE)
    check(airplane, AIRPLANE)
    assert airplane.person.shown == []

    phone.go_home()                                # Settings stays on "Network & internet" behind the home screen
    phone.put_setting("global", "wifi_on", "1")
    already_on = await run_with_oracle(WIFI)
    check(already_on, WIFI)
    kept = store.find(WIFI.request)
    assert [step.words for step in kept.steps] == good_steps, "a run that found Wi-Fi on replaced the skill"

    phone.go_home()                                # Settings is left on the Wi-Fi page now
    phone.put_setting("global", "wifi_on", "0")
    wifi_off = await run_with_oracle(WIFI)
    check(wifi_off, WIFI)
    kept = store.find(WIFI.request)
    assert [step.words for step in kept.steps] == good_steps, "a shorter run replaced the skill"
    assert kept.runs == [wifi.result.run_dir]

    closed_settings()                              # and the skill alone still does the job, without the model
    phone.put_setting("global", "wifi_on", "0")
    again = await run_with_oracle(WIFI)
    check(again, WIFI)
    assert again.step_calls == 0 and again.result.verification == "screen"
    assert store.find(WIFI.request).history.successes == 1


async def test_after_take_over_and_hand_back_the_skill_stops_and_the_model_goes_on_with_the_note(run_agent,
                                                                                              phone_server):
    """The report: after Take over → Hand back with a note, the skill carried on (and proposed undoing what the
    person had just done)."""
    phone = phone_server.devices[0].phone
    await run_agent(WIFI.request, WIFI_SCRIPT, mode="auto")
    put_back(phone)

    def moves(proposal, _records):          # the skill proposes "Network & internet": the person opens it
        x, y = next(c for c in proposal.controls if c.name.startswith("Network & internet")).center
        yield [action("tap", x=x, y=y)]

    note = "I opened the network page myself; go on from here"
    person = TakingOverPerson(2, moves, note)
    script = [click("Wi-Fi"), click("Use Wi-Fi"), json_reply(act("", status="FINISH", thought="Wi-Fi is on"))]
    outcome = await run_agent(WIFI.request, script, person, mode="step")

    assert outcome.result.status == "success", outcome.result
    assert outcome.state["wifi"] is True
    assert [type(event).__name__ for event in person.events] == ["TakenOver", "HandedBack"]
    by = [proposal.proposed_by for proposal in person.shown]
    assert by[:2] == ["skill “Turn on Wi-Fi”"] * 2 and by[2:] == ["the model"] * 3, by
    assert note in str(outcome.model.chat_requests[0].body)
    assert any("the person took over the phone and handed it back" in line for line in messages(outcome))
    assert SkillStore().find(WIFI.request).history.successes == 0


async def test_two_verified_runs_that_differ_only_in_values_make_a_skill_that_takes_others(run_with_oracle,
                                                                                          phone_server):
    phone = phone_server.devices[0].phone
    groceries, chores, books = NOTE_TASKS
    first = await run_with_oracle(groceries)
    assert first.result.status == "success" and groceries.check(phone.state())[0]
    assert SkillStore().find(groceries.request).trigger == groceries.request          # one run: exact
    phone.force_stop(NOTES)
    phone.go_home()
    second = await run_with_oracle(chores)                # no skill fits: the model's own way, the same steps
    assert second.result.status == "success" and second.step_calls > 0
    [skill] = SkillStore().load()[0]
    assert skill.trigger == "Create a note called {text} with {text_2}", skill.trigger
    assert skill.runs == [first.result.run_dir, second.result.run_dir]

    phone.force_stop(NOTES)
    phone.go_home()
    third = await run_with_oracle(books)                  # the skill with new values: asked first, then no model
    assert third.result.status == "success", third.result
    assert books.check(phone.state())[0]
    assert len(third.person.shown) == 1 and "new values" in third.person.shown[0].sensitive_reason
    assert third.step_calls == 0
