"""The oracle: a loopback OpenAI-compatible chat-completions server that answers each suite task from its script.

It reads what a real model would: the request text and the screen's controls as the prompt
lists them (`12 button "Send" tap @540,2200`). Each script step names its control,
and the oracle finds that control's numeric id on the current screen; a control that is not
there (after scrolling a list a few times) makes it answer FAIL, so a wrong script fails.

Where it is in a script is kept per task; `begin(request)` starts a task's run over. Until it
has acted on a control in a run (a replayed skill may have done part of the work and handed
over), a screen that already shows the task's expected end makes it answer FINISH, and a
missing step control with a later step's control shown makes it go on from there; once it
drives, it never skips a step. The completion check's question is answered "done": true, a
reflection question "success". Calls and tokens are counted as a provider would count them: a
character is a quarter of a token, an image costs what the rule for the request's model name says
(`provider_prompt_tokens`), so benches and tests see what a user pays.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from app.bench.chat_stream import LoopbackServer, send_stream, stream_events
from app.core.agent.completion_check import normalise
from app.core.agent.prompts import PromptBuilder
from app.core.agent.usage_estimate import estimate_prompt_tokens
from app.core.config import Settings
from app.core.image_tokens import rule_for_model

from .oracle_screen import (
    ScreenControl,
    expectation_shown,
    find_control,
    find_control_id,
    message_texts,
    screen_controls,
    switched,
    target_shown,
)
from .task_suite import TASKS, BenchTask, ScriptStep

__all__ = ["OracleModel", "expectation_shown", "find_control", "find_control_id", "message_texts",
           "provider_prompt_tokens", "screen_controls"]

MAX_SCROLLS = 3                 # scrolls a list this often looking for a step's control, then gives up
MODEL_NAME = "oracle"

@dataclass
class _Progress:
    """Where one task's current run is in its script."""

    cursor: int = 0
    scrolls: int = 0
    driving: bool = False        # it has acted on a control in this run (before: it may be resuming a skill)
    navigated: bool = False      # it went to its task's screen by the map (go_to_screen) in this run
    last_reply: dict[str, Any] | None = None


@dataclass
class OracleAnswer:
    """What the oracle sends back for one request."""

    reply: dict[str, Any]
    kind: str                      # step, completion_check, reflection, unknown
    as_tool_call: bool = False
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def text(self) -> str:
        return json.dumps(self.reply, ensure_ascii=False)


@dataclass
class OracleTally:
    """Calls and tokens the oracle answered, by kind of request."""

    calls: dict[str, int] = field(default_factory=dict)
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_calls(self) -> int:
        return sum(self.calls.values())


class OracleModel:
    """The suite's scripted model on 127.0.0.1. Use as a context manager (or start/stop)."""

    def __init__(self, tasks: Iterable[BenchTask] = TASKS, think_seconds: float = 0.0) -> None:
        self.tasks = {task.request: task for task in tasks}
        self.think_seconds = think_seconds       # how long each answer takes, as a hosted model's would
        self.tally = OracleTally()
        self.problems: list[str] = []            # requests it could not answer from a script, and why
        self._progress: dict[str, _Progress] = {}
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._port: int | None = None
        self._ids = itertools.count(1)
        builder = PromptBuilder(Settings())
        self._completion_system = builder.completion_check_messages("-", "-", [], (1, 1), None)[0]["content"]
        self._reflection_system = builder.reflection_messages("-", "data:,", "data:,")[0]["content"]

    # ------------------------------------------------------------------ serving

    def start(self) -> OracleModel:
        self._server = _Server(_Handler)
        self._server.oracle = self
        self._port = self._server.port
        self._server.serve("oracle-model")
        return self

    def stop(self) -> None:
        """Stop serving and wait for the server's thread to end."""
        if self._server is not None:
            self._server.stop()
            self._server = None

    def __enter__(self) -> OracleModel:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        if self._port is None:
            raise RuntimeError("the oracle is not started; use it as a context manager")
        return f"http://127.0.0.1:{self._port}/v1"

    def next_id(self) -> int:
        return next(self._ids)

    # ------------------------------------------------------------------ answering

    def add_task(self, task: BenchTask) -> None:
        """Learn one more task's script (a task made at run time, as AndroidWorld's are from their goals)."""
        with self._lock:
            self.tasks[task.request] = task

    def begin(self, request: str) -> None:
        """A new run of the task asked with `request` starts: its script from the top."""
        with self._lock:
            self._progress[request] = _Progress()

    def answer(self, body: dict[str, Any]) -> OracleAnswer:
        """The reply to one chat-completions request body, counted."""
        with self._lock:
            answer = self._answer(body)
            answer.prompt_tokens = provider_prompt_tokens(body)
            answer.completion_tokens = max(1, len(answer.text) // 4)
            self.tally.calls[answer.kind] = self.tally.calls.get(answer.kind, 0) + 1
            self.tally.prompt_tokens += answer.prompt_tokens
            self.tally.completion_tokens += answer.completion_tokens
            return answer

    def _answer(self, body: dict[str, Any]) -> OracleAnswer:
        system = next(iter(message_texts(body, "system")), "")
        if system.strip() == self._completion_system.strip():
            return OracleAnswer({"done": True, "reason": "the screen shows the request is done"}, "completion_check")
        if system.strip() == self._reflection_system.strip():
            return OracleAnswer({"execution_result": "success", "confidence": 0.9, "reasoning": "the screen changed "
                                 "as the action meant", "improvement_suggestions": ""}, "reflection")
        task = self._task_of(body)
        tools = bool(body.get("tools"))
        if task is None:
            self.problems.append("a request for no task of the suite")
            return OracleAnswer(_act("", "FAIL", "The oracle has no script for this request."), "unknown", tools)
        progress = self._progress.setdefault(task.request, _Progress())
        last = body.get("messages", [])[-1:] or [{}]
        if isinstance(last[0].get("content"), str) and last[0].get("role") == "user" and progress.last_reply:
            return OracleAnswer(progress.last_reply, "step", tools)     # a retry: the same answer again
        progress.last_reply = self._step(task, progress, screen_controls(body), "\n".join(message_texts(body)[:1]))
        return OracleAnswer(progress.last_reply, "step", tools)

    def _task_of(self, body: dict[str, Any]) -> BenchTask | None:
        """The task whose request the conversation quotes (the longest, when several do)."""
        text = "\n".join(message_texts(body))
        quoted = [request for request in self.tasks if request in text]
        return self.tasks[max(quoted, key=len)] if quoted else None

    def _step(self, task: BenchTask, progress: _Progress, controls: list[ScreenControl],
              prompt: str = "") -> dict[str, Any]:
        script = task.script
        resuming = not progress.driving           # a replayed skill may have done part of the work before asking
        if resuming and task.expect and expectation_shown(task.expect, controls):
            progress.cursor = len(script)
        if resuming and not progress.navigated and task.screen:
            known = known_screen(prompt, task.screen)
            if known:                             # the map knows the task's screen: go there in one call
                progress.navigated = True
                return _act("go_to_screen", "CONTINUE", f"go to {known}, where the task is done", screen=known)
        if resuming and progress.navigated:       # arrived on the task's screen: the work left is its last step shown
            shown = [index for index in range(progress.cursor, len(script)) if target_shown(script[index], controls)]
            if shown:
                progress.cursor = shown[-1]
        while progress.cursor < len(script):
            step = script[progress.cursor]
            if step.target is None:
                progress.cursor += 1
                return _act(step.function, "CONTINUE", step.describe(), **step.arguments)
            control = find_control(controls, step.target, clickable_only=step.function == "click_control")
            if control is not None:
                progress.cursor += 1
                if step.function == "set_switch" and switched(control, controls, bool(step.arguments["checked"])):
                    continue                      # already as wanted: nothing to tap
                progress.scrolls, progress.driving = 0, True
                return _targeted(step, control, _screen_width(prompt))
            later = next((index for index in range(progress.cursor + 1, len(script))
                          if target_shown(script[index], controls)), None) if resuming else None
            if later is not None:             # part of the work was done before it was asked: go on from there
                progress.cursor = later
                continue
            scrollable = next((c for c in controls if "scroll" in c.flags), None)   # the prompt says "scroll"
            if scrollable is not None and progress.scrolls < MAX_SCROLLS:
                progress.scrolls, progress.driving = progress.scrolls + 1, True
                return _act("scroll", "CONTINUE", f"looking for {step.target.describe()}", direction="down",
                            control_id=scrollable.id)
            listed = ", ".join(sorted({c.name for c in controls})) or "no controls"
            why = f"I cannot find {step.target.describe()} on this screen (it shows: {listed})."
            self.problems.append(f"{task.name}: {why}")
            return _act("", "FAIL", why)
        reply = _act("", "FINISH", f"{task.request}: done")
        reply["comment"] = f"Done: {task.request}"
        if task.expect:
            reply["expect"] = dict(task.expect)
        return reply


_KNOWN_SCREEN = re.compile(r'^- "(.+)" \(\d+ steps?\)$')


def known_screen(prompt: str, wanted: str) -> str:
    """The name, as the prompt's map section lists it for go_to_screen, of the known screen whose own
    name (the last part of its place) is `wanted`; "" when none is listed. A plain entry is preferred to
    one reached "(after …)" a further action."""
    listed = prompt.split("Known screens you can go to with go_to_screen", 1)
    if len(listed) < 2:
        return ""
    names = [match.group(1) for line in listed[1].splitlines() if (match := _KNOWN_SCREEN.match(line.strip()))]
    fitting = [name for name in names
               if normalise(name.split(" (after ", 1)[0].rsplit("›", 1)[-1]) == normalise(wanted)]
    return min(fitting, key=lambda name: (" (after " in name, len(name)), default="")


def _act(function: str, status: str, thought: str, **arguments: Any) -> dict[str, Any]:
    """A reply in the system message's format."""
    return {"thought": thought, "action": {"function": function, "arguments": arguments, "status": status},
            "comment": thought}


_IMAGE_SIZE = re.compile(r"\((\d+) x (\d+) px\)")


def _screen_width(prompt: str) -> int | None:
    """The screen's width as the prompt states its image's size (None: a prompt without an image)."""
    match = _IMAGE_SIZE.search(prompt)
    return int(match.group(1)) if match else None


def _targeted(step: ScriptStep, control: ScreenControl, screen_width: int | None = None) -> dict[str, Any]:
    thought = f"{step.describe()}: control {control.id}"
    if step.function == "slide":                  # a drag from the thumb's track past its end
        width = screen_width or 2 * control.x
        return _act("drag", "CONTINUE", thought, from_control_id=control.id,
                    to_x=width - 1 if step.arguments.get("right") else 0, to_y=control.y, duration_ms=400)
    if step.function == "set_switch":
        return _act("click_control", "CONTINUE", thought, control_id=control.id, control_name=control.name)
    arguments = {**step.arguments, "control_id": control.id}
    if step.function == "click_control":
        arguments["control_name"] = control.name
    return _act(step.function, "CONTINUE", thought, **arguments)


def provider_prompt_tokens(body: dict[str, Any]) -> int:
    """The request's prompt tokens as a provider would count them: the text (system message and tools
    included) at characters / 4, each image by the rule for the request's model name
    (`image_tokens.rule_for_model`: OpenAI's, Anthropic's or Gemini's where the name says, else the
    stated estimate, gpt-4o's tiles at the detail the image part asks for)."""
    model = str(body.get("model") or MODEL_NAME)
    details = {str((part.get("image_url") or {}).get("detail") or "high")
               for message in body.get("messages", []) if isinstance(message.get("content"), list)
               for part in message["content"] if part.get("type") == "image_url"}
    rule = rule_for_model(model, detail="low" if details == {"low"} else "high")
    text, images = estimate_prompt_tokens(body.get("messages", []), body.get("tools"), rule)
    return text + images


# ----------------------------------------------------------------------------- HTTP


class _Server(LoopbackServer):
    oracle: OracleModel


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        """Quiet: the bench reports what matters."""

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._send_json(200, {"object": "list", "data": [{"id": MODEL_NAME, "object": "model", "created": 0,
                                                              "owned_by": "agentdesk-bench"}]})
        else:
            self._send_json(404, _error(f"unknown path {self.path}", "not_found"))

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_json(404, _error(f"unknown path {self.path}", "not_found"))
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send_json(400, _error("the request body is not JSON", "invalid_request_error"))
            return
        oracle = self.server.oracle
        answer = oracle.answer(body)
        if oracle.think_seconds:
            time.sleep(oracle.think_seconds)
        message: dict[str, Any] = {"role": "assistant", "content": answer.text}
        finish_reason = "stop"
        if answer.as_tool_call:
            name = ((body["tools"][0] or {}).get("function") or {}).get("name", "act")
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_{oracle.next_id()}", "type": "function",
                 "function": {"name": name, "arguments": answer.text}}]}
            finish_reason = "tool_calls"
        usage = {"prompt_tokens": answer.prompt_tokens, "completion_tokens": answer.completion_tokens,
                 "total_tokens": answer.prompt_tokens + answer.completion_tokens}
        completion = {"id": f"chatcmpl-{oracle.next_id()}", "object": "chat.completion", "created": int(time.time()),
                      "model": body.get("model", MODEL_NAME),
                      "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}], "usage": usage}
        if body.get("stream"):
            self._send_stream(completion, include_usage=bool((body.get("stream_options") or {}).get("include_usage")))
        else:
            self._send_json(200, completion)

    def _send_stream(self, completion: dict[str, Any], include_usage: bool) -> None:
        """The completion as server-sent events: the text or tool arguments in chunks, the finish, the usage."""
        send_stream(self, stream_events(completion, text_piece=64, arguments_piece=64, include_usage=include_usage))

    def _send_json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass


def _error(message: str, code: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": code}}
