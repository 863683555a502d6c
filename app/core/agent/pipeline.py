"""The step processor of seed 000: phases of strategies that declare what they need and provide.

`StepProcessor` checks at construction that every strategy's needs are provided by the
run's initial values or by an earlier strategy, so a wrong assembly fails at start, not
mid-run. Running a step: a failing fail-fast strategy stops the step (`PhaseFailed`); any
other failure is recorded, the strategy's fallback fills in what it should have
provided, and the step goes on. Middleware sees each phase start and end.

Phases and strategies are timed with the step's `clock`: in a run, the agent's own time, which
stands still while the person is waited for (a review, a question, a pause). So a step's
"acting on the phone" is the phone's time, and the minutes a proposal waited for the person's
decision are the step's `waiting_seconds`, told apart in the record and the report.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

log = logging.getLogger(__name__)


class ProcessingPhase(enum.StrEnum):
    DATA_COLLECTION = "data_collection"
    LLM_INTERACTION = "llm_interaction"
    ACTION_EXECUTION = "action_execution"
    MEMORY_UPDATE = "memory_update"


class AssemblyError(RuntimeError):
    """Strategies were put together so that one needs a value nothing provides."""


class PhaseFailed(RuntimeError):
    def __init__(self, phase: ProcessingPhase, strategy: str, error: BaseException):
        super().__init__(f"{strategy} failed: {error}")
        self.phase = phase
        self.strategy = strategy
        self.error = error


class MissingValue(KeyError):
    pass


@dataclass
class StepContext:
    """The values of one step, by name, plus what went wrong and how long each phase took, timed by
    `clock` (seconds; a run's is the agent's own time, which stands still while the person decides)."""

    step: int
    values: dict[str, Any] = field(default_factory=dict)
    errors: list[tuple[str, BaseException]] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    clock: Callable[[], float] | None = None      # None: the wall clock (a person's own step is their time)

    def now(self) -> float:
        """Seconds on the step's clock."""
        return self.clock() if self.clock is not None else time.perf_counter()

    def get(self, name: str) -> Any:
        try:
            return self.values[name]
        except KeyError:
            raise MissingValue(f"step {self.step} has no value '{name}'") from None

    def get_or(self, name: str, default: Any = None) -> Any:
        return self.values.get(name, default)

    def set(self, name: str, value: Any) -> None:
        self.values[name] = value


class Strategy:
    """One unit of work in a phase. Subclasses set `needs`/`provides` and implement run()."""

    needs: ClassVar[tuple[str, ...]] = ()
    provides: ClassVar[tuple[str, ...]] = ()

    def __init__(self, fail_fast: bool):
        self.fail_fast = fail_fast

    @property
    def name(self) -> str:
        return type(self).__name__

    def requirements(self) -> tuple[str, ...]:
        return self.needs

    def outputs(self) -> tuple[str, ...]:
        return self.provides

    async def run(self, ctx: StepContext) -> None:
        raise NotImplementedError

    def fallback(self, ctx: StepContext, error: BaseException) -> None:
        """Fill in what this strategy provides after it failed (non-fail-fast strategies)."""
        for name in self.outputs():
            ctx.values.setdefault(name, None)


class ComposedStrategy(Strategy):
    """Several strategies run in order as one; it fails fast as a whole if a fail-fast child fails."""

    def __init__(self, strategies: list[Strategy], name: str, fail_fast: bool):
        super().__init__(fail_fast)
        self.strategies = strategies
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    def requirements(self) -> tuple[str, ...]:
        provided: set[str] = set()
        needed: list[str] = []
        for strategy in self.strategies:
            needed += [n for n in strategy.requirements() if n not in provided and n not in needed]
            provided.update(strategy.outputs())
        return tuple(needed)

    def outputs(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(n for s in self.strategies for n in s.outputs()))

    async def run(self, ctx: StepContext) -> None:
        for strategy in self.strategies:
            await run_strategy(strategy, ctx)

    def fallback(self, ctx: StepContext, error: BaseException) -> None:
        for strategy in self.strategies:
            strategy.fallback(ctx, error)


class ControlFlow(Exception):
    """Not a failure: the run is being stopped or paused; strategies let it pass through."""


async def cancel_and_wait(task: asyncio.Future) -> None:
    """Cancel a wait given up on and let it end, whatever it ends with (its outcome is no longer wanted)."""
    task.cancel()
    try:
        await task
    except BaseException:
        pass


async def run_strategy(strategy: Strategy, ctx: StepContext) -> None:
    started = ctx.now()
    try:
        await strategy.run(ctx)
    except ControlFlow:
        raise
    except PhaseFailed:
        raise
    except Exception as exc:
        log.warning("step %d: %s failed: %s", ctx.step, strategy.name, exc)
        ctx.errors.append((strategy.name, exc))
        if strategy.fail_fast:
            raise PhaseFailed(ProcessingPhase.DATA_COLLECTION, strategy.name, exc) from exc
        strategy.fallback(ctx, exc)
    finally:
        if not isinstance(strategy, ComposedStrategy):   # its children and its phase are timed already
            ctx.timings_ms[strategy.name] = round((ctx.now() - started) * 1000, 1)


class Middleware(Protocol):
    def before_phase(self, phase: ProcessingPhase, ctx: StepContext) -> None: ...

    def after_phase(self, phase: ProcessingPhase, ctx: StepContext, ms: float, error: BaseException | None) -> None: ...


class PhaseLogging:
    """Logs each phase with its duration (seed 000's logging middleware)."""

    def before_phase(self, phase: ProcessingPhase, ctx: StepContext) -> None:
        log.debug("step %d: %s starts", ctx.step, phase.value)

    def after_phase(self, phase: ProcessingPhase, ctx: StepContext, ms: float, error: BaseException | None) -> None:
        if error is None or isinstance(error, ControlFlow):     # a stop or a take-over is no failure
            log.info("step %d: %s took %.0f ms%s", ctx.step, phase.value, ms, f" ({error})" if error else "")
        else:
            log.warning("step %d: %s failed after %.0f ms: %s", ctx.step, phase.value, ms, error)


class StepProcessor:
    """Runs the phases of one step in order, through the middleware chain."""

    def __init__(self, phases: list[tuple[ProcessingPhase, Strategy]], *, initial: set[str],
                 middleware: list[Middleware] | None = None):
        self.phases = phases
        self.middleware: list[Middleware] = middleware if middleware is not None else [PhaseLogging()]
        available = set(initial)
        for phase, strategy in phases:
            missing = [n for n in strategy.requirements() if n not in available]
            if missing:
                raise AssemblyError(f"{strategy.name} ({phase.value}) needs {', '.join(missing)}, "
                                    "which no earlier strategy provides")
            available.update(strategy.outputs())

    async def process(self, ctx: StepContext, *, only: set[ProcessingPhase] | None = None) -> None:
        """Run every phase (or only some, e.g. MEMORY_UPDATE after a stop)."""
        for phase, strategy in self.phases:
            if only is not None and phase not in only:
                continue
            for mw in self.middleware:
                mw.before_phase(phase, ctx)
            started = ctx.now()
            error: BaseException | None = None
            try:
                await run_strategy(strategy, ctx)
            except PhaseFailed as exc:
                exc.phase = phase
                error = exc
                raise
            except BaseException as exc:
                error = exc
                raise
            finally:
                ms = (ctx.now() - started) * 1000
                ctx.timings_ms[phase.value] = round(ms, 1)
                for mw in self.middleware:
                    mw.after_phase(phase, ctx, ms, error)
