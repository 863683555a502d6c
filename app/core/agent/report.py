"""A run's report: one self-contained report.html in the run folder.

No external files and no network: the CSS and the few lines of script (click a screen to see it
large) are inline, and each screenshot is embedded once as a small JPEG data URL (longest side
720 px) that the step before and after it both show (`report_images`). The one exception is the
run's screen recording (screen.mp4, when the mirror streamed), played from the run folder beside
the report and linked by its plain file name. Every text that comes from the run (request,
thoughts, screen text, model replies) is untrusted, redacted again and HTML-escaped. Times are in
words ("1.2 s", "3 min 5 s"), the phone and the model are described in sentences, and each step
says who decided what (`history_words`).
"""

from __future__ import annotations

import html
import urllib.parse
from datetime import datetime
from pathlib import Path
from typing import Any

from app.core.providers import Pricing, cost_words, pricing_from_record

from .history_words import device_words, human_duration, model_words, reflection_for
from .records import ESTIMATED_WORDS, RunRecord, RunResult
from .report_images import ZOOM_CSS, ZOOM_SCRIPT, Pictures
from .report_step import REPLY_PROBLEM_LIMIT, REPORT_TEXT_LIMIT, badge, esc, step_card
from .run_words import ENDINGS, action_words, run_status_word
from .step_reviews import load_reviewed_run
from .trajectory import REPORT_FILE, LoadedRun, write_text_atomically

__all__ = ["REPLY_PROBLEM_LIMIT", "REPORT_FILE", "REPORT_TEXT_LIMIT", "action_words", "render_report", "write_report"]

MODES = {"step": "step by step: you approved every action", "auto": "auto: you were asked only about sensitive actions"}

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
.step { display: grid; grid-template-columns: 340px minmax(0, 1fr); gap: 18px; border-left: 6px solid var(--status); }
.step h2 { font-size: 17px; margin: 0 0 10px; display: flex; gap: 10px; align-items: center; flex-wrap: wrap; }
.row { margin: 0 0 8px; }
.row .label { font-weight: 600; color: #424a53; margin-right: 6px; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; }
code, pre { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
code { background: #f0f2f4; padding: 1px 5px; border-radius: 4px; overflow-wrap: anywhere; }
pre { background: #f6f8fa; border: 1px solid #d8dee4; border-radius: 6px; padding: 10px; white-space: pre-wrap;
  overflow-wrap: anywhere; max-height: 360px; overflow: auto; }
details summary { cursor: pointer; color: #0969da; }
details.meta { margin: -4px 0 8px; }
.meta { color: #57606a; font-size: 13px; }
.empty { color: #57606a; font-style: italic; }
.recording h2 { font-size: 17px; margin: 0 0 6px; }
.recording video { max-width: 100%; max-height: 480px; border-radius: 6px; background: #000; display: block; }
@media (max-width: 760px) { .step { grid-template-columns: 1fr; } .shots { max-width: 420px; } }
""" + ZOOM_CSS + """
@media (prefers-color-scheme: dark) {
  body { background: #17181b; color: #e6e7ea; }
  h1, .fact .label, .meta, .empty, .shot figcaption { color: #a3aab3; }
  .row .label { color: #c4c9d0; }
  .card { background: #202226; border-color: #3a3e45; box-shadow: none; }
  .badge.muted { background: #3a3e45; color: #dde1e6; }
  .notice { background: #3b3212; border-color: #9e7c1a; }
  .error { color: #ff8e86; }
  code { background: #2b2e34; }
  pre { background: #1b1d21; border-color: #3a3e45; }
  details summary { color: #6cb0ff; }
  .shot .zoom { background: #202226; border-color: #3a3e45; }
  .shot .missing { background: #1b1d21; border-color: #50565f; color: #a3aab3; }
}
"""


def write_report(run_dir: Path | str) -> Path:
    """Write run_dir/report.html from the run's files; returns its path."""
    run_dir = Path(run_dir)
    path = run_dir / REPORT_FILE
    write_text_atomically(path, render_report(load_reviewed_run(run_dir)))
    return path


def render_report(record: LoadedRun) -> str:
    """The whole report page for a run, as HTML text."""
    pricing = pricing_from_record(record.run.settings)
    pictures = Pictures(_screen_size(record.run.device))
    following = record.steps[1:] + [None]
    steps = [step_card(pictures, record.run_dir, step, after, pricing, reflection_for(step, record.steps))
             for step, after in zip(record.steps, following, strict=False)]
    notice = "".join(f'<div class="notice">{esc(problem[:1].upper() + problem[1:])}</div>'
                     for problem in record.problems)
    body = "".join(steps) if steps else '<div class="card empty">No steps were recorded in this run.</div>'
    hint = ('<p class="meta">Each step shows the screen before it, with where the action touched it, and the '
            "screen after it. Click a screen to see it large.</p>" if steps else "")
    title = f"Agent Desk run: {record.run.request}"[:120]
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<meta name="color-scheme" content="light dark">'
            f'<title>{esc(title)}</title><style>{CSS}</style></head>\n'
            f'<body>{pictures.definitions()}<main>{_header(record.run, pricing)}{_recordings(record.screen_recordings)}'
            f'{notice}{hint}{body}</main>{ZOOM_SCRIPT if steps else ""}</body></html>\n')


def _screen_size(device: dict[str, Any]) -> tuple[int, int] | None:
    size = device.get("screen_size") if isinstance(device, dict) else None
    if isinstance(size, list) and len(size) == 2 and all(isinstance(v, int) and v > 0 for v in size):
        return size[0], size[1]
    return None


def _recordings(names: list[str]) -> str:
    """The run's screen video(s), playable in the page and linked; nothing when none was recorded."""
    if not names:
        return ""
    parts = []
    for index, name in enumerate(names):
        link = html.escape(urllib.parse.quote(name), quote=True)
        caption = "" if index == 0 else '<div class="meta">after the screen changed size (the phone turned)</div>'
        parts.append(f'{caption}<video controls preload="metadata" src="{link}"></video>'
                     f'<div class="meta"><a href="{link}">{esc(name)}</a></div>')
    return (f'<section class="card recording"><h2>Screen recording</h2>'
            f'<p class="meta">What the phone\'s screen showed during the run, as it streamed it.</p>'
            f'{"".join(parts)}</section>')


def _fact(label: str, value_html: str) -> str:
    return f'<div class="fact"><div class="label">{esc(label)}</div><div class="value">{value_html}</div></div>'


def _lines(lines: list[str]) -> str:
    return "".join(f"<div>{esc(line)}</div>" for line in lines) or '<span class="empty">not recorded</span>'


def _when(iso_time: str) -> str:
    """An ISO timestamp as "2024-05-01 14:03:22"; "–" when missing."""
    if not iso_time:
        return "–"
    try:
        return datetime.fromisoformat(iso_time).strftime("%Y-%m-%d %H:%M:%S")
    except ValueError:
        return iso_time


def _tokens(tokens: dict[str, int]) -> str:
    return ", ".join(f"{value:,} {name}" for name, value in tokens.items()) or "–"


def _time_words(result: RunResult) -> str:
    """The run's time, split into the agent's own and the person's when the run waited for them."""
    words = human_duration(result.time_seconds)
    if result.waiting_seconds >= 0.05:
        words += (f" (the agent {human_duration(result.agent_seconds)}, "
                  f"waiting for you {human_duration(result.waiting_seconds)})")
    return words


def _mode(settings: dict[str, Any]) -> str:
    agent = settings.get("agent") if isinstance(settings, dict) else None
    mode = agent.get("mode") if isinstance(agent, dict) else None
    return MODES.get(mode, str(mode)) if mode else ""


def _header(run: RunRecord, pricing: Pricing | None = None) -> str:
    facts = [_fact("Phone", _lines(device_words(run.device))), _fact("Model", _lines(model_words(run.model))),
             _fact("Started", esc(_when(run.started_at))), _fact("Finished", esc(_when(run.finished_at)))]
    if mode := _mode(run.settings):
        facts.append(_fact("Mode", esc(mode)))
    result: RunResult | None = run.result
    if result is not None:
        status = run_status_word(result.status)
        facts += [
            _fact("Result", badge(status.text, status.colour)),
            _fact("Steps", esc(result.steps_taken)),
            _fact("Actions done", esc(len(result.actions_executed))),
            _fact("Time", esc(_time_words(result))),
            _fact("Tokens", esc(_tokens(result.tokens) + (ESTIMATED_WORDS if result.tokens_estimated else ""))),
            _fact("Cost", esc(cost_words(result.cost_usd, pricing))),
        ]
        if result.completion_reason:
            facts.append(_fact("Why it ended", f'<span class="text">{esc(result.completion_reason)}</span>'))
        if ending := ENDINGS.get(result.verification) if result.status == "success" else None:
            note = f' <span class="text">{esc(result.verification_note)}</span>' if result.verification_note else ""
            facts.append(_fact("Ending", badge(ending.text, ending.colour) + note))
        if result.error:
            facts.append(_fact("Error", f'<span class="error">{esc(result.error)}</span>'))
        action_list = "".join(f"<li>{esc(action)}</li>" for action in result.actions_executed)
        if action_list:
            facts.append(_fact("Actions", f"<details><summary>show {len(result.actions_executed)}</summary>"
                                          f"<ol>{action_list}</ol></details>"))
    else:
        unfinished = run_status_word("unfinished")
        facts.append(_fact("Result", badge(unfinished.text, unfinished.colour) +
                           ' <span class="meta">the run stopped before recording a result</span>'))
    request = run.request or "(no request recorded)"
    return (f'<h1>Agent Desk run report</h1><p class="request">{esc(request)}</p>'
            f'<section class="card"><div class="facts">{"".join(facts)}</div></section>')
