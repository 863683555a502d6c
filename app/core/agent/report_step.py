"""One step of the report: the screen before and after it (the action drawn on it), what the model
thought and proposed, what the person decided about each proposal and answered, how it went, and how
long it took, in words. Every text from the run is redacted again and HTML-escaped (`esc`)."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from app.core.providers import Pricing, cost_words
from app.core.redaction import redact

from .history_words import (
    PHASE_WORDS,
    human_ms,
    question_words,
    questions_of,
    rejected_reviews,
    review_words,
    step_decision,
    step_decision_note,
)
from .records import ModelReplyRecord, StepRecord
from .report_images import FINAL_SCREEN_FILE, Picture, Pictures, figure, step_is_private, step_marks
from .run_words import (
    NEUTRAL,
    SCREEN_ONLY_NOTE,
    action_words,
    decision_word,
    result_words,
    step_outcome_word,
    target_words,
    thought_and_comment,
)
from .trajectory import step_file

REPORT_TEXT_LIMIT = 4000
"""Characters of a model reply or prompt shown in the report; the rest is in steps.jsonl."""
REPLY_PROBLEM_LIMIT = 160
"""Characters of a reply's problem shown in the list of a step's model replies."""


def esc(value: Any) -> str:
    """Text from the run, redacted (again: a key registered since) and HTML-escaped."""
    return html.escape(redact(str(value)), quote=True)


def badge(text: str, colour: str) -> str:
    return f'<span class="badge" style="background:{colour}">{esc(text)}</span>'


def row(label: str, value_html: str) -> str:
    return f'<div class="row"><span class="label">{esc(label)}</span>{value_html}</div>'


# ---------------------------------------------------------------- the pictures


def step_picture(pictures: Pictures, run_dir: Path, step: StepRecord) -> Picture | None:
    """The step's screen as the model saw it (numbered controls), else the plain screenshot."""
    screen = step_file(run_dir, step.screenshot)
    private = step_is_private(step)
    for name in (step.annotated_screenshot, step.screenshot):
        picture = pictures.picture(step_file(run_dir, name), screen, private)
        if picture is not None:
            return picture
    return None


def _shots(pictures: Pictures, run_dir: Path, step: StepRecord, after_step: StepRecord | None) -> str:
    """The "before" figure with the action drawn on it, and the "after" one: the next step's screen, or the
    screen the run left when this is the last step."""
    before = step_picture(pictures, run_dir, step)
    marks, said = step_marks(step, before.size) if before is not None else ("", [])
    if not said and step.result is not None and step.action_text:      # a key, an app, a wait: no place to mark
        said = [step.action_text[:1].lower() + step.action_text[1:60]]
    caption = "Before" + (": " + ", ".join(said) if said else "")
    shots = [figure(before, caption, f"the screen before step {step.step}" + (f", {', '.join(said)}" if said else ""),
                    marks, missing="No screenshot was saved for this step.")]
    if step.result is None:
        shots.append(figure(None, "After", "", missing="Nothing was done on the phone in this step."))
    elif after_step is not None:
        after = step_picture(pictures, run_dir, after_step)
        shots.append(figure(after, "After", f"the screen after step {step.step}",
                            missing="The next screen was not saved."))
    else:
        final = pictures.picture(run_dir / FINAL_SCREEN_FILE, run_dir / FINAL_SCREEN_FILE, step_is_private(step))
        shots.append(figure(final, "After: the screen the run left", f"the screen after step {step.step}",
                            missing="The screen after the last step was not recorded."))
    return f'<div class="shots">{"".join(shots)}</div>'


# ---------------------------------------------------------------- the rows


def _decision_row(step: StepRecord) -> str:
    kind = step_decision(step)[0]
    if not kind:
        return row("Decision", '<span class="empty">none recorded</span>')
    word = decision_word(kind)
    note = step_decision_note(step)
    return row("Decision", badge(word.text, word.colour) + (f' <span class="text">{esc(note)}</span>' if note else ""))


def _history_rows(step: StepRecord) -> list[str]:
    """The proposals the person rejected before the step's action, and the questions asked and answered."""
    rows = []
    for review in rejected_reviews(step):
        proposed = review.action_text or action_words(review.action) or "a proposal"
        rows.append(row("Rejected", f'<code>{esc(proposed)}</code> — <span class="text">{esc(review_words(review))}'
                                    "</span>"))
    for question in questions_of(step):
        rows.append(row("Question", f'<span class="text">{esc(question_words(question))}</span>'))
    return rows


def _result_row(step: StepRecord) -> str:
    text, failed = result_words(step)
    result = step.result
    took = f' <span class="meta">(took {esc(human_ms(result.duration_ms))})</span>' if result and result.duration_ms \
        else ""
    if failed:
        return row("Result", f'<span class="error">{esc(text)}</span>{took}')
    message = f" — {esc(result.message)}" if result and result.message else ""
    return row("Result", f"{esc(text)}{message}{took}")


def _reflection_row(reflection: dict[str, Any] | None) -> str:
    if not reflection:
        return ""
    verdict = esc(reflection.get("verdict", "–"))
    confidence = reflection.get("confidence")
    if isinstance(confidence, (int, float)):
        verdict += f' <span class="meta">({confidence:.0%} sure)</span>'
    if reflection.get("reasoning"):
        verdict += f' — <span class="text">{esc(reflection["reasoning"])}</span>'
    return row("Screen check", verdict)


def _ending_row(check: dict[str, Any] | None) -> str:
    """After a FINISH: what the look at the phone found ("done, verified by the screen: …")."""
    if not isinstance(check, dict):
        return ""
    done, by, reason = check.get("done"), check.get("verified_by") or "", check.get("reason") or ""
    words = ("done" + (f", verified by the {by}" if by else "") if done is True else
             "not done yet: the run went on" if done is False else "could not be checked: the model's word only")
    return row("Ending checked", esc(words) + (f' — <span class="text">{esc(reason)}</span>' if reason else ""))


def _took_row(step: StepRecord, pricing: Pricing | None) -> str:
    """How long the step took, phase by phase in words, and what it cost; each part's own time on request."""
    timings = step.timings_ms
    phases = [name for name in PHASE_WORDS if name in timings]
    total = sum(timings[name] for name in phases)
    parts = [f"took {human_ms(total)}" if phases else "no timings recorded"]
    if phases:
        parts[0] += ": " + " · ".join(f"{PHASE_WORDS[name]} {human_ms(timings[name])}" for name in phases)
    if step.settle_ms:
        parts.append(f"waiting for the screen to settle {human_ms(step.settle_ms)}")
    if step.waiting_seconds >= 0.05:
        parts.append(f"waiting for you {human_ms(step.waiting_seconds * 1000)}")
    tokens = ", ".join(f"{value:,} {name}" for name, value in step.tokens.items() if value) or "no tokens"
    parts += [tokens, cost_words(step.cost_usd, pricing)]
    if step.model_attempts > 1:
        parts.append(f"{step.model_attempts} model attempts")
    others = [f"{name.replace('_', ' ')} {human_ms(value)}" for name, value in timings.items()
              if name not in PHASE_WORDS]
    detail = (f'<details class="meta"><summary>time of each part</summary>{esc(" · ".join(others))}</details>'
              if others else "")
    return f'<div class="row meta">{esc(" | ".join(parts))}</div>{detail}'


def _clipped(text: str, limit: int = REPORT_TEXT_LIMIT) -> str:
    """The text in a <pre>, cut at `limit` characters with a note saying that steps.jsonl holds the rest."""
    if len(text) <= limit:
        return f"<pre>{esc(text)}</pre>"
    return (f'<pre>{esc(text[:limit])}</pre><p class="meta">Cut here: {len(text) - limit:,} more characters '
            f"({len(text):,} in all) are not shown; the whole text is in steps.jsonl.</p>")


_REPLY_OUTCOME_WORDS = {"accepted": "used", "invalid": "invalid", "cut_off": "cut off", "refused": "refused",
                        "error": "failed"}


def _reply_line(reply: ModelReplyRecord) -> str:
    """One model call in a line: what became of it, why (short), its tokens, status and time."""
    words = _REPLY_OUTCOME_WORDS.get(reply.outcome, reply.outcome or "unknown")
    problem = reply.problem
    if len(problem) > REPLY_PROBLEM_LIMIT:
        problem = problem[:REPLY_PROBLEM_LIMIT - 1] + "…"
    facts = [f"{reply.prompt_tokens:,} + {reply.completion_tokens:,} tokens"]
    if reply.prompt_estimated:
        facts[0] = f"~{facts[0]}, estimated (the server reported no usage)"
    if reply.max_output_tokens:
        facts.append(f"budget {reply.max_output_tokens:,}")
    if reply.finish_reason:
        facts.append(f"finish: {reply.finish_reason}")
    facts.append(f"HTTP {reply.http_status}" if reply.http_status is not None else "no HTTP answer")
    facts.append(human_ms(reply.duration_ms))
    reason = f' — <span class="text">{esc(problem)}</span>' if problem else ""
    return (f"<li><b>{esc(words)}</b>{reason} "
            f'<span class="meta">({esc(", ".join(facts))})</span></li>')


def _replies_row(replies: list[ModelReplyRecord]) -> str:
    """How many model replies the step took and why each unused one failed (nothing for old records)."""
    if not replies:
        return ""
    unused = sum(reply.outcome != "accepted" for reply in replies)
    summary = f"{len(replies)} model repl{'y' if len(replies) == 1 else 'ies'}"
    if unused:
        summary += f", {unused} not used"
    lines = "".join(_reply_line(reply) for reply in replies)
    return row("Model replies", f"<details{' open' if unused else ''}><summary>{esc(summary)}</summary>"
                                f"<ol>{lines}</ol></details>")


def step_card(pictures: Pictures, run_dir: Path, step: StepRecord, after_step: StepRecord | None,
              pricing: Pricing | None = None, reflection: dict[str, Any] | None = None) -> str:
    """The step's card; `reflection` is the screen check of its action (made at the next step)."""
    outcome = step_outcome_word(step)
    heading = [f"Step {esc(step.step)}", badge(outcome.text, outcome.colour)]
    if step.screen_only:
        heading.append(f'<span class="badge muted">{SCREEN_ONLY_NOTE}: the controls could not be read</span>')
    if step.images_withheld:
        heading.append(f'<span class="badge muted">no picture sent: {esc(step.images_withheld)}</span>')
    if step.foreground:
        app = step.foreground + (f" / {step.activity}" if step.activity else "")
        heading.append(f'<span class="meta">{esc(app)}</span>')
    rows = []
    rows += [row(label, f'<span class="text">{esc(text)}</span>')
             for label, text in thought_and_comment(step.thought, step.comment)]
    rows += _history_rows(step)
    executed = step.action_text or action_words(step.action)
    proposed = action_words(step.proposed_action)
    if proposed:
        rows.append(row("Proposed", f"<code>{esc(proposed)}</code>"))
        rows.append(row("Executed instead", f"<code>{esc(executed or 'nothing')}</code>"))
    elif executed:
        rows.append(row("Action", f"<code>{esc(executed)}</code>"))
    if step.target is not None:
        rows.append(row("Target", f"<code>{esc(target_words(step))}</code>"))
    rows += [_decision_row(step), _result_row(step), _reflection_row(reflection), _ending_row(step.completion_check)]
    if step.error:
        rows.append(row("Error", f'<span class="error">{esc(step.error)}</span>'))
    rows.append(_took_row(step, pricing))
    rows.append(_replies_row(step.model_replies))
    for text, label in ((step.raw_reply, "Model reply"), (step.prompt_text, "Prompt text")):
        if text:
            rows.append(f"<details><summary>{esc(label)}</summary>{_clipped(text)}</details>")
    return (f'<section class="card step" id="step-{esc(step.step)}" style="--status:{outcome.colour or NEUTRAL}">'
            f'{_shots(pictures, run_dir, step, after_step)}'
            f'<div class="body"><h2>{"".join(heading)}</h2>{"".join(rows)}</div></section>')
