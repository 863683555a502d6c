"""A request's prompt tokens when the server reports no usage: the text (characters / 4, the system
message and the tools' definitions included) plus each image by the model's own rule
(`app.core.image_tokens`). A reported `usage.prompt_tokens` is always the figure instead: nothing
here is ever added to it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from app.core.image_tokens import ImageRule, image_size_of_data_url

CHARS_PER_TOKEN = 4


def estimate_completion_tokens(reply: str) -> int:
    """A reply's tokens when the server reports none: its characters / 4, as the prompt's text."""
    return math.ceil(len(reply) / CHARS_PER_TOKEN)


def estimate_prompt_tokens(messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None,
                           rule: ImageRule) -> tuple[int, int]:
    """(text tokens, image tokens) of a chat-completions request, estimated. An image whose size cannot
    be read (a web address, not a data URL) counts as nothing."""
    characters = len(json.dumps(list(tools), ensure_ascii=False, separators=(",", ":"))) if tools else 0
    images = 0
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            characters += len(content)
            continue
        for part in content or []:
            if part.get("type") == "text":
                characters += len(part.get("text", ""))
            elif part.get("type") == "image_url":
                size = image_size_of_data_url(str((part.get("image_url") or {}).get("url", "")))
                images += rule.tokens(*size) if size else 0
    return math.ceil(characters / CHARS_PER_TOKEN), images
