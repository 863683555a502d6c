"""The agent meets a list that arrives late and runs below the fold, on the realistic phone at full scale:
Settings › Apps › See all apps opens with a spinner, its rows come 0.6-1.2 s later, and the one asked for is
reached only by scrolling (a fling on this phone). The run must open that row: no step may read the spinner's
screen as the list, nor tap a row while the list still moves."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from app.bench.oracle_model import OracleModel
from app.bench.task_suite import SETTINGS, BenchTask, click, launch
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


def run() -> tuple[object, VirtualPhone]:
    spec = KeptPhone("realistic", "realistic")
    with OracleModel([TASK]) as oracle:
        settings = oracle_settings(oracle.base_url)
        outcome = asyncio.run(run_task(TASK, "first", spec, settings, oracle=oracle, api_key=ORACLE_KEY))
    return outcome, spec.made[0]


def shown_title(phone: VirtualPhone) -> str:
    return getattr(phone.apps[SETTINGS].top, "title", "")


@pytest.mark.alone
def test_the_settle_wait_outlasts_a_late_list_and_a_fling():
    outcome, phone = run()
    assert shown_title(phone) == "Shell", outcome
    assert outcome.status == "success" and outcome.steps >= 5, "it had to scroll to reach the row"
