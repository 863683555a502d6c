"""The trajectory recorder: a reader of a run's events that writes the run folder as the run goes.

Pictures arrive with `ObservationReady`, a step's record with `StepFinished`. Both are
written by one worker thread, in the order they came, so a step's line is appended only
after the images it names are complete on disk; then `StepRecorded` is told on the stream
(the window's timeline shows a step from that event, so its thumbnail is never missing).
`close()` waits for every write, then records the result and writes the report.

A run that cannot be recorded must not go on acting (issue 12, item 6). The first write that
fails for the disk's sake (full, read-only, not allowed: any OSError) is the run's *storage
fault*: the recorder says it on the stream, stops the run through `on_fault`, and writes
nothing after it that could leave a gap. `guard_pipeline` puts a `RecordingGate` in front of
the strategy that acts on the phone: it waits until everything told so far is on disk, so no
action reaches the phone after a record that failed, however slow the disk. `close()` then
ends the run "failed" with the fault's sentence; the result reaches the faces even when
run.json cannot be written.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import logging
import time
from collections.abc import Callable
from typing import Any

from app.core.agent.events import (
    EventStream,
    ObservationReady,
    QuestionAnswered,
    QuestionAsked,
    ReviewAnswered,
    ReviewRequested,
    RunEvent,
    StepFinished,
    StepRecorded,
    StepStarted,
)
from app.core.agent.memory import RunResult
from app.core.agent.pipeline import ComposedStrategy, ProcessingPhase, StepContext, Strategy
from app.core.agent.report import write_report
from app.core.agent.run_context import RunContext
from app.core.agent.step_reviews import ReviewLog
from app.core.agent.supervisor import RunControl, RunStopped
from app.core.agent.trajectory import RUN_FILE, TrajectoryWriter
from app.core.data_folder import storage_problem
from app.core.runs.final_screen import FinalScreen

log = logging.getLogger(__name__)


class PersonWaits:
    """How long each step waited for the person, read from the run's events.

    A wait runs from `ReviewRequested` / `QuestionAsked` to its answer (or to the step's end,
    when the run was stopped meanwhile). It is the person's time, kept apart from the agent's.
    """

    def __init__(self, now: Callable[[], float] = time.monotonic) -> None:
        self._now = now
        self._step = 0
        self._began: float | None = None
        self._seconds: dict[int, float] = {}

    def on_event(self, event: RunEvent) -> None:
        if isinstance(event, StepStarted):
            self._step = event.step
        elif isinstance(event, (ReviewRequested, QuestionAsked)):
            if self._began is None:
                self._began = self._now()
        elif isinstance(event, (ReviewAnswered, QuestionAnswered)):
            self._close()

    def step_finished(self, step: int) -> float:
        """The step's waiting time, in seconds (a wait still open ends here)."""
        self._close()
        return round(self._seconds.pop(step, 0.0), 2)

    def _close(self) -> None:
        if self._began is not None:
            self._seconds[self._step] = self._seconds.get(self._step, 0.0) + self._now() - self._began
            self._began = None


class RunRecorder:
    def __init__(self, writer: TrajectoryWriter, events: EventStream,
                 on_fault: Callable[[str], None] | None = None) -> None:
        self.writer = writer
        self.events = events
        self.on_fault = on_fault
        self.problems: list[str] = []
        self.fault = ""               # the first storage fault, in words; the run stops on it
        self._steps_broken = False    # a step line failed: later lines would leave a gap
        self._loop = asyncio.get_running_loop()
        self._worker = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="agentdesk-recorder")
        self._images: dict[int, concurrent.futures.Future] = {}
        self._writes: list[concurrent.futures.Future] = []
        self._waits = PersonWaits()
        self._reviews = ReviewLog()       # rejected proposals, who decided, questions: kept with each step
        self.final_screen = FinalScreen()   # the screen the run left, after its last step (its frames: guard_pipeline)
        self._unsubscribe = events.subscribe(self._on_event, replay=False)

    @property
    def run_dir(self):
        return self.writer.run_dir

    def _on_event(self, event: RunEvent) -> None:
        self._waits.on_event(event)
        self._reviews.on_event(event)
        self.final_screen.on_event(event)
        if isinstance(event, ObservationReady) and event.screenshot is not None:
            job = self._worker.submit(self._save_screens, event.step, event.screenshot, event.annotated)
            self._images[event.step] = job
            self._writes.append(job)
        elif isinstance(event, StepFinished):
            item = dataclasses.replace(event.item, waiting_seconds=self._waits.step_finished(event.step))
            item = self._reviews.take(item)
            self.final_screen.step_finished(item)
            job = self._worker.submit(self._write_step, item, self._images.pop(event.step, None))
            job.add_done_callback(self._step_written)
            self._writes.append(job)

    def _save_screens(self, step: int, screenshot: Any, annotated: Any) -> tuple[str, str]:
        """On the worker: the step's pictures (none once the disk has failed)."""
        if self.fault:
            return "", ""
        try:
            return self.writer.save_screens(step, screenshot, annotated)
        except OSError as exc:
            self._storage_fault(storage_problem(f"save the screenshots of step {step}", self.writer.run_dir, exc))
            return "", ""

    def _write_step(self, item: Any, images: concurrent.futures.Future | None) -> Any:
        """On the worker: the step's line, naming only the images that were written (None: not written)."""
        if self._steps_broken:
            return None
        clean, annotated = "", ""
        if images is not None:
            try:
                clean, annotated = images.result()      # done: the worker ran it before this job
            except Exception as exc:
                self._problem(f"step {item.step}: its screenshots could not be written ({exc})")
        record = dataclasses.replace(item, screenshot=clean, annotated_screenshot=annotated or "")
        try:
            self.writer.append_step(record)
        except OSError as exc:
            self._steps_broken = True
            self._storage_fault(storage_problem(f"record step {item.step}", self.writer.run_dir, exc))
            return None
        return record

    def _step_written(self, job: concurrent.futures.Future) -> None:
        if job.cancelled():
            return
        error = job.exception()
        if error is not None:
            self._problem(f"a step could not be recorded ({error})")
            return
        record = job.result()
        if record is not None:
            self._loop.call_soon_threadsafe(self._tell_recorded, record)

    def _tell_recorded(self, record: Any) -> None:
        self.events.emit(StepRecorded(record.step, record, str(self.writer.run_dir)))

    def _problem(self, text: str) -> None:
        log.warning("recording %s: %s", self.writer.run_dir, text)
        self.problems.append(text)

    def _storage_fault(self, text: str) -> None:
        """On the worker: the first fault is the run's; the run is told to stop on its loop."""
        self._problem(text)
        if self.fault:
            return
        self.fault = text
        self._loop.call_soon_threadsafe(self._tell_fault, text)

    def _tell_fault(self, text: str) -> None:
        self.events.message(f"The run cannot be recorded: {text}. Stopping before anything more reaches the phone.")
        if self.on_fault is not None:
            self.on_fault(text)

    async def settled(self) -> str:
        """Wait until everything told so far is written; the storage fault ("" if none)."""
        for job in list(self._writes):
            if not job.done():
                try:
                    await asyncio.wrap_future(job)
                except Exception:
                    pass          # already said in problems
        return self.fault

    async def close(self, result: RunResult | None) -> RunResult | None:
        """Wait for every write, then record the result (and write the report). Returns the result.

        After a storage fault the result is "failed" with the fault's sentence. If run.json cannot
        be written, the result is still returned (the faces show it) and the stream says so.
        """
        self._unsubscribe()
        for job in list(self._writes):
            try:
                await asyncio.wrap_future(job)
            except Exception:
                pass          # already said in problems
        await asyncio.sleep(0)        # let the last StepRecorded reach the stream before the run's end
        if result is not None and not self.fault:
            await self.final_screen.save(self.writer.run_dir)      # the last step's "after" picture, for the report
        if result is not None:
            result.run_dir = str(self.writer.run_dir)
            if self.fault:
                _fail(result, self.fault)
            try:
                await asyncio.to_thread(self.writer.finish, result)
                result.report_path = str(await asyncio.to_thread(write_report, self.writer.run_dir))
                await asyncio.to_thread(self.writer.finish, result)      # run.json names its report
            except OSError as exc:
                text = storage_problem(f"write the run's result ({RUN_FILE}) and report", self.writer.run_dir, exc)
                self._problem(text)
                if not self.fault:
                    self.fault = text
                    _fail(result, text)
                self.events.message(f"The run's end is not recorded ({text}); it is shown here only.")
            except Exception as exc:
                self._problem(f"the run's result or report could not be written ({exc})")
        self._worker.shutdown(wait=False)
        return result


def _fail(result: RunResult, fault: str) -> None:
    """A run whose record failed ends failed with the fault's sentence (and how it had ended, if it had)."""
    ended = "" if result.status == "stopped" else f" (the run had ended {result.status}: {result.completion_reason})"
    result.status, result.error = "failed", fault
    result.completion_reason = fault + ended


class RecordingGate(Strategy):
    """Stands in front of the action: waits until the run's records so far are on disk, and stops
    the run (before anything reaches the phone) when one of them could not be written."""

    def __init__(self, control: RunControl, recorder: RunRecorder) -> None:
        super().__init__(fail_fast=True)
        self.control = control
        self.recorder = recorder

    async def run(self, ctx: StepContext) -> None:
        fault = await self.control.interruptible(self.recorder.settled())
        if fault:
            self.control.stop(fault)
            raise RunStopped(fault)


def _acts_on_phone(strategy: Strategy) -> bool:
    return not isinstance(strategy, ComposedStrategy) and "outcome" in strategy.outputs()


def _guarded(strategy: Strategy, gate: RecordingGate) -> bool:
    """Put `gate` in front of every child of `strategy` that acts on the phone; True if any was found."""
    if not isinstance(strategy, ComposedStrategy):
        return False
    found = False
    children: list[Strategy] = []
    for child in strategy.strategies:
        if _acts_on_phone(child):
            children.append(gate)
            found = True
        elif _guarded(child, gate):
            found = True
        children.append(child)
    strategy.strategies = children
    return found


def guard_pipeline(factory: Callable[[RunContext], list], recorder: RunRecorder) -> Callable[[RunContext], list]:
    """The run's pipeline with a `RecordingGate` in front of the strategy that acts on the phone
    (the one providing the action's "outcome"); without one, in front of the action phase."""
    def build(rc: RunContext) -> list:
        recorder.final_screen.frames = getattr(rc, "frames", None)   # the screen the run leaves: from its frames
        gate = RecordingGate(rc.control, recorder)
        pipeline = []
        for phase, strategy in factory(rc):
            if phase == ProcessingPhase.ACTION_EXECUTION:
                if _acts_on_phone(strategy) or not _guarded(strategy, gate):
                    strategy = ComposedStrategy([gate, strategy], name=strategy.name, fail_fast=strategy.fail_fast)
            pipeline.append((phase, strategy))
        return pipeline
    return build
