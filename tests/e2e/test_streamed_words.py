"""The model's words as they stream in reach every face: the run's event stream, the console's live line."""

from __future__ import annotations

import io
import logging

import pytest

from app.console import ConsoleSupervisor
from app.core.agent.events import ModelWords
from tests.e2e.conftest import ScriptedPerson
from tests.support.openai_server import act, json_reply


@pytest.mark.asyncio
async def test_a_streamed_reply_is_told_word_by_word_on_the_run_stream(run_agent):
    script = [json_reply(act("press_key", key_code="HOME", thought="The home key takes me to the launcher")),
              json_reply({**act("", status="FINISH"), "comment": "at home"})]
    outcome = await run_agent("Go home", script, ScriptedPerson(), mode="auto")
    assert outcome.result.status == "success", outcome.result
    words = [event for event in outcome.run.events.history if isinstance(event, ModelWords)]
    assert {event.step for event in words} == {1, 2}
    assert any("launcher" in event.text_so_far for event in words if event.step == 1)
    assert all(request.body.get("stream") is True for request in outcome.model.chat_requests
               if not request.body["messages"][0]["content"].startswith("You check")), "the steps asked for streams"
    assert [argv[-1] for argv in outcome.phone_actions()] == ["3"]


@pytest.mark.asyncio
async def test_streaming_can_be_turned_off(run_agent):
    script = [json_reply({**act("", status="FINISH"), "comment": "nothing to do"})]
    outcome = await run_agent("Look", script, ScriptedPerson(), mode="auto", provider={"stream": False})
    assert outcome.result.status == "success"
    assert not [event for event in outcome.run.events.history if isinstance(event, ModelWords)]
    assert "stream" not in outcome.model.chat_requests[0].body


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_console_writes_the_thought_as_it_grows_on_a_terminal():
    out = Terminal()
    console = ConsoleSupervisor(out)
    console.model_words(2, '{"thought": "Settings\nis open')
    console.model_words(2, '{"thought": "Settings is open", "action": ' + "x" * 200)
    console.say("Step 2: Tap “Wi-Fi” → ok")
    text = out.getvalue()
    assert text.count("  step 2, the model writes: ") == 1, "one line that grows, not one line per piece"
    assert "step 2, the model writes: Settings is open\n" in text, "newlines in the reply do not break the line"
    assert '"action"' not in text and "xxx" not in text, "the reply's JSON is not shown, its thought is"
    assert text.endswith("open\nStep 2: Tap “Wi-Fi” → ok\n"), "the words stay, the next line starts below them"


def test_piped_output_gets_no_live_line():
    out = io.StringIO()
    console = ConsoleSupervisor(out)
    console.model_words(1, "partial")
    console.say("Result: success")
    assert out.getvalue() == "Result: success\n"


def test_a_warning_logged_on_the_terminal_first_clears_the_live_line():
    out = Terminal()
    err = io.StringIO()
    handler = logging.StreamHandler(err)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    console = ConsoleSupervisor(out)
    try:
        with console.clearing_live_line_for_logs():
            console.model_words(1, "Calculator.Com.AgentDesk")
            logging.getLogger("app.test").warning("step 1: Decide failed")
        assert out.getvalue().endswith("\r\x1b[2K"), "the live line was cleared before the warning"
        assert err.getvalue() == "WARNING step 1: Decide failed\n"
        console.model_words(1, "again")
        logging.getLogger("app.test").warning("after")
        assert not out.getvalue().endswith("\r\x1b[2K"), "outside the run, logs leave the console alone"
    finally:
        root.removeHandler(handler)
