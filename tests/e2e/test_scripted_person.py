"""The scripted person itself: an answer of its script that fails fails the test at once, with its message.

Without this, the run's event stream logs the failure (one broken reader must not break a run) and the run
waits for an answer that never comes, until the test's 120 s timeout, the cause buried in the log. The
timeouts below are far shorter than that: a swallowed failure makes these tests fail by timing out.
"""

from __future__ import annotations

import pytest

from app.core.agent.events import QuestionAsked
from tests.e2e.conftest import ScriptedPerson, approve
from tests.e2e.test_agent_tasks import WIFI_SCRIPT
from tests.support.openai_server import act, json_reply


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_a_failed_assertion_of_the_person_fails_the_test_with_its_message(run_agent):
    def expects_another_app(proposal):
        assert "com.example.mail" in proposal.action_text, "the person expected the mail app to be opened"
        return approve(proposal)

    person = ScriptedPerson([expects_another_app])
    with pytest.raises(AssertionError, match="the person expected the mail app to be opened"):
        await run_agent("Turn on Wi-Fi", WIFI_SCRIPT, person)
    assert len(person.failures) == 1 and len(person.shown) == 1, "the run stopped at the failed answer"


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_a_question_the_script_has_no_reply_for_fails_the_test_with_the_question(run_agent):
    script = [json_reply(act("ask_user", question="Which network should I join?"))]
    with pytest.raises(AssertionError, match="no reply for: 'Which network should I join"):
        await run_agent("Turn on Wi-Fi", script, ScriptedPerson([approve] * 3), mode="auto")


def test_a_failure_stops_the_run_and_is_raised_as_it_was():
    """Directly: the person's answer raises; the run is asked to stop with the cause, and the same error is
    raised by `raise_failure`."""
    stopped: list[str] = []

    class Handle:
        class events:        # noqa: N801  (stands in for the run's event stream)
            subscribers: list = []

            @classmethod
            def subscribe(cls, subscriber):
                cls.subscribers.append(subscriber)

        def stop(self, reason: str) -> None:
            stopped.append(reason)

    person = ScriptedPerson(replies=[])
    person.attach(Handle())
    Handle.events.subscribers[0](QuestionAsked(question="Which one?", question_id="q1"))
    assert stopped and "no reply for: 'Which one?'" in stopped[0]
    with pytest.raises(AssertionError, match="no reply for: 'Which one"):
        person.raise_failure()
