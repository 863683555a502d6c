"""The person's turn in a run (see take_over.py): each of their actions carried out as a step of the run.

A step of the person's runs through the run's own processor with the model's decision replaced by
`PersonsAction`: the screen is read before (screenshot, controls) and recorded, the action is
reviewed as the person's own (`Decision("person")`), carried out and checked like the agent's,
and remembered — a text typed into a password field masked in the record and in the prompts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.perception.controls import Control

from .actions import Action, describe_action
from .collection_strategies import RunStrategy
from .events import HandedBack, StepStarted, TakenOver
from .pipeline import ComposedStrategy, ProcessingPhase, StepContext, StepProcessor, Strategy
from .sensitive import action_sensitivity, action_target
from .states import AgentStatus
from .supervisor import Proposal
from .take_over import PERSON, hand_back_note

if TYPE_CHECKING:
    from .run_context import RunContext

LARGEST_TAPPED_CONTROL = 0.25
"""A tap becomes a tap on the control under it (a locator a replay can find again) only when that control
covers at most this share of the screen: a tap on a picture, a map or a captcha keeps its point."""


def control_under(x: float, y: float, controls: list[Control], screen_size: tuple[int, int]) -> Control | None:
    """The smallest clickable control under a point, if it is small enough to stand for the tap."""
    width, height = screen_size
    limit = LARGEST_TAPPED_CONTROL * width * height if width and height else float("inf")
    under = [c for c in controls if c.clickable and c.enabled and c.rect[0] <= x < c.rect[2]
             and c.rect[1] <= y < c.rect[3]]
    if not under:
        return None
    smallest = min(under, key=lambda c: c.width * c.height)
    return smallest if smallest.width * smallest.height <= limit else None


def as_persons_action(action: Action, controls: list[Control], screen_size: tuple[int, int]) -> Action:
    """The person's action as the record keeps it: a tap on a control becomes a click on that control."""
    if action.function == "tap":
        x, y = float(action.arguments.get("x", 0)), float(action.arguments.get("y", 0))
        control = control_under(x, y, controls, screen_size)
        if control is not None:
            return Action.model_validate({"function": "click_control", "arguments": {
                "control_id": control.id, "control_name": control.name}, "status": "CONTINUE"})
    return action


class PersonsAction(RunStrategy):
    """In place of the model's decision: the person's action on the screen just read, as the step's proposal."""

    needs = ("screenshot", "controls")

    def __init__(self, rc: RunContext, replaced) -> None:
        super().__init__(rc, fail_fast=True)
        self.replaced = replaced            # the model's decision it stands for: it provides the same values

    def outputs(self) -> tuple[str, ...]:
        return tuple(self.replaced.outputs())

    async def run(self, ctx: StepContext) -> None:
        for name in self.outputs():
            ctx.values.setdefault(name, None)
        shot, controls = ctx.get("screenshot"), ctx.get("controls") or []
        action = as_persons_action(ctx.get("persons_action"), controls, shot.size)
        target = action_target(action, controls)
        ctx.set("proposal", Proposal(
            step=ctx.step, action=action, action_text=describe_action(action, controls),
            comment="done by the person", controls=controls, screen_size=shot.size, screenshot=shot.image,
            target=target, proposed_by=PERSON,
            sensitive_reason=action_sensitivity(action, controls, self.rc.settings.agent.sensitive_words,
                                                system_dialogs=self.rc.settings.agent.system_dialogs)))


def persons_processor(rc: RunContext, processor: StepProcessor) -> StepProcessor:
    """The run's own phases without the model's: the person's action opens the action phase (so the step's
    times say nothing of asking the model)."""
    phases: list[tuple[ProcessingPhase, Strategy]] = []
    for phase, strategy in processor.phases:
        if phase == ProcessingPhase.LLM_INTERACTION:
            persons = PersonsAction(rc, strategy)
        elif phase == ProcessingPhase.ACTION_EXECUTION:
            phases.append((phase, ComposedStrategy([persons, strategy], name=strategy.name,
                                                   fail_fast=strategy.fail_fast)))
        else:
            phases.append((phase, strategy))
    return StepProcessor(phases, initial={"persons_action"}, middleware=processor.middleware)


async def persons_turn(rc: RunContext, processor: StepProcessor, step: int) -> int:
    """Carry out the person's actions as steps until they hand back; returns the last step's number.
    The whole turn is the person's time (the run's time limit stands still); Stop ends it at once."""
    take_over, control = rc.control.take_over, rc.control
    steps = persons_processor(rc, processor)
    rc.events.emit(TakenOver(step))
    if rc.machine.status != AgentStatus.CONFIRM:
        rc.machine.go(AgentStatus.CONFIRM, "the person has taken over the phone")
    try:
        with control.waiting_for_person():
            while True:
                item = await control.interruptible(take_over.next())
                if isinstance(item, str):
                    note = item
                    break
                step += 1
                rc.events.emit(StepStarted(step))
                ctx = StepContext(step)
                ctx.set("persons_action", item.action)
                try:
                    await steps.process(ctx)
                except Exception as exc:
                    if not item.done.done():
                        item.done.set_exception(exc)
                    if "memory_item" not in ctx.values:
                        await steps.process(ctx, only={ProcessingPhase.MEMORY_UPDATE})
                    continue
                finally:
                    record = ctx.get_or("memory_item")
                    if record is not None:
                        take_over.steps.append(record.summary_line())
                if not item.done.done():
                    item.done.set_result(ctx.get_or("memory_item"))
    except BaseException:
        take_over.abandon()
        raise
    feedback = hand_back_note(take_over.steps, note)
    rc.pending_feedback = f"{rc.pending_feedback}\n{feedback}".strip()
    rc.events.emit(HandedBack(step, note, len(take_over.steps)))
    rc.machine.go(AgentStatus.CONTINUE, "the person handed the phone back")
    return step
