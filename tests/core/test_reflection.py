"""The screen check of the last action never contradicts the action's own failure."""

from __future__ import annotations

from app.core.agent.memory import ActionOutcome, MemoryItem
from app.core.agent.reflection import Reflection, against_the_outcome


def test_a_changed_screen_after_a_failed_action_is_partial_not_success():
    seen = Reflection(4, "success", 0.9, "The screen changed: 1 control changed.")
    failed = MemoryItem(4, "Type a note", result=ActionOutcome(False, "typed text read back as “helo”, not “hello”"))
    judged = against_the_outcome(seen, failed)
    assert judged.verdict == "partial" and judged.confidence <= 0.6
    assert "read back as “helo”" in judged.reasoning and "The screen changed" in judged.reasoning


def test_a_succeeded_or_other_step_leaves_the_check_alone():
    seen = Reflection(4, "success", 0.9, "The screen changed.")
    assert against_the_outcome(seen, MemoryItem(4, "r", result=ActionOutcome(True, "typed"))) is seen
    assert against_the_outcome(seen, MemoryItem(3, "r", result=ActionOutcome(False, "x"))) is seen
    assert against_the_outcome(seen, None) is seen
    unchanged = Reflection(4, "no change", 0.6, "Nothing changed.")
    assert against_the_outcome(unchanged, MemoryItem(4, "r", result=ActionOutcome(False, "x"))) is unchanged
