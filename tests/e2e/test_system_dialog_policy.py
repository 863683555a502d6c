"""A permission request pops over the app in an auto-mode run (the virtual phone's pop-up fault): by default the
run does not answer it for the person — nobody is there to ask, so it ends needing one, with nothing granted;
with Settings › Agent › System dialogs set to let the model answer, the model's "Allow" goes through."""

from __future__ import annotations

import asyncio

from app.bench.oracle_model import OracleModel
from app.bench.task_suite import CONTACTS, BenchTask, click, launch
from app.bench.tasks_bench import ORACLE_KEY, PhoneSpec, oracle_settings, run_task
from app.core.runs.service import RunRequest
from app.virtual_phone.phone import VirtualPhone

REQUEST = "Open Contacts and let it see the contacts"


def _asks_first(phone: VirtualPhone) -> None:
    phone.pop_ups.permission_requests = 1


TASK = BenchTask("allow_contacts", "contacts", REQUEST, (launch(CONTACTS), click("Allow")),
                 lambda state: (False, "judged by the test"), setup=_asks_first)


class KeptPhone(PhoneSpec):
    made: list[VirtualPhone]

    def make_phone(self) -> VirtualPhone:
        phone = super().make_phone()
        object.__setattr__(self, "made", [*getattr(self, "made", []), phone])
        return phone


def run(system_dialogs: str):
    spec = KeptPhone("quick", "quick")
    with OracleModel([TASK]) as oracle:
        settings = oracle_settings(oracle.base_url)
        settings = settings.model_copy(update={"agent": settings.agent.model_copy(
            update={"system_dialogs": system_dialogs})})
        request = RunRequest(REQUEST, mode="auto", policy="fail", sensitive_needs_person=True, api_key=ORACLE_KEY)
        outcome = asyncio.run(run_task(TASK, "first", spec, settings, oracle=oracle, request=request))
    return outcome, spec.made[0]


def test_by_default_an_auto_run_does_not_answer_a_permission_request_for_the_person():
    outcome, phone = run("ask")
    assert phone.pop_ups.answers == {}, "nothing was granted or refused for the person"
    assert phone.system_dialog is not None, "the request still waits for the person"
    assert outcome.status == "failed" and "answers a permission request of the system" in outcome.reason, outcome


def test_when_the_person_lets_the_model_answer_its_allow_goes_through():
    outcome, phone = run("model")
    assert phone.pop_ups.answers == {CONTACTS: True}
    assert phone.system_dialog is None and phone.foreground()[0] == CONTACTS
    assert outcome.status == "success", outcome


def _stops_responding(phone: VirtualPhone) -> None:
    phone.pop_ups.not_responding = 1


WAIT_REQUEST = "Open Contacts, and wait for it if it hangs"
WAIT_TASK = BenchTask("wait_for_contacts", "contacts", WAIT_REQUEST, (launch(CONTACTS), click("Wait")),
                      lambda state: (False, "judged by the test"), setup=_stops_responding)


def test_an_isnt_responding_dialog_follows_the_same_setting():
    for system_dialogs, answered in (("ask", False), ("model", True)):
        spec = KeptPhone("quick", "quick")
        with OracleModel([WAIT_TASK]) as oracle:
            settings = oracle_settings(oracle.base_url)
            settings = settings.model_copy(update={"agent": settings.agent.model_copy(
                update={"system_dialogs": system_dialogs})})
            request = RunRequest(WAIT_REQUEST, mode="auto", policy="fail", sensitive_needs_person=True,
                                 api_key=ORACLE_KEY)
            outcome = asyncio.run(run_task(WAIT_TASK, "first", spec, settings, oracle=oracle, request=request))
        phone = spec.made[0]
        assert (phone.system_dialog is None) == answered, (system_dialogs, outcome)
        if answered:
            assert outcome.status == "success" and phone.foreground()[0] == CONTACTS, outcome
        else:
            assert outcome.status == "failed" and "isn’t responding" in outcome.reason, outcome
