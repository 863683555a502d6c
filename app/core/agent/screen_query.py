"""A task's output: one question answered from the phone's screen as the task left it.

A script that posts "open the battery page" usually wants a value back ("what percentage?"),
not only `success`. After the run, the screen is read once more (controls, and the picture
unless it must not be sent), the model answers in JSON, and the answer is checked against the
caller's JSON schema when one was given; a reply that does not fit is asked again once with
the problem named. What it cost is added to the run's usage.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from app.core.config import Settings
from app.core.device.errors import DeviceError
from app.core.perception.protected_screen import withheld_reason

from .collection_strategies import foreground_package
from .completion_check import encode_for_check
from .model_errors import ModelError
from .prompts import PromptBuilder
from .records import ModelReplyRecord
from .reply_parsing import ReplyInvalid, decode_reply

QUERY_OUTPUT_TOKENS = 1024
TRIES = 2
MAX_SCHEMA_DEPTH = 32             # objects and lists inside one another (a real answer's schema needs < 10)
MAX_SCHEMA_PARTS = 2000           # keys and values in all


@dataclass
class ScreenAnswer:
    value: Any = None                 # the answer (text, or data matching the schema); None: no answer
    error: str = ""                   # why there is no answer
    reason: str = ""                  # where on the screen the model found it
    replies: list[ModelReplyRecord] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "error": self.error, "reason": self.reason}


def schema_size_problem(schema: Any) -> str:
    """Why `schema` is too deep or too big to check ("" when it is not), found without recursion: a schema
    nested thousands deep would exhaust the checker's stack."""
    parts, pending = 0, [(schema, 1)]
    while pending:
        value, depth = pending.pop()
        if depth > MAX_SCHEMA_DEPTH:
            return f"nested more than {MAX_SCHEMA_DEPTH} deep (objects and lists inside one another)"
        children = value.values() if isinstance(value, Mapping) else value if isinstance(value, list) else ()
        for child in children:
            parts += 1
            if parts > MAX_SCHEMA_PARTS:
                return f"larger than {MAX_SCHEMA_PARTS} keys and values"
            pending.append((child, depth + 1))
    return ""


def schema_problem(schema: dict[str, Any]) -> str:
    """Why `schema` is not a usable JSON schema ("" when it is), for a 4xx before the task starts."""
    too_big = schema_size_problem(schema)
    if too_big:
        return too_big
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        return f"not a valid JSON schema: {exc.message}"
    return ""


async def answer_from_screen(client, device, frames, settings: Settings, question: str,
                             schema: Mapping[str, Any] | None = None) -> ScreenAnswer:
    """Ask the model `question` about the screen now. Never raises for the model's or the phone's faults:
    the answer's `error` says what went wrong."""
    answer = ScreenAnswer()
    controls, foreground = [], ""
    try:
        snapshot = await device.controls(refresh=True)
        controls, foreground = snapshot.controls, foreground_package(snapshot.hierarchy)
    except DeviceError as exc:
        controls_problem = f"the controls could not be read ({exc})"
    else:
        controls_problem = ""
    image_url, size = await _picture(device, frames, settings, client, controls, foreground)
    if not controls and image_url is None:
        answer.error = f"The screen could not be read: {controls_problem or 'no picture and no controls'}."
        return answer
    messages = PromptBuilder(settings).query_messages(question, schema, controls, size, image_url)
    for _ in range(TRIES):
        try:
            response = await client.complete(messages, max_output_tokens=QUERY_OUTPUT_TOKENS,
                                             replies=answer.replies)
            data = decode_reply(response)
        except ModelError as exc:
            answer.error = f"The model could not answer the output question: {exc}"
            return answer
        except ReplyInvalid:            # its words describe the agent's reply shape, not this one
            problem = "The reply had no readable JSON object."
        else:
            problem = _fit(data, schema)
            if not problem:
                answer.value, answer.error = data.get("answer"), ""
                answer.reason = " ".join(str(data.get("reason") or "").split())[:300]
                if answer.value is None:
                    answer.error = f"The screen does not show the answer ({answer.reason or 'no reason given'})."
                return answer
        answer.error = f"The model's answer did not fit: {problem}"
        messages = [*messages, {"role": "assistant", "content": response.text or response.tool_arguments or ""},
                    {"role": "user", "content": f"{problem} Reply again with one JSON object {{\"answer\": …, "
                                                "\"reason\": …}."}]
    return answer


def _fit(data: dict[str, Any], schema: Mapping[str, Any] | None) -> str:
    """What is wrong with the reply's answer ("" when nothing is)."""
    if "answer" not in data:
        return "The reply has no \"answer\" field."
    value = data["answer"]
    if value is None or schema is None:
        return ""
    try:
        jsonschema.validate(value, schema)
    except jsonschema.ValidationError as exc:
        where = "/".join(str(part) for part in exc.absolute_path) or "the answer"
        return f"{where} does not match the schema: {exc.message}."
    return ""


async def _picture(device, frames, settings: Settings, client, controls, foreground: str):
    """The screen encoded for the model, and its size; no picture when it must not or cannot be sent."""
    screen = await device.screen_info()
    size = screen.display_size
    if settings.images.text_only or getattr(client, "text_only", False):
        return None, size
    try:
        frame = await frames.frame_after(time.monotonic())
    except DeviceError:
        return None, size
    shot = await asyncio.to_thread(frame.display_shot)
    if await asyncio.to_thread(withheld_reason, shot.image, controls, foreground, settings.images.never_send_apps,
                               shot.size):
        return None, size
    return await asyncio.to_thread(encode_for_check, shot.image, settings.images), shot.size
