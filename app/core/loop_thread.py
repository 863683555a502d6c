"""A plain asyncio loop on a thread of its own: where the core (runs, phones) lives inside a GUI process.

The window's thread runs Qt's loop; the run service, the phone sessions and every run live
on this one (Dangerzone's layout: the core never shares a thread with the face). Faces hand
work over with `run()` (awaitable from their own loop), `submit()` (from plain code) or
`call()` (fire and forget).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class LoopThread:
    """A daemon thread running one asyncio loop until `close()`."""

    def __init__(self, name: str = "agentdesk-core") -> None:
        # A plain asyncio loop even where qasync installed its policy (its loops belong to the GUI thread).
        self.loop = asyncio.DefaultEventLoopPolicy().new_event_loop()
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()
        self._started.wait()

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.call_soon(self._started.set)
        try:
            self.loop.run_forever()
        finally:
            pending = [task for task in asyncio.all_tasks(self.loop) if not task.done()]
            for task in pending:
                task.cancel()
            if pending:
                self.loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            self.loop.run_until_complete(self.loop.shutdown_default_executor())
            self.loop.close()

    @property
    def thread(self) -> threading.Thread:
        return self._thread

    def in_loop_thread(self) -> bool:
        return threading.current_thread() is self._thread

    def call(self, function: Callable[..., Any], *args: Any) -> None:
        """Call `function(*args)` on the loop, from any thread."""
        if not self.loop.is_closed():
            self.loop.call_soon_threadsafe(function, *args)

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Run `coro` on the loop; the returned future is for the caller's thread."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def run(self, coro: Coroutine[Any, Any, T]) -> Awaitable[T]:
        """Run `coro` on the loop; await the result from the caller's own loop."""
        return asyncio.wrap_future(self.submit(coro))

    def close(self, timeout: float = 10.0) -> None:
        """Stop the loop (its pending tasks are cancelled) and wait for the thread to end."""
        if self.loop.is_closed():
            return
        self.call(self.loop.stop)
        if not self.in_loop_thread():
            self._thread.join(timeout)
