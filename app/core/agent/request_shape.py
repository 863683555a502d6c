"""What one server accepts in a chat-completions request, learnt from its refusals.

`RequestShape` builds each request from the provider's settings: the token budget (under the
name the server takes), temperature, streaming (with `stream_options.include_usage` for the
token counts), the reply tool with `tool_choice`, or — when tools are not sent — a
`response_format` holding the reply's JSON schema (or `json_object`), as far as the provider's
preset says the server takes it. A 400 that names one of these makes `adapt_to` drop or rename
it; the change holds for the client's lifetime and is told in the log.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from app.core.config import ProviderSettings
from app.core.providers import structured_output_for

log = logging.getLogger(__name__)

_RESPONSE_FORMAT_WORDS = ("response_format", "json_schema", "json_object", "response format")


def reply_format(kind: str, tool: dict[str, Any]) -> dict[str, Any] | None:
    """The `response_format` asking for the reply object the tool describes (its parameters are the
    reply's JSON schema): a JSON schema, any JSON object, or None."""
    if kind == "json_object":
        return {"type": "json_object"}
    function = tool.get("function") if isinstance(tool, dict) else None
    schema = function.get("parameters") if isinstance(function, dict) else None
    if kind != "json_schema" or not isinstance(function, dict) or not isinstance(schema, dict):
        return None
    return {"type": "json_schema", "json_schema": {"name": str(function.get("name") or "reply"), "schema": schema}}


class RequestShape:
    """The parameters one server takes; starts from the provider's settings, narrows on refusals."""

    def __init__(self, provider: ProviderSettings) -> None:
        self.provider = provider
        self.streaming_supported = True
        self.stream_usage = True
        self.tools_supported = True
        self.tool_choice_supported = True
        self.structured_output = structured_output_for(provider)   # "none" once the server refused it
        self.token_parameter = "max_tokens"
        self.send_temperature = provider.temperature is not None

    def build(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, budget: int, *,
              stream: bool) -> dict[str, Any]:
        provider = self.provider
        request: dict[str, Any] = {"model": provider.model, "messages": messages, self.token_parameter: budget}
        if self.send_temperature:
            request["temperature"] = provider.temperature
        if stream and self.streaming_supported:
            request["stream"] = True
            if self.stream_usage:
                request["stream_options"] = {"include_usage": True}
        if tools and self.tools_supported and provider.use_tools:
            request["tools"] = tools
            if self.tool_choice_supported:
                request["tool_choice"] = "required" if len(tools) == 1 else "auto"
        elif tools:
            response_format = reply_format(self.structured_output, tools[0])
            if response_format is not None:
                request["response_format"] = response_format
        return request

    def adapt_to(self, detail: str, request: dict[str, Any]) -> bool:
        """Drop or rename what a 400 says the server does not support; False when nothing fits."""
        lowered = detail.lower()
        if "stream_options" in request and ("stream_options" in lowered or "include_usage" in lowered):
            self.stream_usage = False
            change = "no stream_options (the token counts may be missing)"
        elif "stream" in request and re.search(r"\bstream(ing)?\b", lowered):
            self.streaming_supported = False
            change = "no streaming"
        elif "response_format" in request and any(word in lowered for word in _RESPONSE_FORMAT_WORDS):
            self.structured_output = "none"
            change = "no response_format (the reply is read from the text)"
        elif "tool_choice" in request and "tool_choice" in lowered:
            self.tool_choice_supported = False
            change = "no tool_choice"
        elif "max_tokens" in request and "max_completion_tokens" in lowered:
            self.token_parameter = "max_completion_tokens"
            change = "max_completion_tokens instead of max_tokens"
        elif "temperature" in request and "temperature" in lowered:
            self.send_temperature = False
            change = "no temperature"
        elif "tools" in request and ("tool" in lowered or "function call" in lowered):
            self.tools_supported = False
            change = "no tools (the reply is read from the text)"
        else:
            return False
        log.info("The server at %s refused a request (%s); sending again with %s.",
                 self.provider.base_url, detail, change)
        return True
