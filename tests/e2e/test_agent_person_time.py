"""The person's time is not the agent's: a slow reviewer never times a run out; a slow agent does.

The run's time limit counts the agent's own time; time waiting for a review is recorded apart
(per step in steps.jsonl, per run in run.json) and the phone's state shows what really ran.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from app.core.agent.events import ReviewRequested
from app.core.agent.supervisor import ReviewAnswer
from app.core.agent.trajectory import load_run
from app.core.runs.handle import RunHandle
from tests.e2e.conftest import ScriptedPerson
from tests.support.openai_server import act, click, delayed, json_reply

pytestmark = pytest.mark.asyncio

OPEN_SETTINGS = json_reply(act("launch_app", package_name="com.android.settings"))
LIMIT = 5.0
"""The runs' limit of the agent's own time (s): above what two steps take on a busy machine (CI's four xdist
workers on two cores), so only the time the tests make slow decides whether a run times out."""
FINISH = json_reply(act("", status="FINISH", thought="Settings are open"))


@dataclass
class SlowPerson(ScriptedPerson):
    """Approves each review after a given number of seconds (one per review, in order)."""

    delays: list[float] = field(default_factory=list)
    _timers: list[asyncio.TimerHandle] = field(default_factory=list)

    def attach(self, handle: RunHandle) -> None:
        loop = asyncio.get_running_loop()

        def approve_if_still_asked() -> None:
            if handle.awaiting_review:
                handle.answer(handle.pending_id, ReviewAnswer.approve())

        def on_event(event) -> None:
            if isinstance(event, ReviewRequested):
                self.shown.append(event.proposal)
                delay = self.delays.pop(0) if self.delays else 0.0
                self._timers.append(loop.call_later(delay, approve_if_still_asked))
        handle.events.subscribe(on_event)

    def cancel(self) -> None:
        for timer in self._timers:
            timer.cancel()


async def test_a_person_slower_than_the_time_limit_does_not_end_the_run(run_agent):
    """Limit 5 s; the person takes 5.5 s, then 1 s, to approve: the run still does its task."""
    person = SlowPerson(delays=[LIMIT + 0.5, 1.0])
    started = time.monotonic()
    try:
        outcome = await run_agent("Open the settings", [OPEN_SETTINGS, FINISH], person, timeout_seconds=LIMIT)
    finally:
        person.cancel()
    assert time.monotonic() - started >= LIMIT + 1.4        # the run really did wait for the person
    result = outcome.result
    assert result.status == "success", result
    assert outcome.state["foreground"] == "com.android.settings"
    assert len(person.shown) == 2
    assert result.waiting_seconds >= LIMIT + 1.4
    assert result.agent_seconds < LIMIT <= result.waiting_seconds
    assert result.time_seconds >= result.agent_seconds + result.waiting_seconds - 0.1
    steps = outcome.steps()
    assert steps[0].waiting_seconds >= LIMIT + 0.4 and steps[1].waiting_seconds >= 0.9
    recorded = load_run(result.run_dir)
    assert recorded.run.result.waiting_seconds == result.waiting_seconds
    assert recorded.run.result.agent_seconds == result.agent_seconds
    assert outcome.trajectory_problems() == []


async def test_an_agent_slower_than_the_time_limit_times_out_and_acts_no_more(run_agent):
    """Step 1 opens Settings (the person waits 1.5 s, which does not count); step 2's model reply
    would take 17 s of the agent's time, past the 5 s limit (step 1's settle after the tap counts
    too): the run times out and nothing more reaches the phone."""
    person = SlowPerson(delays=[1.5])
    slow_reply = LIMIT + 12
    script = [OPEN_SETTINGS, delayed(slow_reply, click("Network & internet"))]
    started = time.monotonic()
    try:
        outcome = await run_agent("Open the network settings", script, person, timeout_seconds=LIMIT)
    finally:
        person.cancel()
    elapsed = time.monotonic() - started
    result = outcome.result
    assert result.status == "timeout", result
    assert f"{LIMIT:g} s of the agent's own time" in result.completion_reason
    assert elapsed < 1.5 + slow_reply - 2                   # it did not wait for the slow reply
    assert result.waiting_seconds >= 1.4 and LIMIT <= result.agent_seconds < LIMIT + 1.5
    assert len(person.shown) == 1                           # step 2 never reached the person
    state = outcome.state
    assert state["foreground"] == "com.android.settings"
    assert state["activity"] == "com.android.settings.Settings"   # the tap on "Network & internet" never ran
    assert len(result.actions_executed) == 1 and len(outcome.model.chat_requests) == 2
    steps = outcome.steps()
    assert [s.step for s in steps] == [1, 2] and steps[1].waiting_seconds == 0
    assert outcome.trajectory_problems() == []


class JumpingClock:
    """The machine's monotonic clock, moved forward by hand: a person who decides in "ten minutes" at once."""

    def __init__(self) -> None:
        self.offset = 0.0
        self.real = time.monotonic

    def __call__(self) -> float:
        return self.real() + self.offset


@dataclass
class TenMinutePerson(ScriptedPerson):
    """Approves each review once its clocks have moved ten minutes on (the answer comes after the run has
    begun waiting, as a real person's does)."""

    clock: JumpingClock = field(default_factory=JumpingClock)

    def attach(self, handle: RunHandle) -> None:
        loop = asyncio.get_running_loop()

        def decide() -> None:
            self.clock.offset += 600
            handle.answer(handle.pending_id, ReviewAnswer.approve())

        def on_event(event) -> None:
            if isinstance(event, ReviewRequested):
                self.shown.append(event.proposal)
                loop.call_soon(decide)
        handle.events.subscribe(on_event)


async def test_the_time_a_step_waited_for_the_decision_is_waiting_not_acting_on_the_phone(run_agent, monkeypatch):
    """Every clock a run reads (the agent's, the step's waits, the phases' timers) jumps ten minutes while the
    person decides step 1: the step records them as "waiting for you", and acting on the phone as the seconds
    the phone took."""
    from app.core.agent.supervisor import AgentClock
    from app.core.runs.recorder import PersonWaits

    person = TenMinutePerson()
    monkeypatch.setattr(AgentClock.__init__, "__defaults__", (person.clock,))
    monkeypatch.setattr(PersonWaits.__init__, "__defaults__", (person.clock,))
    monkeypatch.setattr(time, "perf_counter", person.clock)
    outcome = await run_agent("Open the settings", [OPEN_SETTINGS, FINISH], person)
    assert outcome.result.status == "success", outcome.result
    first = outcome.steps()[0]
    assert first.waiting_seconds >= 600
    assert first.timings_ms["action_execution"] < 60_000, first.timings_ms
    assert all(ms < 60_000 for ms in first.timings_ms.values()), first.timings_ms
    assert outcome.result.waiting_seconds >= 1200 and outcome.result.agent_seconds < 60
    report = (Path(outcome.result.run_dir) / "report.html").read_text(encoding="utf-8")
    step_one = report[report.index("Step 1"):report.index("Step 2")]
    assert "waiting for you 10 min" in step_one
    acting = step_one[step_one.index("acting on the phone"):].split("·")[0].split("|")[0]
    assert "min" not in acting, acting
