"""A run's states in the words a person reads: "Needs your OK", not CONFIRM (the seeds' names stay
in the core, the event stream and the logs)."""

from __future__ import annotations

import re

STATE_WORDS = {
    "NONE": "Not started",
    "CONTINUE": "Working",
    "CONFIRM": "Needs your OK",
    "FINISH": "Finished",
    "FAIL": "Failed",
}
CHOICES = {
    "approve": "you approved the action",
    "edit": "you edited the action",
    "override": "you replaced the action",
    "reject": "you rejected the action",
    "stop": "you stopped the run",
}


def state_word(status: str) -> str:
    """The plain word for a state name; an unknown one in sentence case."""
    return STATE_WORDS.get(str(status).upper(), str(status).capitalize() or "Unknown")


def state_sentence(status: str, reason: str) -> str:
    """"Needs your OK — step mode: every action is reviewed" for CONFIRM and its reason."""
    reason = re.sub(r"^waiting for the person:\s*", "", reason.strip())
    chose = re.fullmatch(r"the person chose to (\w+)", reason)
    if chose:
        reason = CHOICES.get(chose.group(1), f"you chose to {chose.group(1)}")
    elif reason == "run started":
        reason = "the run started"
    return f"{state_word(status)} — {reason}" if reason else state_word(status)
