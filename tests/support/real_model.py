"""A real OpenAI-compatible model server for tests: llama.cpp's llama-server with SmolLM2-135M.

Started from the recipe in ../shared/real-model (start-llama-server.sh PORT): text only (an image
part gets HTTP 500 "image input is not supported"), no tool calls, JSON enforced by grammar when
asked, `finish_reason: length` at max_tokens, a few seconds per reply on two cores. A 135M model
will not do phone tasks: tests use it to prove the app ends runs in a defined, honest state
against a real server. Where the recipe is missing (a fresh clone) or the server cannot start,
tests that need it are skipped with the reason.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class RealModelServer:
    base_url: str
    model: str
    pid: int


class RealModelUnavailable(Exception):
    """Why no real model server could be started here (the reason a test is skipped with)."""


def start_real_model_server(shared_dir: Path, timeout: float = 1200) -> RealModelServer:
    script = shared_dir / "real-model" / "start-llama-server.sh"
    if not script.is_file():
        raise RealModelUnavailable(f"no real-model recipe at {script} (a checkout with ../shared beside it has one)")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    try:
        done = subprocess.run(["bash", str(script), str(port)], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RealModelUnavailable(f"llama-server did not start within {timeout:.0f} s") from None
    values = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
    if done.returncode != 0 or not {"BASE_URL", "MODEL", "PID"} <= values.keys():
        raise RealModelUnavailable(f"llama-server did not start: {done.stderr.strip()[-500:]}")
    return RealModelServer(values["BASE_URL"], values["MODEL"], int(values["PID"]))


def stop_real_model_server(server: RealModelServer) -> None:
    try:
        os.kill(server.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
