"""Models that cannot see: recognising a server's refusal of an image, and remembering such models.

A model server without vision answers a request that carries an image with an error whose
words depend on the server (HTTP status in brackets):

- llama.cpp `llama-server` without `--mmproj` (500): "image input is not supported - hint: if
  this is unexpected, you may need to provide the mmproj"
- Ollama (500 or 400): "this model is missing data required for image input"
- vLLM (400): "<ModelClass> is not a multimodal model"
- LM Studio (400): "Model does not support images. Please use a model that does."
- OpenAI and OpenAI-style gateways (400): "Invalid content type. image_url is only supported by
  certain models." / "This model does not support image input."

`is_image_refusal` recognises these (and only when the request did carry an image), so the
client can switch to text only instead of retrying a request that can never succeed.
`TextOnlyModels` is a small JSON file under the app's data folder naming the models (base URL
+ model) found to read text only, so the next run starts text-only.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

# Each pattern is one server's wording (lower case). Kept narrow: an image the server could not
# decode ("failed to load image") is a broken image, not a model that cannot see.
IMAGE_REFUSAL_PATTERNS = (
    re.compile(r"image input is not supported"),                     # llama.cpp
    re.compile(r"you may need to provide the mmproj"),               # llama.cpp's hint
    re.compile(r"missing data required for image input"),           # Ollama
    re.compile(r"is not a multimodal model"),                        # vLLM
    re.compile(r"multimodal (?:input )?is not supported"),           # older llama.cpp servers, gateways
    re.compile(r"does not support (?:image|images|image input|vision|multimodal)\b"),  # LM Studio, OpenAI
    re.compile(r"image_url is only supported by certain models"),    # OpenAI
    re.compile(r"(?:images?|vision) (?:input )?(?:is|are) not supported"),
)

MessageRewriter = Callable[[Sequence[dict[str, Any]]], list[dict[str, Any]]]


def is_image_refusal(status: int | None, detail: str) -> bool:
    """True when an error answer (4xx or 5xx) says the model cannot take images."""
    if status is None or status < 400:
        return False
    text = " ".join(detail.lower().split())
    return any(pattern.search(text) for pattern in IMAGE_REFUSAL_PATTERNS)


def has_image_parts(messages: Sequence[dict[str, Any]]) -> bool:
    """Whether any message carries an image part."""
    return any(isinstance(message.get("content"), list)
               and any(isinstance(part, dict) and part.get("type") == "image_url" for part in message["content"])
               for message in messages)


def strip_image_parts(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages with every image part left out (the text parts unchanged); inputs are not modified."""
    stripped = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            message = {**message, "content": [part for part in content
                                               if not (isinstance(part, dict) and part.get("type") == "image_url")]}
        stripped.append(message)
    return stripped


def model_key(base_url: str, model: str) -> str:
    """How a model is named in the store: its base URL (no trailing slash) and its name."""
    return f"{base_url.strip().rstrip('/')} {model.strip()}"


class TextOnlyModels:
    """The models known to read text only, kept in a small JSON file: {"models": {key: reason}}.

    A missing or unreadable file means none is known (it is never fatal); a write that fails
    is logged and reported to the caller as False, so the run goes on.
    """

    def __init__(self, path: Path | None = None) -> None:
        self._path = path
        self._lock = threading.Lock()

    @property
    def path(self) -> Path:
        if self._path is None:
            from app.core.paths import text_only_models_path
            self._path = text_only_models_path()
        return self._path

    def _read(self) -> dict[str, str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("The list of text-only models %s could not be read (%s); treating it as empty.",
                        self.path, exc)
            return {}
        models = data.get("models") if isinstance(data, dict) else None
        return {str(k): str(v) for k, v in models.items()} if isinstance(models, dict) else {}

    def _write(self, models: dict[str, str]) -> bool:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temp = self.path.with_suffix(f".{os.getpid()}.tmp")
            temp.write_text(json.dumps({"models": models}, indent=2, sort_keys=True), encoding="utf-8")
            temp.replace(self.path)
            return True
        except OSError as exc:
            log.warning("Could not write the list of text-only models %s: %s", self.path, exc)
            return False

    def contains(self, base_url: str, model: str) -> bool:
        with self._lock:
            return model_key(base_url, model) in self._read()

    def remember(self, base_url: str, model: str, reason: str) -> bool:
        """Add the model; True when it is now on disk."""
        with self._lock:
            models = self._read()
            models[model_key(base_url, model)] = reason
            return self._write(models)

    def forget(self, base_url: str, model: str) -> bool:
        """Remove the model (it was seen reading images); True when it was listed and is now gone."""
        with self._lock:
            models = self._read()
            if models.pop(model_key(base_url, model), None) is None:
                return False
            return self._write(models)
