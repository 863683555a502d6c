"""The one way between the window and the core's loop (docs/architecture.md, "The GUI bridge").

The window lives on Qt's thread (a qasync loop); the core on a `LoopThread` of its own. Three
things cross between them, each in one place:

- `GuiHop.call(function, *args)`: from the core's thread, call `function` on the GUI thread —
  never once the hop is closed (its widgets may be gone) or the GUI loop has closed;
- `Background`: work started from the GUI thread (a coroutine on the core's loop through
  `core.run(...)`, or blocking work through `asyncio.to_thread`) whose result or error comes
  back on the GUI thread; its tasks are kept until they end (none is collected mid-flight) and
  cancelled when the window part that started them closes;
- `follow_run(core, hop, handle, on_event)`: a run's events, from its first, each delivered on
  the GUI thread; the returned `RunFollow.stop()` leaves the stream.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from app.core.agent.events import RunEvent
from app.core.loop_thread import LoopThread
from app.core.runs.handle import RunHandle

log = logging.getLogger(__name__)

T = TypeVar("T")


class GuiHop:
    """Calls from the core's thread onto the GUI thread. `bind()` on the GUI thread first (its
    running loop is the one calls go to); until then, and after `close()`, calls are dropped."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._open = True

    def bind(self) -> None:
        """Remember the GUI thread's running loop (call on the GUI thread)."""
        self._loop = asyncio.get_running_loop()

    @property
    def bound(self) -> bool:
        return self._loop is not None

    @property
    def open(self) -> bool:
        return self._open

    def call(self, function: Callable[..., Any], *args: Any) -> None:
        """Call `function(*args)` on the GUI thread, from any thread; nothing once closed."""
        loop = self._loop
        if loop is None or loop.is_closed() or not self._open:
            return
        try:
            loop.call_soon_threadsafe(self._deliver, function, args)
        except RuntimeError:          # the loop closed between the check and the call: the window is gone
            pass

    def emit(self, signal: Any, *args: Any) -> None:
        """Emit a Qt signal on the GUI thread (from any thread)."""
        self.call(signal.emit, *args)

    def close(self) -> None:
        """Drop every call from now on, also those already on their way."""
        self._open = False

    def _deliver(self, function: Callable[..., Any], args: tuple[Any, ...]) -> None:
        if self._open:
            function(*args)


class Background:
    """Work started from the GUI thread, its outcome handed back there.

    `start(work, done=..., failed=...)` runs the awaitable `work` as a task on the GUI loop (a
    core coroutine goes in as `core.run(coro)`, blocking work as `asyncio.to_thread(f, ...)`):
    `done(result)` or `failed(error)` is called on the GUI thread when it ends. A failure with no
    `failed` is logged with its traceback, never lost; either way the task ends with None, so
    nobody has to read it. `close()` cancels what still runs."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed = False

    def start(self, work: Awaitable[T], *, done: Callable[[T], None] | None = None,
              failed: Callable[[BaseException], None] | None = None, what: str = "") -> asyncio.Task[T | None]:
        if self._closed:
            if asyncio.iscoroutine(work):
                work.close()           # never awaited: close it instead of letting it warn
            raise RuntimeError(f"{what or 'background work'} started after its owner closed")
        outcome = self._outcome(work, done, failed, what)    # apart: inside ensure_future mypy solves T as T | None
        task: asyncio.Task[T | None] = asyncio.ensure_future(outcome)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _outcome(self, work: Awaitable[T], done: Callable[[T], None] | None,
                       failed: Callable[[BaseException], None] | None, what: str) -> T | None:
        try:
            result = await work
        except asyncio.CancelledError:
            raise
        except Exception as exc:          # handed to `failed` (or logged): the task itself ends quietly
            if failed is None:
                log.exception("%s failed", what or "background work")
            elif not self._closed:
                failed(exc)
            return None
        if done is not None and not self._closed:
            done(result)
        return result

    @property
    def tasks(self) -> set[asyncio.Task[Any]]:
        return set(self._tasks)

    async def close(self, timeout: float = 5.0) -> None:
        """Cancel what still runs and wait (at most `timeout` seconds) for it to end."""
        self._closed = True
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)


class RunFollow:
    """One run's event stream followed onto the GUI thread; `stop()` leaves it (from any thread)."""

    def __init__(self, core: LoopThread, hop: GuiHop, handle: RunHandle,
                 on_event: Callable[[RunHandle, RunEvent], None]) -> None:
        self.core, self.hop, self.handle = core, hop, handle
        self._on_event = on_event
        self._unsubscribe: Callable[[], None] | None = None
        self._stopped = False
        core.call(self._subscribe)

    def _subscribe(self) -> None:
        """On the core loop: every event of the run, from its first, to the GUI thread."""
        if not self._stopped:
            self._unsubscribe = self.handle.events.subscribe(self._forward)

    def _forward(self, event: RunEvent) -> None:
        if not self._stopped:
            self.hop.call(self._deliver, event)

    def _deliver(self, event: RunEvent) -> None:
        if not self._stopped:
            self._on_event(self.handle, event)

    @property
    def subscribed(self) -> bool:
        """Whether the run's stream still holds this follower (it is left on the core loop after `stop()`)."""
        return self._unsubscribe is not None

    def stop(self) -> None:
        self._stopped = True
        if not self.core.loop.is_closed():
            self.core.call(self._leave)

    def _leave(self) -> None:
        unsubscribe, self._unsubscribe = self._unsubscribe, None
        if unsubscribe is not None:
            unsubscribe()


def follow_run(core: LoopThread, hop: GuiHop, handle: RunHandle,
               on_event: Callable[[RunHandle, RunEvent], None]) -> RunFollow:
    """Follow `handle`'s events from its first: `on_event(handle, event)` on the GUI thread, in order."""
    return RunFollow(core, hop, handle, on_event)
