"""A run's report: one self-contained report.html in the run folder.

No external files and no network: the CSS is inline and each step's screenshot is
embedded as a small JPEG data URL (longest side 720 px). The one exception is the run's
screen recording (screen.mp4, when the mirror streamed), played from the run folder beside
the report and linked by its plain file name. Every text that comes from the
run (request, thoughts, screen text, model replies) is untrusted and HTML-escaped.
"""

from __future__ import annotations

import base64
import html
import io
import json
import urllib.parse
from datetime import datetime
from pathlib import Path
from typing import Any

from PIL import Image, UnidentifiedImageError

from app.core.agent.records import Decision, ModelReplyRecord, RunRecord, RunResult, StepRecord
from app.core.agent.run_words import (ENDINGS, NEUTRAL, SCREEN_ONLY_NOTE, action_words, decision_note, decision_word,
                                      result_words, run_status_word, step_outcome_word, target_words)
from app.core.agent.trajectory import REPORT_FILE, LoadedRun, load_run, step_file, write_text_atomically
from app.core.providers import Pricing, cost_words, pricing_from_record
from app.core.redaction import redact

__all__ = ["REPORT_FILE", "action_words", "render_report", "write_report"]

THUMBNAIL_MAX_SIDE = 720
THUMBNAIL_QUALITY = 75
REPORT_TEXT_LIMIT = 4000
"""Characters of a model reply or prompt shown in the report; the rest is in steps.jsonl."""
REPLY_PROBLEM_LIMIT = 160
"""Characters of a reply's problem shown in the list of a step's model replies."""

CSS = """
* { box-sizing: border-box; }
body { margin: 0; background: #f4f5f7; color: #1f2328; line-height: 1.45;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1100px; margin: 0 auto; padding: 24px; }
h1 { font-size: 20px; margin: 0 0 4px; color: #57606a; font-weight: 600; }
.request { font-size: 22px; font-weight: 600; margin: 0 0 16px; white-space: pre-wrap; overflow-wrap: anywhere; }
.card { background: #fff; border: 1px solid #d8dee4; border-radius: 10px; padding: 16px 18px; margin: 0 0 16px;
  box-shadow: 0 1px 2px rgba(31,35,40,.06); }
.facts { display: grid; grid-template-columns: repeat(auto-fit, minmax(230px, 1fr)); gap: 10px 24px; }
.fact .label { font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: #57606a; }
.fact .value { overflow-wrap: anywhere; }
.badge { display: inline-block; color: #fff; border-radius: 999px; padding: 1px 10px; font-size: 13px;
  font-weight: 600; vertical-align: middle; }
.badge.muted { background: #eaeef2; color: #424a53; font-weight: 500; }
.notice { background: #fff8c5; border: 1px solid #d4a72c; border-radius: 8px; padding: 10px 14px; margin: 0 0 16px; }
.error { color: #cf222e; white-space: pre-wrap; overflow-wrap: anywhere; }
.step { display: grid; grid-template-columns: 240px 1fr; gap: 18px; border-left: 6px solid var(--status); }
.step h2 { font-size: 17px; margin: 0 0 10px; display: flex; gap: 10px; align-items: center; flex-wrap: wrap; }
.step .shot img { width: 100%; border-radius: 6px; border: 1px solid #d8dee4; display: block; }
.step .shot .missing { height: 200px; display: flex; align-items: center; justify-content: center;
  background: #eaeef2; border-radius: 6px; color: #57606a; text-align: center; padding: 10px; }
.row { margin: 0 0 8px; }
.row .label { font-weight: 600; color: #424a53; margin-right: 6px; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; }
code, pre { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
code { background: #f0f2f4; padding: 1px 5px; border-radius: 4px; overflow-wrap: anywhere; }
pre { background: #f6f8fa; border: 1px solid #d8dee4; border-radius: 6px; padding: 10px; white-space: pre-wrap;
  overflow-wrap: anywhere; max-height: 360px; overflow: auto; }
details summary { cursor: pointer; color: #0969da; }
.meta { color: #57606a; font-size: 13px; }
.empty { color: #57606a; font-style: italic; }
.recording h2 { font-size: 17px; margin: 0 0 6px; }
.recording video { max-width: 100%; max-height: 70vh; border-radius: 6px; background: #000; display: block; }
@media (max-width: 700px) { .step { grid-template-columns: 1fr; } }
"""


def write_report(run_dir: Path | str) -> Path:
    """Write run_dir/report.html from the run's files; returns its path."""
    run_dir = Path(run_dir)
    path = run_dir / REPORT_FILE
    write_text_atomically(path, render_report(load_run(run_dir)))
    return path


def render_report(record: LoadedRun) -> str:
    """The whole report page for a run, as HTML text."""
    pricing = pricing_from_record(record.run.settings)
    steps = [_step_card(record.run_dir, step, pricing) for step in record.steps]
    notice = "".join(f'<div class="notice">{_e(problem[:1].upper() + problem[1:])}</div>'
                     for problem in record.problems)
    body = "".join(steps) if steps else '<div class="card empty">No steps were recorded in this run.</div>'
    title = f"Agent Desk run: {record.run.request}"[:120]
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{_e(title)}</title><style>{CSS}</style></head>\n'
            f'<body><main>{_header(record.run, pricing)}{_recordings(record.screen_recordings)}{notice}{body}'
            f'</main></body></html>\n')


def _recordings(names: list[str]) -> str:
    """The run's screen video(s), playable in the page and linked; nothing when none was recorded."""
    if not names:
        return ""
    parts = []
    for index, name in enumerate(names):
        link = html.escape(urllib.parse.quote(name), quote=True)
        caption = "" if index == 0 else '<div class="meta">after the screen changed size (the phone turned)</div>'
        parts.append(f'{caption}<video controls preload="metadata" src="{link}"></video>'
                     f'<div class="meta"><a href="{link}">{_e(name)}</a></div>')
    return (f'<section class="card recording"><h2>Screen recording</h2>'
            f'<p class="meta">What the phone\'s screen showed during the run, as it streamed it.</p>'
            f'{"".join(parts)}</section>')


def _e(value: Any) -> str:
    """Text from the run, redacted (again: a key registered since) and HTML-escaped."""
    return html.escape(redact(str(value)), quote=True)


def _badge(text: str, colour: str) -> str:
    return f'<span class="badge" style="background:{colour}">{_e(text)}</span>'


def _fact(label: str, value_html: str) -> str:
    return f'<div class="fact"><div class="label">{_e(label)}</div><div class="value">{value_html}</div></div>'


def _describe(value: Any) -> str:
    """A dict from run.json as one "name value" line per entry; anything else as one line (escaped)."""
    if isinstance(value, dict):
        lines = [f'<div><span class="meta">{_e(key)}</span> {_e(_plain(item))}</div>'
                 for key, item in value.items() if item not in (None, "", [], {})]
        return "".join(lines) or '<span class="empty">not recorded</span>'
    return _e(_plain(value)) if value not in (None, "") else '<span class="empty">not recorded</span>'


def _when(iso_time: str) -> str:
    """An ISO timestamp as "2024-05-01 14:03:22"; "–" when missing."""
    if not iso_time:
        return "–"
    try:
        return datetime.fromisoformat(iso_time).strftime("%Y-%m-%d %H:%M:%S")
    except ValueError:
        return iso_time


def _plain(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return " × ".join(map(str, value)) if all(isinstance(v, int) for v in value) else ", ".join(map(str, value))
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _duration(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{seconds:.1f} s"


def _tokens(tokens: dict[str, int]) -> str:
    return ", ".join(f"{value:,} {name}" for name, value in tokens.items()) or "–"


def _time_words(result: RunResult) -> str:
    """The run's time, split into the agent's own and the person's when the run waited for them."""
    words = _duration(result.time_seconds)
    if result.waiting_seconds >= 0.05:
        words += (f" (the agent {_duration(result.agent_seconds)}, "
                  f"waiting for you {_duration(result.waiting_seconds)})")
    return words


def _header(run: RunRecord, pricing: Pricing | None = None) -> str:
    facts = [_fact("Device", _describe(run.device)), _fact("Model", _describe(run.model)),
             _fact("Started", _e(_when(run.started_at))), _fact("Finished", _e(_when(run.finished_at)))]
    result: RunResult | None = run.result
    if result is not None:
        status = run_status_word(result.status)
        facts += [
            _fact("Result", _badge(status.text, status.colour)),
            _fact("Steps", _e(result.steps_taken)),
            _fact("Actions executed", _e(len(result.actions_executed))),
            _fact("Time", _e(_time_words(result))),
            _fact("Tokens", _e(_tokens(result.tokens))),
            _fact("Cost", _e(cost_words(result.cost_usd, pricing))),
        ]
        if result.completion_reason:
            facts.append(_fact("Completion reason", f'<span class="text">{_e(result.completion_reason)}</span>'))
        if ending := ENDINGS.get(result.verification) if result.status == "success" else None:
            note = f' <span class="text">{_e(result.verification_note)}</span>' if result.verification_note else ""
            facts.append(_fact("Ending", _badge(ending.text, ending.colour) + note))
        if result.error:
            facts.append(_fact("Error", f'<span class="error">{_e(result.error)}</span>'))
        action_list = "".join(f"<li>{_e(action)}</li>" for action in result.actions_executed)
        if action_list:
            facts.append(_fact("Actions", f"<details><summary>show {len(result.actions_executed)}</summary>"
                                          f"<ol>{action_list}</ol></details>"))
    else:
        unfinished = run_status_word("unfinished")
        facts.append(_fact("Result", _badge(unfinished.text, unfinished.colour) +
                           ' <span class="meta">the run stopped before recording a result</span>'))
    request = run.request or "(no request recorded)"
    return (f'<h1>Agent Desk run report</h1><p class="request">{_e(request)}</p>'
            f'<section class="card"><div class="facts">{"".join(facts)}</div></section>')


def _row(label: str, value_html: str) -> str:
    return f'<div class="row"><span class="label">{_e(label)}</span>{value_html}</div>'


def _thumbnail(path: Path | None) -> str | None:
    """The image as a JPEG data URL, longest side at most THUMBNAIL_MAX_SIDE; None if unreadable."""
    if path is None or not path.is_file():
        return None
    try:
        with Image.open(path) as image:
            image = image.convert("RGB")
    except (OSError, UnidentifiedImageError):
        return None
    image.thumbnail((THUMBNAIL_MAX_SIDE, THUMBNAIL_MAX_SIDE))
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=THUMBNAIL_QUALITY, optimize=True)
    return "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _screenshot(run_dir: Path, step: StepRecord) -> str:
    for name, caption in ((step.annotated_screenshot, "annotated screen"), (step.screenshot, "screen")):
        data_url = _thumbnail(step_file(run_dir, name))
        if data_url:
            return f'<img src="{data_url}" alt="{_e(caption)} at step {_e(step.step)}">'
    return '<div class="missing">No screenshot was saved for this step.</div>'


def _decision_row(decision: Decision | None) -> str:
    if decision is None or not decision.kind:
        return _row("Decision", '<span class="empty">none recorded</span>')
    note = decision_note(decision)
    return _row("Decision", _e(decision_word(decision.kind).text) + (f' — <span class="text">{_e(note)}</span>'
                                                                       if note else ""))


def _result_row(step: StepRecord) -> str:
    text, failed = result_words(step)
    result = step.result
    took_text = f' <span class="meta">({result.duration_ms:,.0f} ms)</span>' if result and result.duration_ms else ""
    if failed:
        return _row("Result", f'<span class="error">{_e(text)}</span>{took_text}')
    message = f" — {_e(result.message)}" if result and result.message else ""
    return _row("Result", f"{_e(text)}{message}{took_text}")


def _reflection_row(reflection: dict[str, Any] | None) -> str:
    if not reflection:
        return ""
    verdict = _e(reflection.get("verdict", "–"))
    confidence = reflection.get("confidence")
    if isinstance(confidence, (int, float)):
        verdict += f' <span class="meta">(confidence {confidence:.0%})</span>'
    if reflection.get("reasoning"):
        verdict += f' — <span class="text">{_e(reflection["reasoning"])}</span>'
    return _row("Screen check", verdict)


def _cost_row(step: StepRecord, pricing: Pricing | None) -> str:
    phases = " · ".join(f"{name.replace('_', ' ')} {value:,.0f} ms" for name, value in step.timings_ms.items())
    parts = [phases or "no timings", f"tokens: {_tokens(step.tokens)}", f"cost: {cost_words(step.cost_usd, pricing)}"]
    if step.model_attempts > 1:
        parts.append(f"{step.model_attempts} model attempts")
    return f'<div class="row meta">{_e(" | ".join(parts))}</div>'


def _clipped(text: str, limit: int = REPORT_TEXT_LIMIT) -> str:
    """The text in a <pre>, cut at `limit` characters with a note saying that steps.jsonl holds the rest."""
    if len(text) <= limit:
        return f"<pre>{_e(text)}</pre>"
    return (f'<pre>{_e(text[:limit])}</pre><p class="meta">Cut here: {len(text) - limit:,} more characters '
            f"({len(text):,} in all) are not shown; the whole text is in steps.jsonl.</p>")


_REPLY_OUTCOME_WORDS = {"accepted": "used", "invalid": "invalid", "cut_off": "cut off", "refused": "refused",
                        "error": "failed"}


def _reply_line(reply: ModelReplyRecord) -> str:
    """One model call in a line: what became of it, why (short), its tokens, status and time."""
    words = _REPLY_OUTCOME_WORDS.get(reply.outcome, reply.outcome or "unknown")
    problem = reply.problem if len(reply.problem) <= REPLY_PROBLEM_LIMIT else reply.problem[:REPLY_PROBLEM_LIMIT - 1] + "…"
    facts = [f"{reply.prompt_tokens:,} + {reply.completion_tokens:,} tokens"]
    if reply.max_output_tokens:
        facts.append(f"budget {reply.max_output_tokens:,}")
    if reply.finish_reason:
        facts.append(f"finish: {reply.finish_reason}")
    facts.append(f"HTTP {reply.http_status}" if reply.http_status is not None else "no HTTP answer")
    facts.append(f"{reply.duration_ms:,.0f} ms")
    reason = f' — <span class="text">{_e(problem)}</span>' if problem else ""
    return (f"<li><b>{_e(words)}</b>{reason} "
            f'<span class="meta">({_e(", ".join(facts))})</span></li>')


def _replies_row(replies: list[ModelReplyRecord]) -> str:
    """How many model replies the step took and why each unused one failed (nothing for old records)."""
    if not replies:
        return ""
    unused = sum(reply.outcome != "accepted" for reply in replies)
    summary = f"{len(replies)} model repl{'y' if len(replies) == 1 else 'ies'}"
    if unused:
        summary += f", {unused} not used"
    lines = "".join(_reply_line(reply) for reply in replies)
    return _row("Model replies", f"<details{' open' if unused else ''}><summary>{_e(summary)}</summary>"
                                 f"<ol>{lines}</ol></details>")


def _step_card(run_dir: Path, step: StepRecord, pricing: Pricing | None = None) -> str:
    outcome = step_outcome_word(step)
    heading = [f"Step {_e(step.step)}", _badge(outcome.text, outcome.colour)]
    if step.screen_only:
        heading.append(f'<span class="badge muted">{SCREEN_ONLY_NOTE}: the controls could not be read</span>')
    if step.images_withheld:
        heading.append(f'<span class="badge muted">no picture sent: {_e(step.images_withheld)}</span>')
    if step.foreground:
        app = step.foreground + (f" / {step.activity}" if step.activity else "")
        heading.append(f'<span class="meta">{_e(app)}</span>')
    rows = []
    if step.thought:
        rows.append(_row("Thought", f'<span class="text">{_e(step.thought)}</span>'))
    if step.comment:
        rows.append(_row("Comment", f'<span class="text">{_e(step.comment)}</span>'))
    executed = step.action_text or action_words(step.action)
    proposed = action_words(step.proposed_action)
    if proposed:
        rows.append(_row("Proposed", f"<code>{_e(proposed)}</code>"))
        rows.append(_row("Executed instead", f"<code>{_e(executed or 'nothing')}</code>"))
    elif executed:
        rows.append(_row("Action", f"<code>{_e(executed)}</code>"))
    if step.target is not None:
        rows.append(_row("Target", f"<code>{_e(target_words(step))}</code>"))
    rows += [_decision_row(step.decision), _result_row(step), _reflection_row(step.reflection)]
    if step.error:
        rows.append(_row("Error", f'<span class="error">{_e(step.error)}</span>'))
    rows.append(_cost_row(step, pricing))
    rows.append(_replies_row(step.model_replies))
    for text, label in ((step.raw_reply, "Model reply"), (step.prompt_text, "Prompt text")):
        if text:
            rows.append(f"<details><summary>{_e(label)}</summary>{_clipped(text)}</details>")
    return (f'<section class="card step" style="--status:{outcome.colour or NEUTRAL}">'
            f'<div class="shot">{_screenshot(run_dir, step)}</div>'
            f'<div><h2>{"".join(heading)}</h2>{"".join(rows)}</div></section>')
