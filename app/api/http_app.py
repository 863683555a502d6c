"""The task API's routes (FastAPI): tasks, their events, decisions, phones, their screens.

Every route but /v1/health needs `Authorization: Bearer <token>`. Bad input answers with a
4xx JSON body naming the field (`{"error", "field", "details"}`), never a traceback; a fault
of ours is a 500 with the exception's type only, the rest in the desk's log. No CORS headers
are sent, so a web page in a browser cannot call the API even on this machine.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated, Any, TypeAlias, get_args

from fastapi import Depends, FastAPI, Query, Request
from fastapi import Path as InPath
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.sse import EventSourceResponse, ServerSentEvent
from pydantic import AfterValidator
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import __version__
from app.core.config import Settings
from app.core.device.errors import DeviceError
from app.core.paths import runs_dir

from .docs_page import docs_html
from .path_ids import MAX_ID_LENGTH, path_id_problem
from .phone_views import device_list, screenshot_png, ui_tree
from .schemas import (
    DecisionRequest,
    DeviceList,
    ErrorBody,
    MobileTaskRequest,
    MobileTaskResult,
    SemanticUITree,
    TaskAccepted,
    TaskList,
    TaskStatus,
)
from .server import host_allowed
from .task_views import event_json, report_file
from .tasks import TaskBoard, TaskProblem
from .token import ApiToken

log = logging.getLogger(__name__)

ERRORS: dict[int | str, dict[str, Any]] = {status: {"model": ErrorBody}
                                           for status in (400, 401, 404, 409, 413, 422, 429, 503)}
SSE_KEEPALIVE_SECONDS = 15.0
Preflight: TypeAlias = Callable[[], Awaitable[list[dict[str, str]]]]   # what a run misses: {"thing", "words"}
BEARER = HTTPBearer(auto_error=False)


def _path_id(value: str) -> str:
    problem = path_id_problem(value)
    if problem:
        raise ValueError(f"the id {problem}")
    return value


PathId = Annotated[str, InPath(max_length=MAX_ID_LENGTH), AfterValidator(_path_id)]
"""A task's or a phone's id in a route's path: never a way to another path."""
TaskId: TypeAlias = PathId
DeviceId: TypeAlias = PathId


def one_line(text: str, limit: int = 300) -> str:
    """`text` on one line, cut at `limit` characters (a request's words go into the log as one line)."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[:limit] + "…"


def log_refused(scope: Scope, status: int, message: str) -> None:
    """One line in the log for a refused request, never a traceback."""
    log.info("refused %s %s: %d %s", scope.get("method", ""), one_line(scope.get("path", ""), 120), status,
             one_line(message))


def error_response(status: int, message: str, field: str | None = None,
                   details: list[dict[str, Any]] | None = None, headers: dict[str, str] | None = None) -> JSONResponse:
    body = ErrorBody(error=message, field=field, details=details or [])
    return JSONResponse(body.model_dump(), status_code=status, headers=headers)


class HostCheck:
    """Refuse (421) a request whose Host header names another host than this desk (`allowed(header)`): a web
    page that points its own name at this machine (DNS rebinding) gets nothing from the API."""

    def __init__(self, app: ASGIApp, allowed: Callable[[str], bool]) -> None:
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            header = dict(scope.get("headers") or []).get(b"host")
            name = header.decode("latin-1") if header is not None else None
            if name is not None and not self.allowed(name):
                message = (f"This desk answers requests addressed to it only (localhost, 127.0.0.1, [::1] or the "
                           f"address it serves on), not to the host {one_line(name, 80)!r}.")
                log_refused(scope, 421, message)
                if scope["type"] == "http":
                    await error_response(421, message, "Host")(scope, receive, send)
                else:
                    await send({"type": "websocket.close", "code": 1008})
                return
        await self.app(scope, receive, send)


class BodyLimit:
    """Refuse request bodies over `limit()` bytes with a JSON 413, before the route reads them."""

    def __init__(self, app: ASGIApp, limit: Callable[[], int]) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit()
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await self._refuse(scope, receive, send, limit)
            return
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await self._refuse(scope, receive, send, limit)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()
        await self.app(scope, replay, send)

    @staticmethod
    async def _refuse(scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        message = (f"The request body is larger than {limit // 1024} KB, the most the desk takes (api.max_body_kb "
                   "in the settings).")
        log_refused(scope, 413, message)
        await error_response(413, message, "body")(scope, receive, send)


def token_hint(token: ApiToken) -> str:
    """Where the caller finds the token a 401 asks for."""
    if token.kept:
        return "`agentdesk api token` prints it; the desk's window shows it under “API token…” in its status bar"
    return "this desk made one for its process only and printed it when it started"


STATUSES: tuple[str, ...] = get_args(TaskStatus)


def status_filter(value: str | None) -> set[str]:
    """The statuses `?status=` asks for (comma-separated; empty: every status). TaskProblem 422 naming a wrong one."""
    wanted = {part.strip() for part in (value or "").split(",") if part.strip()}
    wrong = sorted(wanted - set(STATUSES))
    if wrong:
        raise TaskProblem(422, f"status: {', '.join(wrong)} is not a task status; use one or more (comma-separated) "
                               f"of {', '.join(STATUSES)}, or leave it empty for every task.", "query.status")
    return wanted


def on_this_api(request: Request, result: MobileTaskResult) -> MobileTaskResult:
    """`result` with its report's URL on the address the caller reached this API at (the Host check vouches for
    the name)."""
    if not result.report_url or not result.report_url.startswith("/"):
        return result
    return result.model_copy(update={"report_url": str(request.base_url).rstrip("/") + result.report_url})


def create_app(board: TaskBoard, phones, token: Callable[[], ApiToken], settings: Callable[[], Settings], *,
               host: str = "127.0.0.1", preflight: Preflight | None = None) -> FastAPI:
    """The API for one desk serving on `host`. `phones` is the PhoneDirectory tasks and the phone routes read;
    `token()` is the token requests must carry now (a rotated token replaces the old one at once); `preflight()`
    says what a run is missing (the desk gives it; none: nothing is known to be missing)."""

    def authorised(credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(BEARER)]) -> None:
        expected = token()
        if credentials is None or credentials.scheme.lower() != "bearer" or \
                not hmac.compare_digest(credentials.credentials.encode(), expected.value.encode()):
            raise StarletteHTTPException(401, "A valid token is needed: send Authorization: Bearer <token> "
                                              f"({token_hint(expected)}).")

    api = FastAPI(title="Agent Desk task API", version=__version__, responses=ERRORS, docs_url=None,
                  redoc_url=None, description="Give Agent Desk tasks on Android phones, follow them, approve their "
                                              "steps, and read their phones' screens.")
    guarded = [Depends(authorised)]

    def refused(request: Request, status: int, message: str, field: str | None = None,
                details: list[dict[str, Any]] | None = None, headers: dict[str, str] | None = None) -> JSONResponse:
        log_refused(request.scope, status, message)
        return error_response(status, message, field, details, headers)

    @api.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        details = [{"field": ".".join(str(part) for part in error.get("loc", ())), "problem": error.get("msg", ""),
                    "type": error.get("type", "")} for error in exc.errors()]
        first = details[0] if details else {"field": "body", "problem": "not valid"}
        field = first["field"]
        message = f"{field}: {first['problem']}" + (f" (and {len(details) - 1} more)" if len(details) > 1 else "")
        return refused(request, 422, message, field, details)

    @api.exception_handler(TaskProblem)
    async def _refused(request: Request, exc: TaskProblem) -> JSONResponse:
        return refused(request, exc.status, str(exc), exc.field)

    @api.exception_handler(DeviceError)
    async def _phone_fault(request: Request, exc: DeviceError) -> JSONResponse:
        return refused(request, 503, f"The phone did not answer: {exc}")

    @api.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if exc.status_code == 401 else None
        detail = str(exc.detail)
        if exc.status_code == 400 and isinstance(exc.__cause__, RecursionError):
            detail = "The request body is JSON nested too deeply to read."
        return refused(request, exc.status_code, detail, headers=headers)

    @api.exception_handler(Exception)
    async def _ours(request: Request, exc: Exception) -> JSONResponse:
        if isinstance(exc, RecursionError):         # input nested past what Python reads: the request's fault
            return refused(request, 422, "The request is nested too deeply to read.")
        log.exception("the task API failed on a request")
        return error_response(500, f"The desk failed on this request ({type(exc).__name__}); its log has the "
                                   "details.")

    @api.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        """The routes in words: one page, no script, nothing from another host (no token needed)."""
        return HTMLResponse(docs_html(api.openapi()))

    @api.get("/v1/health", tags=["desk"])
    async def health() -> dict[str, str]:
        """Whether a desk answers here (no token needed; says nothing else)."""
        return {"name": "agentdesk", "version": __version__}

    @api.get("/v1/preflight", dependencies=guarded, tags=["desk"])
    async def preflight_list() -> dict[str, list[dict[str, str]]]:
        """What a run is missing now (ADB, a phone, the API key, the data folder, the model's server), each as
        {"thing", "words"}; an empty list: nothing."""
        return {"missing": await preflight() if preflight is not None else []}

    # ------------------------------------------------------------------ tasks

    @api.post("/v1/tasks", status_code=202, response_model=TaskAccepted, dependencies=guarded, tags=["tasks"])
    async def post_task(body: MobileTaskRequest) -> TaskAccepted:
        """Queue a task on a phone (a MobileTaskRequest). It starts when its phone is free."""
        handle = await board.submit(body)
        base = f"/v1/tasks/{handle.id}"
        return TaskAccepted(task_id=handle.id, status=handle.state, position=board.position(handle),
                            links={"self": base, "events": f"{base}/events", "decision": f"{base}/decision",
                                   "cancel": f"{base}/cancel", "report": f"{base}/report"})

    @api.get("/v1/tasks", response_model=TaskList, dependencies=guarded, tags=["tasks"])
    async def list_tasks(request: Request, status: str | None = Query(None, max_length=200, description=(
                             "only tasks with this status, or one of several comma-separated (e.g. "
                             "running,waiting_for_person); empty: every task")),
                         device_id: str | None = Query(None, max_length=300, description=(
                             "only tasks on this phone (its device_id or serial); empty: every phone"))) -> TaskList:
        """This desk's tasks (the window's runs too), oldest first."""
        wanted = status_filter(status)
        tasks = [on_this_api(request, task) for task in board.results(None, device_id or None)
                 if not wanted or task.status in wanted]
        return TaskList(tasks=tasks)

    @api.get("/v1/tasks/{task_id}", response_model=MobileTaskResult, dependencies=guarded, tags=["tasks"])
    async def get_task(request: Request, task_id: TaskId,
                       wait_seconds: float = Query(0, ge=0, le=60)) -> MobileTaskResult:
        """The task's result (a MobileTaskResult), or where it is while not done. `wait_seconds` waits up to that long
        for it to end first (a long poll)."""
        if wait_seconds:
            return on_this_api(request, await board.wait(task_id, wait_seconds))
        return on_this_api(request, board.result(task_id))

    @api.get("/v1/tasks/{task_id}/events", response_class=EventSourceResponse, dependencies=guarded,
             tags=["tasks"])
    async def task_events(task_id: TaskId, request: Request) -> AsyncIterator[ServerSentEvent]:
        """The task's events as server-sent events, from its start; the stream ends after `run_finished`."""
        handle = board.handle(task_id)
        stream = handle.events.follow()
        number = 0
        try:
            while True:
                try:
                    event = await asyncio.wait_for(anext(stream), SSE_KEEPALIVE_SECONDS)
                except StopAsyncIteration:
                    return
                except TimeoutError:
                    if await request.is_disconnected():
                        return
                    yield ServerSentEvent(comment="still running")
                    continue
                number += 1
                yield ServerSentEvent(data=event_json(event), event=event.kind, id=str(number))
        finally:
            await stream.aclose()

    @api.post("/v1/tasks/{task_id}/decision", response_model=MobileTaskResult, dependencies=guarded,
              tags=["tasks"])
    async def decide(request: Request, task_id: TaskId, body: DecisionRequest) -> MobileTaskResult:
        """Answer what the task waits for (its `waiting_for`): approve, edit, reject with feedback, override,
        stop, or answer a question, naming it by `proposal_id` (`waiting_for.proposal_id`). A decision for
        anything else — an older step, one already decided — is 409 and does nothing. A sensitive step
        (`waiting_for.needs_person`) is approved, edited or overridden only by a person (403) unless the
        desk's setting api.programs_may_approve_sensitive is on."""
        board.decide(task_id, body)
        await asyncio.sleep(0)      # the run takes the answer in before the result is read
        return on_this_api(request, board.result(task_id))

    @api.post("/v1/tasks/{task_id}/cancel", response_model=MobileTaskResult, dependencies=guarded,
              tags=["tasks"])
    async def cancel(request: Request, task_id: TaskId) -> MobileTaskResult:
        """Stop the task (a queued one never touches the phone); it ends `stopped`."""
        board.cancel(task_id)
        return on_this_api(request, await board.wait(task_id, 10.0))

    @api.get("/v1/tasks/{task_id}/report", dependencies=guarded, tags=["tasks"],
             responses={200: {"content": {"text/html": {}}}})
    async def report(task_id: TaskId) -> FileResponse:
        """The task's HTML report, once it has ended (its `report_url`). Only the run's own report.html in its own
        folder is served."""
        handle = board.handle(task_id)
        path = await asyncio.to_thread(report_file, handle, board.service.runs_root or runs_dir(create=False))
        if path is None:
            raise TaskProblem(404, f"Task {task_id} has no report yet (it is {board.result(task_id).status}).")
        return FileResponse(path, media_type="text/html", headers={"Content-Security-Policy": "connect-src 'none'"})

    # ------------------------------------------------------------------ phones

    @api.get("/v1/devices", response_model=DeviceList, dependencies=guarded, tags=["devices"])
    async def devices() -> DeviceList:
        """Every phone of every ADB server the desk knows, ready or not."""
        return await device_list(phones)

    @api.get("/v1/devices/{device_id}/ui-tree", response_model=SemanticUITree, dependencies=guarded,
             tags=["devices"])
    async def read_ui_tree(device_id: DeviceId) -> SemanticUITree:
        """The screen's controls (a SemanticUITree). Read again only when the screen changed since
        the last reading; `age_seconds` says how old it is."""
        return await ui_tree(phones, device_id)

    @api.get("/v1/devices/{device_id}/screenshot", dependencies=guarded, tags=["devices"],
             responses={200: {"content": {"image/png": {}}}}, response_class=Response)
    async def screenshot(device_id: DeviceId, ids: bool = Query(False, description="draw the controls' numbered "
                                                                                  "boxes")) -> Response:
        """The screen as a PNG, at the phone's resolution."""
        never_send = settings().images.never_send_apps          # such screens are answered blurred, saying why
        return Response(await screenshot_png(phones, device_id, ids, never_send), media_type="image/png")

    api.add_middleware(BodyLimit, limit=lambda: settings().api.max_body_kb * 1024)
    api.add_middleware(HostCheck, allowed=lambda header: host_allowed(header, host))
    return api
