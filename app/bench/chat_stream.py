"""A chat completion as OpenAI-compatible servers stream it (server-sent events), for the loopback
models of the benches and the tests."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def stream_events(completion: dict[str, Any], *, text_piece: int, arguments_piece: int,
                  include_usage: bool = False, stream_error: str = "") -> list[dict[str, Any]]:
    """The chunks of `completion`: the role, its text and tool arguments a few characters a chunk, the finish
    reason and (when asked for) the usage; with `stream_error`, the stream breaks off with that error instead."""
    head = {"id": completion["id"], "object": "chat.completion.chunk", "created": completion["created"],
            "model": completion["model"]}
    choice = completion["choices"][0]
    message = choice["message"]

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}

    events = [chunk({"role": "assistant", "content": ""})]
    text = message.get("content") or ""
    events += [chunk({"content": text[i:i + text_piece]}) for i in range(0, len(text), text_piece)]
    for call in message.get("tool_calls") or []:
        arguments = call["function"]["arguments"]
        events.append(chunk({"tool_calls": [{"index": 0, "id": call["id"], "type": "function",
                                             "function": {"name": call["function"]["name"], "arguments": ""}}]}))
        events += [chunk({"tool_calls": [{"index": 0, "function": {"arguments": arguments[i:i + arguments_piece]}}]})
                   for i in range(0, len(arguments), arguments_piece)]
    if stream_error:
        return events[:2] + [{"error": {"message": stream_error, "type": "server_error"}}]
    events.append(chunk({}, choice["finish_reason"]))
    if include_usage:
        events.append({**head, "choices": [], "usage": completion["usage"]})
    return events


def send_stream(handler: BaseHTTPRequestHandler, events: list[dict[str, Any]]) -> None:
    """Answer the handler's request with `events` as server-sent events, then [DONE]; a client that went away
    is no error."""
    data = "".join(f"data: {json.dumps(event)}\n\n" for event in events) + "data: [DONE]\n\n"
    try:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Connection", "close")
        handler.close_connection = True
        handler.end_headers()
        handler.wfile.write(data.encode("utf-8"))
    except (BrokenPipeError, ConnectionResetError):
        pass


class LoopbackServer(ThreadingHTTPServer):
    """An HTTP server on 127.0.0.1 (or another loopback `host`; any free port), served on a daemon thread from
    `serve()` until `stop()`."""

    daemon_threads = True

    def __init__(self, handler: type[BaseHTTPRequestHandler], host: str = "127.0.0.1") -> None:
        super().__init__((host, 0), handler)
        self.thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self.server_address[1]

    def serve(self, name: str) -> LoopbackServer:
        self.thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, name=name,
                                       daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, close the socket and wait for the serving thread to end."""
        self.shutdown()
        self.server_close()
        if self.thread is not None:
            self.thread.join(5)
            self.thread = None
