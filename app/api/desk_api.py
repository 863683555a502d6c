"""The task API put together for one desk: its board, its routes and its server.

Used by `agentdesk serve`, by `agentdesk mcp` when no desk runs, and by the window (the
`api.serve` setting). Whoever owns the run service owns this; it lives on the run service's loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from app.core.config import Settings
from app.core.runs.handle import PersonPolicy
from app.core.runs.service import RunService

from .http_app import Preflight, create_app
from .server import ApiServer, exposure_warning
from .tasks import TaskBoard
from .token import ApiToken, api_token


@dataclass
class DeskApi:
    board: TaskBoard
    server: ApiServer
    token: ApiToken
    warning: str = ""

    @property
    def url(self) -> str:
        return self.server.url

    def use_token(self, token: ApiToken) -> None:
        """Accept `token` from the next request on; the old one stops working at once (a rotation)."""
        self.token = token

    async def stop(self) -> None:
        await self.server.stop()


async def serve_desk(service: RunService, phones, settings: Callable[[], Settings], *, host: str | None = None,
                     port: int | None = None, token: ApiToken | None = None, policy: PersonPolicy = "person",
                     announce: bool = True, preflight: Preflight | None = None) -> DeskApi:
    """Start the API on the current loop (the run service's). Raises ServeProblem or TokenProblem."""
    if token is None:
        token = await asyncio.to_thread(api_token)
    current = settings()
    host = host if host is not None else current.api.host
    port = port if port is not None else current.api.port
    board = TaskBoard(service, phones, settings, policy=policy)
    app = create_app(board, phones, lambda: desk.token, settings, host=host, preflight=preflight)
    server = ApiServer(app, host, port, announce=announce, token_source=lambda: desk.token.source)
    desk = DeskApi(board, server, token, exposure_warning(host))
    await desk.server.start()
    return desk
