"""Phases 2–4: ask the model, let the person review, act on the phone, remember the step."""

from __future__ import annotations

import dataclasses
import logging
from functools import cached_property

from .actions import (
    GO_TO_SCREEN,
    USE_SKILL,
    Action,
    AskUser,
    ModelReply,
    ReplyInvalid,
    check_against_screen,
    describe_action,
)
from .after_action import settle_after_action
from .collection_strategies import RunStrategy
from .coordinates import CoordinateMapper
from .events import ActionExecuted, ModelAsked, ModelFailed, ModelWords, ProposalMade, ReplyRetried, StepFinished
from .memory import ActionOutcome, Decision, MemoryItem
from .model_decision import ReplyUnusable, ask_for_action
from .model_errors import ModelError, failure_reason
from .pipeline import StepContext
from .prompts import ScreenContext
from .records import ModelReplyRecord
from .run_context import ScreenRecord
from .screen_recheck import rechecked_after, screen_moved_since_review
from .sensitive import action_target, reply_sensitivity
from .spending import SpendingCap, check_before_model_call
from .states import AgentStatus
from .supervisor import Proposal, ReviewAnswer, RunStopped
from .take_over import PERSON, PersonTookOver

log = logging.getLogger(__name__)


def message_text(message: dict) -> str:
    """The text parts of a chat message (images left out), for the record."""
    content = message.get("content", "")
    if isinstance(content, str):
        return content
    return "\n".join(part.get("text", "") for part in content if part.get("type") == "text")


FAILURE_NOTE_LIMIT = 400
"""Characters of the last action's failure message repeated in the next prompt (the step line is clipped)."""


def last_action_note(last: MemoryItem | None, reflection) -> str:
    """The check of the last action for the next prompt: its failure in full (a typed text read
    back wrong, say, which the clipped step line cuts off), then the screen check."""
    notes = [reflection.prompt_note()] if reflection else []
    if last is not None and last.result is not None and not last.result.success and last.result.message:
        message = last.result.message
        if len(message) > FAILURE_NOTE_LIMIT:
            message = message[:FAILURE_NOTE_LIMIT - 1] + "…"
        notes.insert(0, f"step {last.step} failed: {message}")
    return " — ".join(notes)


def replies_stored_once(replies: list, raw_reply: str) -> list:
    """Copies of the step's reply records in which a raw text equal to the step's `raw_reply` is not
    stored again (`raw_text_in_step` says where it is): a huge reply is kept once per step."""
    kept = []
    for reply in replies:
        if raw_reply and reply.raw_text == raw_reply:
            reply = dataclasses.replace(reply, raw_text="", raw_text_in_step=True)
        kept.append(reply)
    return kept


def check_skill_choice(action: Action, offered: dict[str, str]) -> None:
    """A use_skill reply must name a skill that was offered (ReplyInvalid, sent back to the model, if not)."""
    if action.function != USE_SKILL:
        return
    if not offered:
        raise ReplyInvalid("use_skill is not available now: no skills were offered. Choose another function.")
    name = str(action.arguments.get("name") or "")
    if name not in offered:
        raise ReplyInvalid(f"There is no skill called {name!r}; the skills are: "
                           + ", ".join(repr(known) for known in offered) + ".")


def check_screen_choice(action: Action, offered: dict[str, str]) -> None:
    """A go_to_screen reply must name a screen that was listed (ReplyInvalid, sent back to the model, if not)."""
    if action.function != GO_TO_SCREEN:
        return
    if not offered:
        raise ReplyInvalid("go_to_screen is not available now: no known screens were listed. Choose another "
                           "function.")
    name = str(action.arguments.get("screen") or "")
    if name not in offered:
        raise ReplyInvalid(f"There is no known screen called {name!r}; the screens are: "
                           + ", ".join(repr(known) for known in offered) + ".")


MAX_QUESTIONS_PER_REPLY = 3
"""At most this many of a reply's `questions` are put to the person (a model cannot flood them)."""
QUESTION_LIMIT = 500
"""Characters of one question shown to the person."""


class StuckFailure(RuntimeError):
    """The model repeats what it was warned does not work."""


class TooManyRejections(RuntimeError):
    pass


class RunCannotGoOn(RuntimeError):
    """Nothing is left to decide the next action (a replay stopped and no model is there to take over)."""


class Decide(RunStrategy):
    """Phase 2: build the prompt, get a valid action (retrying with the error), make it a proposal."""

    needs = ("screenshot", "controls", "installed_apps", "model_images", "reflection", "foreground",
             "screen_only", "fingerprint")
    provides = ("proposal", "reply", "model_usage")

    @cached_property
    def spending(self) -> SpendingCap:
        """The run's spending cap (settings agent.max_tokens_per_run / max_cost_usd_per_run)."""
        return SpendingCap(self.rc.settings, self.rc.events.message)

    async def run(self, ctx: StepContext) -> None:
        rc = self.rc
        # the cap is checked before the model is asked: a reached cap ends the run (SpendingCapReached is fatal)
        check_before_model_call(self.spending, rc.memory, ctx.get_or("model_usage"))
        shot = ctx.get("screenshot")
        controls = ctx.get("controls")
        images = ctx.get("model_images")
        reflection = ctx.get("reflection")
        screen = ScreenContext(controls=controls, screen_size=shot.size, image_size=images.image_size,
                               foreground_package=ctx.get("foreground"), installed_apps=ctx.get("installed_apps"),
                               image_urls=images.urls, screen_only=ctx.get("screen_only"))
        user = rc.prompts.user_message(
            rc.request, screen, rc.memory.recent(rc.settings.agent.recent_steps_in_prompt), rc.plan,
            rc.pending_feedback, last_action_note(rc.memory.last, reflection), rc.answers, rc.stuck.warning,
            skills=rc.skills_offered, map_note=rc.map_note)
        mapper = CoordinateMapper(shot.size, images.image_size, rc.settings.provider.coordinate_mode)
        mapped: dict[str, Action] = {}

        def validate(reply: ModelReply) -> None:
            check_skill_choice(reply.action, rc.skills_offered)
            check_screen_choice(reply.action, rc.screens_offered)
            action = mapper.action_to_device(reply.action)
            check_against_screen(action, controls, shot.size)
            mapped["action"] = action

        replies: list[ModelReplyRecord] = []
        assert rc.system_message is not None      # AgentRun builds it with the run
        if rc.settings.provider.stream:   # the words are shown as they arrive (console, window)
            rc.client.on_words = lambda text, tokens: rc.events.emit(ModelWords(ctx.step, text, tokens))
        step = ctx.step
        try:
            rc.control.check()    # a run stopped by now asks nothing (and leaves no request coroutine unawaited)
            outcome = await rc.control.interruptible(rc.control.take_over.or_taken(ask_for_action(
                rc.client, rc.prompts, [rc.system_message, user], validate=validate,
                retries=rc.settings.agent.reply_retries, replies=replies,
                on_asking=lambda budget: rc.events.emit(ModelAsked(step, budget)),
                on_asking_again=lambda problem, cut_off, budget: rc.events.emit(
                    ReplyRetried(step, problem, cut_off, budget)))))
        except PersonTookOver:              # the person took the phone while the model thought
            ctx.set("decision", Decision("take_over"))
            self._keep_usage(ctx, replies, 0, user, None)
            raise
        except BaseException as error:      # a failed step keeps its replies, tokens and prompt too
            if isinstance(error, ModelError):
                rc.events.emit(ModelFailed(step, failure_reason(error), str(error)))
            attempts = error.attempts if isinstance(error, ReplyUnusable) else 0
            self._keep_usage(ctx, replies, attempts, user, getattr(error, "raw_text", None))
            raise
        finally:
            rc.client.on_words = None
        self._keep_usage(ctx, replies, outcome.attempts, user, outcome.raw_text)
        rc.pending_feedback = ""
        reply = outcome.reply
        action = mapped["action"]
        await self._ask_questions(reply.questions)
        if reply.plan:
            rc.plan = list(reply.plan)
        rc.clean_image_asked = reply.clean_image
        if action.does_something and rc.stuck.repeats_after_warning(action, ctx.get("fingerprint")):
            raise StuckFailure("Stuck: the model repeated the same action on an unchanged screen after a warning.")
        ctx.set("proposal", Proposal(
            step=ctx.step, action=action, action_text=describe_action(action, controls), thought=reply.thought,
            comment=reply.comment, plan=list(reply.plan), controls=controls, screen_size=shot.size,
            screenshot=shot.image, target=action_target(action, controls),
            sensitive_reason=reply_sensitivity(reply, action, controls, rc.settings.agent.sensitive_words,
                                               request=rc.request, screen_only=bool(ctx.get("screen_only")),
                                               system_dialogs=rc.settings.agent.system_dialogs)))
        ctx.set("reply", reply)

    async def _ask_questions(self, questions: list[str]) -> None:
        """The reply's `questions` (seed 002) go to the person as ask_user's do; the answers reach the
        model's next prompt. A question already answered in this run is not asked again."""
        rc = self.rc
        asked = {question for question, _ in rc.answers}
        for question in questions[:MAX_QUESTIONS_PER_REPLY]:
            question = " ".join(str(question).split())[:QUESTION_LIMIT]
            if question and question not in asked:
                asked.add(question)
                rc.answers.append((question, await rc.control.interruptible(rc.supervisor.ask(question))))

    @staticmethod
    def _keep_usage(ctx: StepContext, replies: list, attempts: int, user: dict, raw_text: str | None) -> None:
        """Add this decision's model calls to the step's usage (a rejected proposal decides again):
        tokens summed over every call, the last raw reply, the prompt's text and each call's record."""
        usage = ctx.get_or("model_usage") or {"prompt": 0, "completion": 0, "attempts": 0, "replies": []}
        usage["prompt"] += sum(reply.prompt_tokens for reply in replies)
        usage["completion"] += sum(reply.completion_tokens for reply in replies)
        usage["attempts"] += attempts
        usage.setdefault("replies", []).extend(replies)
        if raw_text is None:       # no reply was read (an HTTP failure): the last words the server said
            raw_text = next((reply.raw_text for reply in reversed(replies) if reply.raw_text), "")
        usage["raw_reply"] = raw_text
        usage["prompt_text"] = message_text(user)
        ctx.set("model_usage", usage)


class Review(RunStrategy):
    """Between decision and action: the person (or, in auto mode, the policy) decides."""

    needs = ("proposal",)
    provides = ("approved_action", "decision")

    def __init__(self, rc, decide: RunStrategy, fail_fast: bool):      # Decide, or a replay's wrapper of it
        super().__init__(rc, fail_fast)
        self.decide = decide

    async def run(self, ctx: StepContext) -> None:
        rc = self.rc
        rejections: list[str] = []
        for _ in range(rc.settings.agent.max_rejections_per_step + 1):
            proposal: Proposal = ctx.get("proposal")
            if proposal.proposed_by == PERSON:      # the person's own action in their turn: theirs to take
                self._approve(ctx, proposal.action, Decision("person"))
                return
            if rc.control.take_over.active:         # taken over while the model decided: nothing of it is done
                ctx.set("decision", Decision("take_over"))
                raise PersonTookOver("the person took over")
            rc.events.emit(ProposalMade(proposal.step, proposal))
            if rc.settings.agent.mode == "auto" and not proposal.is_sensitive:
                self._approve(ctx, proposal.action, Decision("auto", by="auto"))
                return
            reason = proposal.sensitive_reason or "step mode: every action is reviewed"
            rc.machine.go(AgentStatus.CONFIRM, f"waiting for the person: {reason}")
            try:
                answer: ReviewAnswer = await rc.control.interruptible(rc.supervisor.review(proposal))
            except Exception:
                rc.machine.go(AgentStatus.CONTINUE, "the review failed")
                raise
            if answer.kind == "stop":
                rc.control.stop(f"stopped by the person at the approval of step {ctx.step}")
                raise RunStopped(rc.control.stop_reason)
            if answer.kind == "take_over":
                ctx.set("decision", Decision("take_over"))
                raise PersonTookOver("the person took over")
            rc.machine.go(AgentStatus.CONTINUE, f"the person chose to {answer.kind}")
            if answer.kind == "reject":
                feedback = answer.feedback.strip() or "The person rejected this action without a reason."
                rejections.append(feedback)
                rc.pending_feedback = f"You proposed: {proposal.action_text}. The person rejected it: {feedback}"
                ctx.set("rejections", rejections)
                await self.decide.run(ctx)
                continue
            action = answer.action if answer.kind in ("edit", "override") and answer.action else proposal.action
            self._approve(ctx, action, Decision(answer.kind, by=answer.by, feedback="; ".join(rejections)))
            return
        raise TooManyRejections(f"The person rejected {len(rejections)} proposals in a row at step {ctx.step}.")

    def _approve(self, ctx: StepContext, action: Action, decision: Decision) -> None:
        if decision.kind in ("edit", "override"):
            check_against_screen(action, ctx.get("controls"), ctx.get("screenshot").size)
        if action.status == "CONFIRM":       # confirmed (by the person: CONFIRM is always reviewed): it runs on
            action = action.model_copy(update={"status": "CONTINUE"})
        ctx.set("approved_action", action)
        ctx.set("decision", decision)


class Execute(RunStrategy):
    """Phase 3: act on the phone. Failures are recorded; the run goes on."""

    needs = ("approved_action", "controls", "fingerprint")
    provides = ("outcome",)

    async def run(self, ctx: StepContext) -> None:
        rc = self.rc
        action: Action = ctx.get("approved_action")
        if not action.does_something:
            ctx.set("outcome", None)
            return
        decision = ctx.get_or("decision")
        if decision is not None and rechecked_after(decision.kind, action):
            # time passed while the person decided: act only on the screen they saw
            assert rc.screen_tree is not None     # RunContext makes one when the session has none
            moved = await rc.control.interruptible(screen_moved_since_review(rc.screen_tree, action,
                                                                            ctx.get("controls")))
            if moved:
                rc.events.message(f"Step {ctx.step}: {moved}")
                ctx.set("outcome", ActionOutcome(False, moved))
                return
        outcome = await rc.executor.execute(action, ctx.get("controls"))
        ctx.set("outcome", outcome)
        if isinstance(action.args, AskUser) and outcome.success:
            rc.answers.append((action.args.question, rc.executor.last_answer))
        rc.stuck.record(action, ctx.get("fingerprint"))
        try:
            await settle_after_action(rc, ctx)
            # typed text is read back once the screen has settled: a mismatch fails the action
            outcome = await rc.control.interruptible(rc.executor.check_typing(outcome))
            ctx.set("outcome", outcome)
        finally:
            rc.events.emit(ActionExecuted(ctx.step, describe_action(action, ctx.get("controls")), outcome.success,
                                          outcome.message, outcome.duration_ms))

    def fallback(self, ctx: StepContext, error: BaseException) -> None:
        ctx.set("outcome", ActionOutcome(False, f"The action could not be carried out: {error}"))


def changed_by_the_person(proposed: Action, approved: Action) -> bool:
    """Whether the action that ran is not the one proposed (an edit, an override); a confirmed CONFIRM that
    runs as CONTINUE is the same action."""
    return (proposed.function, proposed.arguments) != (approved.function, approved.arguments) or (
        proposed.status != approved.status and proposed.status != "CONFIRM")


class Remember(RunStrategy):
    """Phase 4: one memory item per step, written to the run folder at once (also after failures)."""

    needs = ("screenshot",)
    provides = ("memory_item",)

    async def run(self, ctx: StepContext) -> None:
        rc = self.rc
        shot = ctx.get_or("screenshot")
        proposal: Proposal | None = ctx.get_or("proposal")
        approved: Action | None = ctx.get_or("approved_action")
        controls = ctx.get_or("controls") or []
        usage = ctx.get_or("model_usage") or {}
        reflection = ctx.get_or("reflection")
        images = ctx.get_or("model_images")
        executed = approved or (proposal.action if proposal else None)
        item = MemoryItem(
            step=ctx.step, request=rc.request,
            thought=proposal.thought if proposal else "", comment=proposal.comment if proposal else "",
            plan=list(rc.plan),
            action=executed.model_dump() if executed else {},
            proposed_action=proposal.action.model_dump() if proposal and approved and changed_by_the_person(
                proposal.action, approved) else None,
            action_text=describe_action(executed, controls) if executed else "",
            status=executed.status if executed else "CONTINUE",
            decision=ctx.get_or("decision"), result=ctx.get_or("outcome"),
            reflection=reflection.to_dict() if reflection else None,
            foreground=ctx.get_or("foreground") or "", activity=ctx.get_or("activity") or "",
            controls_count=len(controls), screen_signature=ctx.get_or("fingerprint") or "",
            screen_only=bool(ctx.get_or("screen_only")),
            images_withheld=ctx.get_or("images_withheld") or "",
            timings_ms=dict(ctx.timings_ms), settle_ms=ctx.timings_ms.get("settle", 0.0),
            tokens={"prompt": usage.get("prompt", 0), "completion": usage.get("completion", 0)},
            cost_usd=rc.client.estimate_cost(rc.settings, rc.settings.provider.model, usage.get("prompt", 0),
                                             usage.get("completion", 0)),
            model_attempts=usage.get("attempts", 0),
            error="; ".join(f"{name}: {error}" for name, error in ctx.errors),
            prompt_text=usage.get("prompt_text", ""), raw_reply=usage.get("raw_reply", ""),
            model_replies=replies_stored_once(usage.get("replies", []), usage.get("raw_reply", "")),
            completion_check=completion.to_dict() if (completion := ctx.get_or("completion")) else None)
        focused = next((control for control in controls if control.focused), None)

        def target_of(action):   # type_text without a control id types into the focused field
            return action_target(action, controls) or (focused if action.function == "type_text" else None)

        item.record_screen(controls, target_of(executed) if executed is not None else None)
        for action in filter(None, (executed, proposal.action if proposal else None)):
            field = target_of(action)
            if action.function == "type_text" and field is not None and field.password:
                item.mask_text(str(action.arguments.get("text") or ""))   # a password is never recorded
        if shot is not None and images is None:     # the images were not prepared: the readers get the screenshot
            rc.observed(ctx.step, shot.image, None, controls, item.foreground, item.screen_only)
        rc.memory.add(item)
        ctx.set("memory_item", item)
        if executed is not None and executed.does_something and images is not None:
            rc.previous = ScreenRecord(ctx.step, controls, images.clean, next(iter(images.urls.values()), ""),
                                       ctx.get_or("fingerprint") or "", item.action_text)
        rc.events.emit(StepFinished(ctx.step, item))
