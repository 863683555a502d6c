"""The agent meets content that comes and goes in time, on the realistic phone at full scale (tasks driven by the
scripted model, judged from the phone's own state):

- a list that arrives late and runs below the fold: Settings › Apps › See all apps opens with a spinner, its rows
  come 0.6-1.2 s later, and the one asked for is reached only by scrolling (a fling on this phone); no step may
  read the spinner's screen as the list, nor tap a row while the list still moves;
- the same list from the network (1-3 s, longer than the wait after an action): the step waits while the
  spinner turns, and no input lands on the list while it loads or flings; with a fixed 0.2 s wait instead (the
  counter-test) input does;
- the keyboard in the way: Wi-Fi › Add network pans for the keyboard, which then covers Save; the agent closes
  the keyboard before tapping it instead of typing a key;
- the home screen's pages: after a swipe to the next page they snap for about half a second; the step after
  reads the second page standing still, and taps its clock widget;
- a toast over the screen after a note is saved ("Note saved", 3.5 s), and a snackbar with Undo after a note is
  deleted (2.75 s): the run ends with the note saved / deleted, not undone, and called a success."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from datetime import datetime
from pathlib import Path

import pytest

from app.bench.oracle_model import OracleModel
from app.bench.task_suite import (
    SETTINGS,
    WIFI,
    BenchTask,
    ScriptStep,
    click,
    launch,
    phone_state,
    task_named,
    type_into,
)
from app.bench.tasks_bench import ORACLE_KEY, PhoneSpec, oracle_settings, run_task
from app.virtual_phone.apps.settings_apps import FEED_LOAD_SECONDS
from app.virtual_phone.phone import VirtualPhone

REQUEST = "Open the app info page of Shell"
CLOCK = "com.android.deskclock"


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


def run(task: BenchTask = TASK, **agent_settings) -> tuple[object, VirtualPhone]:
    spec = KeptPhone("realistic", "realistic")
    with OracleModel([task]) as oracle:
        settings = oracle_settings(oracle.base_url)
        settings.agent = settings.agent.model_copy(update=agent_settings)
        outcome = asyncio.run(run_task(task, "first", spec, settings, oracle=oracle, api_key=ORACLE_KEY))
    return outcome, spec.made[0]


def shown_title(phone: VirtualPhone) -> str:
    return getattr(phone.apps[SETTINGS].top, "title", "")


@pytest.mark.alone
def test_the_settle_wait_outlasts_a_late_list_and_a_fling():
    outcome, phone = run()
    assert shown_title(phone) == "Shell", outcome
    assert outcome.status == "success" and outcome.steps >= 5, "it had to scroll to reach the row"


def _list_from_the_network(phone: VirtualPhone) -> None:
    """See all apps fills 1-3 s after it opens, as a list over the network: longer than the wait after an
    action (at most agent.settle_seconds, 1 s), so only the wait for a moving progress indicator outlasts it."""
    phone.list_load_seconds = FEED_LOAD_SECONDS


NETWORK_TASK = dataclasses.replace(TASK, setup=_list_from_the_network)


@pytest.mark.alone
def test_a_list_slower_than_the_settle_wait_is_read_once_loaded_and_no_input_lands_on_it_early(monkeypatch):
    monkeypatch.setenv("AGENTDESK_TREE_SERVER", "on")     # the quick tree, which does not wait for the phone's idle
    outcome, phone = run(NETWORK_TASK)
    assert shown_title(phone) == "Shell", outcome
    assert outcome.status == "success", outcome
    assert phone.inputs_while_unsettled == [], "acted on a list still loading or flinging"
    steps = [json.loads(line) for line in (Path(outcome.run_dir) / "steps.jsonl").read_text().splitlines()]
    assert any(step["timings_ms"].get("loading", 0) > 0 for step in steps), "a step waited for the spinner"


@pytest.mark.alone
def test_with_a_fixed_short_wait_instead_the_same_run_acts_on_the_list_too_early(monkeypatch):
    """The counter-test: the wait after an action a fixed 0.2 s (what agents without a settle check do) and no
    wait for loading. The same run then reads the list while it loads (the model finds no "Shell" and gives up)
    or sends input onto it while it loads or flings, and does not get there."""
    import app.core.agent.action_strategies as action_strategies

    async def fixed_wait(rc, ctx) -> None:
        rc.settled = None
        await asyncio.sleep(0.2)

    monkeypatch.setattr(action_strategies, "settle_after_action", fixed_wait)
    monkeypatch.setenv("AGENTDESK_TREE_SERVER", "on")
    outcome, phone = run(NETWORK_TASK, loading_wait_seconds=0)
    read_too_early = outcome.status != "success" and "Shell" in outcome.reason
    assert read_too_early or phone.inputs_while_unsettled, f"nothing went wrong: the test phone is too kind ({outcome})"
    assert shown_title(phone) != "Shell", "the run did not get there"


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


def _wifi_on(phone: VirtualPhone) -> None:
    phone.put_setting("global", "wifi_on", "1")


KEYBOARD_TASK = BenchTask("wifi_add_network", "settings", "Add the Wi-Fi network Cafe Guest",
                          (launch(SETTINGS), click("Network & internet"), click(WIFI), click("Add network"),
                           type_into("Network name", "Cafe Guest"), click("Save", kind="Button")),
                          _judged_by_the_test, setup=_wifi_on)


@pytest.mark.alone
def test_a_button_under_the_keyboard_is_tapped_once_the_keyboard_is_closed():
    """`uiautomator dump` writes the active window only, without the keyboard: where it lies comes from
    `dumpsys window`."""
    outcome, phone = run(KEYBOARD_TASK)
    assert phone_state(phone)["wifi_networks_added"] == ["Cafe Guest"], f"a key typed instead? {outcome}"
    assert outcome.status == "success", outcome
    steps = [json.loads(line) for line in (Path(outcome.run_dir) / "steps.jsonl").read_text().splitlines()]
    saved = [step for step in steps if "Save" in str(step.get("result"))]
    assert saved and "Closed the keyboard" in str(saved[0]["result"]), "it saw Save was covered"


def _on_a_known_day(phone: VirtualPhone) -> None:
    """The widget's date is the phone's: a fixed one names it for the script."""
    phone.set_clock(datetime(2026, 3, 10, 8, 15))


PAGES_TASK = BenchTask("home_clock_widget", "launcher", "Open the clock from the clock widget on the home screen",
                       (ScriptStep("scroll", arguments={"direction": "right"}), click("Tue, Mar 10")),
                       _judged_by_the_test, setup=_on_a_known_day)


@pytest.mark.alone
def test_the_home_screens_next_page_is_read_once_its_pages_stand_still():
    """Home › scroll right: the finger's swipe, then the pages snap for about half a second. The step after it
    reads the second page with the pages still, and taps the widget there."""
    outcome, phone = run(PAGES_TASK)
    assert outcome.status == "success" and phone.fg == CLOCK, outcome
    assert phone.inputs_while_unsettled == [], "acted on pages still moving"
    steps = [json.loads(line) for line in (Path(outcome.run_dir) / "steps.jsonl").read_text().splitlines()]
    after_scroll = next(step for step in steps if step["action"].get("function") == "click_control")
    names = [control.get("text") or control.get("desc") for control in after_scroll["controls"]]
    assert "Calculator" not in names, f"a step read a page half in view: {names}"
