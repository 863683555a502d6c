"""Which stretches of a run's screen recording are cut: the run's own looks at the screen decide.

Each step's observation (`ObservationReady`: the app in front and the controls) tells the screened
`ScreenRecording` whether the screen is private — an app on `images.never_send_apps`, or a password
field with focus (`private_screen.private_reason`, the rule the API's screenshots follow). A step that
typed into a password field counts as a private look too, whatever the screen shows after it. The
recording cuts every stretch between two looks of which one was private, so neither the way into
such a screen nor the way out of it is in `screen.mp4`.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, Callable

from app.core.agent.events import EventStream, ObservationReady, RunEvent, StepFinished
from app.core.perception.private_screen import password_in_use, private_reason

from .screen_recording import ScreenRecording

TYPING = "type_text"


def typed_into_password(item: Any) -> bool:
    """Whether a finished step (a MemoryItem) typed into a password field."""
    action = getattr(item, "action", None) or {}
    if not isinstance(action, dict) or action.get("function") != TYPING:
        return False
    arguments = action.get("arguments") or {}
    control_id = arguments.get("control_id") if isinstance(arguments, dict) else None
    for control in getattr(item, "controls", None) or []:
        flags = getattr(control, "flags", None) or ()
        if "password" in flags and (control_id is None and "focused" in flags or getattr(control, "id", None) == control_id):
            return True
    return False


def watch_privacy(events: EventStream, recording: ScreenRecording,
                  never_send_apps: Collection[str]) -> Callable[[], None]:
    """Tell `recording` of every look the run takes at the screen; returns the function that stops it."""
    def on_event(event: RunEvent) -> None:
        if isinstance(event, ObservationReady):
            recording.mark(bool(private_reason(event.foreground, never_send_apps,
                                               password_in_use=password_in_use(event.controls))))
        elif isinstance(event, StepFinished) and typed_into_password(event.item):
            recording.mark(True)
    return events.subscribe(on_event)
