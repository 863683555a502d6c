"""The window serving the task API (the `api.serve` setting, off by default).

The API is the Desk's: it lives on the core's loop beside the run service, so a task a script posts
is a run of this desk like the window's own: the window follows it live and the person approves its
steps here. Its phones are the desk's directory (every ADB server the settings name, plus the
window's virtual phone), the same one the window lists: one `track-devices` connection per server.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from app.core.loop_thread import LoopThread
from app.desk import Desk

if TYPE_CHECKING:        # the API itself loads when it is first served
    from app.api.desk_api import DeskApi
    from app.api.token import ApiToken

log = logging.getLogger(__name__)


class ApiHost:
    def __init__(self, core: LoopThread, desk: Desk) -> None:
        self.core = core
        self.desk = desk
        self._serving: tuple[str, int] | None = None

    @property
    def url(self) -> str:
        return self.desk.url

    async def apply(self) -> str:
        """Serve or stop as the settings say now (restart on a new address). Returns what to tell the person
        ("" when nothing changed)."""
        settings = self.desk.settings.api
        wanted = (settings.host, settings.port) if settings.serve else None
        if wanted == self._serving:
            return ""
        await self.stop()
        if wanted is None:
            return "The task API is off."
        try:
            api = await self.core.run(self._start())
        except Exception as exc:            # a taken port, a keyring fault: say it, run on
            log.warning("the task API did not start: %s", exc)
            return f"The task API could not start: {exc}"
        self._serving = wanted
        return f"Task API on {api.url} (token: `agentdesk serve --print-token`). " + api.warning

    async def _start(self) -> DeskApi:
        await self.desk.directory.refresh()     # the phones now, before the watchers' first lists
        return await self.desk.serve()

    def use_token(self, token: ApiToken) -> None:
        """A rotated token: the API this window serves accepts only it from now on (none served: nothing to do)."""
        api = self.desk.api
        if api is not None:
            self.core.call(lambda: api.use_token(token))

    async def stop(self) -> None:
        self._serving = None
        await self.core.run(self.desk.stop_serving())
