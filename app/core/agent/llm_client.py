"""The model over an OpenAI-compatible API: one call, retried with backoff, failures as plain-language errors.

The `openai` client's own retries are off (`max_retries=0`): `ModelClient` retries 429,
5xx, timeouts and connection errors itself so that every retry can be reported
(`on_retry`, the log) and the final failure says what happened and what to do. Requests
a server rejects for an unsupported feature (tools, `tool_choice`, `response_format`, `max_tokens`,
`temperature`) are adapted once and sent again; the adaptation is kept for the client's lifetime.

What goes into a request (tools and `tool_choice`, or a `response_format` JSON schema; streaming;
the token parameter's name) is `request_shape.RequestShape`'s business; reading the reply within its size
cap and total time is `reply_reading`'s. A local server that timed
out is asked again at most once: it is still busy with the first request.

Streaming: while `on_words` is set the reply is asked for streamed (`stream`, with
`stream_options.include_usage` for the token counts) and `on_words` gets the reply so far as it
arrives (`reply_stream.StreamedReply`); a server that answers plain JSON is read as before, and one
that refuses the parameters is asked again without them.

A model that cannot see (the server refuses an image: `text_only.is_image_refusal`) is not
retried either: the client switches to text only for its lifetime, tells the person once
(`on_retry`), remembers the model (`TextOnlyModels`, so the next run starts text-only) and
sends the same request again without its images. Errors that cannot succeed on a retry (4xx
other than 408 and 429, a recognised refusal) are never retried.

The API key is only handed to the `openai` client (and registered for redaction). It never
appears in a message, a log line or an exception: server texts are redacted before use.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from app.core.agent.records import ModelReplyRecord
from app.core.config import ProviderSettings, Settings
from app.core.providers import image_rule_for, is_local, pricing_for
from app.core.redaction import REDACTED, redact
from app.core.secrets import register_secret

from .model_errors import (  # noqa: F401  (the errors are part of this module's API)
    ADVICE,
    DETAIL_LIMIT,
    Failure,
    ModelAuthError,
    ModelBadRequest,
    ModelError,
    ModelImagesRefused,
    ModelNotFound,
    ModelRateLimited,
    ModelReplyTooLarge,
    ModelServerError,
    ModelTimeout,
    ModelUnreachable,
    failed_try_record,
    retry_after_seconds,
)
from .reply_reading import ReplyOverCap, StreamFailed, over_cap_failure, read_capped, within_total_time
from .reply_stream import WORDS_INTERVAL_SECONDS
from .request_shape import RequestShape
from .text_only import MessageRewriter, TextOnlyModels, has_image_parts, is_image_refusal, strip_image_parts
from .usage_estimate import estimate_completion_tokens, estimate_prompt_tokens

if TYPE_CHECKING:
    import openai

log = logging.getLogger(__name__)

MAX_RETRY_DELAY_SECONDS = 30.0
LOCAL_TIMEOUT_TRIES = 2
"""Tries of a request that timed out on a local server (this machine or network): the first and one more."""
# Key-shaped text the shared patterns leave alone: short or masked keys ("sk-ab***cd") in server messages.
_SHORT_OR_MASKED_KEY = re.compile(r"\b(?:sk|rk)-[A-Za-z0-9_\-*.]{4,}")
T = TypeVar("T")


@dataclass
class ModelResponse:
    """One answer of the model. `tool_arguments` is the JSON text of the first tool call, if any;
    `duration_ms` covers the whole call, retries included."""

    text: str
    tool_arguments: str | None
    prompt_tokens: int
    completion_tokens: int
    model: str
    duration_ms: float
    finish_reason: str = ""          # "length": cut off by the output budget
    prompt_estimated: bool = False   # no usage reported: prompt_tokens is `usage_estimate`'s, images by their rule

    @property
    def cut_off(self) -> bool:
        """The server stopped the reply at the output budget (`finish_reason: length`)."""
        return self.finish_reason == "length"


MAX_OUTPUT_TOKENS_CAP = 32768
"""The largest output budget a cut-off reply is retried with (the settings' own upper bound)."""


def estimate_cost(settings: Settings, model: str, prompt_tokens: int, completion_tokens: int) -> float:
    """USD for the tokens at the settings' provider (`providers.pricing_for`): 0.0 on a local server
    (free) and for a model without a known price, whose cost faces show as "cost unknown"."""
    return pricing_for(settings, model).cost(prompt_tokens, completion_tokens)


class ModelClient:
    """Chat completions against `provider`, with our own retries and readable errors.

    `on_retry` receives a sentence for the person each time a failed call is sent again (retried,
    or sent without images). `text_only_models` is where models that read text only are
    remembered (default: the file under the app's data folder); `text_only` says whether this
    client sends images at all.
    """

    def __init__(self, provider: ProviderSettings, api_key: str | None, *, backoff_seconds: float = 1.0,
                 on_retry: Callable[[str], None] | None = None,
                 text_only_models: TextOnlyModels | None = None,
                 on_words: Callable[[str, int], None] | None = None) -> None:
        self.provider = provider
        # Set (here or later) to stream replies: it gets the reply so far and how many pieces (about one
        # token each) came, a few times a second.
        self.on_words = on_words
        self.words_interval_seconds = WORDS_INTERVAL_SECONDS
        self.backoff_seconds = backoff_seconds
        self.on_retry = on_retry
        self.text_only_models = text_only_models or TextOnlyModels()
        # A tiny JSON file, read once: the first step must already know not to prepare images.
        self.text_only = self.text_only_models.contains(provider.base_url, provider.model)
        self._text_only_remembered = self.text_only
        self._text_only_told = False
        self.without_images: MessageRewriter = strip_image_parts
        self.shape = RequestShape(provider)      # what this server takes, narrowed by its refusals
        self._secret = api_key or ""
        register_secret(api_key)       # the app's log filter redacts it too
        import openai  # here, not at the top: it takes ~350 ms, which the app's start need not wait

        from .same_origin import stay_on_origin

        # A redirect to another origin is refused, not followed: neither the key nor the screens go there.
        http = openai.DefaultAsyncHttpxClient(event_hooks={"request": [stay_on_origin(provider.base_url)]})
        self._openai = openai.AsyncOpenAI(base_url=provider.base_url, api_key=api_key or "not-needed",
                                          timeout=provider.timeout_seconds, max_retries=0, http_client=http)

    estimate_cost = staticmethod(estimate_cost)   # also reachable as `client.estimate_cost(...)`

    async def close(self) -> None:
        await self._openai.close()

    async def __aenter__(self) -> ModelClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None, *,
                       fall_back_to_text: bool = True, max_output_tokens: int | None = None,
                       replies: list[ModelReplyRecord] | None = None) -> ModelResponse:
        """Send the conversation; returns the first choice. Raises a `ModelError` subclass.

        In text-only mode, or after the server refused an image, the messages are sent as
        `self.without_images` makes them (the prompt builder sets its own rewriter, which also
        fixes its wording; the default just drops image parts). With `fall_back_to_text=False`
        the messages are sent as given and a refusal raises `ModelImagesRefused` (the doctor's
        probe); the model is still remembered as text-only.

        `max_output_tokens` overrides the provider's output budget for this call (a cut-off
        reply's retry). Every HTTP try, failed or not, is appended to `replies` when given, so
        the caller can keep what each one cost and said.
        """
        started = time.perf_counter()
        budget = max_output_tokens or self.provider.max_output_tokens
        without_images = self.without_images
        if self._text_only_remembered and fall_back_to_text:
            self._tell_remembered()
        if self.text_only and fall_back_to_text and has_image_parts(messages):
            messages = strip_image_parts(without_images(messages))
        while True:
            request = self.shape.build(messages, tools, budget, stream=self.on_words is not None)
            sent: dict[str, float] = {}

            async def send(request: dict[str, Any] = request, sent: dict[str, float] = sent) -> Any:
                sent["at"] = time.perf_counter()
                return await within_total_time(self._openai, request, self.provider, self._read_body)

            try:
                completion = await self._with_retries(send, sends_images=has_image_parts(messages),
                                                      replies=replies, budget=budget)
                break
            except ModelImagesRefused as error:
                await self._switch_to_text_only(error.detail, tell=fall_back_to_text)
                if not fall_back_to_text:
                    raise
                messages = strip_image_parts(without_images(messages))
            except ModelBadRequest as error:
                if not self.shape.adapt_to(error.detail, request):
                    raise
        response = self._to_response(completion, started, messages, tools)
        if replies is not None:
            replies.append(ModelReplyRecord(
                attempt=len(replies) + 1, outcome="accepted", raw_text=_raw_text(response),
                prompt_tokens=response.prompt_tokens, completion_tokens=response.completion_tokens,
                prompt_estimated=response.prompt_estimated, max_output_tokens=budget,
                finish_reason=response.finish_reason, http_status=200,
                duration_ms=round((time.perf_counter() - sent.get("at", started)) * 1000, 1)))
        return response

    async def forget_text_only(self) -> bool:
        """The model was seen reading an image: take it off the text-only list. True when it was on it."""
        self.text_only = self._text_only_remembered = False
        return await asyncio.to_thread(self.text_only_models.forget, self.provider.base_url, self.provider.model)

    async def list_models(self) -> list[str]:
        """The model ids the server offers (a connection test). Raises a `ModelError` subclass."""
        page = await self._with_retries(lambda: self._openai.models.list(), listing_models=True)
        return sorted(model.id for model in getattr(page, "data", None) or [])

    # ------------------------------------------------------------------ text only

    async def _switch_to_text_only(self, detail: str, *, tell: bool) -> None:
        """From now on no image is sent; the model is remembered and the person told (once)."""
        self.text_only = True
        remembered = await asyncio.to_thread(self.text_only_models.remember, self.provider.base_url,
                                             self.provider.model, detail)
        log.warning("The model %s at %s refused an image (%s); switching to text only.", self.provider.model,
                    self.provider.base_url, detail)
        if not tell or self._text_only_told:
            return
        self._text_only_told = True
        memory = (" Agent Desk will remember this for this model; `agentdesk doctor` checks it again."
                  if remembered else " (This could not be remembered for the next run: the data folder is "
                                     "not writable.)")
        self._notify(f"The model '{self.provider.model}' cannot read images (the server said: {detail}). "
                     "Switching to text only for the rest of this run: the model now gets the list of the "
                     "screen's controls as text, without a picture of the screen. To choose this yourself, set "
                     "Images → Send to \"none\" in Settings." + memory)

    def _tell_remembered(self) -> None:
        """Once per client: say that this model is known to read text only."""
        if self._text_only_told:
            return
        self._text_only_told = True
        self._notify(f"The model '{self.provider.model}' reads text only (found in an earlier run): it gets the "
                     "list of the screen's controls as text, without a picture of the screen. `agentdesk doctor` "
                     "checks it again.")

    def _notify(self, text: str) -> None:
        log.info(text)
        if self.on_retry is not None:
            self.on_retry(text)

    def _to_response(self, completion: Any, started: float, messages: list[dict[str, Any]],
                     tools: list[dict[str, Any]] | None) -> ModelResponse:
        choices = getattr(completion, "choices", None)
        if not choices:
            raise ModelServerError(
                f"The server at {self.provider.base_url} answered, but not with a chat completion. Check the "
                "base URL in Settings (it usually ends in /v1) and that the server offers the OpenAI API.")
        choice = choices[0]
        message = choice.message
        tool_arguments = next((call.function.arguments for call in message.tool_calls or []
                               if getattr(call, "function", None) is not None), None)
        usage = completion.usage
        prompt_tokens = getattr(usage, "prompt_tokens", None)
        estimated = usage is None or prompt_tokens is None    # the server's figure wins wherever it gave one
        if estimated:
            text_tokens, image_tokens = estimate_prompt_tokens(messages, tools, image_rule_for(self.provider))
            prompt_tokens = text_tokens + image_tokens
        completion_tokens = getattr(usage, "completion_tokens", None)
        if completion_tokens is None:       # the reply's words, as the prompt's text is counted (the cap counts it)
            completion_tokens = estimate_completion_tokens((message.content or "") + (tool_arguments or ""))
        response = ModelResponse(
            text=message.content or "", tool_arguments=tool_arguments, prompt_tokens=int(prompt_tokens or 0),
            completion_tokens=int(completion_tokens or 0),
            model=completion.model or self.provider.model,
            duration_ms=(time.perf_counter() - started) * 1000,
            finish_reason=str(getattr(choice, "finish_reason", "") or ""), prompt_estimated=estimated)
        log.info("Model %s answered in %.0f ms (%d prompt%s + %d completion tokens).", response.model,
                 response.duration_ms, response.prompt_tokens, " (estimated: no usage reported)" if estimated else "",
                 response.completion_tokens)
        return response

    async def _read_body(self, raw: Any) -> Any:
        """The chat completion of `raw`, read within the reply cap, its words shown as they stream in."""
        return await read_capped(raw, self.provider, self.on_words, self.words_interval_seconds, self._redact)

    # ------------------------------------------------------------------ retries and errors

    async def _with_retries(self, call: Callable[[], Awaitable[T]], *, listing_models: bool = False,
                            sends_images: bool = False, replies: list[ModelReplyRecord] | None = None,
                            budget: int = 0) -> T:
        """`call` until it succeeds or fails for good; each failed try is appended to `replies`."""
        import openai

        tries = self.provider.http_retries + 1
        # A local server that timed out is still busy with the request: a second identical one only queues
        # behind it, so it is sent again at most once.
        timeout_tries = min(tries, LOCAL_TIMEOUT_TRIES) if is_local(self.provider) else tries
        attempt = timeouts = 0
        while True:
            attempt += 1
            tried_at = time.perf_counter()
            try:
                return await call()
            except openai.APIStatusError as exc:
                failure = self._classify_status(exc, listing_models, sends_images)
            except openai.APITimeoutError:
                timeouts += 1
                failure = Failure(ModelTimeout, f"The model at {self.provider.base_url} did not answer within "
                                                 f"{self.provider.timeout_seconds:g} s", retryable=True)
            except ReplyOverCap as exc:
                failure = over_cap_failure(exc, self.provider, self._redact)
            except StreamFailed as exc:
                failure = Failure(ModelServerError, f"The model server at {self.provider.base_url} failed while "
                                                     f"answering ({exc})", True, 200, str(exc))
            except openai.APIConnectionError as exc:
                reason = self._redact(str(exc.__cause__ or exc)) or "no reason given"
                failure = Failure(ModelUnreachable, f"Could not connect to the model server at "
                                                     f"{self.provider.base_url} ({reason})", retryable=True)
            if replies is not None:
                replies.append(failed_try_record(failure, len(replies) + 1, budget, tried_at))
            if not failure.retryable or attempt >= tries or failure.kind is ModelTimeout and timeouts >= timeout_tries:
                raise self._final_error(failure, attempt) from None
            delay = self._retry_delay(failure, attempt)
            notice = f"{failure.message}; trying again in {delay:.1f} s (try {attempt + 1} of {tries})."
            log.warning(notice)
            if self.on_retry is not None:
                self.on_retry(notice)
            await asyncio.sleep(delay)

    def _classify_status(self, exc: openai.APIStatusError, listing_models: bool,
                         sends_images: bool = False) -> Failure:
        status = exc.status_code
        detail = self._server_detail(exc)
        base = self.provider.base_url
        retry_after = retry_after_seconds(exc.response.headers)
        if sends_images and is_image_refusal(status, detail):
            return Failure(ModelImagesRefused, f"The model '{self.provider.model}' at {base} cannot read images "
                                                f"(HTTP {status}: {detail}). Set Images → Send to \"none\" (text "
                                                "only) in Settings, or choose a model that can see.",
                            False, status, detail)
        if status in (401, 403):
            reason = f"HTTP {status}" if status == 401 else f"HTTP 403: {detail}"
            return Failure(ModelAuthError, f"The API key was refused by {base} ({reason}). Check it in Settings "
                                            "or with `agentdesk key set`.", False, status, detail)
        if status == 404 and listing_models:
            return Failure(ModelNotFound, f"The server at {base} has no model list (HTTP 404: {detail}). Check "
                                           "the base URL in Settings (it usually ends in /v1).", False, status, detail)
        if status == 404:
            return Failure(ModelNotFound, f"The model '{self.provider.model}' was not found at {base} (HTTP 404: "
                                           f"{detail}). Check the model name in Settings, and the base URL (it "
                                           "usually ends in /v1).", False, status, detail)
        if status == 429 and getattr(exc, "code", None) == "insufficient_quota":
            return Failure(ModelRateLimited, f"The account at {base} has no quota left (HTTP 429: {detail}). "
                                              "Check your plan and billing with the provider.", False, status, detail)
        if status == 429:
            return Failure(ModelRateLimited, f"The model provider at {base} is limiting requests (HTTP 429: "
                                              f"{detail})", True, status, detail, retry_after)
        if status == 408:
            return Failure(ModelTimeout, f"The model server at {base} timed out (HTTP 408)", True, status, detail)
        if status >= 500:
            return Failure(ModelServerError, f"The model server at {base} failed (HTTP {status}: {detail})",
                            True, status, detail, retry_after)
        return Failure(ModelBadRequest, f"The model server refused the request (HTTP {status}: {detail}). Check "
                                         "the model and provider settings.", False, status, detail)

    def _final_error(self, failure: Failure, tries: int) -> ModelError:
        message = failure.message
        if failure.retryable:
            after = f"; gave up after {tries} tries" if tries > 1 else ""
            message = f"{message}{after}. {ADVICE[failure.kind]}"
        return failure.kind(message, status_code=failure.status_code, detail=failure.detail)

    def _retry_delay(self, failure: Failure, attempt: int) -> float:
        delay = failure.retry_after if failure.retry_after is not None else self.backoff_seconds * 2 ** (attempt - 1)
        return max(0.0, min(MAX_RETRY_DELAY_SECONDS, delay))

    def _server_detail(self, exc: openai.APIStatusError) -> str:
        """The server's own error message, key-free and short."""
        body = exc.body
        if isinstance(body, dict):
            inner = body.get("error", body)
            text = inner.get("message") if isinstance(inner, dict) else inner
        else:
            text = body
        text = str(text or exc.message or "no message").strip()
        text = self._redact(text)
        return text if len(text) <= DETAIL_LIMIT else text[: DETAIL_LIMIT - 1] + "…"

    def _redact(self, text: str) -> str:
        if self._secret:
            text = text.replace(self._secret, REDACTED)
        return redact(_SHORT_OR_MASKED_KEY.sub(REDACTED, text))


def _raw_text(response: ModelResponse) -> str:
    """What a reply is read from: the tool-call arguments when there are any, else the text."""
    return response.tool_arguments if response.tool_arguments else response.text
