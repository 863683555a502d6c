"""Checked endings: after the model says FINISH, look at the phone again before calling the run a success.

A FINISH that carries an action has had that action run (and the screen settle) by the time
this check starts. The check takes a fresh dump: when the model's FINISH named what should now
be true (`expect`: a control and its state or text) and the dump shows exactly that, the screen
verifies the ending. Otherwise the model is asked one short question on the fresh screen ("does
this screen show the request is done?"). A "no" goes back into the loop with its reason; an
answer that cannot be read, or a model that cannot be asked, leaves the ending claimed only.
A mere change of screen never verifies anything.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from app.core.device.errors import DeviceError
from app.core.perception.controls import Control, normalise
from app.core.perception.model_image import data_url, encode_image, fit_for_model
from app.core.perception.protected_screen import withheld_reason
from app.core.perception.screen_diff import screen_fingerprint

from .actions import Action, Expectation, ReplyInvalid
from .collection_strategies import RunStrategy, foreground_package
from .llm_client import ModelError
from .pipeline import StepContext
from .reply_parsing import decode_reply
from .run_words import ENDINGS
from .supervisor import discard

REPLAY_FINAL_SCREEN = "replay_final_screen"
"""Step value set by a replay's FINISH: the screen signature the recorded run finished on. A fresh screen with
the same signature verifies the ending without asking the model."""

VerifiedBy = Literal["screen", "model", ""]
CHECK_OUTPUT_TOKENS = 256
REASON_LIMIT = 300


@dataclass
class CompletionVerdict:
    """The outcome of one completion check.

    `done` True with `verified_by` "screen" or "model": the ending is verified. `done` False:
    the check found the request not done (`reason` says why) and the run goes on. `done` None:
    nothing could tell (no check asked, an unreadable answer): the ending is claimed only.
    """

    done: bool | None
    verified_by: VerifiedBy = ""
    reason: str = ""

    @property
    def refuted(self) -> bool:
        return self.done is False

    @property
    def ending(self) -> Literal["screen", "model", "claimed"]:
        """How the run's success stands: verified by the screen, by the model, or claimed only."""
        return self.verified_by if self.done and self.verified_by else "claimed"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _labels(control: Control) -> set[str]:
    """What a control may be called: its name, text, description, id's last part, and the first
    part of a row's composite name ("Wi-Fi, Off" is the Wi-Fi row)."""
    labels = {control.name, control.text, control.content_desc, control.resource_id.rsplit("/", 1)[-1],
              control.name.split(",", 1)[0]}
    return {normalise(label) for label in labels if label}


def _row_mates(row: Control, controls: Sequence[Control]) -> list[Control]:
    """Checkable controls whose centre lies inside `row` (a switch in its settings row)."""
    left, top, right, bottom = row.rect
    return [c for c in controls if c is not row and c.checkable
            and left <= c.center[0] <= right and top <= c.center[1] <= bottom]


def _state_words(expectation: Expectation) -> str:
    parts = []
    if expectation.checked is not None:
        parts.append("on" if expectation.checked else "off")
    if expectation.selected is not None:
        parts.append("selected" if expectation.selected else "not selected")
    return " and ".join(parts)


def screen_shows(expectation: Expectation | None, controls: Sequence[Control]) -> tuple[bool, str]:
    """(True, what was seen) only when the dump shows exactly what `expectation` names; else
    (False, why it could not be verified by the screen)."""
    if expectation is None or not expectation.names_a_fact:
        return False, "the model did not name what the screen should show"
    wanted = normalise(expectation.control)
    named = [c for c in controls if wanted in _labels(c)] if wanted else list(controls)
    if wanted and not named:
        return False, f"no control called “{expectation.control}” is on the screen"
    if expectation.text is not None and expectation.text.strip():
        text = normalise(expectation.text)
        for control in named:
            shown = [normalise(value) for value in (control.text, control.content_desc, control.name) if value]
            if any(text == value or text in value for value in shown):
                where = f"“{expectation.control}” shows" if wanted else "the screen shows"
                return True, f"{where} “{expectation.text.strip()}”"
        return False, f"“{expectation.text.strip()}” is not shown" + (f" in “{expectation.control}”" if wanted else "")
    states = []
    for control in named:
        for candidate in ([control] if control.checkable else _row_mates(control, controls)):
            states.append((candidate.checked, candidate.selected))
    if not states:
        return False, f"“{expectation.control}” has no on/off state on the screen"
    matches = [(expectation.checked is None or checked == expectation.checked)
               and (expectation.selected is None or selected == expectation.selected) for checked, selected in states]
    if all(matches):
        return True, f"“{expectation.control}” is {_state_words(expectation)}"
    return False, f"“{expectation.control}” is not {_state_words(expectation)}"


def _answer(data: dict[str, Any]) -> bool | None:
    value = data.get("done", data.get("is_done", data.get("answer")))
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("yes", "true", "done"):
        return True
    if isinstance(value, str) and value.strip().lower() in ("no", "false", "not done"):
        return False
    return None


def encode_for_check(image, images) -> str:
    """The picture for the check's question, downscaled and encoded as the step's pictures are."""
    small, _ = fit_for_model(image, images.max_side)
    return data_url(encode_image(small, images.format, images.jpeg_quality), images.format)


class CheckCompletion(RunStrategy):
    """After a FINISH (and its action, if it carried one): one completion check on a fresh screen.

    Provides `completion` (a `CompletionVerdict`, or None when the step did not finish). The
    check's model call is added to the step's usage, so its tokens and reply are recorded."""

    needs = ("approved_action", "proposal")
    provides = ("completion",)

    async def run(self, ctx: StepContext) -> None:
        ctx.set("completion", None)
        action: Action = ctx.get("approved_action")
        if action.status != "FINISH":
            return
        rc = self.rc
        mode = rc.settings.agent.completion_check
        if mode == "off":
            ctx.set("completion", CompletionVerdict(None, reason="the completion check is off in settings"))
            return
        who = getattr(ctx.get_or("proposal"), "proposed_by", "") or "the model"
        rc.events.message(f"Step {ctx.step}: {who} says the task is done; checking the screen…")
        reply = ctx.get_or("reply")
        expectation = getattr(reply, "expect", None)
        controls: list[Control] = []
        foreground = ""
        try:
            snapshot = await rc.control.interruptible(rc.device.controls(refresh=True))
            controls, foreground = snapshot.controls, foreground_package(snapshot.hierarchy)
        except DeviceError as error:
            seen, why = False, f"the screen could not be read again ({error})"
        else:
            seen, why = screen_shows(expectation, controls)
            recorded_end = ctx.get_or(REPLAY_FINAL_SCREEN)
            if not seen and recorded_end and screen_fingerprint(controls) == recorded_end:
                seen, why = True, "the screen is the one the recorded run finished on"
        if seen:
            verdict = CompletionVerdict(True, "screen", why)
        elif mode == "screen_only":
            verdict = CompletionVerdict(None, reason=f"not verified by the screen: {why}")
        else:
            verdict = await self._ask_model(ctx, controls, foreground, why)
        ctx.set("completion", verdict)
        rc.events.message(f"Step {ctx.step}: {self.words(verdict)}")

    @staticmethod
    def words(verdict: CompletionVerdict) -> str:
        if verdict.refuted:
            return f"the check found the task not done yet: {verdict.reason}"
        return f"the ending is {ENDINGS[verdict.ending].text}" + (f": {verdict.reason}" if verdict.reason else "")

    async def _ask_model(self, ctx: StepContext, controls: list[Control], foreground: str,
                         screen_note: str) -> CompletionVerdict:
        rc = self.rc
        proposal = ctx.get("proposal")
        image_url, size = await self._fresh_picture(proposal.screen_size, controls, foreground)
        messages = rc.prompts.completion_check_messages(rc.request, proposal.comment or proposal.thought, controls,
                                                        size, image_url)
        replies: list = []
        try:
            response = await rc.control.interruptible(rc.client.complete(
                messages, max_output_tokens=CHECK_OUTPUT_TOKENS, replies=replies))
            answer = decode_reply(response)
        except (ModelError, ReplyInvalid) as error:
            return CompletionVerdict(None, reason=f"not verified: the model's check failed ({error}); {screen_note}")
        finally:
            self._add_usage(ctx, replies)
        done = _answer(answer)
        reason = " ".join(str(answer.get("reason") or "").split())[:REASON_LIMIT]
        if done is None:
            return CompletionVerdict(None, reason=f"not verified: the model's check gave no yes or no; {screen_note}")
        return CompletionVerdict(done, "model",
                                 reason or ("it says the screen shows it" if done else "no reason given"))

    async def _fresh_picture(self, screen_size: tuple[int, int], controls: list[Control],
                             foreground: str) -> tuple[str | None, tuple[int, int]]:
        """The screen now, encoded for the model; no picture for a text-only model, when none comes, or
        when it must not be sent (a protected screen, an app on the never-send list)."""
        rc = self.rc
        images = rc.settings.images
        if images.text_only or getattr(rc.client, "text_only", False):
            return None, screen_size
        frame_request = rc.frames.frame_after(time.monotonic())
        try:
            frame = await rc.control.interruptible(frame_request)
        except DeviceError:
            return None, screen_size
        except BaseException:
            discard(frame_request)
            raise
        shot = await asyncio.to_thread(frame.display_shot)
        if await asyncio.to_thread(withheld_reason, shot.image, controls, foreground, images.never_send_apps,
                                   shot.size):
            return None, screen_size
        return await asyncio.to_thread(encode_for_check, shot.image, images), shot.size

    @staticmethod
    def _add_usage(ctx: StepContext, replies: list) -> None:
        usage = ctx.get_or("model_usage") or {"prompt": 0, "completion": 0, "attempts": 0, "replies": []}
        usage["prompt"] += sum(reply.prompt_tokens for reply in replies)
        usage["completion"] += sum(reply.completion_tokens for reply in replies)
        usage.setdefault("replies", []).extend(replies)
        ctx.set("model_usage", usage)

    def fallback(self, ctx: StepContext, error: BaseException) -> None:
        ctx.set("completion", CompletionVerdict(None, reason=f"not verified: the check failed ({error})"))
