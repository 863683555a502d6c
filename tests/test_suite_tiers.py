"""The suite's own arrangement (tests/support/tiers.py): which tests `.ci/run` runs in which step, README's test
command being `.ci/run`'s, and the summary of the tests that did not run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import CORPUS_MISSING, REPO_ROOT
from tests.support import tiers


def test_readme_test_command_is_what_ci_runs_for_its_main_step():
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)\n```", readme, re.DOTALL)
    assert len(blocks) == 2, "README keeps exactly two set-up commands"
    test_command = blocks[1]
    assert f'-m "{tiers.MAIN_STEP}"' in test_command and "ruff check app tests && mypy && lint-imports" in test_command
    ci = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8")
    quiet = test_command.replace("pip install -e", "pip install -q -e")     # CI's pip says less, nothing else differs
    assert f"bash -c '{quiet}'" in ci
    assert 'python3 -m pytest -m "bench or real_model or alone"' in ci, "the other tier runs too"


def test_every_test_is_in_one_step_and_the_benches_and_the_real_model_are_marked(request):
    items = request.session.items
    assert items
    for item in items:
        path = Path(str(item.fspath)).as_posix()
        bench = item.get_closest_marker("bench") is not None
        real = item.get_closest_marker("real_model") is not None
        assert bench == ("/tests/benchmarks/" in path), item.nodeid
        assert real == path.endswith("/tests/e2e/test_agent_real_model.py"), item.nodeid
        alone = item.get_closest_marker("alone") is not None
        assert alone == path.endswith(("/tests/e2e/test_settle_e2e.py", "/tests/gui/test_theme_contrast.py")), \
            item.nodeid
        if real:
            assert [m.args[0] for m in item.iter_markers("xdist_group")] == ["real_model"]
        if bench or real:               # longer than the bench or the model server inside them
            assert item.get_closest_marker("timeout").args[0] >= 420, item.nodeid


def test_the_corpus_is_as_large_as_the_summary_counts_it(corpus_dir):
    dumps = sorted(corpus_dir.glob("*/*.xml"))
    assert len(dumps) == tiers.CORPUS_DUMPS
    assert sum(path.with_suffix(".png").is_file() for path in dumps) == tiers.CORPUS_DUMPS_WITH_SCREENSHOT


def skipped(nodeid: str, reason: str, stands_for: int | None = None) -> pytest.TestReport:
    properties = [(tiers.STANDS_FOR, stands_for)] if stands_for else []
    return pytest.TestReport(nodeid, ("x.py", 1, nodeid), {}, "skipped", ("x.py", 1, f"Skipped: {reason}"), "setup",
                             user_properties=properties)


def test_the_summary_says_how_many_tests_did_not_run_and_why():
    reports = [skipped("a[no-corpus]", CORPUS_MISSING, tiers.CORPUS_DUMPS),
               skipped("b[no-corpus]", CORPUS_MISSING, tiers.CORPUS_DUMPS_WITH_SCREENSHOT),
               skipped("c", CORPUS_MISSING),
               skipped("d", "no real-model recipe at /x/real-model/start-llama-server.sh (a checkout ...)"),
               skipped("e", "needs Debian's adb client")]
    lines = tiers.summary_lines(reports)
    corpus = tiers.CORPUS_DUMPS + tiers.CORPUS_DUMPS_WITH_SCREENSHOT + 1
    assert lines[0].startswith(f"{corpus} tests did not run (3 skipped;")
    assert lines[0].endswith(": ../shared not beside the project (real phone dumps)")
    assert "1 test did not run: ../shared not beside the project (the real-model server recipe)" in lines
    assert "1 test did not run: needs Debian's adb client" in lines
