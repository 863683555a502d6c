"""Loop control: which failures end a run at once, and stuck detection."""

from __future__ import annotations

import json
from collections import deque

from app.core.device.errors import AdbUnavailable, DeviceNotFound, DeviceOffline, DeviceUnauthorized

from .actions import Action

# Errors that retrying the step cannot cure: the run fails with the reason at once.
FATAL_DEVICE_ERRORS = (DeviceNotFound, DeviceUnauthorized, DeviceOffline, AdbUnavailable)


def action_key(action: Action) -> str:
    return json.dumps([action.function, action.arguments], sort_keys=True, default=str)


class StuckDetector:
    """Notices the same action on an unchanged screen, or actions that change nothing.

    The first time it is noticed the model is warned (through the prompt); if the
    model then proposes the same thing again, the run fails with that reason.
    """

    def __init__(self, threshold: int = 3):
        self.threshold = threshold
        self._recent: deque[tuple[str, str, bool]] = deque(maxlen=threshold)   # (action, screen, changed)
        self.warning = ""      # told to the model in the next prompt
        self.failure = ""      # set when the model went on after a warning: the run fails with it

    def record(self, action: Action, screen_fingerprint: str) -> None:
        """Remember an executed action and the screen it ran on."""
        self._recent.append((action_key(action), screen_fingerprint, True))

    def last_screen(self) -> str | None:
        """The fingerprint of the screen the last recorded action ran on (None before any)."""
        return self._recent[-1][1] if self._recent else None

    def screen_checked(self, changed: bool) -> None:
        """The next screen shows whether the last action changed anything; update the diagnosis."""
        if not self._recent:
            return
        action, screen, _ = self._recent[-1]
        self._recent[-1] = (action, screen, changed)
        was_warned = bool(self.warning)
        self.warning, reason = self._diagnose()
        if was_warned and self.warning:
            self.failure = reason

    def _diagnose(self) -> tuple[str, str]:
        """(warning for the model, reason for failing the run) — both "" when all is well."""
        if len(self._recent) < self.threshold:
            return "", ""
        actions = {a for a, _, _ in self._recent}
        screens = {s for _, s, _ in self._recent}
        if len(actions) == 1 and len(screens) == 1:
            return (f"You proposed the same action {self.threshold} times on a screen that did not change. "
                    "It is not working: try something different, or answer FAIL if the task cannot be done.",
                    "Stuck: the same action was repeated on an unchanged screen after a warning.")
        if not any(changed for _, _, changed in self._recent):
            return (f"Your last {self.threshold} actions did not change the screen. Look again at the screen "
                    "and try a different approach, or answer FAIL if the task cannot be done.",
                    f"Stuck: {self.threshold} actions in a row changed nothing on the screen, even after a warning.")
        return "", ""

    def repeats_after_warning(self, action: Action, screen_fingerprint: str) -> bool:
        """True when the model was warned and still proposes the last action on the same screen."""
        if not self.warning or not self._recent:
            return False
        last_action, last_screen, _ = self._recent[-1]
        return last_action == action_key(action) and last_screen == screen_fingerprint
