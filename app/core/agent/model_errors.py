"""How a model call can fail: errors a person can act on (with the advice added when retries run
out), one failed try classified, its record for the trajectory, and a server's Retry-After."""

from __future__ import annotations

import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

from app.core.agent.records import ModelReplyRecord

DETAIL_LIMIT = 300
"""Characters of a server's own explanation kept in a message or a record."""


class ModelError(Exception):
    """A model call failed. The message tells a person what happened and what to do;
    `detail` is the server's own (key-free) explanation, when it gave one."""

    def __init__(self, message: str, *, status_code: int | None = None, detail: str = "") -> None:
        super().__init__(message)
        self.status_code = status_code
        self.detail = detail


class ModelAuthError(ModelError):
    """401/403: the key was refused."""


class ModelRateLimited(ModelError):
    """429 after every retry, or no quota left."""


class ModelServerError(ModelError):
    """5xx after every retry, or an answer that is not a chat completion."""


class ModelTimeout(ModelError):
    """No answer within the provider timeout, on every try."""


class ModelUnreachable(ModelError):
    """Connection refused, DNS failure, TLS failure: the server was never reached."""


class ModelNotFound(ModelError):
    """404: no such model (or a wrong base URL)."""


class ModelBadRequest(ModelError):
    """400 and other 4xx: the server refused the request itself."""


class ModelImagesRefused(ModelBadRequest):
    """The server said the model cannot take images (any status): it reads text only."""


class ModelReplyTooLarge(ModelError):
    """The reply was over `provider.max_reply_mb`: refused before it was all read, never stored."""


FAILURE_REASONS: dict[type[ModelError], str] = {
    ModelAuthError: "key_refused", ModelRateLimited: "rate_limited", ModelServerError: "server_failed",
    ModelTimeout: "timeout", ModelUnreachable: "unreachable", ModelNotFound: "not_found",
    ModelImagesRefused: "images_refused", ModelBadRequest: "bad_request", ModelReplyTooLarge: "reply_too_large",
}
"""How a model call failed, in one word a face can act on (`events.ModelFailed.reason`)."""


def failure_reason(error: ModelError) -> str:
    """The word of FAILURE_REASONS for `error` (its nearest listed class; "failed" for none)."""
    return next((FAILURE_REASONS[kind] for kind in type(error).__mro__ if kind in FAILURE_REASONS), "failed")


ADVICE: dict[type[ModelError], str] = {
    ModelRateLimited: "Wait a minute and try again, or check the rate limits and quota of your account.",
    ModelServerError: "This is a problem on the provider's side; try again later.",
    ModelTimeout: "Try again, or raise the timeout in Settings.",
    ModelUnreachable: "Check the base URL in Settings, the network connection, and that the server is running.",
}


@dataclass
class Failure:
    """One failed try, classified. `message` is complete for a failure that is not retried; for a
    retryable one it says what happened, and the advice is added when the tries run out."""

    kind: type[ModelError]
    message: str
    retryable: bool
    status_code: int | None = None
    detail: str = ""
    retry_after: float | None = None


def failed_try_record(failure: Failure, attempt: int, budget: int, tried_at: float) -> ModelReplyRecord:
    """The record of one HTTP try that got no completion: a refusal (an image or a parameter the
    server does not take) or an error; the server's own (key-free, short) words are its raw text."""
    refused = failure.kind is ModelImagesRefused or failure.kind is ModelBadRequest
    return ModelReplyRecord(
        attempt=attempt, outcome="refused" if refused else "error", problem=failure.message[:DETAIL_LIMIT],
        raw_text=failure.detail, max_output_tokens=budget, http_status=failure.status_code,
        duration_ms=round((time.perf_counter() - tried_at) * 1000, 1))


def retry_after_seconds(headers: Any) -> float | None:
    """Seconds from `retry-after-ms` or `Retry-After` (seconds or an HTTP date); None when absent."""
    milliseconds = headers.get("retry-after-ms")
    if milliseconds:
        try:
            return float(milliseconds) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        return parsedate_to_datetime(value).timestamp() - time.time()
    except (TypeError, ValueError):
        return None
