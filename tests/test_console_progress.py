"""A model is never silent in the console: its words as they grow on a terminal, a slow ticker when piped."""

from __future__ import annotations

import io

import pytest

from app.console import ConsoleSupervisor
from app.console_progress import ModelProgress, readable_words, shown_so_far
from app.core.redaction import REDACTED
from app.core.secrets import register_secret


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("text, words, complete", [
    ('{"thought": "Open the Sett', "Open the Sett", False),
    ('```json\n{"thought": "Tap \\"OK\\"\\nnow", "action": {', 'Tap "OK" now', True),
    ('{"thought": "caf\\u00e9 is op', "café is op", False),
    ('{"thought": "half an escape \\', "half an escape", False),
    ('{"action": {"function": "tap"', "", False),
    ("The user wants Wi-Fi.\nFirst I", "The user wants Wi-Fi. First I", False),
])
def test_the_readable_words_of_a_reply_so_far(text, words, complete):
    assert readable_words(text) == (words, complete)


def test_a_terminal_gets_a_status_line_then_the_words_growing_on_one_line():
    out, clock = Terminal(), Clock()
    progress = ModelProgress(out, terminal=True, clock=clock)
    progress.asked(3)
    clock.now += 12
    progress.tick()
    assert out.getvalue().endswith("\r\x1b[2K  step 3: asking the model… 12 s"), "before the first word"
    progress.words(3, '{"thought": "The list shows', 4)
    progress.words(3, '{"thought": "The list shows Wi-Fi near the top', 9)
    clock.now += 5
    progress.tick()                     # the words are on their way: no status line over them
    progress.words(3, '{"thought": "The list shows Wi-Fi near the top", "action": {"function"', 15)
    progress.end()
    text = out.getvalue()
    words = text.split("\r\x1b[2K")[-1]
    assert words == "  step 3, the model writes: The list shows Wi-Fi near the top\n"
    assert text.count("The list") == 1, "what was written is not written again"


def test_on_a_terminal_a_new_reply_starts_a_new_line():
    out = Terminal()
    console = ConsoleSupervisor(out)
    console.progress.asked(1)
    console.model_words(1, "Thinking about the screen first ", 6)
    console.say("  step 1: the reply was cut off at 1,024 tokens; asking the model again")
    console.progress.asked(1)
    console.model_words(1, '{"thought": "Tap Wi-Fi", "action": {', 8)
    console.end_live_line()
    lines = out.getvalue().replace("\r\x1b[2K", "\n").splitlines()
    assert [line for line in lines if line.strip()] == [
        "  step 1: asking the model… 0 s",
        "  step 1, the model writes: Thinking about the screen first",
        "  step 1: the reply was cut off at 1,024 tokens; asking the model again",
        "  step 1: asking the model… 0 s",
        "  step 1, the model writes: Tap Wi-Fi"]


def test_the_start_of_a_key_still_streaming_in_is_never_written():
    key = "sk-test-console-progress-0123456789abcdef"
    register_secret(key)
    out = Terminal()
    progress = ModelProgress(out, terminal=True, clock=Clock())
    progress.asked(1)
    progress.words(1, f"I will type {key[:6]}")
    progress.words(1, f"I will type {key[:14]} and")
    assert "sk-tes" not in out.getvalue()
    progress.words(1, f"I will type {key} and then")
    progress.end()
    assert "sk-te" not in out.getvalue() and f"I will type {REDACTED} and then" in out.getvalue()
    assert shown_so_far(f"type {key[:10]}", complete=True) == "type"


def test_piped_output_gets_a_ticker_line_every_15_seconds_and_nothing_in_between():
    out, clock = io.StringIO(), Clock()
    progress = ModelProgress(out, terminal=False, clock=clock)
    progress.asked(2)
    for _ in range(14):
        clock.now += 1
        progress.tick()
    assert out.getvalue() == "", "nothing before 15 s"
    clock.now += 1
    progress.words(2, '{"thought": "still', 312)
    for _ in range(10):
        clock.now += 1
        progress.tick()
    assert out.getvalue() == "  step 2: the model is thinking… 15 s, 312 tokens\n"
    clock.now += 5
    progress.tick()
    assert out.getvalue().splitlines()[-1] == "  step 2: the model is thinking… 30 s, 312 tokens"
    progress.done()
    clock.now += 60
    progress.tick()
    assert len(out.getvalue().splitlines()) == 2, "no ticker once the model has answered"


def test_a_piped_ticker_says_when_no_word_has_come_yet():
    out, clock = io.StringIO(), Clock()
    progress = ModelProgress(out, terminal=False, clock=clock)
    progress.asked(1)
    clock.now += 45
    progress.tick()
    assert out.getvalue() == "  step 1: the model is thinking… 45 s, no words yet\n"
