"""The person's time is not the agent's: a slow reviewer never times a run out; a slow agent does.

The run's time limit counts the agent's own time; time waiting for a review is recorded apart
(per step in steps.jsonl, per run in run.json) and the phone's state shows what really ran.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

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
