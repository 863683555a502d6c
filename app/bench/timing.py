"""Timing helpers: medians over rounds, and ours against a baseline in interleaved rounds.

Interleaving (ours, baseline, baseline, ours, …) gives both sides the same number of runs
under the same conditions: a phone warming up, another process waking, the CPU's clock
changing all fall on both alike instead of on whichever ran second.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Awaitable, Callable, Mapping


def median_ms(fn: Callable[[], object], rounds: int, warmup: int = 1) -> float:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(max(1, rounds)):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def _order(names: list[str], round_index: int) -> list[str]:
    """Each round starts with a different contender, so none always runs first."""
    shift = round_index % len(names)
    return names[shift:] + names[:shift]


def interleaved_values(contenders: dict[str, Callable[[], float]], rounds: int, warmup: int = 1) -> dict[str, float]:
    """Median of the figure each contender returns, run in turn `rounds` times each."""
    names = list(contenders)
    for _ in range(warmup):
        for name in names:
            contenders[name]()
    samples: dict[str, list[float]] = {name: [] for name in names}
    for index in range(max(1, rounds)):
        for name in _order(names, index):
            samples[name].append(contenders[name]())
    return {name: statistics.median(values) for name, values in samples.items()}


def interleaved_ms(contenders: dict[str, Callable[[], object]], rounds: int, warmup: int = 1) -> dict[str, float]:
    """Median milliseconds of each contender, run in turn `rounds` times each."""
    def timed(fn: Callable[[], object]) -> Callable[[], float]:
        def run() -> float:
            started = time.perf_counter()
            fn()
            return (time.perf_counter() - started) * 1000
        return run

    return interleaved_values({name: timed(fn) for name, fn in contenders.items()}, rounds, warmup)


async def interleaved_async_ms(contenders: Mapping[str, Callable[[], Awaitable[object]]], rounds: int,
                               warmup: int = 1) -> dict[str, float]:
    """`interleaved_ms` for coroutine factories."""
    names = list(contenders)
    for _ in range(warmup):
        for name in names:
            await contenders[name]()
    samples: dict[str, list[float]] = {name: [] for name in names}
    for index in range(max(1, rounds)):
        for name in _order(names, index):
            started = time.perf_counter()
            await contenders[name]()
            samples[name].append((time.perf_counter() - started) * 1000)
    return {name: statistics.median(values) for name, values in samples.items()}
