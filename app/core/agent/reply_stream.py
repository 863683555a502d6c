"""A streamed chat completion (server-sent events) put back together as one completion, telling the
model's words as they arrive.

`ModelClient` asks for a streamed reply when someone listens for the words (`on_words(text so far,
pieces so far)`, a piece being about one token); a server
that ignores `stream` answers with plain JSON, which the client reads as before. Each event's data is
one chunk: `choices[0].delta` carries the text (`content`, or `reasoning_content` while a thinking
model thinks) and the tool call's arguments piece by piece; the last chunks carry `finish_reason`
and, with `stream_options.include_usage`, the token counts. A chunk with `error` is the server
failing mid-reply (llama.cpp does this).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

WORDS_INTERVAL_SECONDS = 0.25
"""The words are told at most this often (and once more at the end): enough to see a server work."""


class StreamedReply:
    """Chunks in (`feed`, as bytes arrive), one chat-completion dict out (`completion`)."""

    def __init__(self, on_words: Callable[[str, int], None] | None = None,
                 interval_seconds: float = WORDS_INTERVAL_SECONDS) -> None:
        self.on_words = on_words
        self.interval_seconds = interval_seconds
        self.error = ""                     # the server's words when it failed mid-reply
        self.chunks = 0
        self.pieces = 0                     # chunks that brought words: about one token each
        self._pending = b""
        self._data_lines: list[str] = []
        self._content: list[str] = []
        self._reasoning: list[str] = []
        self._calls: dict[int, dict[str, Any]] = {}
        self._finish_reason: str | None = None
        self._usage: dict[str, Any] | None = None
        self._model = ""
        self._id = ""
        self._told_at = float("-inf")
        self._told = ""
        self._done = False

    def feed(self, data: bytes) -> None:
        """The next bytes of the body, cut anywhere."""
        self._pending += data
        *lines, self._pending = self._pending.split(b"\n")
        for line in lines:
            self._line(line.rstrip(b"\r").decode("utf-8", "replace"))

    def finish(self) -> None:
        """The body ended: take what is left and tell the words a last time."""
        if self._pending:
            self._line(self._pending.rstrip(b"\r").decode("utf-8", "replace"))
            self._pending = b""
        self._line("")
        self._tell(final=True)

    def completion(self) -> dict[str, Any] | None:
        """The reply as one chat completion (as a non-streamed server sends it); None when no chunk came."""
        if not self.chunks:
            return None
        calls = [{"id": call["id"] or f"call_{index}", "type": "function", "function": call["function"]}
                 for index, call in sorted(self._calls.items())]
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self._content) or None}
        if calls:
            message["tool_calls"] = calls
        completion: dict[str, Any] = {
            "id": self._id or "streamed", "object": "chat.completion", "created": int(time.time()),
            "model": self._model, "choices": [{"index": 0, "message": message,
                                               "finish_reason": self._finish_reason or "stop"}]}
        if self._usage:
            completion["usage"] = self._usage
        return completion

    @property
    def text_so_far(self) -> str:
        """What a person would read: the tool call's arguments, else the text, else the thinking."""
        arguments = "".join(call["function"]["arguments"] for _, call in sorted(self._calls.items()))
        return arguments or "".join(self._content) or "".join(self._reasoning)

    # ------------------------------------------------------------------ parsing

    def _line(self, line: str) -> None:
        if line == "":                       # an event ends with a blank line
            if self._data_lines:
                self._event("\n".join(self._data_lines))
                self._data_lines = []
            return
        if line.startswith("data:"):
            self._data_lines.append(line[5:].removeprefix(" "))
        elif line.startswith("{") and not self._data_lines:
            self._event(line)                # a server that sends bare JSON lines

    def _event(self, data: str) -> None:
        if self._done or data.strip() == "[DONE]":
            self._done = True
            return
        try:
            chunk = json.loads(data)
        except ValueError:
            return                           # a keep-alive or comment: nothing to take
        if not isinstance(chunk, dict):
            return
        self.chunks += 1
        if chunk.get("error"):
            error = chunk["error"]
            self.error = str(error.get("message") if isinstance(error, dict) else error) or "an error"
            return
        self._id = self._id or str(chunk.get("id") or "")
        self._model = self._model or str(chunk.get("model") or "")
        if isinstance(chunk.get("usage"), dict):
            self._usage = chunk["usage"]
        for choice in chunk.get("choices") or []:
            if isinstance(choice, dict) and (choice.get("index") or 0) == 0:
                self._choice(choice)
        self._tell()

    def _choice(self, choice: dict[str, Any]) -> None:
        delta = choice.get("delta") or {}
        if any(isinstance(delta.get(name), str) and delta[name] for name in ("content", "reasoning_content")) or \
                any(isinstance(call, dict) and (call.get("function") or {}).get("arguments")
                    for call in delta.get("tool_calls") or []):
            self.pieces += 1
        if isinstance(delta.get("content"), str):
            self._content.append(delta["content"])
        if isinstance(delta.get("reasoning_content"), str):
            self._reasoning.append(delta["reasoning_content"])
        for call in delta.get("tool_calls") or []:
            if not isinstance(call, dict):
                continue
            entry = self._calls.setdefault(int(call.get("index") or 0),
                                           {"id": "", "function": {"name": "", "arguments": ""}})
            entry["id"] = entry["id"] or str(call.get("id") or "")
            function = call.get("function") or {}
            if function.get("name"):
                entry["function"]["name"] = str(function["name"])
            if isinstance(function.get("arguments"), str):
                entry["function"]["arguments"] += function["arguments"]
        if choice.get("finish_reason"):
            self._finish_reason = str(choice["finish_reason"])

    def _tell(self, final: bool = False) -> None:
        if self.on_words is None:
            return
        now = time.monotonic()
        if not final and now - self._told_at < self.interval_seconds:
            return
        text = self.text_so_far
        if text and text != self._told:
            self._told_at, self._told = now, text
            try:
                self.on_words(text, self.pieces)
            except Exception:        # a broken listener must not break the reply
                log.exception("telling the model's words failed")
