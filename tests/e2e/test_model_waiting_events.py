"""While the model answers, the run's event stream says so: each time it is asked, the words with how many
tokens came, a reply cut off (or unusable) and asked again, and how a model call failed for good."""

from __future__ import annotations

import pytest

from app.core.agent.events import ModelAsked, ModelFailed, ModelWords, ReplyRetried
from tests.e2e.conftest import ScriptedPerson
from tests.support.openai_server import act, cut_off_reply, http_error, json_reply

FINISH = json_reply({**act("", status="FINISH"), "comment": "at home"})


def of(kind, outcome) -> list:
    return [event for event in outcome.run.events.history if isinstance(event, kind)]


@pytest.mark.asyncio
async def test_a_cut_off_reply_is_told_before_the_model_is_asked_again(run_agent):
    script = [cut_off_reply('{"thought": "Long thoughts'), json_reply(act("press_key", key_code="HOME")), FINISH]
    outcome = await run_agent("Go home", script, ScriptedPerson(), mode="auto", provider={"max_output_tokens": 256})
    assert outcome.result.status == "success", outcome.result
    asked = [(event.step, event.max_output_tokens) for event in of(ModelAsked, outcome)]
    assert asked == [(1, 256), (1, 512), (2, 256)]
    retried = of(ReplyRetried, outcome)
    assert [(event.step, event.cut_off, event.max_output_tokens) for event in retried] == [(1, True, 512)]
    assert retried[0].problem == "the reply was cut off at 256 tokens (the output budget)"
    history = outcome.run.events.history
    assert history.index(retried[0]) < history.index(of(ModelAsked, outcome)[1]), "said before asking again"


@pytest.mark.asyncio
async def test_an_unusable_reply_is_told_when_the_model_is_asked_again(run_agent):
    script = [json_reply({"thought": "no action here"}), json_reply(act("press_key", key_code="HOME")), FINISH]
    outcome = await run_agent("Go home", script, ScriptedPerson(), mode="auto")
    assert outcome.result.status == "success", outcome.result
    retried = of(ReplyRetried, outcome)
    assert len(retried) == 1 and not retried[0].cut_off and retried[0].step == 1 and retried[0].problem


@pytest.mark.asyncio
async def test_the_words_carry_how_many_tokens_came(run_agent):
    thought = "The home key takes me to the launcher, " * 5
    outcome = await run_agent("Go home", [json_reply(act("press_key", key_code="HOME", thought=thought)), FINISH],
                              ScriptedPerson(), mode="auto")
    words = [event for event in of(ModelWords, outcome) if event.step == 1]
    assert words[-1].tokens > 10, "the reply came in many pieces"
    assert all(later.tokens >= earlier.tokens for earlier, later in zip(words, words[1:], strict=False))


@pytest.mark.asyncio
async def test_a_model_call_that_fails_for_good_says_how(run_agent):
    outcome = await run_agent("Go home", [http_error(401, "Incorrect API key provided")], ScriptedPerson(),
                              mode="auto")
    assert outcome.result.status == "failed"
    failed = of(ModelFailed, outcome)
    assert [(event.step, event.reason) for event in failed] == [(1, "key_refused")]
    assert "refused" in failed[0].message
