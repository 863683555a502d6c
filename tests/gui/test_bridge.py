"""The GUI bridge: calls from the core's thread land on the GUI thread (never after close), background
work hands its result or error back, and a run's events are followed in order until stopped."""

from __future__ import annotations

import asyncio
import logging
import threading

import pytest

from app.core.agent.events import EventStream, Message
from app.core.loop_thread import LoopThread
from app.gui.bridge import Background, GuiHop, follow_run

pytestmark = pytest.mark.asyncio


@pytest.fixture
def core():
    thread = LoopThread("bridge-test-core")
    yield thread
    thread.close()


async def until(condition, timeout: float = 3.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("timed out")
        await asyncio.sleep(0.01)


async def test_a_call_from_the_core_thread_runs_on_the_gui_thread(core):
    hop = GuiHop()
    hop.bind()
    gui_thread = threading.current_thread()
    seen: list[tuple[str, threading.Thread]] = []
    core.call(hop.call, lambda word: seen.append((word, threading.current_thread())), "hello")
    await until(lambda: seen)
    assert seen == [("hello", gui_thread)]


async def test_nothing_arrives_once_the_hop_is_closed_even_calls_already_on_their_way(core):
    hop = GuiHop()
    seen: list[str] = []
    hop.call(seen.append, "before bind")          # not bound yet: dropped, no error
    hop.bind()
    hop.call(seen.append, "on its way")            # queued on the GUI loop …
    hop.close()                                     # … and the widget closes before it is delivered
    core.call(hop.call, seen.append, "after close")
    await asyncio.sleep(0.1)
    assert seen == []


async def test_background_work_hands_its_result_back_and_its_error_to_failed():
    background = Background()
    results: list[int] = []
    errors: list[BaseException] = []

    async def answer() -> int:
        return 42

    async def broken() -> int:
        raise ValueError("the phone went away")

    await background.start(answer(), done=results.append)
    await background.start(broken(), done=results.append, failed=errors.append)
    assert results == [42]
    assert [str(error) for error in errors] == ["the phone went away"]
    assert not background.tasks


async def test_a_failure_nobody_handles_is_logged_not_lost(caplog):
    background = Background()

    async def broken() -> None:
        raise RuntimeError("a bug")

    with caplog.at_level(logging.ERROR, logger="app.gui.bridge"):
        assert await background.start(broken(), what="reading the skills") is None
    assert "reading the skills failed" in caplog.text and "a bug" in caplog.text


async def test_closing_cancels_what_still_runs_and_refuses_new_work():
    background = Background()
    finished: list[str] = []

    async def slow() -> None:
        await asyncio.sleep(30)
        finished.append("slow")

    task = background.start(slow())
    await asyncio.sleep(0)
    await background.close(timeout=2)
    assert task.cancelled() and finished == [] and not background.tasks

    async def late() -> None:
        finished.append("late")
    with pytest.raises(RuntimeError, match="after its owner closed"):
        background.start(late(), what="a late read")
    await asyncio.sleep(0)
    assert finished == []


class FakeHandle:
    def __init__(self) -> None:
        self.events = EventStream()


async def test_a_followed_run_shows_every_event_from_its_first_in_order_until_stopped(core):
    hop = GuiHop()
    hop.bind()
    handle = FakeHandle()
    core.call(handle.events.emit, Message("one"))            # before anyone follows: replayed
    seen: list[str] = []
    gui_thread = threading.current_thread()

    def on_event(followed, event) -> None:
        assert followed is handle and threading.current_thread() is gui_thread
        seen.append(event.text)

    following = follow_run(core, hop, handle, on_event)
    core.call(handle.events.emit, Message("two"))
    await until(lambda: seen == ["one", "two"])
    assert following.subscribed
    following.stop()
    core.call(handle.events.emit, Message("three"))
    await until(lambda: not following.subscribed)
    await asyncio.sleep(0.05)
    assert seen == ["one", "two"]
