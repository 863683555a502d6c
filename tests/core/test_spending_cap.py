"""The person's spending cap: tokens always, money where the model's price is known."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.cli import build_parser
from app.cli_agent import run_spending_caps, spending_caps_line
from app.core.agent.memory import AgentMemory
from app.core.agent.spending import SpendingCap, SpendingCapReached, check_before_model_call, with_spending_caps
from app.core.config import AgentSettings, ProviderSettings, Settings
from app.core.runs.service import RunRefused


def settings(model: str = "gpt-4o", **agent) -> Settings:
    return Settings(provider=ProviderSettings(model=model), agent=AgentSettings(**agent))


class Recorded:
    """A run's memory as the cap sees it: the recorded steps' totals."""

    def __init__(self, prompt: int = 0, completion: int = 0, cost: float = 0.0):
        self.tokens, self.cost = {"prompt": prompt, "completion": completion}, cost

    def totals(self):
        return dict(self.tokens), self.cost


def test_no_cap_by_default_and_none_means_no_cap():
    assert AgentSettings().max_tokens_per_run == 0 and AgentSettings().max_cost_usd_per_run == 0
    agent = AgentSettings(max_tokens_per_run=None, max_cost_usd_per_run=None)
    assert agent.max_tokens_per_run == 0 and agent.max_cost_usd_per_run == 0
    cap = SpendingCap(settings())
    assert not cap.active
    check_before_model_call(cap, Recorded(10**9, 10**9, 10**6), None)      # nothing to reach


def test_negative_caps_are_refused():
    with pytest.raises(ValidationError, match="max_tokens_per_run"):
        AgentSettings(max_tokens_per_run=-1)
    with pytest.raises(ValidationError, match="max_cost_usd_per_run"):
        AgentSettings(max_cost_usd_per_run=-0.5)


def test_token_cap_counts_recorded_steps_and_the_step_in_progress():
    cap = SpendingCap(settings(max_tokens_per_run=1000))
    check_before_model_call(cap, Recorded(600, 100), {"prompt": 250, "completion": 49})     # 999: under
    with pytest.raises(SpendingCapReached) as reached:
        check_before_model_call(cap, Recorded(600, 100), {"prompt": 250, "completion": 50})
    assert str(reached.value) == "the run's spending cap of 1,000 tokens was reached (used 1,000)"


def test_money_cap_where_the_price_is_known():
    told = []
    cap = SpendingCap(settings("gpt-4o", max_cost_usd_per_run=0.01), told.append)   # $2.50 / $10 per million
    check_before_model_call(cap, Recorded(), {"prompt": 2000, "completion": 400})     # $0.009
    with pytest.raises(SpendingCapReached, match=r"cap of \$0\.0100 was reached \(used about \$0\.0100"):
        check_before_model_call(cap, Recorded(2000, 400, 0.009), {"prompt": 400, "completion": 0})
    assert told == []


def test_money_cap_of_an_unpriced_model_is_told_once_and_the_token_cap_still_applies():
    told = []
    cap = SpendingCap(settings("my-local-llama", max_cost_usd_per_run=0.01, max_tokens_per_run=500), told.append)
    check_before_model_call(cap, Recorded(300, 100), None)
    check_before_model_call(cap, Recorded(350, 100), None)
    assert len(told) == 1
    assert "cannot be checked" in told[0] and "my-local-llama" in told[0] and "token cap of 500" in told[0]
    with pytest.raises(SpendingCapReached, match="500 tokens"):
        check_before_model_call(cap, Recorded(400, 100), None)


def test_a_local_server_is_free_so_its_money_cap_is_never_reached_nor_questioned():
    told = []
    local = settings("gpt-4o", max_cost_usd_per_run=0.01).model_copy(
        update={"provider": ProviderSettings(base_url="http://127.0.0.1:8080/v1", model="gpt-4o")})
    cap = SpendingCap(local, told.append)
    check_before_model_call(cap, Recorded(10**7, 10**7), None)
    assert told == [] and cap.money_checkable


def test_unpriced_model_without_token_cap_says_how_to_bound_the_run():
    cap = SpendingCap(settings("my-local-llama", max_cost_usd_per_run=1.0))
    assert "--max-tokens" in cap.unpriced_notice()
    check_before_model_call(cap, Recorded(10**9, 10**9), None)      # money cannot be counted: no end


def test_caps_given_for_one_run():
    base = settings(max_tokens_per_run=5000)
    assert with_spending_caps(base) is base
    capped = with_spending_caps(base, max_cost_usd=0.5)
    assert (capped.agent.max_tokens_per_run, capped.agent.max_cost_usd_per_run) == (5000, 0.5)
    assert with_spending_caps(base, max_tokens=0).agent.max_tokens_per_run == 0     # 0 removes the cap
    assert base.agent.max_cost_usd_per_run == 0                                       # the saved ones untouched


def test_cli_options_set_the_caps_and_a_bad_value_is_refused():
    args = build_parser().parse_args(["run", "Open settings", "--max-tokens", "20000", "--max-cost", "0.25"])
    capped = run_spending_caps(args, settings())
    assert (capped.agent.max_tokens_per_run, capped.agent.max_cost_usd_per_run) == (20000, 0.25)
    assert spending_caps_line(capped) == "Spending cap: 20,000 tokens and $0.25"
    assert "cannot be checked" in spending_caps_line(run_spending_caps(args, settings("local-model")))
    assert spending_caps_line(settings()) == ""
    bad = build_parser().parse_args(["run", "Open settings", "--max-tokens", "-5"])
    with pytest.raises(RunRefused, match="max_tokens_per_run"):
        run_spending_caps(bad, settings())


def test_memory_totals_feed_the_cap():
    memory = AgentMemory()
    cap = SpendingCap(settings(max_tokens_per_run=1))
    with pytest.raises(SpendingCapReached):
        check_before_model_call(cap, memory, {"prompt": 1, "completion": 0})
    check_before_model_call(SpendingCap(settings(max_tokens_per_run=1)), memory, None)
