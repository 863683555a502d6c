"""The bench's table: one row per episode (AndroidWorld's verdict next to the app's own ending and what the run
cost), the success rate with its 95 % confidence interval, and every other task of AndroidWorld's list with the
reason it was not run. Also as JSON."""

from __future__ import annotations

import math
import textwrap
from pathlib import Path
from typing import Any

from app.bench.table import render_grid

from .bench import AndroidWorldReport, Episode

Z_95 = 1.959964


def wilson_interval(successes: float, n: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a success rate (`successes` of `n`; a composite task's share counts as its
    fraction), as fractions. (0, 1) when nothing was run."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _verdict(episode: Episode) -> str:
    if episode.score is None:
        return "not judged"
    return "done" if episode.succeeded else f"not done ({episode.score:g})" if episode.score else "not done"


def _short(text: str, width: int = 48) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def summary(report: AndroidWorldReport) -> dict[str, Any]:
    """Success rate (AndroidWorld's scores, a task that could not be set up counting 0), its interval, and the
    count of runs the app called a success that AndroidWorld did not."""
    n = len(report.episodes)
    total = sum(episode.score or 0.0 for episode in report.episodes)
    low, high = wilson_interval(total, n)
    return {"episodes": n, "success_rate": total / n if n else None, "interval_95": [low, high],
            "false_successes": sum(episode.false_success for episode in report.episodes),
            "app_successes": sum(episode.ending == "success" for episode in report.episodes),
            "calls": sum(e.calls for e in report.episodes), "tokens": sum(e.tokens for e in report.episodes),
            "seconds": sum(e.seconds for e in report.episodes)}


def not_run(report: AndroidWorldReport) -> dict[str, list[str]]:
    """Why → the tasks of the list not played for that reason, in the list's order."""
    played = {episode.task for episode in report.episodes}
    chosen = set(report.chosen)
    grouped: dict[str, list[str]] = {}
    for entry in report.entries:
        if entry.name not in played:
            why = entry.reason or ("not chosen (--tasks)" if entry.name not in chosen else "runnable here, not played")
            grouped.setdefault(why, []).append(entry.name)
    return grouped


def render(report: AndroidWorldReport) -> str:
    header = ["task", "#", "goal", "AndroidWorld", "app's ending", "steps", "model calls", "tokens", "time",
              "report"]
    body = [[e.task, str(e.instance), _short(e.goal), _verdict(e), e.ending or "-", str(e.steps), str(e.calls),
             f"{e.tokens:,}", f"{e.seconds:.1f} s", Path(e.report).parent.name if e.report else "-"]
            for e in report.episodes]
    figures = summary(report)
    lines = [f"agentdesk bench androidworld — {report.phone}, {report.model}, random seed {report.seed}", ""]
    if body:
        lines.append(render_grid(header, body))
        low, high = figures["interval_95"]
        lines += ["", f"Success rate (AndroidWorld's verdicts): {figures['success_rate']:.1%} of "
                      f"{figures['episodes']} episode(s), 95% interval {low:.1%}–{high:.1%} (Wilson). "
                      f"Model calls {figures['calls']:,}, tokens {figures['tokens']:,}, "
                      f"{figures['seconds']:.0f} s in all."]
        if figures["false_successes"]:
            lines.append(f"FALSE SUCCESS: {figures['false_successes']} run(s) the app called a success that "
                         "AndroidWorld judged not done.")
        folders = sorted({str(Path(e.run_dir).parent) for e in report.episodes if e.run_dir})
        if folders:
            lines.append(f"Reports: report.html in each run's folder under {', '.join(folders)}.")
    else:
        lines.append("No task was played.")
    problems = [f"  {e.task} #{e.instance}: {e.problem}" for e in report.episodes if e.problem]
    if problems:
        lines += ["", "Problems:", *problems]
    skipped = not_run(report)
    if skipped:
        count = sum(len(names) for names in skipped.values())
        lines += ["", f"Not played ({count} of AndroidWorld's {len(report.entries)} tasks), by reason:"]
        for why, names in sorted(skipped.items(), key=lambda item: (-len(item[1]), item[0])):
            lines.append(f"- {why} ({len(names)}):")
            lines += textwrap.wrap(", ".join(names), width=110, initial_indent="    ", subsequent_indent="    ")
    return "\n".join(lines)


def as_dict(report: AndroidWorldReport) -> dict[str, Any]:
    return {"phone": report.phone, "model": report.model, "seed": report.seed, "summary": summary(report),
            "episodes": [{**vars(e), "verdict": _verdict(e)} for e in report.episodes],
            "tasks": [{"name": entry.name, "family": entry.family, "packages": list(entry.packages),
                       "runnable": entry.runnable, "reason": entry.reason,
                       "chosen": entry.name in report.chosen} for entry in report.entries]}
