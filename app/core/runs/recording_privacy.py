"""Which stretches of a run's screen recording are cut: the run's own looks at the screen decide.

Each step's observation (`ObservationReady`: the app in front and the controls) tells the screened
`ScreenRecording` whether the screen is private — an app on `images.never_send_apps`, or a password
field with focus (`private_screen.private_reason`, the rule the API's screenshots follow). A step that
typed into a password field counts as a private look too, whatever the screen shows after it. The
recording cuts every stretch between two looks of which one was private, so neither the way into
such a screen nor the way out of it is in `screen.mp4`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from app.core.agent.events import EventStream, ObservationReady, RunEvent, StepFinished
from app.core.perception.private_screen import password_in_use, private_reason, typed_into_password

from .screen_recording import ScreenRecording


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
