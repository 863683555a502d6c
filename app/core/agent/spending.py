"""The person's spending cap for one run: tokens, and money where the model's price is known.

Settings `agent.max_tokens_per_run` and `agent.max_cost_usd_per_run` (0 = no cap). Before each
model decision the run adds up what its model calls have used so far (the recorded steps plus
the step in progress, whose rejected proposals also asked the model) and, once a cap is
reached, ends before asking again: `SpendingCapReached` is fatal, so the run ends "failed" with
the cap and what was used as its reason, the step in progress recorded like any other ending.

Money is counted at the provider's pricing (`app.core.providers.pricing_for`): a local server
is free (a money cap is never reached there); for a model whose price nobody knows the person
is told once that the money cap cannot be checked, and the token cap, if set, still applies.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.core.config import AgentSettings, Settings
from app.core.providers import pricing_for

COST_EPSILON = 1e-12
"""Sums of float prices are compared with this slack, so $0.009 + $0.001 reaches a $0.01 cap."""


class SpendingCapReached(RuntimeError):
    """The run used up the spending cap the person set: it ends before the next model call."""


@dataclass(frozen=True)
class Spent:
    """What a run's model calls have used so far; `cost_usd` is None when the model has no known price."""

    tokens: int
    cost_usd: float | None


def money(amount: float) -> str:
    """An amount of USD as a person reads it: $0.05, $1.20, $0.0031."""
    return f"${amount:.2f}" if amount >= 0.1 or amount == 0 else f"${amount:.4f}"


class SpendingCap:
    """One run's caps, checked before each model decision. `tell` says a sentence to the person
    (the run's event stream); it is used once, when the money cap cannot be checked."""

    def __init__(self, settings: Settings, tell: Callable[[str], None] | None = None) -> None:
        self.max_tokens = settings.agent.max_tokens_per_run or 0
        self.max_cost_usd = settings.agent.max_cost_usd_per_run or 0.0
        self.model = settings.provider.model
        self.pricing = pricing_for(settings)
        self._tell = tell
        self._told_unpriced = False

    @property
    def active(self) -> bool:
        return bool(self.max_tokens or self.max_cost_usd)

    @property
    def money_checkable(self) -> bool:
        """Whether a money cap can be enforced: there is one and the model's price is known (or free)."""
        return bool(self.max_cost_usd) and self.pricing.kind != "unknown"

    def unpriced_notice(self) -> str:
        """Why the money cap cannot be checked ("" when it can, or when there is none)."""
        if not self.max_cost_usd or self.pricing.kind != "unknown":
            return ""
        rest = (f"the token cap of {self.max_tokens:,} tokens still applies" if self.max_tokens
                else "set a token cap (agent.max_tokens_per_run, --max-tokens) to bound this run")
        return (f"The spending cap of {money(self.max_cost_usd)} cannot be checked: the price of the model "
                f"{self.model!r} is unknown; {rest}.")

    def spent(self, recorded_tokens: dict[str, int], step_usage: dict[str, Any] | None) -> Spent:
        """The run's use so far: the recorded steps' totals plus the step in progress, priced once."""
        step_usage = step_usage or {}
        prompt = int(recorded_tokens.get("prompt", 0)) + int(step_usage.get("prompt", 0) or 0)
        completion = int(recorded_tokens.get("completion", 0)) + int(step_usage.get("completion", 0) or 0)
        cost = None if self.pricing.kind == "unknown" else self.pricing.cost(prompt, completion)
        return Spent(prompt + completion, cost)

    def check(self, spent: Spent) -> None:
        """Raise SpendingCapReached when a cap is reached; tell the person once if money cannot be counted."""
        if not self.active:
            return
        if not self._told_unpriced and (notice := self.unpriced_notice()):
            self._told_unpriced = True
            if self._tell is not None:
                self._tell(notice)
        if self.max_tokens and spent.tokens >= self.max_tokens:
            raise SpendingCapReached(f"the run's spending cap of {self.max_tokens:,} tokens was reached "
                                     f"(used {spent.tokens:,})")
        if self.money_checkable and spent.cost_usd is not None and spent.cost_usd >= self.max_cost_usd - COST_EPSILON:
            raise SpendingCapReached(f"the run's spending cap of {money(self.max_cost_usd)} was reached "
                                     f"(used about {money(spent.cost_usd)} for {spent.tokens:,} tokens)")


def check_before_model_call(cap: SpendingCap, memory, step_usage: dict[str, Any] | None) -> None:
    """The hook in the Decide phase: the run's memory holds the recorded steps, `step_usage` the step in progress."""
    if not cap.active:
        return
    tokens, _ = memory.totals()
    cap.check(cap.spent(tokens, step_usage))


def with_spending_caps(settings: Settings, max_tokens: int | None = None,
                       max_cost_usd: float | None = None) -> Settings:
    """`settings` with the caps given for one run (None leaves a cap as saved; 0 removes it).
    ValueError names the bad value."""
    update: dict[str, Any] = {}
    if max_tokens is not None:
        update["max_tokens_per_run"] = max_tokens
    if max_cost_usd is not None:
        update["max_cost_usd_per_run"] = max_cost_usd
    if not update:
        return settings
    agent = AgentSettings.model_validate({**settings.agent.model_dump(), **update})
    return settings.model_copy(update={"agent": agent})
