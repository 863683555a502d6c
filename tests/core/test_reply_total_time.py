"""A model reply has a total time: a server trickling its reply cannot outlast provider.timeout_seconds
(the HTTP client's timeout is per read, and each byte arrives well within it)."""

from __future__ import annotations

import asyncio
import json

import pytest

from app.core.agent.llm_client import ModelClient, ModelTimeout
from app.core.config import ProviderSettings

MESSAGES = [{"role": "user", "content": "hello"}]
BYTE_EVERY_SECONDS = 0.3            # well within the 1 s per-read timeout


async def trickling_server() -> tuple[asyncio.AbstractServer, list[asyncio.Task]]:
    """A loopback server answering every request with a valid chat completion, one byte at a time."""
    completion = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "fake",
                             "choices": [{"index": 0, "finish_reason": "stop",
                                          "message": {"role": "assistant", "content": "hi" + " " * 200}}]})
    body = completion.encode()
    requests: list[asyncio.Task] = []       # each request's task, ended by the test

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        requests.append(asyncio.current_task())
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length")), 0)
            await reader.readexactly(length)
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                         b"Content-Length: %d\r\n\r\n" % len(body))
            for byte in body:
                writer.write(bytes([byte]))
                await writer.drain()
                await asyncio.sleep(BYTE_EVERY_SECONDS)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass                    # the client gave up (or the test ended): the trickle stops
        finally:
            writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    return server, requests


@pytest.mark.asyncio
async def test_a_trickled_reply_ends_as_a_timeout_within_the_providers_time():
    server, requests = await trickling_server()
    port = server.sockets[0].getsockname()[1]
    provider = ProviderSettings(base_url=f"http://127.0.0.1:{port}/v1", model="fake", timeout_seconds=1,
                                http_retries=1)
    try:
        async with ModelClient(provider, None, backoff_seconds=0.01) as client:
            # the whole reply takes ~60 s a byte at a time; the bound below only keeps a failing test from hanging
            with pytest.raises(ModelTimeout, match="did not answer within 1 s"):
                await asyncio.wait_for(client.complete(MESSAGES), 30)
    finally:
        server.close()
        for task in requests:
            task.cancel()
        await asyncio.gather(*requests, return_exceptions=True)
        await server.wait_closed()
    assert 1 <= len(requests) <= 2
