"""What the person was shown and decided in a step, kept with the step's record.

A step may see several proposals: each rejection sends the model back with the reason, and only
the last proposal's action is the step's `action`. Its `decision` keeps the last answer (and the
reasons given before it), but not what was rejected. `ReviewLog` follows the run's events
(`ProposalMade`, `ReviewAnswered`, `QuestionAsked`, `QuestionAnswered`) and the recorder adds what
it saw to the step's record as a `ReviewedStep`: its `reviews` (every proposal and what became of
it, with who decided) and `questions` (what the agent asked and the answer). Both are written into
the step's line of steps.jsonl, only when they add something (a rejection, a stop, a question…),
and read back with `load_reviewed_run`; an older reader ignores them.

A proposal typed into a password field is recorded with its text masked, as the step itself is.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from app.core.redaction import PASSWORD_MASK

from .events import ProposalMade, QuestionAnswered, QuestionAsked, ReviewAnswered, RunEvent, StepStarted
from .records import StepRecord
from .trajectory import STEPS_FILE, LoadedRun, load_run

REVIEW_KEYS = (b'"reviews"', b'"questions"')
"""A step line holding either key is read again for them (the others are plain step records)."""


@dataclass
class ProposalReview:
    """One proposal of a step and what became of it."""

    action: dict[str, Any] = field(default_factory=dict)    # the proposed action, device pixels
    action_text: str = ""
    proposed_by: str = "the model"
    decision: str = ""             # approve | edit | override | reject | stop | auto | "" (the run ended first)
    by: str = "person"             # who decided: person, auto, or what answered for the person
    feedback: str = ""             # the reason given with a rejection
    replaced_with: dict[str, Any] | None = None              # the edited action, or the person's own
    target_rect: list[int] = field(default_factory=list)     # the proposal's target control, device pixels


@dataclass
class QuestionAndAnswer:
    question: str = ""
    answer: str = ""
    answered: bool = False


@dataclass
class ReviewedStep(StepRecord):
    """A step record with what the person was shown and decided in it."""

    reviews: list[ProposalReview] = field(default_factory=list)
    questions: list[QuestionAndAnswer] = field(default_factory=list)


def reviews_of(step: StepRecord) -> list[ProposalReview]:
    return list(getattr(step, "reviews", None) or [])


def with_reviews(step: StepRecord, reviews: list[ProposalReview],
                 questions: list[QuestionAndAnswer]) -> StepRecord:
    """`step` as a ReviewedStep holding `reviews` and `questions`; the step itself when they add nothing
    (one proposal, approved, edited or replaced as the record already says, and no question)."""
    if not questions and not _worth_keeping(step, reviews):
        return step
    values = {spec.name: getattr(step, spec.name) for spec in fields(StepRecord) if spec.init}
    return ReviewedStep(**values, reviews=reviews, questions=questions)


def _worth_keeping(step: StepRecord, reviews: list[ProposalReview]) -> bool:
    if not reviews:
        return False
    if len(reviews) > 1:
        return True
    last = reviews[0]
    return (last.decision in ("reject", "stop", "") or step.decision is None
            or last.by not in ("person", "auto"))


class ReviewLog:
    """Follows a run's events and keeps, per step, the proposals, the answers and the questions."""

    def __init__(self) -> None:
        self._step = 0
        self._reviews: dict[int, list[ProposalReview]] = {}
        self._questions: dict[int, list[QuestionAndAnswer]] = {}
        self._targets: dict[int, dict[int, Any]] = {}     # step → the proposal's controls by id (password check)

    def on_event(self, event: RunEvent) -> None:
        if isinstance(event, StepStarted):
            self._step = event.step
        elif isinstance(event, ProposalMade):
            self._proposed(event.step, event.proposal)
        elif isinstance(event, ReviewAnswered):
            self._answered(event.step, event.answer, event.by)
        elif isinstance(event, QuestionAsked):
            self._questions.setdefault(self._step, []).append(QuestionAndAnswer(event.question))
        elif isinstance(event, QuestionAnswered):
            waiting = [q for q in self._questions.get(self._step, []) if not q.answered]
            question = next((q for q in waiting if q.question == event.question), waiting[0] if waiting else None)
            if question is None:
                question = QuestionAndAnswer(event.question)
                self._questions.setdefault(self._step, []).append(question)
            question.answer, question.answered = event.answer, True

    def take(self, step: StepRecord) -> StepRecord:
        """The step's record with what was seen of it (see `with_reviews`); forgets the step."""
        reviews = self._reviews.pop(step.step, [])
        questions = self._questions.pop(step.step, [])
        self._targets.pop(step.step, None)
        if reviews and not reviews[-1].decision and step.decision is not None:
            # auto-approved: no answer event came for it
            reviews[-1].decision, reviews[-1].by = step.decision.kind, step.decision.by
        for question in questions:
            if not question.answered:
                question.answer = ""
        return with_reviews(step, reviews, questions)

    def _proposed(self, step: int, proposal: Any) -> None:
        action = _action_dict(getattr(proposal, "action", None))
        controls = {control.id: control for control in getattr(proposal, "controls", None) or []}
        self._targets[step] = controls
        target = getattr(proposal, "target", None)
        review = ProposalReview(action=action, action_text=str(getattr(proposal, "action_text", "") or ""),
                                proposed_by=str(getattr(proposal, "proposed_by", "") or "the model"),
                                target_rect=list(getattr(target, "rect", None) or []))
        _mask_password(review, review.action, controls)
        self._reviews.setdefault(step, []).append(review)

    def _answered(self, step: int, answer: Any, by: str) -> None:
        waiting = [review for review in self._reviews.get(step, []) if not review.decision]
        if not waiting:
            return
        review = waiting[-1]
        review.decision, review.by = str(getattr(answer, "kind", "") or ""), by or "person"
        review.feedback = str(getattr(answer, "feedback", "") or "")
        if review.decision in ("edit", "override") and getattr(answer, "action", None) is not None:
            review.replaced_with = _action_dict(answer.action)
            _mask_password(review, review.replaced_with, self._targets.get(step, {}))


def _action_dict(action: Any) -> dict[str, Any]:
    if action is None:
        return {}
    if hasattr(action, "model_dump"):
        return action.model_dump()
    return dict(action) if isinstance(action, dict) else {}


def _mask_password(review: ProposalReview, action: dict[str, Any] | None, controls: dict[int, Any]) -> None:
    """Mask the text of a type_text whose field is a password field (by id, else the focused field)."""
    if not action or action.get("function") != "type_text":
        return
    arguments = action.get("arguments") or {}
    text = str(arguments.get("text") or "")
    field_id = arguments.get("control_id")
    control = controls.get(field_id) if field_id is not None else next(
        (c for c in controls.values() if getattr(c, "focused", False)), None)
    if not text or control is None or not getattr(control, "password", False):
        return
    arguments["text"] = PASSWORD_MASK
    review.action_text = review.action_text.replace(text, PASSWORD_MASK)
    review.action = _replace_text(review.action, text)
    if review.replaced_with is not None:
        review.replaced_with = _replace_text(review.replaced_with, text)


def _replace_text(data: Any, secret: str) -> Any:
    if isinstance(data, str):
        return data.replace(secret, PASSWORD_MASK)
    if isinstance(data, dict):
        return {key: _replace_text(value, secret) for key, value in data.items()}
    if isinstance(data, list):
        return [_replace_text(value, secret) for value in data]
    return data


# ---------------------------------------------------------------- reading them back


def load_reviewed_run(run_dir: Path | str) -> LoadedRun:
    """`load_run`, with each step that holds reviews or questions read as a ReviewedStep (blocking)."""
    record = load_run(run_dir)
    extras = _read_extras(record.run_dir / STEPS_FILE)
    if not extras:
        return record
    seen: dict[int, int] = {}
    steps = []
    for step in record.steps:
        occurrence = seen[step.step] = seen.get(step.step, 0) + 1
        extra = extras.get((step.step, occurrence))
        steps.append(step if extra is None else _upgraded(step, extra))
    record.steps = steps
    return record


def _read_extras(path: Path) -> dict[tuple[int, int], dict[str, Any]]:
    """(step number, occurrence) → the line's "reviews" and "questions", for the lines that hold them."""
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    extras: dict[tuple[int, int], dict[str, Any]] = {}
    seen: dict[int, int] = {}
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        step_number = _step_number(line)
        if step_number is None:
            continue
        occurrence = seen[step_number] = seen.get(step_number, 0) + 1
        if any(key in line for key in REVIEW_KEYS):
            try:
                parsed = json.loads(line)
            except ValueError:
                continue
            if isinstance(parsed, dict):
                extras[(step_number, occurrence)] = {key: parsed.get(key) for key in ("reviews", "questions")}
    return extras


def _step_number(line: bytes) -> int | None:
    """The "step" of a line, read cheaply (it is the line's first key), or None for a line that is not a record."""
    start = line.find(b'"step": ')
    if start < 0:
        return None
    digits = line[start + 8:start + 20].split(b",")[0].split(b"}")[0].strip()
    return int(digits) if digits.isdigit() else None


def _upgraded(step: StepRecord, extra: dict[str, Any]) -> StepRecord:
    reviews = [_read(ProposalReview, item) for item in extra.get("reviews") or [] if isinstance(item, dict)]
    questions = [_read(QuestionAndAnswer, item) for item in extra.get("questions") or [] if isinstance(item, dict)]
    values = {spec.name: getattr(step, spec.name) for spec in fields(StepRecord) if spec.init}
    return ReviewedStep(**values, reviews=reviews, questions=questions)


def _read(cls: type, data: dict[str, Any]) -> Any:
    """A small record from JSON, tolerantly: wrongly typed values take the field's default."""
    defaults = cls()
    values = {}
    for spec in fields(cls):
        value = data.get(spec.name, getattr(defaults, spec.name))
        expected = type(getattr(defaults, spec.name))
        if spec.name == "replaced_with":
            value = value if isinstance(value, dict) else None
        elif not isinstance(value, expected):
            value = getattr(defaults, spec.name)
        values[spec.name] = value
    return cls(**values)
