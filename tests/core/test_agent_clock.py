"""The run's clock counts the agent's own time: waiting for the person never uses up the time limit."""

from __future__ import annotations

import asyncio
import time

import pytest

from app.core.agent.events import QuestionAnswered, QuestionAsked, ReviewAnswered, ReviewRequested, StepStarted
from app.core.agent.records import RunResult, StepRecord
from app.core.agent.supervisor import AgentClock, RunControl, RunTimedOut
from app.core.runs.handle import RunHandle
from app.core.runs.recorder import PersonWaits


class FakeTime:
    """A monotonic clock moved by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_clock_stands_still_while_the_person_is_waited_for():
    now = FakeTime()
    clock = AgentClock(now)
    now.now += 2
    with clock.waiting():
        now.now += 30
        assert clock.waiting_for_person
        assert clock.agent_seconds == pytest.approx(2)
        assert clock.waiting_seconds == pytest.approx(30)
    now.now += 1
    assert not clock.waiting_for_person
    assert clock.agent_seconds == pytest.approx(3)
    assert clock.waiting_seconds == pytest.approx(30)


def test_nested_waits_count_once():
    now = FakeTime()
    clock = AgentClock(now)
    with clock.waiting():
        now.now += 5
        with clock.waiting():
            now.now += 5
        now.now += 5
    assert clock.waiting_seconds == pytest.approx(15)
    assert clock.agent_seconds == pytest.approx(0)


def test_the_limit_counts_only_the_agents_time():
    now = FakeTime()
    control = RunControl(10, AgentClock(now))
    now.now += 9
    with control.waiting_for_person():
        now.now += 1000
        control.check()                     # a person reading for ages ends nothing
        assert control.remaining_seconds() is None
    control.check()
    assert control.remaining_seconds() == pytest.approx(1)
    now.now += 1
    with pytest.raises(RunTimedOut, match="10 s of the agent's own time"):
        control.check()


def test_no_limit_never_times_out():
    now = FakeTime()
    control = RunControl(None, AgentClock(now))
    now.now += 10 ** 6
    control.check()
    assert control.remaining_seconds() is None


@pytest.mark.asyncio
async def test_a_slow_review_inside_interruptible_does_not_time_out():
    """The review is awaited inside `interruptible` (as the pipeline does); it outlasts the limit."""
    control = RunControl(0.2)

    async def slow_person() -> str:
        with control.waiting_for_person():
            await asyncio.sleep(0.5)
        return "approved"

    assert await control.interruptible(slow_person()) == "approved"
    assert control.clock.waiting_seconds >= 0.45
    assert control.clock.agent_seconds < 0.2


@pytest.mark.asyncio
async def test_agent_work_inside_interruptible_still_times_out():
    control = RunControl(0.2)
    started = time.monotonic()
    with pytest.raises(RunTimedOut):
        await control.interruptible(asyncio.sleep(5))
    assert time.monotonic() - started < 1.5


@pytest.mark.asyncio
async def test_agent_time_after_a_wait_is_still_limited():
    """The deadline is worked out again when the wait ends: the agent's work after it is still bounded."""
    control = RunControl(0.3)

    async def wait_then_work() -> None:
        with control.waiting_for_person():
            await asyncio.sleep(0.4)
        await asyncio.sleep(5)

    started = time.monotonic()
    with pytest.raises(RunTimedOut):
        await control.interruptible(wait_then_work())
    assert 0.6 < time.monotonic() - started < 2


@pytest.mark.asyncio
async def test_a_pause_is_the_persons_time():
    control = RunControl(0.2)
    control.pause()
    asyncio.get_running_loop().call_later(0.4, control.resume)
    await control.wait_if_paused()
    assert control.clock.waiting_seconds >= 0.35
    control.check()


@pytest.mark.asyncio
async def test_the_handle_stops_the_clock_while_it_waits_for_an_answer():
    handle = RunHandle("r1", "do it", "phone")
    control = RunControl(0.2)
    handle.begin(control)
    asyncio.get_running_loop().call_later(0.4, lambda: handle.answer_question(handle.pending_question_id, "yes"))
    assert await control.interruptible(handle.ask("Which one?")) == "yes"
    assert control.clock.waiting_seconds >= 0.35
    assert control.clock.agent_seconds < 0.2


def test_person_waits_are_kept_per_step():
    now = FakeTime()
    waits = PersonWaits(now)
    waits.on_event(StepStarted(1))
    waits.on_event(ReviewRequested(1, None))
    now.now += 3
    waits.on_event(ReviewAnswered(1, None))
    now.now += 1
    waits.on_event(QuestionAsked("Which?"))
    now.now += 2
    waits.on_event(QuestionAnswered("Which?", "the first"))
    assert waits.step_finished(1) == pytest.approx(5)
    waits.on_event(StepStarted(2))
    waits.on_event(ReviewRequested(2, None))
    now.now += 4                            # stopped during the review: the wait ends with the step
    assert waits.step_finished(2) == pytest.approx(4)
    waits.on_event(StepStarted(3))
    assert waits.step_finished(3) == 0


def test_old_records_without_waiting_times_still_load():
    step = StepRecord.from_dict({"step": 1, "request": "x"})
    assert step.waiting_seconds == 0 and step.problems == []
    result = RunResult.from_dict({"status": "success", "steps_taken": 1, "actions_executed": [], "time_seconds": 2})
    assert result.agent_seconds == 0 and result.waiting_seconds == 0
    again = StepRecord.from_dict(StepRecord(step=2, request="x", waiting_seconds=3.5).to_dict())
    assert again.waiting_seconds == 3.5 and again.problems == []


def test_agentdesk_run_timeout_sets_the_runs_limit():
    from app.cli import build_parser
    from app.cli_agent import run_request_from_args
    from app.core.config import Settings
    from app.core.runs.service import RunRefused, settings_for

    args = build_parser().parse_args(["run", "Turn on Wi-Fi", "--timeout", "42.5"])
    request = run_request_from_args(args)
    assert request.timeout_seconds == 42.5
    assert settings_for(Settings(), request).agent.timeout_seconds == 42.5
    default = run_request_from_args(build_parser().parse_args(["run", "Turn on Wi-Fi"]))
    assert settings_for(Settings(), default).agent.timeout_seconds == Settings().agent.timeout_seconds
    for bad in ("0", "-5"):
        request = run_request_from_args(build_parser().parse_args(["run", "x", f"--timeout={bad}"]))
        with pytest.raises(RunRefused, match="timeout_seconds"):
            settings_for(Settings(), request)


@pytest.mark.asyncio
async def test_a_steps_phases_are_timed_on_the_agents_clock():
    """Two seconds of work, ten minutes waiting for the person, one more second: the phase took three."""
    from app.core.agent.pipeline import ProcessingPhase, StepContext, StepProcessor, Strategy

    now = FakeTime()
    clock = AgentClock(now)

    class ActWithAReview(Strategy):
        async def run(self, ctx: StepContext) -> None:
            now.now += 2
            with clock.waiting():
                now.now += 600
            now.now += 1

    processor = StepProcessor([(ProcessingPhase.ACTION_EXECUTION, ActWithAReview(False))], initial=set())
    ctx = StepContext(1, clock=lambda: clock.agent_seconds)
    await processor.process(ctx)
    assert ctx.timings_ms == {"ActWithAReview": 3000.0, "action_execution": 3000.0}
