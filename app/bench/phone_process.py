"""The virtual phone in its own process for benchmarks: a real phone is another machine, so its
rendering must not compete with the app for this process's GIL."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def virtual_phone_process(*extra_args: str) -> Iterator[int]:
    """Start `agentdesk virtual-phone` on a free port; yields the port; stops it afterwards.

    `extra_args` go to the command (e.g. "--latency", "realistic"). Its stderr goes to a file,
    so a chatty phone can never fill a pipe nobody reads and stall."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))}
    with tempfile.TemporaryFile("w+") as errors:
        process = subprocess.Popen([sys.executable, "-m", "app.cli", "virtual-phone", "--port", "0", *extra_args],
                                   stdout=subprocess.PIPE, stderr=errors, text=True, env=env)
        assert process.stdout is not None, "stdout=PIPE"
        try:
            first_line = process.stdout.readline()
            match = re.search(r"127\.0\.0\.1:(\d+)", first_line)
            if not match:
                process.wait(10)
                errors.seek(0)
                raise RuntimeError(f"the virtual phone did not start: {first_line}{errors.read()[-2000:]}")
            yield int(match.group(1))
        finally:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            process.stdout.close()
