"""Which tests run in which `.ci/run` step, which must not run beside each other under pytest-xdist,
and what the summary says about the tests that did not run.

The main step (README's test command) runs `-m "not bench and not real_model and not alone"` with xdist workers;
the benches, the real-model tests and the timing tests marked `alone` run in a step of their own, serially
(`-m "bench or real_model or alone"`): their figures
are not taken on a machine busy with the rest of the suite, and the model server has both cores. (On two workers
beside each other the real model took 105 s for one reply and the GUI bench saw no frames.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

MAIN_STEP = "not bench and not real_model and not alone"
"""The `-m` expression of `.ci/run`'s main step and of README's test command."""

TIERS = {                                     # path inside tests/ (folder or file) → marker
    "benchmarks": "bench",
    "e2e/test_agent_real_model.py": "real_model",
    # What they check is the timing of a screen that moves: a stream's pictures run late on a machine busy with
    # four workers (the screen seen mid-transition although the phone had settled), as on a slow real phone.
    "e2e/test_settle_e2e.py": "alone",
    # Hover reaches a button through a synthetic mouse move, which the offscreen platform now and then drops
    # beside four busy workers.
    "gui/test_theme_contrast.py": "alone",
}

GROUPS = {                                    # path inside tests/ → xdist group (tests of a group share one worker)
    # One llama-server per worker that has one of its tests; it fills both cores while it answers (should the
    # tier ever run with workers).
    "e2e/test_agent_real_model.py": "real_model",
}
"""What must not run beside itself. Everything else starts its servers and phones on free loopback ports,
keeps its data under tmp_path or AGENTDESK_HOME, and locks virtual phones by server port in the machine's
phone-lock folder, so it can share the machine."""

TIMEOUTS = {                                  # path inside tests/ → pytest-timeout (s), where a test sets none
    # A bench module's first test runs the whole bench in its module-scoped fixture (minutes on a busy machine).
    "benchmarks": 420,
    # The server starts in its module fixture (its venv made at the first run); a reply takes seconds, a run more.
    "e2e/test_agent_real_model.py": 600,
}
"""Longer than what runs inside those tests, so they fail with their own timeouts and output, not the suite's
120 s default in the middle of a bench."""

CORPUS_DUMPS = 77
CORPUS_DUMPS_WITH_SCREENSHOT = 23
"""The size of ../shared/corpus/ui-dumps (checked by tests/test_suite_tiers.py wherever the corpus is): where
it is missing, one skipped test stands for the test of every dump, and the summary counts what it stands for."""

STANDS_FOR = "stands_for_tests"


def _relative(item: pytest.Item) -> str:
    parts = Path(str(item.fspath)).parts
    return "/".join(parts[len(parts) - parts[::-1].index("tests"):]) if "tests" in parts else ""


def _matches(relative: str, key: str) -> bool:
    return relative == key or relative.startswith(key.rstrip("/") + "/")


def mark_tiers(items: list[pytest.Item]) -> None:
    """Add each test's tier marker and xdist group; note what a corpus stand-in stands for."""
    for item in items:
        relative = _relative(item)
        for key, marker in TIERS.items():
            if _matches(relative, key):
                item.add_marker(getattr(pytest.mark, marker))
        for key, group in GROUPS.items():
            if _matches(relative, key):
                item.add_marker(pytest.mark.xdist_group(group))
        for key, seconds in TIMEOUTS.items():
            if _matches(relative, key) and item.get_closest_marker("timeout") is None:
                item.add_marker(pytest.mark.timeout(seconds))
        if relative.startswith("benchmarks/"):
            # A bench module's figures are one module-scoped run: all its tests on one worker, run once.
            item.add_marker(pytest.mark.xdist_group("bench:" + relative))
        params = getattr(getattr(item, "callspec", None), "params", {})
        if "dump_name" in params and params["dump_name"] is None:
            item.user_properties.append((STANDS_FOR, CORPUS_DUMPS))
        elif "screenshot_dump_name" in params and params["screenshot_dump_name"] is None:
            item.user_properties.append((STANDS_FOR, CORPUS_DUMPS_WITH_SCREENSHOT))


def skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return text.removeprefix("Skipped: ")


def why_in_words(reason: str) -> str:
    """A skip reason as the summary groups it."""
    if "shared UI-dump corpus" in reason:
        return "../shared not beside the project (real phone dumps)"
    if "real-model recipe" in reason:
        return "../shared not beside the project (the real-model server recipe)"
    if "AndroidWorld's source is not here" in reason:
        return "../shared not beside the project (AndroidWorld's tasks and checkers)"
    return reason


def did_not_run(reports: list[pytest.TestReport]) -> list[tuple[int, int, str]]:
    """(tests that did not run, skipped reports, why) per reason, most first. A corpus stand-in counts as the
    tests it stands for."""
    counts: dict[str, list[int]] = {}
    for report in reports:
        if getattr(report, "wasxfail", None) is not None:
            continue
        weight = dict(report.user_properties).get(STANDS_FOR, 1)
        count = counts.setdefault(why_in_words(skip_reason(report)), [0, 0])
        count[0] += int(weight)
        count[1] += 1
    return sorted(((tests, skipped, why) for why, (tests, skipped) in counts.items()), key=lambda c: (-c[0], c[2]))


def summary_lines(reports: list[pytest.TestReport]) -> list[str]:
    lines = []
    for tests, skipped, why in did_not_run(reports):
        stands = (f" ({skipped} skipped; a skipped corpus-wide test stands for its test of every dump)"
                  if tests != skipped else "")
        lines.append(f"{tests} test{'s' if tests != 1 else ''} did not run{stands}: {why}")
    return lines
