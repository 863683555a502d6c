"""Tasks other programs post: turned into run requests for the run service, and answered for.

The run service already runs one task at a time per phone, first come first served, and
phones side by side; the board adds what a shared door needs: a bound on waiting tasks (429
beyond it), the caller's own task ids, a default review timeout so a task nobody watches
cannot wait forever, and decisions and cancels by task id. Lives on the core's loop.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from app.core.agent.actions import Action
from app.core.agent.screen_query import schema_problem
from app.core.agent.sensitive import action_sensitivity
from app.core.agent.supervisor import ReviewAnswer
from app.core.config import Settings
from app.core.device.phone_id import PhoneId
from app.core.device.phone_session import PhoneSession
from app.core.runs.handle import NothingToAnswer, PersonPolicy, RunHandle
from app.core.runs.service import RunRefused, RunRequest, RunService, provider_overrides
from app.core.secrets import register_secret

from .schemas import DecisionRequest, MobileTaskRequest, MobileTaskResult, TaskParameters
from .task_views import task_result

log = logging.getLogger(__name__)

PROGRAM = "a program through the task API"      # who decided, as a run's history says it
PERSON_DECIDES = ("a person must decide it, in the desk's window or its console (or turn on the setting "
                  "“Programs may approve sensitive actions”, api.programs_may_approve_sensitive)")


class TaskProblem(Exception):
    """A request the board refuses: `status` is the HTTP status, `field` the request's field at fault."""

    def __init__(self, status: int, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.field = field


class Phones(Protocol):
    """Where tasks find their phones (a PhoneDirectory)."""

    def session(self, name: str | PhoneId | None) -> PhoneSession: ...


@dataclass
class _Task:
    handle: RunHandle
    finished_at: float | None = None


class TaskBoard:
    def __init__(self, service: RunService, phones: Phones, settings: Callable[[], Settings], *,
                 policy: PersonPolicy = "person") -> None:
        self.service = service
        self.phones = phones
        self._settings = settings
        self.policy: PersonPolicy = policy          # "fail" when nobody can be asked (MCP on its own)
        self._tasks: dict[str, _Task] = {}
        self._starting: list[str | None] = []        # tasks past the checks, not yet started (their ids)

    # ------------------------------------------------------------------ posting

    async def submit(self, body: MobileTaskRequest) -> RunHandle:
        """Check the task and take its place in the queue in one step (nothing awaited in between, so
        simultaneous requests cannot all pass the cap), then start it; a refused start gives the place back."""
        settings = self._settings()
        self._check_room(body, settings)
        self._starting.append(body.task_id)
        try:
            return await self._start(body, settings)
        finally:
            self._starting.remove(body.task_id)

    def _check_room(self, body: MobileTaskRequest, settings: Settings) -> None:
        waiting = sum(1 for task in self._tasks.values() if not task.handle.finished) + len(self._starting)
        if waiting >= settings.api.max_queued_tasks:
            raise TaskProblem(429, f"The desk already has {waiting} tasks waiting or running (the most it "
                                   f"takes is {settings.api.max_queued_tasks}); try again when some have finished.")
        if body.task_id is not None and (body.task_id in self._tasks or body.task_id in self._starting
                                         or self.service.get(body.task_id)):
            raise TaskProblem(409, f"There is already a task with the id {body.task_id}.", "task_id")

    async def _start(self, body: MobileTaskRequest, settings: Settings) -> RunHandle:
        if body.output is not None and body.output.json_schema is not None:
            problem = schema_problem(body.output.json_schema)
            if problem:
                raise TaskProblem(422, f"output.json_schema is {problem}", "output.json_schema")
        if not body.parameters.confirm_sensitive and not settings.api.programs_may_approve_sensitive:
            raise TaskProblem(403, "parameters.confirm_sensitive is false, but a task may take sensitive actions "
                                   f"without asking only where the desk allows it: {PERSON_DECIDES}.",
                              "parameters.confirm_sensitive")
        session = await self._phone(body.device_id)
        request = self._run_request(body, session, settings)
        try:
            handle = await self.service.start(request)
        except RunRefused as exc:
            raise TaskProblem(400, str(exc)) from None
        self._tasks[handle.id] = task = _Task(handle)
        assert handle.task is not None, "RunService.start gives the run its task"
        handle.task.add_done_callback(lambda _done: setattr(task, "finished_at", time.time()))
        return handle

    async def _phone(self, device_id: str | None) -> PhoneSession:
        from app.core.device.errors import DeviceNotFound
        from app.core.device.phone_id import AmbiguousPhone

        try:
            return self.phones.session(device_id)
        except AmbiguousPhone as exc:
            raise TaskProblem(409, str(exc), "device_id") from None
        except DeviceNotFound as exc:
            raise TaskProblem(404, str(exc), "device_id") from None

    def _run_request(self, body: MobileTaskRequest, session: PhoneSession, settings: Settings) -> RunRequest:
        parameters = body.parameters
        try:
            provider = provider_overrides(parameters.preset, parameters.base_url, parameters.model,
                                          names=("parameters.base_url", "parameters.model"))
        except RunRefused as exc:
            raise TaskProblem(422, str(exc), "parameters.preset") from None
        return RunRequest(
            body.ai_prompt, phone=session.id, mode=parameters.mode, max_steps=body.max_steps,
            timeout_seconds=body.timeout_seconds, max_tokens=parameters.max_tokens,
            max_cost_usd=parameters.max_cost_usd, provider=provider, policy=self.policy, run_id=body.task_id,
            api_key=own_key(parameters),
            review_timeout=parameters.review_timeout_seconds or settings.api.review_timeout_seconds,
            sensitive_needs_person=parameters.confirm_sensitive, use_skills=parameters.use_skills,
            use_map=parameters.use_map,
            output=body.output.question if body.output is not None else "",
            output_schema=body.output.json_schema if body.output is not None else None)

    # ------------------------------------------------------------------ reading

    def handle(self, task_id: str) -> RunHandle:
        """The task's run: one posted here, or any run of the desk (the window's too)."""
        task = self._tasks.get(task_id)
        handle = task.handle if task is not None else self.service.get(task_id)
        if handle is None:
            raise TaskProblem(404, f"There is no task with the id {task_id}.", "task_id")
        return handle

    def result(self, task_id: str) -> MobileTaskResult:
        handle = self.handle(task_id)
        task = self._tasks.get(task_id)
        return task_result(handle, task.finished_at if task is not None else None,
                           programs_may_approve_sensitive=self._settings().api.programs_may_approve_sensitive)

    def results(self, status: str | None = None, device: str | None = None) -> list[MobileTaskResult]:
        """Every task of this desk's runs, oldest first, filtered by status and phone (id or serial)."""
        views = [self.result(handle.id) for handle in self.service.handles()]
        if status:
            views = [view for view in views if view.status == status]
        if device:
            views = [view for view in views if view.device_id == device or view.device_id.split("@")[0] == device]
        return views

    def position(self, handle: RunHandle) -> int:
        """Tasks ahead of this one on its phone."""
        ahead = [other for other in self.service.live() if other.phone == handle.phone and other is not handle
                 and other.created <= handle.created]
        return len(ahead)

    # ------------------------------------------------------------------ answering

    def decide(self, task_id: str, body: DecisionRequest) -> None:
        """A program's decision on what the task waits for, naming it by `proposal_id` (stop may leave it out:
        it stops whatever waits). Anything but the pending id is 409 and does nothing, the same decision
        sent again too; approving a sensitive step (or editing / overriding into a sensitive action) is 403
        unless the desk lets programs, and the step keeps waiting for the person."""
        handle = self.handle(task_id)
        if handle.finished:
            raise TaskProblem(409, f"Task {task_id} has ended ({handle.result.status if handle.result else 'failed'});"
                                   " there is nothing to decide.")
        if body.proposal_id is None and body.decision != "stop":
            raise TaskProblem(422, "A decision needs the field proposal_id: the id of what the task waits for "
                                   "(waiting_for.proposal_id in GET /v1/tasks/{id}).", "proposal_id")
        try:
            decided = body.proposal_id if body.proposal_id is not None else handle.pending_id
            handle.check_pending(decided)
            if body.decision == "answer":
                if body.answer is None:
                    raise TaskProblem(422, "An answer needs the field answer.", "answer")
                handle.answer_question(decided, body.answer)
            elif body.decision == "stop" and handle.awaiting_answer:
                handle.stop("stopped through the API while the agent asked a question")
            else:
                answer = self._review_answer(body)
                self._check_program_may(handle, answer)
                handle.answer(decided, answer, by=PROGRAM)
        except NothingToAnswer as exc:
            raise TaskProblem(409, str(exc)) from None

    def _check_program_may(self, handle: RunHandle, answer: ReviewAnswer) -> None:
        """403 when a program approves a sensitive step, or edits / overrides into a sensitive action, and the
        desk's setting leaves those to a person."""
        settings = self._settings()
        proposal = handle.pending_proposal
        if settings.api.programs_may_approve_sensitive or proposal is None or answer.kind not in (
                "approve", "edit", "override"):
            return
        if proposal.is_sensitive:
            raise TaskProblem(403, f"Step {proposal.step} is sensitive ({proposal.sensitive_reason}): "
                                   f"{PERSON_DECIDES}. The step still waits.", "decision")
        if answer.action is not None:
            reason = action_sensitivity(answer.action, proposal.controls, settings.agent.sensitive_words,
                                        request=handle.request, screen_only=not proposal.controls,
                                        system_dialogs=settings.agent.system_dialogs)
            if reason:
                raise TaskProblem(403, f"The action sent to {answer.kind} step {proposal.step} is sensitive "
                                       f"({reason}): {PERSON_DECIDES}. The step still waits.", "action")

    @staticmethod
    def _review_answer(body: DecisionRequest) -> ReviewAnswer:
        if body.decision == "approve":
            return ReviewAnswer.approve()
        if body.decision == "stop":
            return ReviewAnswer.stop()
        if body.decision == "reject":
            if not body.feedback or not body.feedback.strip():
                raise TaskProblem(422, "A rejection needs feedback: say what the agent should do instead.",
                                  "feedback")
            return ReviewAnswer.reject(body.feedback.strip())
        if body.action is None:
            raise TaskProblem(422, f"{body.decision.capitalize()} needs the field action "
                                   '({"function": …, "arguments": {…}}).', "action")
        try:
            action = Action.model_validate(body.action.model_dump())
        except ValueError as exc:
            raise TaskProblem(422, f"The action is not valid: {_first_line(exc)}", "action") from None
        return ReviewAnswer.edit(action) if body.decision == "edit" else ReviewAnswer.override(action)

    def cancel(self, task_id: str) -> RunHandle:
        handle = self.handle(task_id)
        if not handle.finished:
            handle.stop("cancelled through the API")
        return handle

    async def wait(self, task_id: str, timeout: float | None = None) -> MobileTaskResult:
        handle = self.handle(task_id)
        if handle.task is not None and not handle.finished:
            await asyncio.wait([handle.task], timeout=timeout)     # a timeout leaves the task running
        return self.result(task_id)


def own_key(parameters: TaskParameters) -> str | None:
    """The task's own key (`parameters.api_key`), registered for redaction; None when it brought none. It goes
    only to the server the task names: a key without `base_url` or `preset` is refused (422)."""
    key = parameters.api_key.get_secret_value().strip() if parameters.api_key is not None else ""
    register_secret(key)
    if key and not (parameters.base_url or parameters.preset):
        raise TaskProblem(422, "parameters.api_key goes with parameters.base_url or parameters.preset: a task's "
                               "own key is sent only to the model server the task names.", "parameters.api_key")
    return key or None


def _first_line(error: Exception) -> str:
    errors = getattr(error, "errors", None)
    if callable(errors):
        first = errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ())) or "action"
        return f"{where}: {first.get('msg')}"
    return str(error).splitlines()[0]
