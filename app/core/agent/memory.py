"""What the agent remembers: one step record per step (seed 000 phase 4); the record types live in `records`."""

from __future__ import annotations

import time

from .records import ActionOutcome, Decision, RunResult, RunStatus, StepRecord, now_iso

MemoryItem = StepRecord
"""The step record under the name the agent's memory has always used."""

__all__ = ["ActionOutcome", "AgentMemory", "Decision", "MemoryItem", "RunResult", "RunStatus", "StepRecord", "now_iso"]


class AgentMemory:
    """The steps of the current run, in order."""

    def __init__(self) -> None:
        self.items: list[StepRecord] = []
        self.started = time.monotonic()

    def add(self, item: StepRecord) -> None:
        self.items.append(item)

    def recent(self, count: int) -> list[StepRecord]:
        return self.items[-count:] if count > 0 else []

    @property
    def last(self) -> StepRecord | None:
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

    def tokens_estimated(self) -> bool:
        """Whether some prompt tokens so far are the client's estimate (a server that reported no usage)."""
        return any(reply.prompt_estimated for item in self.items for reply in item.model_replies)
