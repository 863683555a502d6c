"""What all strategies of one run share, and the events a run reports to its face (GUI or CLI)."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any, Callable

from PIL import Image

from app.core.config import Settings
from app.core.device.android_device import AndroidDevice
from app.core.perception.controls import Control

from .executor import ActionExecutor
from .llm_client import ModelClient
from .loop_guard import StuckDetector
from .memory import AgentMemory, MemoryItem
from .prompts import PromptBuilder
from .states import StateMachine
from .supervisor import Proposal, RunControl, Supervisor
from .trajectory import TrajectoryWriter


log = logging.getLogger(__name__)


def _ignore(*_args: Any) -> None:
    return None


@dataclass
class RunEvents:
    """Callbacks a run calls on its loop's thread; a GUI re-emits them as Qt signals."""

    step_started: Callable[[int], None] = _ignore
    phase_finished: Callable[[int, str, float], None] = _ignore          # step, phase, ms
    proposal: Callable[[Proposal], None] = _ignore                       # shown before review
    step_finished: Callable[[MemoryItem], None] = _ignore
    message: Callable[[str], None] = _ignore                             # progress in words


@dataclass
class ScreenRecord:
    """The screen an action was taken on, kept to judge the action on the next screen."""

    step: int
    controls: list[Control]
    image: Image.Image            # as sent to the model (downscaled)
    model_image_url: str
    fingerprint: str
    action_text: str


@dataclass
class RunContext:
    request: str
    device: AndroidDevice
    settings: Settings
    client: ModelClient
    prompts: PromptBuilder
    supervisor: Supervisor
    control: RunControl
    executor: ActionExecutor
    machine: StateMachine
    trajectory: TrajectoryWriter | None = None
    events: RunEvents = field(default_factory=RunEvents)
    memory: AgentMemory = field(default_factory=AgentMemory)
    stuck: StuckDetector = field(default_factory=StuckDetector)
    plan: list[str] = field(default_factory=list)
    pending_feedback: str = ""                 # the person's reason for rejecting, for the next model call
    answers: list[tuple[str, str]] = field(default_factory=list)   # (question, answer) from ask_user
    previous: ScreenRecord | None = None
    system_message: dict[str, Any] | None = None
    pending_writes: list[asyncio.Future] = field(default_factory=list)

    def record_screens(self, step: int, clean: Image.Image, annotated: Image.Image | None) -> None:
        """Write a step's images to the run folder in a worker thread, without holding up the step."""
        self.pending_writes.append(asyncio.ensure_future(
            asyncio.to_thread(self.trajectory.save_screens, step, clean, annotated)))

    async def finish_writes(self) -> None:
        """Wait for every image write; a failed one is logged (check_run then reports the missing file)."""
        for result in await asyncio.gather(*self.pending_writes, return_exceptions=True):
            if isinstance(result, Exception):
                log.warning("a step image could not be written: %s", result)
        self.pending_writes.clear()
