"""Waiting in async tests for something that happens on another thread or loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


async def until(condition: Callable[[], object], seconds: float = 10.0, step: float = 0.05) -> object:
    """Return `condition()`'s value once it is true; fail the test after `seconds`."""
    for _ in range(max(1, int(seconds / step))):
        value = condition()
        if value:
            return value
        await asyncio.sleep(step)
    raise AssertionError("timed out waiting")
