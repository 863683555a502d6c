"""The words and colours a run is shown with, defined once for every view of it: the report, the
timeline, the step detail, the past-runs list and the console.

Three vocabularies: a run's status (`RUN_STATUSES`), a step's outcome (`STEP_OUTCOMES`, the
report's badge per step) and the decision on a proposed action (`DECISIONS`). Each word has a
colour for the chip or badge it sits on (white text reads on all of them). The functions below
turn typed records into these words; they are looked up when called, so a change here shows
everywhere.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .records import RunResult, StepRecord


@dataclass(frozen=True)
class Word:
    text: str
    colour: str          # background of the chip or badge


NEUTRAL = "#6e7781"
GREEN, RED, ORANGE, AMBER = "#1a7f37", "#cf222e", "#bc4c00", "#9a6700"
BLUE, PURPLE, TEAL = "#0969da", "#8250df", "#1b7c83"

RUN_STATUSES: dict[str, Word] = {       # RunResult.status, and list_runs' "unfinished" / "unreadable"
    "success": Word("success", GREEN),
    "failed": Word("failed", RED),
    "timeout": Word("timed out", ORANGE),
    "stopped": Word("stopped", NEUTRAL),
    "interrupted": Word("interrupted", ORANGE),
    "unfinished": Word("did not finish", PURPLE),
    "unreadable": Word("unreadable", NEUTRAL),
}
STEP_OUTCOMES: dict[str, Word] = {      # `step_outcome`'s keys
    "ok": Word("ok", GREEN),
    "failed": Word("failed", RED),
    "rejected": Word("rejected", AMBER),
    "stopped": Word("stopped", NEUTRAL),
    "not executed": Word("not executed", NEUTRAL),
}
DECISIONS: dict[str, Word] = {          # Decision.kind
    "approve": Word("approved", GREEN),
    "edit": Word("edited", BLUE),
    "override": Word("replaced by the person", PURPLE),
    "reject": Word("rejected", AMBER),
    "stop": Word("stopped", NEUTRAL),
    "auto": Word("auto-approved", TEAL),
    "person": Word("done by you", PURPLE),
    "take_over": Word("set aside", NEUTRAL),
}
ENDINGS: dict[str, Word] = {           # RunResult.verification: how a success was established
    "screen": Word("verified by the screen", GREEN),
    "model": Word("verified by the model", TEAL),
    "claimed": Word("claimed by the model, not verified", AMBER),
}
NO_ACTION = "no action"
NOT_EXECUTED = "not executed"
SCREEN_ONLY_NOTE = "screenshot only"


def counted(number: int, noun: str) -> str:
    """"1 step", "3 steps": a count with its noun in the right number (nouns that take an -s)."""
    return f"{number:,} {noun}" + ("" if number == 1 else "s")


def capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def run_status_word(status: str) -> Word:
    """The word for a run status; an unknown one is shown as it is ("unknown" when empty)."""
    return RUN_STATUSES.get(status) or Word(status or "unknown", NEUTRAL)


def decision_word(kind: str) -> Word:
    return DECISIONS.get(kind) or Word(kind or "unknown", NEUTRAL)


def step_outcome(step: StepRecord) -> str:
    """A key of STEP_OUTCOMES: how the step ended, the decision included (the report's step badge)."""
    kind = step.decision.kind if step.decision else ""
    if step.error or (step.result is not None and not step.result.success):
        return "failed"
    if kind == "reject":
        return "rejected"
    if kind == "stop":
        return "stopped"
    return "ok" if step.result is not None else "not executed"


def step_outcome_word(step: StepRecord) -> Word:
    return STEP_OUTCOMES[step_outcome(step)]


def result_words(step: StepRecord) -> tuple[str, bool]:
    """The executed action's result ("ok", "failed: …", "not executed"), and whether it failed."""
    if step.result is None:
        return NOT_EXECUTED, False
    if step.result.success:
        return "ok", False
    return f"failed: {step.result.message or 'no reason given'}", True


def result_text(step: StepRecord) -> tuple[str, bool]:
    """The step's outcome in one cell: `result_words`, or "error: …" when an error kept the action
    from running; " · screenshot only" when the controls could not be read."""
    if step.result is None and step.error:
        text, failed = "error: " + step.error, True
    else:
        text, failed = result_words(step)
    if step.screen_only:
        text += f" · {SCREEN_ONLY_NOTE}"
    return text, failed


def action_words(action: Any) -> str:
    """`function(name=value, …)` for an action dict; "" when there is none."""
    if not isinstance(action, dict) or not action.get("function"):
        return ""
    arguments = action.get("arguments") or {}
    if not isinstance(arguments, dict):
        arguments = {"arguments": arguments}
    listed = ", ".join(f"{name}={json.dumps(value, ensure_ascii=False)}" for name, value in arguments.items())
    return f"{action['function']}({listed})"


ANCHOR_PLACES = {"left_of": "to its left", "right_of": "to its right", "above": "above it", "below": "below it",
                 "inside": "inside it", "contains": "around it"}


def target_words(step: StepRecord) -> str:
    """Where the step's target is, as a replay would look for it: its locator, then its anchors; "" if none."""
    target = step.target
    if target is None:
        return ""
    where = target.xpath or target.resource_id or target.name
    anchors = "; ".join(f"“{anchor.name}” {ANCHOR_PLACES.get(anchor.relation, anchor.relation)}"
                        for anchor in target.anchors)
    return where + (f" — near: {anchors}" if anchors else "")


def step_action_text(step: StepRecord) -> str:
    """The executed action in words, as the agent described it."""
    return step.action_text or action_words(step.action) or NO_ACTION


def ending_words(result: RunResult) -> str:
    """How a successful run's ending stands, with what the check saw: "verified by the screen:
    “Wi-Fi” is on". "" for a run that did not succeed or was recorded before endings were checked."""
    word = ENDINGS.get(result.verification)
    if result.status != "success" or word is None:
        return ""
    return word.text + (f": {result.verification_note}" if result.verification_note else "")


def _said(text: str) -> str:
    return " ".join(text.split()).casefold().rstrip(" .!…")


def thought_and_comment(thought: str, comment: str) -> list[tuple[str, str]]:
    """("Thought", …) and ("Comment", …) as a view shows them, each said once: models often put the same
    words in both, or one inside the other; then only the longer is shown (under its own label, "Thought"
    when they are the same). Empty ones are left out."""
    thought, comment = thought or "", comment or ""
    said_thought, said_comment = _said(thought), _said(comment)
    if said_thought and said_comment:
        if said_comment in said_thought:
            return [("Thought", thought)]
        if said_thought in said_comment:
            return [("Comment", comment)]
    return [(label, text) for label, text in (("Thought", thought), ("Comment", comment)) if text.strip()]
