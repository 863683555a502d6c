"""Reflection (seed 003, algorithm 3): did the last action do what it should?

Fast path: an obvious change between the screen before and after (controls added,
removed or changed, or the picture itself) counts as success. Otherwise, when model
reflection is enabled, the model compares the two screenshots; else the step is
reported as "no change", which the next prompt and the stuck detector take into account.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from PIL import Image

from app.core.perception.controls import Control
from app.core.perception.screen_diff import diff_controls, image_difference

from .llm_client import ModelClient
from .prompts import PromptBuilder
from .records import StepRecord
from .reply_parsing import decode_reply

IMAGE_CHANGE_THRESHOLD = 0.01   # fraction of pixels of a small thumbnail that must differ


@dataclass
class Reflection:
    on_step: int
    verdict: str            # success | failure | partial | no change
    confidence: float
    reasoning: str
    suggestions: str = ""
    method: str = "screen diff"

    @property
    def screen_changed(self) -> bool:
        return self.verdict != "no change"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def prompt_note(self) -> str:
        text = f"Check of step {self.on_step}: {self.verdict} ({self.confidence:.0%} sure) — {self.reasoning}"
        return text + (f" Suggestion: {self.suggestions}" if self.suggestions else "")


def fast_reflection(step: int, before: list[Control], after: list[Control],
                    before_image: Image.Image, after_image: Image.Image) -> Reflection | None:
    """The obvious cases, without a model call; None when the change is unclear."""
    diff = diff_controls(before, after)
    if not diff.is_empty:
        return Reflection(step, "success", 0.9, f"The screen changed: {diff.summary()}.")
    if image_difference(before_image, after_image) > IMAGE_CHANGE_THRESHOLD:
        return Reflection(step, "success", 0.7, "The picture on the screen changed.")
    return None


def against_the_outcome(reflection: Reflection, step: StepRecord | None) -> Reflection:
    """A changed screen is no success when the action itself failed (a typed text read back wrong, a
    launch that did not happen): the check then says so, instead of contradicting the failure."""
    outcome = step.result if step is not None and step.step == reflection.on_step else None
    if outcome is None or outcome.success or reflection.verdict != "success":
        return reflection
    return Reflection(reflection.on_step, "partial", min(reflection.confidence, 0.6),
                      f"{reflection.reasoning} But the action reported a failure: {outcome.message}"[:500],
                      reflection.suggestions, reflection.method)


def no_change(step: int) -> Reflection:
    return Reflection(step, "no change", 0.6, "Nothing on the screen changed after the action.")


async def model_reflection(step: int, client: ModelClient, prompts: PromptBuilder, action_text: str,
                           before_url: str, after_url: str) -> tuple[Reflection, int, int]:
    """Ask the model to judge before/after; returns (reflection, prompt tokens, completion tokens)."""
    response = await client.complete(prompts.reflection_messages(action_text, before_url, after_url))
    data = decode_reply(response)
    result = str(data.get("execution_result", "partial")).lower()
    verdict = result if result in ("success", "failure", "partial") else "partial"
    try:
        confidence = min(1.0, max(0.0, float(data.get("confidence", 0.5))))
    except (TypeError, ValueError):
        confidence = 0.5
    suggestions = data.get("improvement_suggestions", "")
    if isinstance(suggestions, list):
        suggestions = "; ".join(str(s) for s in suggestions)
    reflection = Reflection(step, verdict, confidence, str(data.get("reasoning", ""))[:500], str(suggestions)[:300],
                            "model")
    return reflection, response.prompt_tokens, response.completion_tokens
