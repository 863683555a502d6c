"""A run's report: one self-contained report.html in the run folder.

No external files and no network: the CSS is inline and each step's screenshot is
embedded as a small JPEG data URL (longest side 720 px). Every text that comes from the
run (request, thoughts, screen text, model replies) is untrusted and HTML-escaped.
"""

from __future__ import annotations

import base64
import html
import io
import json
from datetime import datetime
from pathlib import Path
from typing import Any

from PIL import Image, UnidentifiedImageError

from app.core.agent.trajectory import RunRecord, load_run, step_file
from app.core.redaction import redact_data

REPORT_FILE = "report.html"
THUMBNAIL_MAX_SIDE = 720
THUMBNAIL_QUALITY = 75

DECISION_WORDS = {
    "approve": "Approved", "edit": "Edited by the person", "override": "Replaced by the person",
    "reject": "Rejected", "stop": "Stopped by the person", "auto": "Run automatically",
}
STATUS_COLOURS = {  # badge background, for run and step statuses
    "success": "#1a7f37", "ok": "#1a7f37", "failed": "#cf222e", "timeout": "#bc4c00",
    "stopped": "#6e7781", "rejected": "#9a6700", "no action": "#6e7781", "did not finish": "#8250df",
}

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
@media (max-width: 700px) { .step { grid-template-columns: 1fr; } }
"""


def write_report(run_dir: Path | str) -> Path:
    """Write run_dir/report.html from the run's files; returns its path."""
    run_dir = Path(run_dir)
    path = run_dir / REPORT_FILE
    path.write_text(render_report(load_run(run_dir)), encoding="utf-8")
    return path


def render_report(record: RunRecord) -> str:
    """The whole report page for a run, as HTML text."""
    run = redact_data(record.run)
    steps = [_step_card(record.run_dir, redact_data(step)) for step in record.steps]
    notice = "".join(f'<div class="notice">{_e(problem[:1].upper() + problem[1:])}</div>'
                     for problem in record.problems)
    body = "".join(steps) if steps else '<div class="card empty">No steps were recorded in this run.</div>'
    title = f"Agent Desk run: {run.get('request', '')}"[:120]
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{_e(title)}</title><style>{CSS}</style></head>\n'
            f'<body><main>{_header(run)}{notice}{body}</main></body></html>\n')


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _badge(status: str) -> str:
    colour = STATUS_COLOURS.get(status, "#6e7781")
    return f'<span class="badge" style="background:{colour}">{_e(status)}</span>'


def _fact(label: str, value_html: str) -> str:
    return f'<div class="fact"><div class="label">{_e(label)}</div><div class="value">{value_html}</div></div>'


def _describe(value: Any) -> str:
    """A dict from run.json as one "name value" line per entry; anything else as one line (escaped)."""
    if isinstance(value, dict):
        lines = [f'<div><span class="meta">{_e(key)}</span> {_e(_plain(item))}</div>'
                 for key, item in value.items() if item not in (None, "", [], {})]
        return "".join(lines) or '<span class="empty">not recorded</span>'
    return _e(_plain(value)) if value not in (None, "") else '<span class="empty">not recorded</span>'


def _when(iso_time: Any) -> str:
    """An ISO timestamp as "2024-05-01 14:03:22"; "–" when missing."""
    if not isinstance(iso_time, str) or not iso_time:
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


def _duration(seconds: Any) -> str:
    if not isinstance(seconds, (int, float)):
        return "–"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{seconds:.1f} s"


def _tokens(tokens: Any) -> str:
    if not isinstance(tokens, dict) or not tokens:
        return "–"
    return ", ".join(f"{value:,} {name}" for name, value in tokens.items() if isinstance(value, int)) or "–"


def _cost(cost: Any) -> str:
    return f"${cost:.4f}" if isinstance(cost, (int, float)) else "–"


def _header(run: dict[str, Any]) -> str:
    result = run.get("result")
    facts = [_fact("Device", _describe(run.get("device"))), _fact("Model", _describe(run.get("model"))),
             _fact("Started", _e(_when(run.get("started_at")))), _fact("Finished", _e(_when(run.get("finished_at"))))]
    if isinstance(result, dict):
        actions = result.get("actions_executed") or []
        facts += [
            _fact("Result", _badge(str(result.get("status", "unknown")))),
            _fact("Steps", _e(result.get("steps_taken", "–"))),
            _fact("Actions executed", _e(len(actions))),
            _fact("Time", _e(_duration(result.get("time_seconds")))),
            _fact("Tokens", _e(_tokens(result.get("tokens")))),
            _fact("Cost", _e(_cost(result.get("cost_usd")))),
        ]
        if result.get("completion_reason"):
            facts.append(_fact("Completion reason", f'<span class="text">{_e(result["completion_reason"])}</span>'))
        if result.get("error"):
            facts.append(_fact("Error", f'<span class="error">{_e(result["error"])}</span>'))
        action_list = "".join(f"<li>{_e(action)}</li>" for action in actions)
        if action_list:
            facts.append(_fact("Actions", f"<details><summary>show {len(actions)}</summary>"
                                          f"<ol>{action_list}</ol></details>"))
    else:
        facts.append(_fact("Result", _badge("did not finish") +
                           ' <span class="meta">the run stopped before recording a result</span>'))
    return (f'<h1>Agent Desk run report</h1><p class="request">{_e(run.get("request", "(no request recorded)"))}</p>'
            f'<section class="card"><div class="facts">{"".join(facts)}</div></section>')


def action_words(action: Any) -> str:
    """`function(name=value, …)` for an action dict; "" when there is none."""
    if not isinstance(action, dict) or not action.get("function"):
        return ""
    arguments = action.get("arguments") or {}
    if not isinstance(arguments, dict):
        arguments = {"arguments": arguments}
    listed = ", ".join(f"{name}={json.dumps(value, ensure_ascii=False)}" for name, value in arguments.items())
    return f"{action['function']}({listed})"


def _step_status(step: dict[str, Any]) -> str:
    decision = step.get("decision") or {}
    result = step.get("result") or {}
    if step.get("error") or result.get("success") is False:
        return "failed"
    if decision.get("kind") == "reject":
        return "rejected"
    if decision.get("kind") == "stop":
        return "stopped"
    return "ok" if result.get("success") else "no action"


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


def _screenshot(run_dir: Path, step: dict[str, Any]) -> str:
    for key, caption in (("annotated_screenshot", "annotated screen"), ("screenshot", "screen")):
        data_url = _thumbnail(step_file(run_dir, step.get(key)))
        if data_url:
            return f'<img src="{data_url}" alt="{_e(caption)} at step {_e(step.get("step", "?"))}">'
    return '<div class="missing">No screenshot was saved for this step.</div>'


def _decision_row(decision: Any) -> str:
    if not isinstance(decision, dict) or not decision.get("kind"):
        return _row("Decision", '<span class="empty">none recorded</span>')
    words = DECISION_WORDS.get(decision["kind"], decision["kind"])
    by_auto = decision.get("by") == "auto" and decision["kind"] != "auto"
    text = _e(words) + (" (by the auto policy)" if by_auto else "")
    if decision.get("feedback"):
        text += f' — feedback: <span class="text">{_e(decision["feedback"])}</span>'
    if decision.get("answer"):
        text += f' — answer: <span class="text">{_e(decision["answer"])}</span>'
    return _row("Decision", text)


def _result_row(result: Any) -> str:
    if not isinstance(result, dict):
        return _row("Result", '<span class="empty">nothing was executed</span>')
    took = result.get("duration_ms")
    took_text = f' <span class="meta">({took:,.0f} ms)</span>' if isinstance(took, (int, float)) else ""
    if result.get("success"):
        message = f" — {_e(result['message'])}" if result.get("message") else ""
        return _row("Result", f"ok{message}{took_text}")
    return _row("Result", f'<span class="error">failed: {_e(result.get("message", ""))}</span>{took_text}')


def _reflection_row(reflection: Any) -> str:
    if not isinstance(reflection, dict) or not reflection:
        return ""
    verdict = _e(reflection.get("verdict", "–"))
    confidence = reflection.get("confidence")
    if isinstance(confidence, (int, float)):
        verdict += f' <span class="meta">(confidence {confidence:.0%})</span>'
    if reflection.get("reasoning"):
        verdict += f' — <span class="text">{_e(reflection["reasoning"])}</span>'
    return _row("Screen check", verdict)


def _cost_row(step: dict[str, Any]) -> str:
    timings = step.get("timings_ms") or {}
    phases = " · ".join(f"{str(name).replace('_', ' ')} {value:,.0f} ms" for name, value in timings.items()
                        if isinstance(value, (int, float)))
    parts = [phases or "no timings", f"tokens: {_tokens(step.get('tokens'))}", f"cost: {_cost(step.get('cost_usd'))}"]
    attempts = step.get("model_attempts")
    if isinstance(attempts, int) and attempts > 1:
        parts.append(f"{attempts} model attempts")
    return f'<div class="row meta">{_e(" | ".join(parts))}</div>'


def _step_card(run_dir: Path, step: dict[str, Any]) -> str:
    status = _step_status(step)
    heading = [f"Step {_e(step.get('step', '?'))}", _badge(status)]
    if step.get("screen_only"):
        heading.append('<span class="badge muted">screenshot only: the controls could not be read</span>')
    if step.get("foreground"):
        heading.append(f'<span class="meta">{_e(step["foreground"])}</span>')
    rows = []
    if step.get("thought"):
        rows.append(_row("Thought", f'<span class="text">{_e(step["thought"])}</span>'))
    if step.get("comment"):
        rows.append(_row("Comment", f'<span class="text">{_e(step["comment"])}</span>'))
    executed = step.get("action_text") or action_words(step.get("action"))
    proposed = action_words(step.get("proposed_action"))
    if proposed:
        rows.append(_row("Proposed", f"<code>{_e(proposed)}</code>"))
        rows.append(_row("Executed instead", f"<code>{_e(executed or 'nothing')}</code>"))
    elif executed:
        rows.append(_row("Action", f"<code>{_e(executed)}</code>"))
    rows += [_decision_row(step.get("decision")), _result_row(step.get("result")),
             _reflection_row(step.get("reflection"))]
    if step.get("error"):
        rows.append(_row("Error", f'<span class="error">{_e(step["error"])}</span>'))
    rows.append(_cost_row(step))
    for key, label in (("raw_reply", "Model reply"), ("prompt_text", "Prompt text")):
        if step.get(key):
            rows.append(f"<details><summary>{_e(label)}</summary><pre>{_e(step[key])}</pre></details>")
    return (f'<section class="card step" style="--status:{STATUS_COLOURS.get(status, "#6e7781")}">'
            f'<div class="shot">{_screenshot(run_dir, step)}</div>'
            f'<div><h2>{"".join(heading)}</h2>{"".join(rows)}</div></section>')
