"""Running a GUI benchmark in its own process (it makes its own QApplication and qasync loop), as
`agentdesk bench` does, and reading its table back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def bench_table_in_process(script: str, folder: Path, timeout: float = 240) -> dict:
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
