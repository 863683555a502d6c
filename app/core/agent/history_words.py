"""A run's history in plain words: who decided what, how long things took, and what the phone and the
model were. Shared by every view of a run (the report, the timeline, the step detail), so they say the
same thing; the chip words and colours themselves stay in `run_words`.

"Who" is the person reading it ("you"), the auto mode, or what else answered for them (a task's
parameters): "rejected by you: not that one", "edited by you", "your own action", "asked you: … /
you answered: …".
"""

from __future__ import annotations

from typing import Any

from .records import StepRecord
from .step_reviews import ProposalReview, QuestionAndAnswer, reviews_of

ASKED_PREFIX = "The person answered: "
"""How the executor words an answered ask_user (the step's result message)."""
NO_REASON = "no reason given"
PERSON = "person"


# ---------------------------------------------------------------- durations


def human_duration(seconds: float | None) -> str:
    """"0.4 s", "1.2 s", "12 s", "3 min 5 s", "1 h 2 min"; "–" when unknown."""
    if seconds is None or seconds != seconds or seconds < 0:
        return "–"
    if seconds < 0.05:
        return "under 0.1 s" if seconds > 0 else "0 s"
    if seconds < 9.95:
        return f"{seconds:.1f} s"
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        minutes, rest = divmod(whole, 60)
        return f"{minutes} min {rest} s" if rest else f"{minutes} min"
    hours, rest = divmod(whole, 3600)
    minutes = rest // 60
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


def human_ms(ms: float | None) -> str:
    """A duration in milliseconds, in `human_duration`'s words."""
    return human_duration(None if ms is None else ms / 1000)


PHASE_WORDS = {"data_collection": "reading the screen", "llm_interaction": "asking the model",
               "action_execution": "acting on the phone", "memory_update": "recording the step"}
"""The pipeline's phases (`ProcessingPhase` values) as a person would name them."""


# ---------------------------------------------------------------- who decided what


def who(by: str) -> str:
    """The one who decided, seen by the person reading: "you", "the auto mode", or what answered for them."""
    if not by or by == PERSON:
        return "you"
    if by == "auto":
        return "the auto mode"
    if by == "program":
        return "a program through the task API"
    return by


def review_words(review: ProposalReview) -> str:
    """What became of one proposal: "rejected by you: <reason>", "edited by you", "your own action"…"""
    by = who(review.by)
    kind = review.decision
    if kind == "reject":
        return f"rejected by {by}: {review.feedback.strip() or NO_REASON}"
    if kind == "edit":
        return f"edited by {by}"
    if kind == "override":
        return "your own action" if by == "you" else f"replaced by {by}"
    if kind == "approve":
        return f"approved by {by}"
    if kind == "auto":
        return "approved by the auto mode"
    if kind == "stop":
        return f"stopped by {by}"
    if kind == "person":
        return f"done by {by}, who had taken over the phone"
    if kind == "take_over":
        return f"set aside: {by} took over the phone"
    return "not decided: the run ended while it waited"


def rejected_reviews(step: StepRecord) -> list[ProposalReview]:
    """The step's proposals the person turned down, each shown as an entry of its own: all of them but
    the last when the step itself ended on that rejection (every proposal was rejected)."""
    reviews = reviews_of(step)
    rejected = [review for review in reviews if review.decision == "reject"]
    if rejected and (step.decision is None or not step.decision.kind) and reviews[-1] is rejected[-1]:
        return rejected[:-1]
    return rejected


def _after_rejections(step: StepRecord, kind: str) -> str:
    """", after 2 rejected proposals" (each has its own entry), or for an older record that kept only the
    reasons, ", after you rejected: “…”"; "" when nothing was rejected before the step's decision."""
    if kind == "reject":
        return ""
    rejected = len(rejected_reviews(step))
    if rejected:
        return f", after {rejected} rejected proposal{'s' if rejected > 1 else ''}"
    if step.decision is not None and step.decision.feedback:
        return f", after you rejected: “{step.decision.feedback}”"
    return ""


def who_note(kind: str, by: str, feedback: str = "") -> str:
    """What goes after a decision's chip word ("rejected", "edited"…): who, and why for a rejection."""
    doer = who(by)
    if kind == "reject":
        return f"by {doer}: {feedback.strip() or NO_REASON}"
    if kind == "override":
        return "your own action" if doer == "you" else f"by {doer}"
    if kind == "auto" or (kind == "approve" and by == "auto") or kind == "person":
        return ""                         # the chip says it: auto-approved, done by you
    if kind == "take_over":
        return f"{doer} took over"
    return f"by {doer}" if kind else ""


def step_decision(step: StepRecord) -> tuple[str, str, str]:
    """(kind, by, feedback) of the decision the step's row shows: the record's, else its last review's
    (a run stopped at the review, or a step whose proposals were all rejected)."""
    reviews = reviews_of(step)
    last = reviews[-1] if reviews else None
    if step.decision is not None and step.decision.kind:
        by = last.by if last is not None and last.decision == step.decision.kind and last.by else step.decision.by
        feedback = step.decision.feedback if step.decision.kind == "reject" else ""
        return step.decision.kind, by, feedback
    if last is not None and last.decision:
        return last.decision, last.by, last.feedback
    return "", "", ""


def step_decision_note(step: StepRecord) -> str:
    """The note beside the step's decision chip: "by you", "your own action", "by you: <reason>", and the
    proposals rejected before it (see `_after_rejections`)."""
    kind, by, feedback = step_decision(step)
    if not kind:
        return ""
    return (who_note(kind, by, feedback) + _after_rejections(step, kind)).removeprefix(", ")


def reflection_for(step: StepRecord, steps: list[StepRecord]) -> dict | None:
    """The screen check of this step's action. It is made at the start of the next step and kept in that
    step's record (`on_step` names the step it judged); an older record without `on_step` keeps its own."""
    for other in steps:
        judged = (other.reflection or {}).get("on_step")
        if judged == step.step and isinstance(other.reflection, dict):
            return other.reflection
    own = step.reflection
    return own if own and own.get("on_step") in (None, step.step) else None


def questions_of(step: StepRecord) -> list[QuestionAndAnswer]:
    """The questions the agent asked the person in this step, with their answers: as recorded, or
    (older records) read from an ask_user action and its result."""
    recorded = list(getattr(step, "questions", None) or [])
    if recorded:
        return recorded
    action = step.action if isinstance(step.action, dict) else {}
    arguments = raw if isinstance(raw := action.get("arguments"), dict) else {}
    if action.get("function") != "ask_user" or not arguments.get("question"):
        return []
    message = step.result.message if step.result is not None else ""
    answered = message.startswith(ASKED_PREFIX)
    return [QuestionAndAnswer(str(arguments["question"]), message[len(ASKED_PREFIX):] if answered else "", answered)]


def question_words(question: QuestionAndAnswer) -> str:
    """"asked you: … / you answered: …" (or "no answer" when the run ended first)."""
    answer = f"you answered: {question.answer}" if question.answered else "no answer: the run ended first"
    return f"asked you: {question.question} / {answer}"


# ---------------------------------------------------------------- the phone and the model


def _plain(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return " × ".join(map(str, value))
    return str(value)


def device_words(device: dict[str, Any]) -> list[str]:
    """run.json's device as sentences: "AgentDesk Virtual Phone, the built-in virtual phone", "Android 14
    (API level 34)", "screen 1080 × 2400 pixels", "serial emulator-5554"… (unknown keys as "name: value")."""
    device = dict(device or {})
    lines = []
    name = str(device.pop("model", "") or "")
    virtual = device.pop("virtual", None)
    serial = str(device.pop("serial", "") or "")
    kind = ("the built-in virtual phone" if virtual is True else
            "a phone over Wi-Fi" if virtual is False and ":" in serial else
            "a phone on USB" if virtual is False else "")
    if name or kind:
        lines.append(", ".join(filter(None, (name, kind))))
    version, sdk = device.pop("android_version", ""), device.pop("sdk", "")
    if version or sdk:
        lines.append(f"Android {version}" + (f" (API level {sdk})" if sdk else "") if version else f"API level {sdk}")
    size = device.pop("screen_size", None) or device.pop("size", None)
    if size:
        lines.append(f"screen {_plain(size)} pixels")
    if serial:
        lines.append(f"serial {serial}")
    server = device.pop("server", "")
    if server:
        lines.append(f"through the ADB server at {server}")
    device.pop("id", None)        # serial and server say it
    lines += [f"{key.replace('_', ' ')}: {_plain(value)}" for key, value in device.items()
              if value not in (None, "", [], {})]
    return lines


def model_words(model: dict[str, Any]) -> list[str]:
    """run.json's model as sentences: "gpt-4o", "at http://…/v1", "API key: given for this run"."""
    model = dict(model or {})
    lines = []
    name = model.pop("model", "") or model.pop("name", "")
    if name:
        lines.append(str(name))
    base_url = model.pop("base_url", "")
    if base_url:
        lines.append(f"at {base_url}")
    key_from = model.pop("key_from", "")
    if key_from:
        lines.append(f"API key: {key_from}")
    lines += [f"{key.replace('_', ' ')}: {_plain(value)}" for key, value in model.items()
              if value not in (None, "", [], {})]
    return lines


