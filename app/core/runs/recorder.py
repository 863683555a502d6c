"""The trajectory recorder: a reader of a run's events that writes the run folder as the run goes.

Pictures arrive with `ObservationReady`, a step's record with `StepFinished`. Both are
written by one worker thread, in the order they came, so a step's line is appended only
after the images it names are complete on disk; then `StepRecorded` is told on the stream
(the window's timeline shows a step from that event, so its thumbnail is never missing).
`close()` waits for every write, then records the result and writes the report.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import logging
import time
from typing import Any, Callable

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
from app.core.agent.report import write_report
from app.core.agent.trajectory import TrajectoryWriter

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
    def __init__(self, writer: TrajectoryWriter, events: EventStream) -> None:
        self.writer = writer
        self.events = events
        self.problems: list[str] = []
        self._loop = asyncio.get_running_loop()
        self._worker = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="agentdesk-recorder")
        self._images: dict[int, concurrent.futures.Future] = {}
        self._writes: list[concurrent.futures.Future] = []
        self._waits = PersonWaits()
        self._unsubscribe = events.subscribe(self._on_event, replay=False)

    @property
    def run_dir(self):
        return self.writer.run_dir

    def _on_event(self, event: RunEvent) -> None:
        self._waits.on_event(event)
        if isinstance(event, ObservationReady) and event.screenshot is not None:
            job = self._worker.submit(self.writer.save_screens, event.step, event.screenshot, event.annotated)
            self._images[event.step] = job
            self._writes.append(job)
        elif isinstance(event, StepFinished):
            item = dataclasses.replace(event.item, waiting_seconds=self._waits.step_finished(event.step))
            job = self._worker.submit(self._write_step, item, self._images.pop(event.step, None))
            job.add_done_callback(self._step_written)
            self._writes.append(job)

    def _write_step(self, item: Any, images: concurrent.futures.Future | None) -> Any:
        """On the worker: the step's line, naming only the images that were written."""
        clean, annotated = "", ""
        if images is not None:
            try:
                clean, annotated = images.result()      # done: the worker ran it before this job
            except Exception as exc:
                self._problem(f"step {item.step}: its screenshots could not be written ({exc})")
        record = dataclasses.replace(item, screenshot=clean, annotated_screenshot=annotated or "")
        self.writer.append_step(record)
        return record

    def _step_written(self, job: concurrent.futures.Future) -> None:
        if job.cancelled():
            return
        error = job.exception()
        if error is not None:
            self._problem(f"a step could not be recorded ({error})")
            return
        record = job.result()
        self._loop.call_soon_threadsafe(self._tell_recorded, record)

    def _tell_recorded(self, record: Any) -> None:
        self.events.emit(StepRecorded(record.step, record, str(self.writer.run_dir)))

    def _problem(self, text: str) -> None:
        log.warning("recording %s: %s", self.writer.run_dir, text)
        self.problems.append(text)

    async def close(self, result: RunResult | None) -> RunResult | None:
        """Wait for every write, then record the result (and write the report). Returns the result."""
        self._unsubscribe()
        for job in list(self._writes):
            try:
                await asyncio.wrap_future(job)
            except Exception:
                pass          # already said in problems
        await asyncio.sleep(0)        # let the last StepRecorded reach the stream before the run's end
        if result is not None:
            result.run_dir = str(self.writer.run_dir)
            try:
                await asyncio.to_thread(self.writer.finish, result)
                result.report_path = str(await asyncio.to_thread(write_report, self.writer.run_dir))
                await asyncio.to_thread(self.writer.finish, result)      # run.json names its report
            except Exception as exc:
                self._problem(f"the run's result or report could not be written ({exc})")
        self._worker.shutdown(wait=False)
        return result
