"""Ask the model for the next action until it gives one that parses and validates (seed 002's retry).

Each try: send the conversation, decode the JSON, validate it with pydantic, then call
`validate` (the caller maps coordinates and checks ids and points against the screen).
A reply that fails any of these is never executed: it goes back to the model as an
assistant message, followed by a user message naming the problem, and the model is
asked again. `ModelError` (network, key, server) is not retried here: `ModelClient`
already did that, so it propagates unchanged.

A reply cut off by the output budget (`finish_reason: length`) is not invalid JSON: it is
"cut off at N tokens", and the same prompt is sent once more with twice the budget (capped).
A second cut-off ends the tries with that reason. Every reply, used or not, is appended to
the caller's `replies` list with its tokens, raw text and what became of it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.core.agent.actions import ActionRejected, ModelReply, ReplyInvalid, parse_reply_dict
from app.core.agent.llm_client import MAX_OUTPUT_TOKENS_CAP, ModelClient, ModelResponse
from app.core.agent.prompts import PromptBuilder
from app.core.agent.records import ModelReplyRecord
from app.core.agent.reply_parsing import decode_reply


@dataclass
class DecisionOutcome:
    """A usable reply and what it took: tries, tokens summed over them, the last raw reply,
    and the problems of the rejected tries (in order)."""

    reply: ModelReply
    attempts: int
    prompt_tokens: int
    completion_tokens: int
    raw_text: str
    errors: list[str] = field(default_factory=list)


class ReplyUnusable(Exception):
    """Every try gave an unusable reply. Carries the same accounting as `DecisionOutcome`."""

    def __init__(self, attempts: int, errors: list[str], raw_text: str, prompt_tokens: int,
                 completion_tokens: int) -> None:
        last = errors[-1] if errors else "no reply"
        tries = "try" if attempts == 1 else "tries"
        super().__init__(f"The model gave no usable action after {attempts} {tries}: {last}")
        self.attempts = attempts
        self.errors = errors
        self.raw_text = raw_text
        self.prompt_tokens = prompt_tokens
        self.completion_tokens = completion_tokens


def raw_reply_text(response: ModelResponse) -> str:
    """What the reply was read from: the tool-call arguments when there are any, else the text."""
    return response.tool_arguments if response.tool_arguments else response.text


def cut_off_problem(response: ModelResponse, budget: int) -> str:
    """Why a cut-off reply was not used, in words: how many tokens it got to."""
    return f"the reply was cut off at {response.completion_tokens or budget} tokens (the output budget)"


async def ask_for_action(client: ModelClient, builder: PromptBuilder, messages_base: Sequence[dict[str, Any]], *,
                         validate: Callable[[ModelReply], None], retries: int,
                         replies: list[ModelReplyRecord] | None = None,
                         on_asking: Callable[[int], None] | None = None,
                         on_asking_again: Callable[[str, bool, int], None] | None = None) -> DecisionOutcome:
    """Up to `retries` tries for a reply that passes `validate`; raises `ReplyUnusable` when none does.

    `messages_base` (system + this step's user message) is not modified. `validate` raises
    `ReplyInvalid` or `ActionRejected` with a message for the model. A cut-off reply is retried
    once with a larger budget (not counted as a try); every call is appended to `replies`.
    `on_asking(budget)` is told before each request, `on_asking_again(problem, cut_off, budget)` when a
    reply was not used and the model is asked again (a face says so: a retry is not silence).
    """
    replies = [] if replies is None else replies
    messages = list(messages_base)
    budget = client.provider.max_output_tokens
    larger_budget_tried = False
    correction = ""
    # The reply tool always goes to the client: sent as a tool when tools are in use, else as the
    # response_format's JSON schema where the server takes one (the client decides which).
    tools = [builder.reply_tool()]
    errors: list[str] = []
    prompt_tokens = completion_tokens = 0
    raw_text = ""
    tries = max(1, retries)
    # A server that refuses images is answered by the client itself (text only from then on, the
    # same try sent again as `builder.without_images` rewrites it): it costs no try here.
    client.without_images = builder.without_images
    attempt = 0
    while attempt < tries:
        attempt += 1
        first_call = len(replies)
        if on_asking is not None:
            on_asking(budget)
        response = await client.complete(messages, tools, max_output_tokens=budget, replies=replies)
        for record in replies[first_call:]:
            record.correction = correction
        this = replies[-1] if len(replies) > first_call else ModelReplyRecord()
        prompt_tokens += response.prompt_tokens
        completion_tokens += response.completion_tokens
        raw_text = raw_reply_text(response)
        if response.cut_off:
            problem = cut_off_problem(response, budget)
            this.outcome, this.problem = "cut_off", problem
            errors.append(problem)
            if larger_budget_tried:
                raise ReplyUnusable(attempt, errors, raw_text, prompt_tokens, completion_tokens)
            larger_budget_tried = True
            budget = min(MAX_OUTPUT_TOKENS_CAP, budget * 2)
            attempt -= 1          # the same prompt again, with a larger budget: not a try of its own
            if on_asking_again is not None:
                on_asking_again(problem, True, budget)
            continue
        try:
            reply = parse_reply_dict(decode_reply(response))
            validate(reply)
        except (ReplyInvalid, ActionRejected) as error:
            this.outcome, this.problem = "invalid", str(error)
            errors.append(str(error))
            correction = str(error)
            messages += [{"role": "assistant", "content": raw_text or "(empty reply)"},
                         builder.retry_message(str(error))]
            if on_asking_again is not None and attempt < tries:
                on_asking_again(str(error), False, budget)
            continue
        return DecisionOutcome(reply, attempt, prompt_tokens, completion_tokens, raw_text, errors)
    raise ReplyUnusable(tries, errors, raw_text, prompt_tokens, completion_tokens)
