"""What the agent remembers: one item per step (seed 000 phase 4) and the result of a run (seed 004)."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import Any, Literal

RunStatus = Literal["success", "failed", "timeout", "stopped"]


def now_iso() -> str:
    return datetime.now(timezone.utc).astimezone().isoformat(timespec="seconds")


@dataclass
class Decision:
    """What the person (or the auto policy) decided about a proposed action."""

    kind: Literal["approve", "edit", "override", "reject", "stop", "auto"]
    by: Literal["person", "auto"] = "person"
    feedback: str = ""            # the reason given with a rejection
    answer: str = ""              # the answer to an ask_user question


@dataclass
class ActionOutcome:
    success: bool
    message: str
    duration_ms: float = 0.0


@dataclass
class MemoryItem:
    """One step of a run, as kept for the prompts and written to steps.jsonl."""

    step: int
    request: str
    thought: str = ""
    comment: str = ""
    plan: list[str] = field(default_factory=list)
    action: dict[str, Any] = field(default_factory=dict)      # {"function", "arguments", "status"} as executed
    proposed_action: dict[str, Any] | None = None            # what the model proposed, when the person changed it
    action_text: str = ""                                     # the action in words
    status: str = "CONTINUE"
    decision: Decision | None = None
    result: ActionOutcome | None = None
    reflection: dict[str, Any] | None = None                 # success|failure|partial, confidence, reasoning
    screenshot: str = ""                                      # file names inside the run folder
    annotated_screenshot: str = ""
    foreground: str = ""
    controls_count: int = 0
    screen_fingerprint: str = ""
    screen_only: bool = False                                 # the controls could not be read this step
    timings_ms: dict[str, float] = field(default_factory=dict)
    tokens: dict[str, int] = field(default_factory=dict)      # prompt, completion
    cost_usd: float = 0.0
    model_attempts: int = 0
    error: str = ""
    prompt_text: str = ""                                     # the text part of the prompt (no images)
    raw_reply: str = ""
    timestamp: str = field(default_factory=now_iso)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary_line(self) -> str:
        """A compact line for the next prompts: what was done and how it went."""
        outcome = ""
        if self.result is not None:
            outcome = "ok" if self.result.success else f"failed: {self.result.message}"
        if self.reflection and self.reflection.get("verdict"):
            outcome += f"; screen check: {self.reflection['verdict']}"
        if self.decision and self.decision.kind in ("edit", "override"):
            outcome += f"; the person {'edited' if self.decision.kind == 'edit' else 'replaced'} the action"
        return f"step {self.step}: {self.action_text or 'no action'}" + (f" → {outcome}" if outcome else "")


@dataclass
class RunResult:
    """Seed 004's result fields, plus where the run was recorded."""

    status: RunStatus
    steps_taken: int
    actions_executed: list[str]
    time_seconds: float
    error: str = ""
    completion_reason: str = ""
    run_dir: str = ""
    report_path: str = ""
    tokens: dict[str, int] = field(default_factory=dict)
    cost_usd: float = 0.0

    @property
    def succeeded(self) -> bool:
        return self.status == "success"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class AgentMemory:
    """The steps of the current run, in order."""

    def __init__(self) -> None:
        self.items: list[MemoryItem] = []
        self.started = time.monotonic()

    def add(self, item: MemoryItem) -> None:
        self.items.append(item)

    def recent(self, count: int) -> list[MemoryItem]:
        return self.items[-count:] if count > 0 else []

    @property
    def last(self) -> MemoryItem | None:
        return self.items[-1] if self.items else None

    def executed_actions(self) -> list[str]:
        return [i.action_text for i in self.items if i.result is not None and i.result.success]

    def totals(self) -> tuple[dict[str, int], float]:
        tokens = {"prompt": 0, "completion": 0}
        cost = 0.0
        for item in self.items:
            for key in tokens:
                tokens[key] += item.tokens.get(key, 0)
            cost += item.cost_usd
        return tokens, cost
