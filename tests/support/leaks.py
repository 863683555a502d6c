"""What a test may not leave behind (GUIDE §4): threads, pending asyncio tasks, loop errors.

`tests/conftest.py` runs `LeakCheck` around every test. A test that leaves a thread running
(after a short grace period for threads that are already stopping), leaves a task pending on
one of the session's event loops, or makes an event loop report an error nobody handled
("Task exception was never retrieved", "Task was destroyed but it is pending!", an exception
in a callback) errors at teardown with the names of what it left.

Unawaited coroutines are caught by pytest itself: pyproject.toml turns their RuntimeWarning
into an error, which surfaces as an unraisable exception (the warning is raised in the
coroutine's finaliser), and PytestUnraisableExceptionWarning is an error too.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import threading
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor

GRACE_SECONDS = 2.0
"""How long a thread the test stopped (server.stop(), executor shutdown…) may take to end."""

LOOP_LOGGERS = ("asyncio", "qasync")
"""Where an event loop's default exception handler logs: asyncio's loops to "asyncio",
qasync's to "qasync._QEventLoop" (a child of "qasync")."""


class LoopErrorLog(logging.Handler):
    """Collects the errors event loops log through their default exception handler."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def install(self) -> None:
        for name in LOOP_LOGGERS:
            logging.getLogger(name).addHandler(self)

    def uninstall(self) -> None:
        for name in LOOP_LOGGERS:
            logging.getLogger(name).removeHandler(self)

    def take(self) -> list[str]:
        records, self.records = self.records, []
        return [describe_record(record) for record in records]


def describe_record(record: logging.LogRecord) -> str:
    text = f"{record.name}: {record.getMessage()}"
    if record.exc_info and record.exc_info[1] is not None:
        error = record.exc_info[1]
        text += f"\n    {type(error).__name__}: {error}"
    return text


def long_lived_pool_threads(loops: Iterable[asyncio.AbstractEventLoop]) -> set[threading.Thread]:
    """Worker threads of pools that outlive any one test, by identity (not by name).

    Exempt, because each is owned by something that lives for the whole session and is shut
    down at its end, and a pool starts its workers lazily (in whichever test first needs one):
    - the default executor of each open session event loop (asyncio's "asyncio_N" workers;
      on the qasync loop, app/gui/event_loop.py's "agentdesk-worker_N"): `asyncio.to_thread`
      and `run_in_executor(None, …)` run there, and the loop's runner shuts the pool down when
      the session (or that loop kind) ends;
    - the module-level "model-image-encoder" pool of app/core/agent/collection_strategies.py,
      which lives as long as the process.
    A pool a test makes itself, or a loop's pool after the loop is closed, is not exempt.
    """
    pools: list[object] = []
    for loop in loops:
        if loop.is_closed():
            continue
        # asyncio's BaseEventLoop and qasync's _QEventLoop both keep the default executor privately.
        pools.append(getattr(loop, "_default_executor", None))
        pools.append(getattr(loop, "_QEventLoop__default_executor", None))
    strategies = sys.modules.get("app.core.agent.collection_strategies")
    pools.append(getattr(strategies, "_ENCODER", None))
    return {thread for pool in pools if isinstance(pool, ThreadPoolExecutor) for thread in pool._threads}


def describe_thread(thread: threading.Thread) -> str:
    target = getattr(thread, "_target", None)
    where = f" running {getattr(target, '__qualname__', target)!s}" if target is not None else ""
    return f"thread {thread.name!r}{' (daemon)' if thread.daemon else ''}{where}"


def describe_task(task: asyncio.Task) -> str:
    frames = task.get_stack(limit=1)
    where = f" at {frames[0].f_code.co_filename}:{frames[0].f_lineno}" if frames else ""
    return f"task {task.get_name()!r} {task.get_coro()!r}{where}"


class LeakCheck:
    """Snapshot before a test; `problems()` after it lists what the test left behind."""

    def __init__(self, loops: list[asyncio.AbstractEventLoop], errors: LoopErrorLog) -> None:
        self.loops = loops
        self.errors = errors
        self.threads_before = set(threading.enumerate())
        self.tasks_before = set(self._pending_tasks())

    def _open_loops(self) -> list[asyncio.AbstractEventLoop]:
        return [loop for loop in self.loops if not loop.is_closed()]

    def _pending_tasks(self) -> list[asyncio.Task]:
        return [task for loop in self._open_loops() for task in asyncio.all_tasks(loop)]

    def new_threads(self) -> list[threading.Thread]:
        deadline = time.monotonic() + GRACE_SECONDS
        while True:
            exempt = long_lived_pool_threads(self.loops)
            left = [thread for thread in threading.enumerate()
                    if thread not in self.threads_before and thread not in exempt and thread.is_alive()]
            if not left or time.monotonic() >= deadline:
                return left
            time.sleep(0.02)

    def new_tasks(self) -> list[asyncio.Task]:
        return [task for task in self._pending_tasks() if task not in self.tasks_before]

    def problems(self) -> list[str]:
        tasks = self.new_tasks()
        problems = [f"left {describe_task(task)} pending" for task in tasks]
        cancel(tasks)                      # so that later tests start clean
        problems += [f"left {describe_thread(thread)} alive" for thread in self.new_threads()]
        # A task (or future) with an unretrieved exception reports it when it is collected: collect
        # the young generations now, so that the report usually lands on the test that dropped it.
        # (Not a full collection: with the session's Qt and image objects that costs ~0.1 s a test.
        # What survives this is reported by a later test or at the end of the session.)
        gc.collect(1)
        problems += [f"an event loop reported an unhandled error: {text}" for text in self.errors.take()]
        return problems


def cancel(tasks: list[asyncio.Task]) -> None:
    """Cancel leftover tasks and let each (idle) loop run until they have ended."""
    by_loop: dict[asyncio.AbstractEventLoop, list[asyncio.Task]] = {}
    for task in tasks:
        task.cancel()
        by_loop.setdefault(task.get_loop(), []).append(task)
    for loop, loop_tasks in by_loop.items():
        if not loop.is_running() and not loop.is_closed():
            loop.run_until_complete(asyncio.wait(loop_tasks, timeout=GRACE_SECONDS))
