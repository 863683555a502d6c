"""The planner of seed 003 (algorithm 2), before the model is asked: replay what is already known.

Before the first step, `plan_run` decides how the run begins: the recorded steps it was given
(a replay), or a stored skill whose trigger fits the request — an exact or parameterised match,
decided without a model call — or nothing (the model decides from the start). A chosen skill
runs like a replay; the completion check judges its result (seed 003, algorithm 3), and where
it stops fitting, the model takes over.

After the run, `learn_from_run` keeps what it taught: the skill's success history; and, by the rules of
`skill_learning` (a verified ending, steps that made progress, an exact trigger until two runs differ in a
value, a skill replaced only by a run that did at least as much), a new skill from a successful run that the
model drove (settings: learning.save_skills), or a renewed one when a skill stopped fitting. Reading and writing skill
files happens in a worker thread; a problem with them is told on the run's stream and never
fails the run.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from app.core.agent.records import RunResult
from app.core.agent.trajectory import load_run
from app.core.config import Settings

from .recorded_steps import ReplayScript, script_from_run
from .replay import ScriptPlayer
from .skill_learning import keep_run
from .skill_store import SkillStore
from .skills import Skill, SkillError, SkillMatch, differences, match_request

log = logging.getLogger(__name__)


@dataclass
class RunPlan:
    """How a run begins: the player of its recorded steps (None: the model decides from the start)."""

    player: ScriptPlayer | None = None
    skill: Skill | None = None
    values: dict[str, str] = field(default_factory=dict)
    exact: bool = False                                  # the skill was recorded for this very request
    notes: list[str] = field(default_factory=list)      # told on the run's stream when it starts
    offered: list[Skill] = field(default_factory=list)   # the skills the model may choose (use_skill) when it decides
    model_available: bool = True
    used: list[tuple[Skill, ScriptPlayer]] = field(default_factory=list)   # every skill played, in order

    @property
    def replays(self) -> bool:
        return self.player is not None

    def offered_triggers(self) -> dict[str, str]:
        return {skill.name: skill.trigger or skill.request for skill in self.offered}

    def adopt(self, name: str, values: dict) -> ScriptPlayer | str:
        """The model chose the offered skill `name` with `values`: its player (now this plan's), or why not."""
        skill = next((skill for skill in self.offered if skill.name == name), None)
        if skill is None:
            return "it is not one of the skills offered"
        try:
            script = skill.script({str(key): str(value) for key, value in values.items()})
        except SkillError as exc:
            return str(exc)
        self.player = ScriptPlayer(script, what=f"skill “{skill.name}”", model_available=self.model_available)
        self.skill, self.values, self.exact = skill, dict(values), False
        self.used.append((skill, self.player))
        return self.player


OFFERED_SKILLS = 20
"""Skills offered to the model at most when none fits by its trigger (most successful first)."""


def _choose_skill(request: str, store: SkillStore,
                  phone: dict) -> tuple[SkillMatch | None, list[Skill], list[str]]:
    skills, problems = store.load()
    notes = [f"A skill file was skipped: {problem}" for problem in problems]
    match = match_request(request, skills)
    if match is None:
        return None, _offerable(skills), notes
    how = "its request" if match.exact else f"its trigger “{match.skill.trigger}”"
    notes.append(f"Using skill “{match.skill.name}” (it fits {how}"
                 + (f", with {', '.join(f'{k} = {v}' for k, v in match.values.items())}"
                    if match.values and not match.exact else "")
                 + "): its recorded steps are done again, each reviewed as usual; reject one to let the "
                 "model decide instead.")
    notes += [f"Skill “{match.skill.name}”: {difference}" for difference in differences(match.skill, phone)]
    return match, _offerable(skill for skill in skills if skill.name != match.skill.name), notes


def _offerable(skills) -> list[Skill]:
    """The enabled skills the model may choose, most successful first (after a skill ends, another may fit)."""
    usable = sorted((skill for skill in skills if skill.enabled),
                    key=lambda skill: (skill.history.failures - skill.history.successes, skill.name))
    return usable[:OFFERED_SKILLS]


async def plan_run(request: str, *, replay: ReplayScript | None, use_skills: bool, model_available: bool,
                   phone: dict, store: SkillStore | None = None) -> RunPlan:
    """How the run begins (see the module's docstring)."""
    if replay is not None:
        notes = [f"Replaying {len(replay.steps)} recorded steps of “{replay.request}”"
                 + (f" (from {replay.source})" if replay.source else "") + ", without the model."]
        notes += [f"The recorded run has a problem: {problem}" for problem in replay.problems[:5]]
        notes += [f"The run was {difference}." for difference in differences(replay, phone)]
        what = f"the replay of “{replay.request}”"
        return RunPlan(ScriptPlayer(replay, what=what, model_available=model_available), notes=notes)
    if not use_skills:
        return RunPlan()
    store = store or SkillStore()
    try:
        match, offered, notes = await asyncio.to_thread(_choose_skill, request, store, phone)
    except Exception as exc:          # the skills folder is unreadable: the model decides, the run goes on
        log.warning("skills could not be read: %s", exc)
        return RunPlan(notes=[f"The skills could not be read ({exc}); the model decides every step."])
    offered = offered if model_available else []     # the model may choose one (use_skill) when it can be asked
    if match is None:
        return RunPlan(notes=notes, offered=offered, model_available=model_available)
    skill = match.skill
    player = ScriptPlayer(skill.script(match.values), what=f"skill “{skill.name}”", model_available=model_available)
    return RunPlan(player, skill, dict(match.values), exact=match.exact, notes=notes, offered=offered,
                   model_available=model_available, used=[(skill, player)])


def _person_approved(run_dir: Path, step: int) -> bool:
    """Whether the run's record says a person approved (edited, or chose) its step `step`."""
    if step <= 0:
        return False
    return any(record.step == step and record.decision is not None and record.decision.by == "person"
               and record.decision.kind in ("approve", "edit", "override") for record in load_run(run_dir).steps)


def _learn(plan: RunPlan, result: RunResult, run_dir: Path, settings: Settings, store: SkillStore,
           request: str) -> list[str]:
    """The blocking part of learn_from_run; returns what to tell."""
    player, skill = plan.player, plan.skill
    for earlier, _ in plan.used[:-1]:      # a skill another one followed did not do the job
        store.record_outcome(earlier.name, False)
    if skill is not None and player is not None:
        worked = result.succeeded and player.finished
        store.record_outcome(skill.name, worked, approved=worked and _person_approved(run_dir, player.first_step))
        if worked:
            return []
    elif plan.replays:
        return []
    if not result.succeeded or not settings.learning.save_skills:
        return []
    script = script_from_run(run_dir)
    if not script.steps:
        return []
    # the model finished what a skill for this very request began: that skill may be renewed from the run
    return keep_run(store, script, request, result.verification, used=skill if plan.exact else None)


async def learn_from_run(plan: RunPlan, result: RunResult | None, run_dir: str, settings: Settings,
                         request: str, tell: Callable[[str], None], store: SkillStore | None = None) -> None:
    """Keep what the run taught (see the module's docstring); never raises."""
    if result is None or not run_dir:
        return
    try:
        told = await asyncio.to_thread(_learn, plan, result, Path(run_dir), settings, store or SkillStore(), request)
    except Exception as exc:
        log.warning("could not learn from the run %s: %s", run_dir, exc)
        told = [f"The run could not be kept as a skill: {exc}"]
    for line in told:
        tell(line)
