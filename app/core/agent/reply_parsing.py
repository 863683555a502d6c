"""Find the reply object in what a model sent: tool-call arguments, or JSON somewhere in its text.

Models wrap JSON in ```json fences, put prose around it, leave trailing commas, or write
Python (`True`, `None`, single quotes). `decode_reply` tries, in order: the tool
arguments; the whole text; each fenced block; each balanced top-level `{…}` (braces
inside strings do not count). Every candidate is read as strict JSON, then with trailing
commas removed; Python-style literals are repaired only when no candidate decodes
otherwise. Objects nested inside those candidates are the very last resort.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from app.core.agent.actions import ReplyInvalid
from app.core.agent.llm_client import ModelResponse

REPLY_SHAPE = ('{"thought": "...", "action": {"function": "...", "arguments": {...}, "status": "CONTINUE"}, '
               '"comment": "..."}')

_FENCE = re.compile(r"```[ \t]*(?:json5?|javascript|js)?[ \t]*\r?\n?(.*?)```", re.DOTALL | re.IGNORECASE)
_LEADING_JSON_WORD = re.compile(r"^\s*json\s*:?\s*", re.IGNORECASE)
_STRING = r'"(?:[^"\\]|\\.)*"'
_TRAILING_COMMA = re.compile(_STRING + r"|,(\s*[}\]])", re.DOTALL)
_PYTHON_LITERAL = re.compile(_STRING + r"|\b(True|False|None)\b", re.DOTALL)
_JSON_LITERALS = {"True": "true", "False": "false", "None": "null"}
_MAX_OBJECT_STARTS = 16


def decode_reply(response: ModelResponse) -> dict[str, Any]:
    """The reply as a dict; raises `ReplyInvalid` with a message for the model when none is found."""
    sources = [source for source in (response.tool_arguments, response.text) if source and source.strip()]
    if not sources:
        raise ReplyInvalid(f"Your reply was empty. Reply with exactly one JSON object: {REPLY_SHAPE}")
    candidates = list(dict.fromkeys(candidate for source in sources for candidate in _candidates(source)))
    value = _first_object(candidates)
    if value is None:   # an object inside another, or after a stray `{` that swallowed it
        inner = dict.fromkeys(found for source in sources for found in balanced_objects(source, nested=True))
        value = _first_object([candidate for candidate in inner if candidate not in candidates])
    if value is not None:
        return value
    if any("{" in source for source in sources):
        raise ReplyInvalid(f"Your reply's JSON could not be read ({_json_problem(candidates)}). Reply with exactly "
                           f"one valid JSON object: {REPLY_SHAPE}")
    raise ReplyInvalid(f"Your reply had no JSON object. Reply with exactly one JSON object: {REPLY_SHAPE}")


def _candidates(text: str) -> Iterator[str]:
    """Texts that may hold the reply object, most likely first."""
    yield _LEADING_JSON_WORD.sub("", text.strip(), count=1)
    for fenced in _FENCE.finditer(text):
        yield fenced.group(1).strip()
    yield from balanced_objects(text)


def _first_object(candidates: list[str]) -> dict[str, Any] | None:
    """The first candidate that reads as a JSON object; Python-style repair only when none does."""
    for read in (_read_json, _read_python):
        for candidate in candidates:
            value = read(candidate)
            if isinstance(value, dict):
                return value
    return None


def balanced_objects(text: str, *, nested: bool = False) -> Iterator[str]:
    """Balanced `{…}` texts in order: the top-level ones, or (`nested`) the one at every `{`.

    Braces inside JSON strings do not count; a `{` never closed is skipped. At most
    `_MAX_OBJECT_STARTS` starts are scanned, so a hostile text cannot take long.
    """
    start = text.find("{")
    for _ in range(_MAX_OBJECT_STARTS):
        if start == -1:
            return
        end = _matching_brace(text, start)
        if end is not None:
            yield text[start:end + 1]
        start = text.find("{", start + 1 if nested or end is None else end + 1)


def _matching_brace(text: str, start: int) -> int | None:
    """Index of the `}` that closes the `{` at `start`, or None when it is never closed."""
    depth = 0
    in_string = False
    escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index
    return None


def _read_json(candidate: str) -> Any:
    """Strict JSON (raw newlines in strings allowed), then with trailing commas removed; None if neither."""
    for text in (candidate, _replace_outside_strings(_TRAILING_COMMA, candidate, lambda closing: closing)):
        try:
            return json.loads(text, strict=False)
        except ValueError:
            continue
    return None


def _read_python(candidate: str) -> Any:
    """Last resort: True/False/None as JSON literals, then a Python literal (single quotes)."""
    repaired = _replace_outside_strings(_PYTHON_LITERAL, candidate, lambda word: _JSON_LITERALS[word])
    value = _read_json(repaired)
    if value is not None:
        return value
    try:
        return ast.literal_eval(candidate.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def _replace_outside_strings(pattern: re.Pattern[str], text: str, replace: Callable[[str], str]) -> str:
    """Apply `replace` to group 1 of `pattern` wherever it matched outside a JSON string."""
    return pattern.sub(lambda match: match.group(0) if match.group(1) is None else replace(match.group(1)), text)


def _json_problem(candidates: list[str]) -> str:
    """The decoder's complaint about the first object-looking candidate, for the model."""
    for candidate in candidates:
        if candidate.lstrip().startswith("{"):
            try:
                json.loads(candidate, strict=False)
            except ValueError as error:
                return str(error)
    return "an object is opened but never closed; was the reply cut off?"
