"""The sensitive check: does an action need a person even in auto mode, and why.

Every door that acts on the phone (the model's proposal, a person's edit, a skill, a
replay) asks `action_sensitivity`; the answer is the reason in words, "" when the
action may run without asking.
"""

from __future__ import annotations

import re

from app.core.perception.controls import Control

from .actions import Action, ClickControl, LongPressControl, TypeText


def action_target(action: Action, controls: list[Control]) -> Control | None:
    """The control an action names by id, if any."""
    control_id = getattr(action.args, "control_id", None)
    if control_id is None:
        return None
    return next((c for c in controls if c.id == control_id), None)


def action_sensitivity(action: Action, controls: list[Control], words: list[str], *, request: str = "",
                       screen_only: bool = False) -> str:
    """Why `action` needs a person even in auto mode; "" when it does not."""
    return sensitive_reason(action, action_target(action, controls), words)


def sensitive_reason(action: Action, target: Control | None, sensitive_words: list[str]) -> str:
    args = action.args
    if isinstance(args, TypeText) and target is not None and (
            target.password or "password" in target.resource_id.lower()):
        return "it types into a password field"
    if target is not None and isinstance(args, (ClickControl, LongPressControl, TypeText)):
        label = " ".join(filter(None, (target.name, target.text, target.content_desc, target.resource_id)))
        for word in sensitive_words:
            if word and re.search(rf"(?<![a-z]){re.escape(word.lower())}(?![a-z])", label.lower()):
                return f"its target “{target.name}” matches the sensitive word “{word}”"
    return ""
