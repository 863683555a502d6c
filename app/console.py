"""The terminal face of a run: prints each step and asks the person at the keyboard (agentdesk run)."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

from pydantic_core import PydanticUndefined

from app.console_progress import ModelProgress
from app.core.agent.action_shorthand import SHORTHAND_HELP, ShorthandError, parse_shorthand
from app.core.agent.actions import ARGUMENT_MODELS, Action
from app.core.agent.records import StepRecord
from app.core.agent.run_words import decision_word, result_words, step_action_text
from app.core.agent.supervisor import Proposal, ReviewAnswer
from app.core.redaction import redact

CHOICES = "[Enter]=approve  e=edit (each value in turn)  o=override  r=reject with feedback  s=stop"


def _shown(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "" if value is None else str(value)


def _typed_value(typed: str, current):
    """What the person typed, as the kind of value the argument holds (yes/no, a number, text)."""
    if isinstance(current, bool):
        return typed.lower() in ("y", "yes", "true", "1", "on")
    if isinstance(current, int) or current is None and typed.lstrip("-").isdigit():
        try:
            return int(typed)
        except ValueError:
            return typed
    if isinstance(current, float):
        try:
            return float(typed)
        except ValueError:
            return typed
    return typed


async def read_line(prompt: str) -> str | None:
    """input() in a worker thread, so the loop keeps running; None at end of input."""
    def ask() -> str | None:
        try:
            return input(prompt)
        except EOFError:
            return None
    return await asyncio.to_thread(ask)


class ConsoleSupervisor:
    """Shows each proposal and reads the person's answer from the keyboard.

    While the model is asked, `progress` (console_progress.ModelProgress) keeps the console from
    going silent: on a terminal the model's words as they stream in, piped a ticker line now and then."""

    def __init__(self, out=None):
        self.out = out or sys.stdout
        self.progress = ModelProgress(self.out, terminal=self.is_terminal)

    @property
    def is_terminal(self) -> bool:
        isatty = getattr(self.out, "isatty", None)
        return bool(isatty and isatty())

    def say(self, text: str = "") -> None:
        self.end_live_line()
        print(redact(text), file=self.out, flush=True)

    def model_words(self, step: int, text_so_far: str, tokens: int = 0) -> None:
        """The model's reply so far (written as it grows on a terminal; piped, it moves the ticker)."""
        self.progress.words(step, text_so_far, tokens)

    def end_live_line(self) -> None:
        """End the model's words (or clear the status line), so whatever is printed next starts on a clean line."""
        self.progress.end()

    @asynccontextmanager
    async def ticking(self, every_seconds: float = 1.0) -> AsyncIterator[None]:
        """While inside, the progress is ticked every `every_seconds` (the status line's seconds, the ticker)."""
        async def tick() -> None:
            while True:
                await asyncio.sleep(every_seconds)
                self.progress.tick()

        task = asyncio.ensure_future(tick())
        try:
            yield
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    @contextmanager
    def clearing_live_line_for_logs(self) -> Iterator[None]:
        """While inside, a log line printed on the terminal (warnings on stderr) first clears the live line."""
        def clear(_record: logging.LogRecord) -> bool:
            self.end_live_line()
            return True

        handlers = [handler for handler in logging.getLogger().handlers
                    if isinstance(handler, logging.StreamHandler) and not isinstance(handler, logging.FileHandler)]
        for handler in handlers:
            handler.addFilter(clear)
        try:
            yield
        finally:
            for handler in handlers:
                handler.removeFilter(clear)

    async def review(self, proposal: Proposal) -> ReviewAnswer:
        self.say(f"\n── Step {proposal.step}: {proposal.proposed_by} proposes ──")
        if proposal.thought:
            self.say(f"  thought: {proposal.thought}")
        self.say(f"  action:  {proposal.action_text}")
        if proposal.sensitive_reason:
            self.say(f"  ⚠ needs your approval: {proposal.sensitive_reason}")
        if proposal.id:
            self.say(f"  (your answer is for {proposal.id}, this proposal only)")
        while True:
            line = await read_line(f"  {CHOICES}\n  > ")
            if line is None:
                self.say("  (no more input: stopping)")
                return ReviewAnswer.stop()
            choice = line.strip().lower()
            if choice in ("", "a", "approve", "y", "yes"):
                return ReviewAnswer.approve()
            if choice in ("s", "stop", "q", "quit"):
                return ReviewAnswer.stop()
            if choice in ("r", "reject"):
                feedback = await read_line("  why (the model reads this)? ")
                return ReviewAnswer.reject(feedback or "")
            if choice in ("e", "edit"):
                edited = await self._edit(proposal.action)
                if edited is not None:
                    return ReviewAnswer.edit(edited)
            elif choice in ("o", "override"):
                typed = await read_line(f"  your action ({SHORTHAND_HELP}):\n  > ")
                try:
                    return ReviewAnswer.override(parse_shorthand(typed or ""))
                except ShorthandError as exc:
                    self.say(f"  ✗ {exc}")
            else:
                self.say(f"  ✗ '{line.strip()}' is not a choice")

    async def _edit(self, action: Action) -> Action | None:
        """Each of the action's arguments asked in turn, its value shown; Enter keeps it. None: nothing
        changed, or what was typed does not fit (said, and the proposal is asked about again)."""
        model = ARGUMENT_MODELS.get(action.function)
        if model is None:
            self.say("  ✗ this action has nothing to edit; override it instead")
            return None
        arguments = dict(action.arguments)
        changed = False
        for name, spec in model.model_fields.items():
            current = arguments.get(name, spec.default if spec.default is not PydanticUndefined else "")
            typed = await read_line(f"  {name.replace('_', ' ')} [{_shown(current)}]: ")
            if typed is None:
                return None
            if typed.strip():
                arguments[name] = _typed_value(typed.strip(), current)
                changed = True
        if not changed:
            return None
        try:
            return Action(function=action.function, arguments=arguments, status=action.status)
        except ValueError as exc:
            self.say(f"  ✗ not valid: {exc}")
            return None

    async def ask(self, question: str) -> str:
        self.say(f"\n  ? The agent asks: {question}")
        answer = await read_line("  your answer: ")
        return answer or ""

    def step_finished(self, item: StepRecord) -> None:
        result, _ = result_words(item)
        decision = f" [{decision_word(item.decision.kind).text}]" if item.decision else ""
        error = f"  error: {item.error}" if item.error else ""
        spent = sum(item.timings_ms.get(p, 0) for p in ('data_collection', 'llm_interaction', 'action_execution'))
        self.say(f"Step {item.step}: {step_action_text(item)}{decision} → {result}  ({spent:.0f} ms)" + error)
