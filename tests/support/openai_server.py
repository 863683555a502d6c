"""A loopback server that speaks the OpenAI chat-completions API and answers from a script (GUIDE §4).

The real `openai` client talks to it over HTTP, so tests exercise the same code path as
the app. Each entry of the script is a callable `(request_body) -> ScriptedReply`, used
once, in order; the helpers below build the common ones. Every request is recorded in
`server.requests` (body and headers) so tests can check what the app sent.

    with FakeOpenAIServer([json_reply(act("wait", seconds=1)), click("Wi-Fi")]) as server:
        client = ModelClient(ProviderSettings(base_url=server.base_url, ...), "sk-test")
"""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from app.bench.chat_stream import LoopbackServer, send_stream, stream_events
from app.bench.oracle_model import message_texts, provider_prompt_tokens


@dataclass
class ScriptedReply:
    """What the server sends back: a chat completion (content and/or tool arguments) or an HTTP error."""

    content: str | None = None
    tool_arguments: str | None = None
    status: int = 200
    error_message: str = ""
    error_code: str = "error"
    headers: dict[str, str] = field(default_factory=dict)
    delay_seconds: float = 0.0
    prompt_tokens: int | None = 100       # None: counted as a provider would, images by their model's rule
    completion_tokens: int = 20
    usage: bool = True                    # False: the server reports no usage (the client then estimates)
    finish_reason: str | None = None      # None: "stop" (or "tool_calls" with tool arguments)
    undeclared_length: bool = False       # no Content-Length: the body ends when the connection closes
    stream_error: str = ""                # streamed: the server fails with this after the first words


Responder = Callable[[dict[str, Any]], ScriptedReply]


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


# ----------------------------------------------------------------------------- replies


def text_reply(content: str, *, prompt_tokens: int = 100, completion_tokens: int = 20) -> Responder:
    """A plain assistant message."""
    return lambda body: ScriptedReply(content=content, prompt_tokens=prompt_tokens,
                                      completion_tokens=completion_tokens)


def cut_off_reply(content: str, completion_tokens: int | None = None) -> Responder:
    """A reply stopped by the output budget: `finish_reason: "length"`, as many completion tokens
    as the request allowed (`max_tokens`) unless `completion_tokens` says otherwise."""
    def respond(body: dict[str, Any]) -> ScriptedReply:
        budget = body.get("max_tokens") or body.get("max_completion_tokens") or 20
        return ScriptedReply(content=content, finish_reason="length",
                             completion_tokens=completion_tokens if completion_tokens is not None else budget)
    return respond


def json_reply(obj: dict[str, Any], fenced: bool = False) -> Responder:
    """The object as JSON text, optionally in a ```json fence."""
    text = json.dumps(obj, ensure_ascii=False)
    return text_reply(f"```json\n{text}\n```" if fenced else text)


def tool_reply(obj: dict[str, Any]) -> Responder:
    """A tool call to `act` whose arguments are the object."""
    return lambda body: ScriptedReply(tool_arguments=json.dumps(obj, ensure_ascii=False))


def huge_reply(megabytes: float, *, undeclared_length: bool = False) -> Responder:
    """A text reply of about `megabytes` MB (a runaway or hostile server); with `undeclared_length`
    it comes without a Content-Length, so only reading it tells its size."""
    return lambda body: ScriptedReply(content="x" * int(megabytes * 1_000_000), undeclared_length=undeclared_length)


def http_error(status: int, message: str, retry_after: float | None = None, code: str | None = None) -> Responder:
    """An error response in OpenAI's format: {"error": {"message", "type", "code"}}."""
    headers = {"Retry-After": f"{retry_after:g}"} if retry_after is not None else {}
    return lambda body: ScriptedReply(status=status, error_message=message, headers=headers,
                                      error_code=code or "error")


def delayed(seconds: float, reply: Responder) -> Responder:
    """The reply, sent after `seconds` (to provoke client timeouts)."""
    def respond(body: dict[str, Any]) -> ScriptedReply:
        scripted = reply(body)
        scripted.delay_seconds = seconds
        return scripted
    return respond


def act(function: str, status: str = "CONTINUE", thought: str = "...", **arguments: Any) -> dict[str, Any]:
    """A reply dict in the GUIDE §2 format."""
    return {"thought": thought, "action": {"function": function, "arguments": arguments, "status": status},
            "comment": ""}


def click(name: str, thought: str = "...") -> Responder:
    """click_control on the control called `name` in the screen the request shows."""
    def respond(body: dict[str, Any]) -> ScriptedReply:
        control_id = find_control_id(body, name)
        return json_reply(act("click_control", thought=thought, control_id=control_id, control_name=name))(body)
    return respond


def type_into(name: str, text: str) -> Responder:
    """type_text into the control called `name` in the screen the request shows."""
    def respond(body: dict[str, Any]) -> ScriptedReply:
        control_id = find_control_id(body, name)
        return json_reply(act("type_text", text=text, control_id=control_id))(body)
    return respond


# --------------------------------------------------------------------- reading requests

# `12 button "Send" tap @540,2200` — a role word (none for plain text or a container), the JSON-quoted name
# (left out when it is only the class: the role or class stands for it), the states, the centre.
_CONTROL_LINE = re.compile(r'^(\d+)(?: ([^\s"]+))?(?: ("(?:[^"\\]|\\.)*"))?(?: [a-z,]+)? @(-?\d+),(-?\d+)$')


def user_texts(body: dict[str, Any]) -> list[str]:
    """The text of each user message of a chat-completions request, last first."""
    return message_texts(body, "user")


def controls_in_request(body: dict[str, Any]) -> dict[int, str]:
    """Control id → name, from the last user message that lists controls (a retry message lists none)."""
    for text in user_texts(body):
        controls = {}
        for line in text.splitlines():
            match = _CONTROL_LINE.match(line.strip())
            if match:
                control_id, control_type, quoted, _x, _y = match.groups()
                controls[int(control_id)] = json.loads(quoted) if quoted else control_type or ""
        if controls:
            return controls
    return {}


_DASHES = str.maketrans({c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2212"})


def _plain(text: str) -> str:
    """Lower case, with the Unicode dashes Android uses (Wi‑Fi has U+2011) made ASCII."""
    return text.translate(_DASHES).lower()


def find_control_id(body: dict[str, Any], name: str) -> int:
    """The id of the control called `name` on the request's screen: exact name first, then
    case-insensitive substring (dashes compared as ASCII). Raises LookupError naming the controls."""
    controls = controls_in_request(body)
    for control_id, control_name in controls.items():
        if control_name == name:
            return control_id
    for control_id, control_name in controls.items():
        if _plain(control_name) == _plain(name):
            return control_id
    for control_id, control_name in controls.items():
        if _plain(name) in _plain(control_name):
            return control_id
    raise LookupError(f"no control named {name!r} in the request; it shows: {sorted(set(controls.values()))}")


def control_centre(body: dict[str, Any], name: str) -> tuple[int, int]:
    """The centre the request gives for the control called exactly `name` (for a tap by coordinates).
    Raises LookupError naming the controls."""
    for text in user_texts(body):
        for line in text.splitlines():
            match = _CONTROL_LINE.match(line.strip())
            if match and match.group(3) and json.loads(match.group(3)) == name:
                return int(match.group(4)), int(match.group(5))
    raise LookupError(f"no control {name!r} in the request: {sorted(controls_in_request(body).values())}")


# ----------------------------------------------------------------------- text-only models

# What real servers answer when a model without vision gets an image: (HTTP status, message).
IMAGE_REFUSALS: dict[str, tuple[int, str]] = {
    "llama.cpp": (500, "image input is not supported - hint: if this is unexpected, you may need to provide "
                       "the mmproj"),
    "ollama": (500, "this model is missing data required for image input"),
    "vllm": (400, "Qwen2ForCausalLM is not a multimodal model"),
    "lm-studio": (400, "Model does not support images. Please use a model that does."),
    "openai": (400, "Invalid content type. image_url is only supported by certain models."),
}


def has_images(body: dict[str, Any]) -> bool:
    """Whether a chat-completions request carries an image part."""
    return any(isinstance(message.get("content"), list)
               and any(part.get("type") == "image_url" for part in message["content"])
               for message in body.get("messages", []))


COMPLETION_CHECK_OPENING = "You check whether a request on an Android phone has been carried out."


def is_completion_check(body: dict[str, Any]) -> bool:
    """Whether a request is the agent's completion check (its one question after a FINISH)."""
    return any(message.get("role") == "system" and isinstance(message.get("content"), str)
               and message["content"].startswith(COMPLETION_CHECK_OPENING) for message in body.get("messages", []))


def check_answer(done: bool, reason: str = "") -> Responder:
    """A scripted answer to the completion check."""
    reason = reason or ("the screen shows the request is done" if done else "the screen does not show it yet")
    return json_reply({"done": done, "reason": reason})


# ----------------------------------------------------------------------------- server


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        """Quiet: tests read `server.requests` instead."""

    def do_GET(self) -> None:
        self._record({})
        if self.path.rstrip("/").endswith("/models"):
            models = [{"id": name, "object": "model", "created": 0, "owned_by": "test"}
                      for name in self.server.fake.models]
            self._send_json(200, {"object": "list", "data": models})
        else:
            self._send_error(404, f"unknown path {self.path}", "not_found")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send_error(400, "the request body is not JSON", "invalid_request_error")
            return
        self._record(body)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_error(404, f"unknown path {self.path}", "not_found")
            return
        refused = next((name for name in self.server.fake.refuse_parameters if name in body), None)
        if refused is not None:                          # an older server: the parameter itself is refused
            self._send_error(400, f"Unsupported parameter: '{refused}' is not supported by this server.",
                             "unsupported_parameter")
            return
        refusal = self.server.fake.refuse_images
        if refusal is not None and has_images(body):     # a text-only model: no script entry is used
            status, message = IMAGE_REFUSALS[refusal]
            self._send_error(status, message, "invalid_value" if status < 500 else "server_error")
            return
        responder = self.server.fake.next_responder(body)
        if responder is None:
            self._send_error(500, f"FakeOpenAIServer: the script ran out (request #{len(self.server.fake.requests)} "
                                  "had no scripted reply); add more replies to the test's script", "server_error")
            return
        try:
            scripted = responder(body)
        except Exception as error:  # a test's responder failed: say so instead of dropping the connection
            self._send_error(500, f"FakeOpenAIServer: the scripted responder failed: {type(error).__name__}: "
                                  f"{error}", "server_error")
            return
        if scripted.delay_seconds and self.server.fake.closing.wait(scripted.delay_seconds):
            return
        if scripted.status != 200:
            self._send_error(scripted.status, scripted.error_message, scripted.error_code, scripted.headers)
        elif body.get("stream") and self.server.fake.stream_replies:
            self._send_stream(body, scripted)
        else:
            self._send_json(200, self._completion(body, scripted), declare_length=not scripted.undeclared_length)

    def _record(self, body: dict[str, Any]) -> None:
        self.server.fake.record(RecordedRequest(self.command, self.path, dict(self.headers.items()), body))

    def _completion(self, body: dict[str, Any], scripted: ScriptedReply) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": scripted.content}
        finish_reason = "stop"
        if scripted.tool_arguments is not None:
            message["tool_calls"] = [{"id": f"call_{next(self.server.fake.ids)}", "type": "function",
                                      "function": {"name": "act", "arguments": scripted.tool_arguments}}]
            finish_reason = "tool_calls"
        finish_reason = scripted.finish_reason or finish_reason
        prompt = scripted.prompt_tokens if scripted.prompt_tokens is not None else provider_prompt_tokens(body)
        usage = {"prompt_tokens": prompt, "completion_tokens": scripted.completion_tokens,
                 "total_tokens": prompt + scripted.completion_tokens} if scripted.usage else None
        return {"id": f"chatcmpl-{next(self.server.fake.ids)}", "object": "chat.completion",
                "created": int(time.time()), "model": body.get("model", "fake-model"),
                "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}], "usage": usage}

    def _send_stream(self, body: dict[str, Any], scripted: ScriptedReply) -> None:
        """The completion as server-sent events: the text and the tool arguments a few characters a
        chunk, then the finish reason, the usage (when asked for) and [DONE]."""
        completion = self._completion(body, scripted)
        text = completion["choices"][0]["message"].get("content") or ""
        send_stream(self, stream_events(
            completion, text_piece=max(8, len(text) // 200), arguments_piece=8,     # a long reply in ~200 chunks
            include_usage=scripted.usage and bool((body.get("stream_options") or {}).get("include_usage")),
            stream_error=scripted.stream_error))

    def _send_error(self, status: int, message: str, code: str, headers: dict[str, str] | None = None) -> None:
        error = {"error": {"message": message, "type": "invalid_request_error" if status < 500 else "server_error",
                           "param": None, "code": code}}
        self._send_json(status, error, headers)

    def _send_json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None, *,
                   declare_length: bool = True) -> None:
        data = json.dumps(payload).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            if declare_length:
                self.send_header("Content-Length", str(len(data)))
            else:                      # the body ends when the connection does
                self.send_header("Connection", "close")
                self.close_connection = True
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test); nothing to answer


class _Server(LoopbackServer):
    fake: FakeOpenAIServer


class FakeOpenAIServer:
    """OpenAI-compatible chat completions on 127.0.0.1, answering from `script`. Use as a context manager.

    `refuse_images` (a key of IMAGE_REFUSALS: "llama.cpp", "openai", ...) makes it a text-only model:
    every request carrying an image is refused with that server's own status and words.

    `completion_checks` says how the agent's completion check after a FINISH is answered: "yes" or
    "no" without using the script (the default "yes" keeps scripts about other things short), or
    "script" to take the answer from the script like any other request (see `check_answer`).

    `refuse_parameters` (e.g. ("response_format",) or ("tool_choice",)) makes it a server that answers
    HTTP 400 naming the parameter to every request carrying one of them; no script entry is used.
    A request with `stream: true` is answered as server-sent events, unless `stream_replies` is False
    (a server that ignores `stream` and sends plain JSON).
    """

    host = "127.0.0.1"          # a subclass may serve on another loopback address (another origin)

    def __init__(self, script: Iterable[Responder] = (), models: Iterable[str] = ("fake-model", "fake-vision"),
                 refuse_images: str | None = None, completion_checks: str = "yes",
                 refuse_parameters: Iterable[str] = (), stream_replies: bool = True):
        if refuse_images is not None and refuse_images not in IMAGE_REFUSALS:
            raise ValueError(f"refuse_images must be one of {sorted(IMAGE_REFUSALS)}, not {refuse_images!r}")
        if completion_checks not in ("yes", "no", "script"):
            raise ValueError(f"completion_checks must be 'yes', 'no' or 'script', not {completion_checks!r}")
        self.completion_checks = completion_checks
        self.refuse_images = refuse_images
        self.refuse_parameters = tuple(refuse_parameters)
        self.stream_replies = stream_replies
        self.script = list(script)
        self.models = list(models)
        self.requests: list[RecordedRequest] = []
        self.closing = threading.Event()
        self.ids = itertools.count(1)
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._port: int | None = None

    def add(self, *responders: Responder) -> None:
        with self._lock:
            self.script.extend(responders)

    def next_responder(self, body: dict[str, Any] | None = None) -> Responder | None:
        if body is not None and self.completion_checks != "script" and is_completion_check(body):
            return check_answer(self.completion_checks == "yes")
        with self._lock:
            return self.script.pop(0) if self.script else None

    @property
    def completion_check_requests(self) -> list[RecordedRequest]:
        return [request for request in self.chat_requests if is_completion_check(request.body)]

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.rstrip("/").endswith("/chat/completions")]

    @property
    def base_url(self) -> str:
        """`http://127.0.0.1:PORT/v1`; still valid after `stop` (for messages that name it)."""
        if self._port is None:
            raise RuntimeError("the server is not started; use it as a context manager")
        return f"http://{self.host}:{self._port}/v1"

    def start(self) -> FakeOpenAIServer:
        self._server = _Server(_Handler, self.host)
        self._server.fake = self
        self._port = self._server.port
        self._server.serve("fake-openai")
        return self

    def stop(self) -> None:
        self.closing.set()
        if self._server is not None:
            self._server.stop()
            self._server = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
