"""Reading a model's HTTP reply within bounds: at most `provider.max_reply_mb` of it, and all of it within
`provider.timeout_seconds`.

The HTTP client's own timeout is per read, so a server trickling a byte a second could otherwise hold
a step as long as it likes; and a reply is counted in decoded bytes while it arrives, so a huge (or
compressed-bomb) reply is refused before the rest of it is read. A streamed reply (server-sent
events) is fed to `StreamedReply` as it comes, so the person sees the words.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from app.core.config import ProviderSettings

from .model_errors import DETAIL_LIMIT, Failure, ModelReplyTooLarge
from .reply_stream import StreamedReply


class StreamFailed(Exception):
    """The server sent an error in the middle of a streamed reply; the argument is its (key-free) words."""


class ReplyOverCap(Exception):
    """Raised while reading a reply body that passed the cap; `size` is its length when the server
    said it (Content-Length), else None; `head` is the first bytes read, for the record."""

    def __init__(self, size: int | None, head: bytes) -> None:
        super().__init__(size)
        self.size = size
        self.head = head


def reply_cap_bytes(provider: ProviderSettings) -> int:
    """`provider.max_reply_mb` in bytes."""
    return int(provider.max_reply_mb * 1_000_000)


async def within_total_time(client: Any, request: dict[str, Any], provider: ProviderSettings,
                            read: Callable[[Any], Awaitable[Any]]) -> Any:
    """Send `request` with the `openai` client and `read` its raw reply, all within `provider.timeout_seconds`;
    past it, the client's own timeout error (handled, retried and worded like any other timeout)."""
    import httpx2
    import openai

    try:
        async with asyncio.timeout(provider.timeout_seconds):
            async with client.chat.completions.with_streaming_response.create(**request) as raw:
                return await read(raw)
    except TimeoutError:
        url = f"{str(client.base_url).rstrip('/')}/chat/completions"
        raise openai.APITimeoutError(request=httpx2.Request("POST", url)) from None


async def read_capped(raw: Any, provider: ProviderSettings, on_words: Callable[[str, int], None] | None,
                      words_interval_seconds: float, redact: Callable[[str], str]) -> Any:
    """The chat completion of a streamed HTTP reply, read up to `provider.max_reply_mb` (decoded bytes, so a
    compressed bomb is caught too); over it, `ReplyOverCap` before the rest is read. None when the body is
    not a chat completion."""
    import openai
    from openai.types.chat import ChatCompletion

    cap = reply_cap_bytes(provider)
    declared = raw.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > cap:
        raise ReplyOverCap(int(declared), b"")
    streamed = (StreamedReply(on_words, words_interval_seconds)
                if "text/event-stream" in raw.headers.get("content-type", "") else None)
    body = bytearray()
    size = 0
    try:
        async for chunk in raw.iter_bytes():
            size += len(chunk)
            if streamed is None or len(body) < DETAIL_LIMIT:
                body += chunk
            if streamed is not None:
                streamed.feed(chunk)
            if size > cap:
                raise ReplyOverCap(None, bytes(body[:DETAIL_LIMIT]))
    except ReplyOverCap:
        raise
    except Exception as exc:          # the connection broke or timed out mid-body
        request = raw.http_response.request
        if "timeout" in type(exc).__name__.lower():
            raise openai.APITimeoutError(request=request) from exc
        raise openai.APIConnectionError(request=request) from exc
    if streamed is not None:
        streamed.finish()
        if streamed.error:
            raise StreamFailed(redact(streamed.error)[:DETAIL_LIMIT])
        data = streamed.completion()
    else:
        try:
            data = json.loads(body)
        except ValueError:
            data = None
    if not isinstance(data, dict):
        return None                    # the client says: not a chat completion
    return ChatCompletion.construct(**data)


def over_cap_failure(error: ReplyOverCap, provider: ProviderSettings, redact: Callable[[str], str]) -> Failure:
    """The step error for a reply over the cap: its size (or that it passed the cap) and the setting."""
    cap_mb = provider.max_reply_mb
    size = f"{error.size / 1_000_000:.1f} MB" if error.size is not None else f"more than {cap_mb:g} MB"
    head = redact(error.head.decode("utf-8", "replace"))
    return Failure(ModelReplyTooLarge,
                   f"The model's reply was {size}, over the {cap_mb:g} MB cap, and was refused without being "
                   f"read or stored (setting provider.max_reply_mb). Check the model and server, or raise "
                   f"the cap in Settings.", False, 200, head)
