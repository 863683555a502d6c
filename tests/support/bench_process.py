"""Running a GUI benchmark in its own process (it makes its own QApplication and qasync loop), as
`agentdesk bench` does, and reading its table back: `bench_figures` makes a test module's fixture of it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH_SECONDS = 360
"""How long a bench run in its own process may take (on a busy two-core machine, the GUI bench takes minutes)."""
FIXTURE_TIMEOUT = BENCH_SECONDS + 60
"""pytest-timeout for a test module whose `figures` fixture runs a bench: longer than the bench itself, so a slow
bench fails with its own timeout and output, not the suite's 120 s default in the middle of it. Modules set
`pytestmark = pytest.mark.timeout(FIXTURE_TIMEOUT)`."""


def bench_table_in_process(script: str, folder: Path, timeout: float = BENCH_SECONDS) -> dict:
    """Run `script` (Python that writes its table's `as_dict()` as JSON to `sys.argv[1]` and prints the
    rendered table) offscreen with AGENTDESK_HOME in `folder`; the table, with "rendered" its printout."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "AGENTDESK_HOME": str(folder)}
    out = folder / "table.json"
    done = subprocess.run([sys.executable, "-c", script, str(out)], capture_output=True, text=True, env=env,
                          timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    table = json.loads(out.read_text())
    table["rendered"] = done.stdout
    return table


def bench_figures(imports: str, call: str, folder_name: str):
    """A module-scoped `figures` fixture: the table that `call` (a Python expression, after `imports`) makes, run
    by `bench_table_in_process` in a fresh folder named after `folder_name`. Assign it to `figures` in the module."""
    script = (f"import json, sys\n{imports}\ntable = {call}\nprint(table.render())\n"
              "json.dump(table.as_dict(), open(sys.argv[1], 'w'))\n")

    @pytest.fixture(scope="module", name="figures")
    def figures(tmp_path_factory):
        return bench_table_in_process(script, tmp_path_factory.mktemp(folder_name))
    return figures


def figure_row(table: dict, start: str) -> dict:
    """The table's row whose figure starts with `start`."""
    return next(r for r in table["rows"] if r["figure"].startswith(start))
