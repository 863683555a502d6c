"""Serving the task API with uvicorn, on the loop the run service lives on.

`ApiServer.start()` binds the socket itself (so port 0 gives a free port and a port in use is a
clear error at once), runs uvicorn's server as a task of the current loop, and writes
`api.json` in the data folder — the address and process, never the token — so `agentdesk mcp`
finds a running desk. Signals stay the owner's business (the command line's, the window's).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
import os
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import uvicorn

from app.core import paths

log = logging.getLogger(__name__)

DISCOVERY_FILE = "api.json"


class ServeProblem(RuntimeError):
    """The API could not start (the port is taken, the address is not this machine's…)."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARDS = ("0.0.0.0", "::", "")


def host_name(header: str) -> str:
    """The name in a Host header, without its port or brackets, lower case ("[::1]:8765" → "::1")."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def host_allowed(header: str, serving: str) -> bool:
    """Whether a request whose Host header is `header` is addressed to a desk listening on `serving`.

    Loopback names always are (with any port); so is the address it serves on. Serving on every
    address (0.0.0.0, ::), any IP address is, but no other name: a web page that points a name it owns
    at this machine (DNS rebinding) sends that name, never an address."""
    name = host_name(header)
    if name in LOOPBACK_NAMES or name == serving.strip("[]").lower():
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    return address.is_loopback or serving.strip("[]") in WILDCARDS


def exposure_warning(host: str) -> str:
    """What to say when the API listens beyond this machine ("" on loopback)."""
    if is_loopback(host):
        return ""
    return (f"warning: the task API listens on {host}, so other machines can reach it. Every request still needs "
            "the token, but it travels unencrypted over plain HTTP: use this on a network you trust, or put a TLS "
            "proxy in front.")


class _QuietServer(uvicorn.Server):
    """uvicorn's server without its own signal handling: the desk or the command stops it."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@dataclass
class Discovery:
    url: str
    pid: int
    token_source: str = ""      # where the desk's token comes from, in words (never the token)


def discovery_path() -> Path:
    return paths.data_dir() / DISCOVERY_FILE


def read_discovery() -> Discovery | None:
    """The running desk's API, if one wrote its address and its process is still alive."""
    try:
        data = json.loads(discovery_path().read_text(encoding="utf-8"))
        found = Discovery(str(data["url"]), int(data["pid"]), str(data.get("token_source", "")))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        os.kill(found.pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass
    return found


DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))
"""Straight to the desk: never through a proxy the environment names (it would see the token)."""


def desk_accepts(url: str, token: str, timeout: float = 3.0) -> bool | None:
    """Whether the desk at `url` accepts `token` (None: it did not answer). Blocking."""
    request = urllib.request.Request(f"{url}/v1/tasks?status=queued", headers={"Authorization": f"Bearer {token}"})
    try:
        with DIRECT.open(request, timeout=timeout) as response:
            return response.status == 200
    except urllib.error.HTTPError as exc:
        return False if exc.code == 401 else None
    except (OSError, ValueError):
        return None


class ApiServer:
    def __init__(self, app, host: str = "127.0.0.1", port: int = 8765, *, announce: bool = True,
                 token_source: Callable[[], str] = lambda: "") -> None:
        self.app = app
        self.token_source = token_source    # where the token comes from, in words: api.json says it
        self.host = host
        self.port = port
        self.announce = announce            # write api.json for `agentdesk mcp` (not in tests' own servers)
        self._server: _QuietServer | None = None
        self._task: asyncio.Task | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    async def start(self) -> ApiServer:
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.host.strip("[]"), self.port))
        except OSError as exc:
            sock.close()
            raise ServeProblem(f"Cannot listen on {self.host}:{self.port}: {exc.strerror or exc}. "
                               "Another program (or another desk) may use the port: choose one with --port.") from None
        sock.listen(128)
        sock.setblocking(False)
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(self.app, log_level="warning", access_log=False, lifespan="off",
                                timeout_graceful_shutdown=2)
        self._server = _QuietServer(config)
        self._task = asyncio.ensure_future(self._server.serve(sockets=[sock]))
        started = time.monotonic()
        while not self._server.started:
            if self._task.done():
                sock.close()
                self._task.result()          # its error, if it failed
                raise ServeProblem("The task API stopped as it started.")
            if time.monotonic() - started > 10:
                raise ServeProblem("The task API did not start within 10 s.")
            await asyncio.sleep(0.01)
        if self.announce:
            await asyncio.to_thread(self._write_discovery)
        log.info("task API on %s", self.url)
        return self

    def _write_discovery(self) -> None:
        path = discovery_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            temp = path.with_suffix(".tmp")
            temp.write_text(json.dumps({"url": self.url, "pid": os.getpid(),
                                             "token_source": self.token_source()}), encoding="utf-8")
            temp.replace(path)
        except OSError as exc:
            log.warning("could not write %s (agentdesk mcp will not find this desk): %s", path, exc)

    def _remove_discovery(self) -> None:
        found = read_discovery()
        if found is not None and found.pid == os.getpid():
            with contextlib.suppress(OSError):
                discovery_path().unlink()

    async def stop(self) -> None:
        if self._server is None:
            return
        self._server.should_exit = True
        if self._task is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._task, 5)
        self._server = self._task = None
        if self.announce:
            await asyncio.to_thread(self._remove_discovery)
