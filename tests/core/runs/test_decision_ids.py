"""Every review and question a run asks has an id naming the run, the step and what was shown; a decision
names it, and the handle acts only on the pending id, once."""

from __future__ import annotations

import asyncio

import pytest

from app.core.agent.actions import Action
from app.core.agent.supervisor import Proposal, ReviewAnswer
from app.core.runs.handle import AlreadyDecided, NothingToAnswer, NotPending, RunHandle

pytestmark = pytest.mark.asyncio


def proposal(step: int, control_id: int = 3) -> Proposal:
    action = Action(function="click_control", arguments={"control_id": control_id})
    return Proposal(step, action, f"Tap control {control_id}")


async def asked(handle: RunHandle, shown: Proposal) -> asyncio.Task:
    """The run asks about `shown`; returns the waiting review once the handle holds it."""
    review = asyncio.ensure_future(handle.review(shown))
    while not handle.awaiting_review:
        await asyncio.sleep(0)
    return review


async def test_an_approval_resent_after_the_next_proposal_does_not_approve_it():
    handle = RunHandle("run-1", "do it", "phone")
    first = await asked(handle, proposal(1))
    shown_id = first_id = handle.pending_id
    assert first_id and first_id.startswith("step1-") and "/" not in first_id
    handle.answer(shown_id, ReviewAnswer.approve())
    assert (await first).kind == "approve"

    second = await asked(handle, proposal(2, control_id=5))
    assert handle.pending_id != first_id and handle.pending_id.startswith("step2-")
    with pytest.raises(AlreadyDecided, match="already decided"):
        handle.answer(first_id, ReviewAnswer.approve())          # a client's retry, a second supervisor
    with pytest.raises(NotPending, match="nothing was done"):
        handle.answer("step2-000000000000", ReviewAnswer.approve())
    assert handle.awaiting_review and handle.pending_proposal.step == 2 and not second.done()

    pending = handle.pending_id
    handle.answer(pending, ReviewAnswer.reject("not that"))
    with pytest.raises(AlreadyDecided):                           # the same decision sent twice: acted on once
        handle.answer(pending, ReviewAnswer.reject("not that"))
    assert (await second).kind == "reject"


async def test_the_same_proposal_made_again_after_a_rejection_is_a_new_id():
    handle = RunHandle("run-1", "do it", "phone")
    first = await asked(handle, proposal(1))
    rejected = handle.pending_id
    handle.answer(rejected, ReviewAnswer.reject("no"))
    await first
    again = await asked(handle, proposal(1))
    assert handle.pending_id != rejected
    with pytest.raises(AlreadyDecided):
        handle.answer(rejected, ReviewAnswer.reject("no"))
    assert handle.awaiting_review
    handle.answer(handle.pending_id, ReviewAnswer.approve())
    assert (await again).kind == "approve"


async def test_a_repeated_question_is_a_new_id_and_an_answer_names_its_question():
    handle = RunHandle("run-1", "do it", "phone")
    first = asyncio.ensure_future(handle.ask("Which account?"))
    while not handle.awaiting_answer:
        await asyncio.sleep(0)
    first_id = handle.pending_question_id
    assert first_id.startswith("question")
    with pytest.raises(NotPending):                               # a review decision is not an answer
        handle.answer(first_id, ReviewAnswer.approve())
    handle.answer_question(first_id, "the work one")
    assert await first == "the work one"

    second = asyncio.ensure_future(handle.ask("Which account?"))
    while not handle.awaiting_answer:
        await asyncio.sleep(0)
    assert handle.pending_question_id != first_id
    with pytest.raises(AlreadyDecided):
        handle.answer_question(first_id, "the work one")
    assert handle.awaiting_answer and not second.done()
    handle.answer_question(handle.pending_question_id, "the home one")
    assert await second == "the home one"
    with pytest.raises(NothingToAnswer):
        handle.answer_question("question9-000000000000", "late")


async def test_a_programs_decision_is_recorded_as_a_programs_not_the_persons():
    """A skill counts a run as approved only when a person approved it: an approval sent through the task API
    (under "Programs may approve sensitive actions") or a task's confirm_sensitive must not pass for one."""
    handle = RunHandle("run-1", "do it", "phone")
    review = await asked(handle, proposal(1))
    handle.answer(handle.pending_id, ReviewAnswer.approve(), by="a program through the task API")
    assert (await review).by == "program"

    review = await asked(handle, proposal(2))
    handle.answer(handle.pending_id, ReviewAnswer.approve())
    assert (await review).by == "person"

    unattended = RunHandle("run-2", "do it", "phone", mode="auto", sensitive_needs_person=False)
    sensitive = proposal(1)
    sensitive.sensitive_reason = "it pays"
    assert (await unattended.review(sensitive)).by == "program"
