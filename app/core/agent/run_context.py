"""What all strategies of one run share: the request, the phone, the model, the person, the event stream."""

from __future__ import annotations

import logging
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from app.core.config import Settings
from app.core.device.android_device import AndroidDevice
from app.core.device.frames import Frame, FrameSource
from app.core.device.screen_capture import Screenshot
from app.core.device.screen_tree import ScreenTree
from app.core.perception.controls import Control

from .events import EventStream, ObservationReady
from .executor import ActionExecutor
from .llm_client import ModelClient
from .loop_guard import StuckDetector
from .memory import AgentMemory
from .prompts import PromptBuilder
from .states import StateMachine
from .supervisor import RunControl, Supervisor

log = logging.getLogger(__name__)


@dataclass
class ScreenRecord:
    """The screen an action was taken on, kept to judge the action on the next screen."""

    step: int
    controls: list[Control]
    image: Image.Image            # as sent to the model (downscaled)
    model_image_url: str
    fingerprint: str
    action_text: str


SETTLED_FRAME_SECONDS = 0.25
"""The picture the wait after an action found still is the next step's picture if that step begins
within this time of the wait's end (the steps follow each other at once in a run: a pause is longer)."""


@dataclass(frozen=True)
class SettledScreen:
    """The picture on which the wait after an action saw the screen stand still."""

    frame: Frame
    input_generation: int         # the device's input generation then: any input since makes it stale
    at: float                     # time.monotonic() when the wait ended
    display: Future[Screenshot] | None = None    # the picture at rest at the display's size, made during the wait


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
    frames: FrameSource
    events: EventStream = field(default_factory=EventStream)
    memory: AgentMemory = field(default_factory=AgentMemory)
    stuck: StuckDetector = field(default_factory=StuckDetector)
    plan: list[str] = field(default_factory=list)
    pending_feedback: str = ""                 # the person's reason for rejecting, for the next model call
    answers: list[tuple[str, str]] = field(default_factory=list)   # (question, answer) from ask_user
    previous: ScreenRecord | None = None
    system_message: dict[str, Any] | None = None
    screen_tree: ScreenTree | None = None      # the phone session's; None: one of the run's own
    skills_offered: dict[str, str] = field(default_factory=dict)   # skill name → trigger, offered as use_skill
    screens_offered: dict[str, str] = field(default_factory=dict)  # a known screen's name → its map id (go_to_screen)
    map_note: str = ""                                             # where the map says the phone is, and the ways on
    settled: SettledScreen | None = None       # the last action's still picture, for the next step's (once)
    tree_note_told: str = ""                   # the device's tree_source_note the person was last told
    clean_image_asked: bool = False            # the last reply asked for the clean image (images.send auto)

    def __post_init__(self) -> None:
        if self.screen_tree is None:
            self.screen_tree = ScreenTree(self.device, self.frames)

    def take_settled_frame(self, now: float) -> SettledScreen | None:
        """The picture the last action's wait found still, if it still shows the screen: no input reached
        the phone since, no newer frame came (the screen would have changed), and the next step began at
        once. Given once: the step after reads the screen again."""
        settled, self.settled = self.settled, None
        if settled is None or settled.input_generation != self.device.input_generation:
            return None
        if now - settled.at > SETTLED_FRAME_SECONDS:
            return None
        latest = self.frames.latest()
        if latest is not None and latest.captured_at > settled.frame.captured_at:
            return None
        return settled

    def observed(self, step: int, clean: Image.Image, annotated: Image.Image | None, controls: list[Control],
                 foreground: str = "", screen_only: bool = False) -> None:
        """Tell the readers (the recorder first) what the screen of this step was."""
        self.events.emit(ObservationReady(step, clean, annotated, tuple(controls), foreground, screen_only))
