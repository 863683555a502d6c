"""The agent meets content that comes and goes in time, on the realistic phone at full scale (tasks driven by the
scripted model, judged from the phone's own state):

- a list that arrives late and runs below the fold: Settings › Apps › See all apps opens with a spinner, its rows
  come 0.6-1.2 s later, and the one asked for is reached only by scrolling (a fling on this phone); no step may
  read the spinner's screen as the list, nor tap a row while the list still moves;
- a toast over the screen after a note is saved ("Note saved", 3.5 s), and a snackbar with Undo after a note is
  deleted (2.75 s): the run ends with the note saved / deleted, not undone, and called a success."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path

import pytest

from app.bench.oracle_model import OracleModel
from app.bench.task_suite import SETTINGS, BenchTask, click, launch, phone_state, task_named
from app.bench.tasks_bench import ORACLE_KEY, PhoneSpec, oracle_settings, run_task
from app.virtual_phone.phone import VirtualPhone

REQUEST = "Open the app info page of Shell"


def _judged_by_the_test(state: dict):
    return False, "judged by the test from the phone"


TASK = BenchTask("late_list", "settings", REQUEST,
                 (launch(SETTINGS), click("Apps"), click("See all"), click("Shell")), _judged_by_the_test)


@dataclasses.dataclass(frozen=True)
class KeptPhone(PhoneSpec):
    """The realistic phone at full scale, kept for the test to read afterwards."""

    made: list = dataclasses.field(default_factory=list, compare=False)

    def make_phone(self) -> VirtualPhone:
        phone = super().make_phone()
        self.made.append(phone)
        return phone


def run(task: BenchTask = TASK) -> tuple[object, VirtualPhone]:
    spec = KeptPhone("realistic", "realistic")
    with OracleModel([task]) as oracle:
        settings = oracle_settings(oracle.base_url)
        outcome = asyncio.run(run_task(task, "first", spec, settings, oracle=oracle, api_key=ORACLE_KEY))
    return outcome, spec.made[0]


def shown_title(phone: VirtualPhone) -> str:
    return getattr(phone.apps[SETTINGS].top, "title", "")


@pytest.mark.alone
def test_the_settle_wait_outlasts_a_late_list_and_a_fling():
    outcome, phone = run()
    assert shown_title(phone) == "Shell", outcome
    assert outcome.status == "success" and outcome.steps >= 5, "it had to scroll to reach the row"


@pytest.mark.alone
def test_a_toast_after_saving_does_not_stop_the_run_from_ending_well():
    outcome, phone = run(task_named("note_create"))
    titles = [note["title"] for note in phone_state(phone)["notes"]]
    assert titles.count("Groceries") == 1, outcome
    assert outcome.status == "success", outcome


def _slow_to_act(phone: VirtualPhone) -> None:
    """Accessibility › Time to take action: 10 s, so the snackbar is still there when the next step looks (at
    full scale a step's dump and wait take longer than Material's 2.75 s)."""
    phone.put_setting("secure", "accessibility_interactive_ui_timeout_ms", "10000")


@pytest.mark.alone
def test_a_snackbar_with_undo_after_deleting_is_left_alone():
    task = dataclasses.replace(task_named("note_delete"), setup=_slow_to_act)
    outcome, phone = run(task)
    assert "Ideas" not in [note["title"] for note in phone_state(phone)["notes"]], f"undone? {outcome}"
    assert outcome.status == "success", outcome
    steps = [json.loads(line) for line in (Path(outcome.run_dir) / "steps.jsonl").read_text().splitlines()]
    after_deleting = steps[-1]
    assert any(control.get("text") == "Undo" for control in after_deleting["controls"]), "the step saw the snackbar"
    assert not any("Undo" in str(step.get("result")) for step in steps), "and did not tap it"
