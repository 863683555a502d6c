"""A run as the API shows it: its MobileTaskResult built from the run's handle, and its events as JSON.

Pictures are never sent (the report has them); long texts (prompts, raw replies) stay in the
trajectory; every string passes through the redactor, so no registered secret (the model's API
key, the API token) can leave in a response or an event.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from app.core.agent.action_kinds import kind_of
from app.core.agent.events import (
    ActionExecuted,
    Message,
    ModelWords,
    ObservationReady,
    PhaseFinished,
    ProposalMade,
    QuestionAnswered,
    QuestionAsked,
    ReflectionMade,
    ReviewAnswered,
    ReviewRequested,
    RunEvent,
    RunFinished,
    RunStarted,
    StateChanged,
    StepFinished,
    StepRecorded,
    StepStarted,
)
from app.core.agent.memory import RunResult
from app.core.agent.supervisor import Proposal, ReviewAnswer
from app.core.agent.trajectory import REPORT_FILE
from app.core.redaction import redact_data
from app.core.runs.handle import RunHandle

from .schemas import ActionResult, MobileTaskResult, PendingDecision, UIAction

log = logging.getLogger(__name__)

REVIEW_DECISIONS = ["approve", "edit", "reject", "override", "stop"]
PERSON_ONLY_DECISIONS = ["reject", "stop"]      # what a program may post on a step only a person may approve


def task_status(handle: RunHandle) -> str:
    if not handle.finished:
        return handle.state
    return handle.result.status if handle.result is not None else "failed"


def _steps(handle: RunHandle) -> list[Any]:
    """The finished steps' records, in order (one per step; a re-emitted step replaces the earlier)."""
    steps: dict[int, Any] = {}
    for event in handle.events.history:
        if isinstance(event, StepFinished):
            steps[event.step] = event.item
    return [steps[number] for number in sorted(steps)]


def ui_action(task_id: str, item: Any) -> UIAction | None:
    """The UIAction for one step that acted (None for a step without an action, and for one whose
    action never ran: rejected, stopped at its review, taken over, or refused before it was done — such a
    step's record still names the action it proposed)."""
    action = item.action or {}
    function = action.get("function") or ""
    outcome = item.result
    if not function or function == "none" or outcome is None:
        return None
    arguments = dict(action.get("arguments") or {})
    result = ActionResult(action_id=f"{task_id}-{item.step}", success=outcome.success,
                          error=None if outcome.success else (outcome.message or "failed"),
                          execution_time_ms=round(outcome.duration_ms))
    kind = kind_of(function)
    element = arguments.get(kind.target_argument) if kind is not None and kind.target_argument else None
    text = arguments.get("text") if isinstance(arguments.get("text"), str) else None
    return UIAction(action_id=f"{task_id}-{item.step}", step=item.step, action_type=function,
                    element_id=element if isinstance(element, int) else None, text=text, arguments=arguments,
                    description=item.action_text, thought=item.thought,
                    decision=item.decision.kind if item.decision is not None else None, result=result)


def pending_decision(handle: RunHandle, programs_may_approve_sensitive: bool = False) -> PendingDecision | None:
    """What the task waits for, with the id a decision must name; a sensitive step shows that only a person
    may approve it unless the desk lets programs."""
    if handle.awaiting_review and handle.pending_proposal is not None:
        proposal: Proposal = handle.pending_proposal
        person_only = proposal.is_sensitive and not programs_may_approve_sensitive
        return PendingDecision(kind="review", proposal_id=proposal.id, step=proposal.step,
                               action=proposal.action.model_dump(), description=proposal.action_text,
                               thought=proposal.thought, sensitive_reason=proposal.sensitive_reason,
                               decisions=PERSON_ONLY_DECISIONS if person_only else REVIEW_DECISIONS,
                               needs_person=person_only)
    if handle.awaiting_answer:
        return PendingDecision(kind="question", proposal_id=handle.pending_question_id,
                               question=handle.pending_question, decisions=["answer", "stop"])
    return None


def report_url(task_id: str, result: RunResult | None) -> str | None:
    """Where the task's report is on the API (a path; the route puts the address the caller used before it)."""
    if result is None or not result.report_path:
        return None
    return f"/v1/tasks/{quote(task_id, safe='')}/report"


def report_file(handle: RunHandle, runs_root: Path) -> Path | None:
    """The run's own report.html, when it has one: never a file outside its own folder under `runs_root` (a report
    path naming another run's folder, a `..` or a link out of the folder gives None). Blocking (looks at the disk)."""
    result = handle.result
    if result is None or not result.report_path or not handle.run_dir:
        return None
    own = Path(handle.run_dir) / REPORT_FILE
    if os.path.abspath(result.report_path) != os.path.abspath(own) or own.is_symlink():
        log.warning("run %s names a report outside its own folder; not served", handle.id)
        return None
    try:
        real = own.resolve(strict=True)
        folder = Path(handle.run_dir).resolve(strict=True)
        root = runs_root.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    if real.parent != folder or not folder.is_relative_to(root) or folder == root or not real.is_file():
        log.warning("run %s's report is not in its folder under the runs folder; not served", handle.id)
        return None
    return real


def task_result(handle: RunHandle, finished_at: float | None = None, *,
                programs_may_approve_sensitive: bool = False) -> MobileTaskResult:
    """The task as a MobileTaskResult. The steps' part is built once per new event (status polls are many)."""
    result = handle.result
    steps, actions = _steps_and_actions(handle)
    if result is not None:
        elapsed_ms = round(result.time_seconds * 1000)
    else:
        elapsed_ms = round((time.time() - handle.created) * 1000)
    error = result.error if result is not None else (_crash(handle) if handle.finished else "")
    pending = pending_decision(handle, programs_may_approve_sensitive)
    view = {
        "task_id": handle.id, "device_id": handle.phone, "ai_prompt": handle.request, "status": task_status(handle),
        "steps_taken": result.steps_taken if result is not None else len(steps),
        "actions_executed": actions, "execution_time_ms": elapsed_ms, "error": error or None,
        "completion_reason": (result.completion_reason or None) if result is not None else (error or None),
        "waiting_for": pending.model_dump() if pending is not None else None,
        "output": result.output if result is not None else None,
        "output_error": (result.output_error or None) if result is not None else None,
        "created_at": handle.created, "finished_at": finished_at,
        "tokens": dict(result.tokens) if result is not None else {},
        "tokens_estimated": result.tokens_estimated if result is not None else False,
        "cost_usd": result.cost_usd if result is not None else 0.0,
        "report_url": report_url(handle.id, result), "run_dir": handle.run_dir or None}
    return MobileTaskResult.model_validate(redact_data(view))


_ACTIONS_CACHE_KEY = "_api_actions"


def _steps_and_actions(handle: RunHandle) -> tuple[list[Any], list[dict[str, Any]]]:
    """The finished steps and their UIActions as JSON, remembered on the handle until its next event."""
    count = len(handle.events.history)
    cached = getattr(handle, _ACTIONS_CACHE_KEY, None)
    if cached is not None and cached[0] == count:
        return cached[1], cached[2]
    steps = _steps(handle)
    actions = [action.model_dump(mode="json") for item in steps if (action := ui_action(handle.id, item)) is not None]
    setattr(handle, _ACTIONS_CACHE_KEY, (count, steps, actions))
    return steps, actions


def _crash(handle: RunHandle) -> str:
    last = handle.events.history[-1] if handle.events.history else None
    return getattr(last, "error", "") or "the run ended unexpectedly"


# ---------------------------------------------------------------------------- events


def _proposal(proposal: Proposal) -> dict[str, Any]:
    return {"proposal_id": proposal.id, "step": proposal.step, "action": proposal.action.model_dump(),
            "description": proposal.action_text,
            "thought": proposal.thought, "comment": proposal.comment, "plan": list(proposal.plan),
            "sensitive_reason": proposal.sensitive_reason,
            "target": proposal.target.name if proposal.target is not None else None}


def _answer(answer: ReviewAnswer) -> dict[str, Any]:
    return {"decision": answer.kind, "action": answer.action.model_dump() if answer.action is not None else None,
            "feedback": answer.feedback}


def _step(item: Any) -> dict[str, Any]:
    outcome = item.result
    return {"step": item.step, "action": item.action, "description": item.action_text, "thought": item.thought,
            "status": item.status, "decision": item.decision.kind if item.decision is not None else None,
            "result": dataclasses.asdict(outcome) if outcome is not None else None,
            "reflection": item.reflection, "error": item.error, "foreground": item.foreground,
            "tokens": dict(item.tokens), "timings_ms": dict(item.timings_ms)}


def event_json(event: RunEvent) -> dict[str, Any]:
    """One event as JSON: its kind, time and the fields a program can use (no pictures)."""
    data: dict[str, Any] = {"kind": event.kind, "at": event.at}
    if isinstance(event, RunStarted):
        data.update(task_id=event.run_id, ai_prompt=event.request, device=event.phone, mode=event.mode)
    elif isinstance(event, StepStarted):
        data.update(step=event.step)
    elif isinstance(event, ObservationReady):
        data.update(step=event.step, controls=len(event.controls), foreground=event.foreground,
                    screen_only=event.screen_only)
    elif isinstance(event, (ProposalMade, ReviewRequested)):
        data.update(step=event.step, proposal=_proposal(event.proposal))
    elif isinstance(event, ReviewAnswered):
        data.update(step=event.step, answer=_answer(event.answer), by=event.by)
    elif isinstance(event, QuestionAsked):
        data.update(question=event.question, proposal_id=event.question_id)
    elif isinstance(event, QuestionAnswered):
        data.update(question=event.question, answer=event.answer)
    elif isinstance(event, ActionExecuted):
        data.update(step=event.step, description=event.action_text, success=event.success, message=event.message,
                    duration_ms=event.duration_ms)
    elif isinstance(event, ReflectionMade):
        data.update(step=event.step, reflection=event.reflection)
    elif isinstance(event, (StepFinished, StepRecorded)):
        data.update(step=event.step, record=_step(event.item))
    elif isinstance(event, StateChanged):
        data.update(before=event.before, after=event.after, reason=event.reason)
    elif isinstance(event, Message):
        data.update(text=event.text)
    elif isinstance(event, ModelWords):
        data.update(step=event.step, text_so_far=event.text_so_far)
    elif isinstance(event, PhaseFinished):
        data.update(step=event.step, phase=event.phase, ms=event.ms)
    elif isinstance(event, RunFinished):
        data.update(result=event.result.to_dict() if event.result is not None else None, error=event.error)
    return redact_data(data)
