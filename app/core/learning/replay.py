"""Doing a recorded run (or a skill) again on the current phone, without the model.

`ScriptPlayer` turns the next recorded step into an action for the current screen: the target
is found again by its locator (`regrounding.find_target`), never by its old id, and the screen
must still be what the step was recorded on — the same app, the target present and alike, the
app installed. A step that flipped a switch is skipped as already done when the switch already
shows the state it was flipped to. On the first mismatch the player stops and hands over.

`ReplayOrDecide` takes the place of the model's `Decide` in the pipeline: while the player has
steps, it proposes them (reviewed as any proposal: step mode asks for each, auto mode only for
sensitive ones); after a hand-over — a mismatch, or the person rejecting a recorded step — the
model decides, told where the replay stopped. Without a model, a hand-over ends the run
(`ReplayStopped`) with the reason. When every step is done the player proposes FINISH, and the
completion check compares the screen with the one the recorded run ended on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from app.core.agent.action_kinds import kind_of
from app.core.agent.action_strategies import Decide, Review, RunCannotGoOn
from app.core.agent.actions import GO_TO_SCREEN, USE_SKILL, Action, Expectation, ModelReply, describe_action
from app.core.agent.collection_strategies import RunStrategy
from app.core.agent.completion_check import REPLAY_FINAL_SCREEN
from app.core.agent.pipeline import ComposedStrategy, ProcessingPhase, StepContext, Strategy
from app.core.agent.regrounding import find_target, switch_is_on
from app.core.agent.run_context import RunContext
from app.core.agent.sensitive import action_sensitivity, action_target
from app.core.agent.supervisor import Proposal
from app.core.device.errors import DeviceError
from app.core.perception.controls import Control
from app.core.perception.locator import summarize_control

from .navigation import MapGuide
from .recorded_steps import RecordedStep, ReplayScript
from .screen_cards import title_from_controls
from .screen_signature import stable_signature

RECORDED_DECISIONS = {"approve": "approved by the person", "edit": "edited by the person",
                      "override": "chosen by the person", "auto": "taken without asking"}


class ReplayStopped(RunCannotGoOn):
    """A replay could not go on and no model is there to take over."""


@dataclass
class Planned:
    """What the player proposes for the current screen: an action (None: it has handed over)."""

    action: Action | None
    step: RecordedStep | None = None
    notes: list[str] = field(default_factory=list)
    expect: Expectation | None = None


class ScriptPlayer:
    """Walks a ReplayScript step by step against the screens the phone shows now."""

    def __init__(self, script: ReplayScript, *, what: str, model_available: bool,
                 screens_before: Sequence[frozenset[str]] | None = None,
                 arrival: tuple[str, frozenset[str]] | None = None,
                 describe_screen: Callable[[str], str] | None = None) -> None:
        self.script = script
        # a way along the map: the screen signatures each step must start on (empty: any), and where it ends
        self.screens_before = list(screens_before or [])
        self.arrival = arrival
        self.describe_screen = describe_screen or (lambda signature: "")
        self.arrived = False
        self._screen, self._title = "", ""            # the screen `plan` was last told of, and its title
        self.what = what                      # "the replay of …" / "skill “…”", for the person and the model
        self.model_available = model_available
        self.position = 0                     # the index of the next recorded step
        self.active = True
        self.handover = ""                    # why the player stopped before the end ("" while active / at the end)
        self.done = 0                         # recorded steps done again
        self.skipped = 0                      # recorded steps skipped as already done
        self.finished = False                 # every step done (or skipped) and FINISH proposed
        self.first_step = 0                   # the run's step at which it proposed its first action (0: none yet)
        self._last_toggle: tuple[RecordedStep, Control] | None = None

    @property
    def total(self) -> int:
        return len(self.script.steps)

    def hand_over(self, reason: str) -> None:
        if self.active:
            self.active, self.handover = False, reason

    @property
    def needs_screen(self) -> bool:
        """Whether `plan` must be told the screen's stable signature (a way along the map)."""
        return bool(self.arrival) or any(self.screens_before)

    def _shown(self, signature: str) -> str:
        known = self.describe_screen(signature)
        if known:
            return known
        title = self._title if signature == self._screen else ""
        return f"“{title}”, a screen the map does not know" if title else "a screen the map does not know"

    def plan(self, controls: Sequence[Control], foreground: str, installed_apps: Sequence[str],
             screen: str = "") -> Planned:
        """The next recorded step as an action on this screen, skipping those already done; or FINISH at the
        end (or, for a way along the map, a hand-over on arrival); or a hand-over (action None, `handover`
        says why). `screen` is the screen's stable signature when `needs_screen`."""
        notes: list[str] = []
        if self.needs_screen:
            self._screen, self._title = screen, title_from_controls([summarize_control(c) for c in controls])
        while self.active and self.position < self.total:
            step = self.script.steps[self.position]
            where = f"recorded step {step.step} ({step.action_text or step.function})"
            if self.script.source == "the map of screens":
                where = f"step {step.step} ({step.words})"
            expected = self.screens_before[self.position] if self.position < len(self.screens_before) else None
            mismatch = self._screen_mismatch(step, foreground, installed_apps)
            if not mismatch and expected and screen not in expected:
                mismatch = (f"the phone shows {self._shown(screen)} instead of "
                            f"{self._shown(next(iter(sorted(expected))))}")
            if mismatch:
                self.hand_over(f"{where}: {mismatch}")
                return Planned(None, step, notes)
            action = Action.model_validate({**step.action, "status": "CONTINUE"})
            if step.needs_target and step.target is not None:
                grounding = find_target(step.target, controls)
                control = grounding.control
                if control is None:                 # not grounding.found
                    self.hand_over(f"{where}: {grounding.reason}")
                    return Planned(None, step, notes)
                if step.target_checked is not None:
                    state = switch_is_on(control, controls)
                    if state is not None and state != step.target_checked:
                        notes.append(f"“{label_of(control)}” is already {'on' if state else 'off'}: {where} "
                                     "is skipped as already done.")
                        self.position += 1
                        self.skipped += 1
                        continue
                    self._last_toggle = (step, control)
                kind = kind_of(step.function)
                arguments = kind.replayed(step.arguments, control) if kind is not None else dict(step.arguments)
                action = Action(function=step.function, arguments=arguments, status="CONTINUE")
            self.position += 1
            self.done += 1
            return Planned(action, step, notes)
        if not self.active:
            return Planned(None, None, notes)
        if self.arrival is not None:
            name, goal = self.arrival
            self.arrived = screen in goal
            self.hand_over(f"arrived at “{name}”" if self.arrived else
                           f"the way to “{name}” ended on {self._shown(screen)}, not there")
            return Planned(None, None, notes)
        if self.script.ended not in ("success", ""):
            self.hand_over(f"all {self.total} recorded steps are done again, but the recorded run had "
                           f"{self.script.ended}, so the request is not done yet")
            return Planned(None, None, notes)
        self.active, self.finished = False, True
        return Planned(Action(function="", arguments={}, status="FINISH"), None, notes, self._expectation())

    def _screen_mismatch(self, step: RecordedStep, foreground: str, installed_apps: Sequence[str]) -> str:
        if step.function == "launch_app":
            package = str(step.arguments.get("package_name") or "")
            if installed_apps and package and package not in installed_apps:
                return f"the app {package} is not installed on this phone"
            return ""
        expected = step.screen.package
        if expected and foreground and expected != foreground:
            return f"it was recorded in {expected}, but the phone shows {foreground}"
        return ""

    def _expectation(self) -> Expectation | None:
        """After a switch was flipped last, the FINISH expects it in its new state (checked on the screen)."""
        if self._last_toggle is None:
            return None
        step, control = self._last_toggle
        return Expectation(control=label_of(control), checked=not step.target_checked)

    def status_line(self) -> str:
        """How far the replay got, in words."""
        line = f"{self.what}: {self.done} of {self.total} " + ("steps taken" if self.arrival else
                                                                 "recorded steps done again")
        if self.skipped:
            line += f", {self.skipped} skipped as already done"
        return line + (f"; handed over: {self.handover}" if self.handover else "")


def label_of(control: Control) -> str:
    """A control's label as a person reads it ("Wi‑Fi" for the row "Wi‑Fi, Off")."""
    return control.name.split(",", 1)[0].strip() or control.name


class ReplayOrDecide(RunStrategy):
    """Phase 2 of a replay: the recorded step while it fits the screen, else the model (or a clear stop)."""

    needs = Decide.needs
    provides = Decide.provides

    def __init__(self, rc: RunContext, decide: Decide, player: ScriptPlayer | None,
                 adopt: Callable[[str, dict], ScriptPlayer | str] | None = None, fail_fast: bool = True,
                 guide: MapGuide | None = None) -> None:
        super().__init__(rc, fail_fast)
        self.decide = decide
        self.player = player
        self.adopt = adopt          # the model chose an offered skill: its player, or why it cannot be used
        self.guide = guide          # the map of screens: where the phone is, and known screens to go to
        self._told_model = False
        self._turns = 0             # the person's turns handed back when this last looked

    @property
    def name(self) -> str:
        return self.decide.name         # a person reads "Decide: …" in an error, not this class's name

    async def run(self, ctx: StepContext) -> None:
        rc, player = self.rc, self.player
        turns = rc.control.take_over.turns
        if player is not None and turns != self._turns:    # after Take over → Hand back the person's note leads
            player.hand_over("the person took over the phone and handed it back; the recorded steps do not "
                             "know what they did")
        self._turns = turns
        replayed: RecordedStep | None = ctx.get_or("replayed_step")
        if replayed is not None and player is not None and ctx.get_or("rejections"):   # a recorded step rejected
            feedback = ctx.get("rejections")[-1]
            player.hand_over(f"the person rejected recorded step {replayed.step} ({feedback})")
            ctx.set("replayed_step", None)
        if player is None:
            await self._model_decides(ctx)
            return
        if player.active:
            screen = self._signature(ctx) if player.needs_screen else ""
            packages = await self._packages(player)
            planned = player.plan(ctx.get("controls"), ctx.get("foreground") or "", packages, screen)
            for note in planned.notes:
                rc.events.message(f"Step {ctx.step}: {note}")
            if planned.action is not None:
                self._propose(ctx, planned.action, planned, player)
                return
        if player.arrived and not self._told_model:
            rc.events.message(f"Step {ctx.step}: {player.what}: {player.handover} in {player.done} steps, "
                              "without the model.")
        elif player.handover and not self._told_model:
            rc.events.message(f"Step {ctx.step}: {player.what} stopped — {player.handover}.")
        if not player.model_available:
            raise ReplayStopped(f"{player.status_line()}. No model is set up to take over; "
                                "finish the task by hand, or set up a model in Settings.")
        if not self._told_model:
            self._told_model = True
            rc.events.message(f"Step {ctx.step}: the model takes over.")
            rc.pending_feedback = (f"The first steps were done by {player.what}, without you; "
                                   f"{player.status_line()}. Carry on with the request from the screen as it is now."
                                   + (f" Also: {rc.pending_feedback}" if rc.pending_feedback and replayed is None
                                      else ""))
        await self._model_decides(ctx)

    def _signature(self, ctx: StepContext) -> str:
        return stable_signature(ctx.get("foreground") or "", ctx.get_or("activity") or "", ctx.get("controls")).id

    async def _model_decides(self, ctx: StepContext) -> None:
        """The model's decision; when it chooses an offered skill or a known screen, their first step instead."""
        guide = self.guide
        if guide is not None:
            self.rc.map_note = guide.observe(ctx.get("foreground") or "", ctx.get_or("activity") or "",
                                             ctx.get("controls"))
            self.rc.screens_offered = guide.offered_names()
        await self.decide.run(ctx)
        action = ctx.get("proposal").action
        if action.function == GO_TO_SCREEN and guide is not None:
            await self._go_to_screen(ctx, guide, str(action.arguments.get("screen") or ""))
            return
        if action.function != USE_SKILL or self.adopt is None:
            return
        name = str(action.arguments.get("name") or "")
        self.rc.skills_offered.pop(name, None)             # offered once: a skill that failed is not chosen again
        adopted = self.adopt(name, dict(action.arguments.get("parameters") or {}))
        if isinstance(adopted, str):
            self.rc.events.message(f"Step {ctx.step}: the skill “{name}” cannot be used: {adopted}.")
            self.rc.pending_feedback = f"The skill {name!r} cannot be used: {adopted}. Choose another action."
            await self._model_decides(ctx)
            return
        self.rc.events.message(f"Step {ctx.step}: the model chose to use the skill “{name}”; its recorded steps "
                               "follow, each reviewed as usual (reject one to let the model decide instead).")
        self.player, self._told_model = adopted, False
        ctx.set("replayed_step", None)
        await self.run(ctx)

    async def _go_to_screen(self, ctx: StepContext, guide: MapGuide, name: str) -> None:
        """The model chose a known screen: walk its way (each step proposed and reviewed as usual)."""
        way = guide.way_to(name)
        if isinstance(way, str):
            self.rc.events.message(f"Step {ctx.step}: the way to “{name}” cannot be taken: {way}.")
            self.rc.pending_feedback = f"go_to_screen {name!r} cannot be done: {way}. Choose another action."
            guide.refused.add(name)
            await self._model_decides(ctx)
            return
        script, before, goal = way
        self.rc.events.message(f"Step {ctx.step}: the model chose to go to “{name}” by the map's known way "
                               f"({len(script.steps)} steps, each checked on arrival; reject one to let the "
                               "model decide instead).")
        self.player = ScriptPlayer(script, what=f"the way to “{name}”", model_available=True,
                                   screens_before=before, arrival=(name, goal), describe_screen=guide.name_of)
        self._told_model = False
        ctx.set("replayed_step", None)
        await self.run(ctx)

    async def _packages(self, player: ScriptPlayer) -> list[str]:
        """Every package on the phone when the next recorded step opens an app (cached by the device layer);
        [] when it does not, or the list cannot be read (then the launch itself tells)."""
        if player.position >= player.total or player.script.steps[player.position].function != "launch_app":
            return []
        try:
            return await self.rc.device.all_packages()
        except DeviceError:
            return []

    def _approval_needed(self, ctx: StepContext, player: ScriptPlayer) -> str:
        """Why the player's first proposal waits for a person even in auto mode (imported, edited or with new
        values: `ReplayScript.approval_needed`); "" for its later ones."""
        if player.first_step not in (0, ctx.step):
            return ""
        player.first_step = ctx.step
        return player.script.approval_needed

    def _propose(self, ctx: StepContext, action: Action, planned: Planned, player: ScriptPlayer) -> None:
        rc = self.rc
        controls = ctx.get("controls")
        shot = ctx.get("screenshot")
        target = action_target(action, controls)
        not_approved = self._approval_needed(ctx, player)     # noted as the player's first step even when sensitive
        if planned.step is None:
            thought = f"{player.status_line()}; the request should now be done."
            comment = player.script.finish_comment or "the recorded steps are done"
            if player.script.final_screen:
                ctx.set(REPLAY_FINAL_SCREEN, player.script.final_screen)
        else:
            how = RECORDED_DECISIONS.get(planned.step.decided_by, "")
            kind = "step" if player.arrival else "recorded step"
            thought = f"{player.what}: {kind} {player.position} of {player.total}" + (
                f" ({how} when recorded)" if how else "")
            comment = ""
        ctx.set("proposal", Proposal(
            step=ctx.step, action=action, action_text=describe_action(action, controls), thought=thought,
            comment=comment, controls=controls, screen_size=shot.size, screenshot=shot.image, target=target,
            sensitive_reason=action_sensitivity(action, controls, rc.settings.agent.sensitive_words,
                                                request=rc.request, screen_only=bool(ctx.get_or("screen_only")),
                                                system_dialogs=rc.settings.agent.system_dialogs)
            or not_approved,
            proposed_by=player.what))
        expect = planned.expect.model_dump() if planned.expect is not None else None
        ctx.set("reply", ModelReply(thought=thought, action=action, comment=comment, expect=expect))
        ctx.set("replayed_step", planned.step)


def replaying(base: Callable[[RunContext], list], player: ScriptPlayer | None,
              adopt: Callable[[str, dict], ScriptPlayer | str] | None = None,
              offered: dict[str, str] | None = None, guide: MapGuide | None = None) -> Callable[[RunContext], list]:
    """`base`'s pipeline with the model's decision wrapped by the player (also where Review decides again);
    with `offered` skills (name → trigger), the model may choose one (use_skill) and `adopt` plays it; with
    a `guide`, the model is told where the phone is on the map and may go to a known screen (go_to_screen)."""
    def build(rc: RunContext) -> list:
        skills = bool(offered and adopt is not None)
        if skills:
            rc.skills_offered = dict(offered or {})
        if skills or guide is not None:
            rc.system_message = rc.prompts.system_message(offer_skills=skills, offer_screens=guide is not None)
        phases = base(rc)
        built = []
        wrapper: ReplayOrDecide | None = None
        strategy: Strategy
        for phase, strategy in phases:
            if phase == ProcessingPhase.LLM_INTERACTION and isinstance(strategy, Decide):
                wrapper = ReplayOrDecide(rc, strategy, player, adopt, fail_fast=strategy.fail_fast, guide=guide)
                strategy = wrapper
            built.append((phase, strategy))
        if wrapper is None:
            raise ValueError("a replay needs a pipeline with the model's Decide in its LLM phase")
        for _, strategy in built:
            for review in _reviews(strategy):
                review.decide = wrapper
        return built
    return build


def _reviews(strategy: Strategy) -> list[Review]:
    if isinstance(strategy, Review):
        return [strategy]
    if isinstance(strategy, ComposedStrategy):
        return [review for child in strategy.strategies for review in _reviews(child)]
    return []
