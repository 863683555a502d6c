"""The window serving the task API (the `api.serve` setting, off by default).

The API lives on the core's loop beside the run service, so a task a script posts is a run of
this desk like the window's own: the window follows it live and the person approves its steps
here. Its phones come from every ADB server the settings name, plus the window's virtual phone.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from app.core.config import Settings
from app.core.loop_thread import LoopThread
from app.core.runs.service import RunService

if TYPE_CHECKING:
    from app.api.desk_api import DeskApi
    from app.core.device.adb_servers import PhoneDirectory

log = logging.getLogger(__name__)


class VirtualServer(Protocol):
    """The window's virtual phone server, as far as the API needs it."""

    @property
    def port(self) -> int: ...


class ApiHost:
    def __init__(self, core: LoopThread, service: RunService, settings: Callable[[], Settings],
                 virtual_server: Callable[[], VirtualServer | None]) -> None:
        self.core = core
        self.service = service
        self.settings = settings
        self.virtual_server = virtual_server      # the window's virtual phone server, if it started one
        self._api: DeskApi | None = None
        self._directory: PhoneDirectory | None = None
        self._serving: tuple[str, int] | None = None

    @property
    def url(self) -> str:
        return self._api.url if self._api is not None else ""

    async def apply(self) -> str:
        """Serve or stop as the settings say now (restart on a new address). Returns what to tell the person
        ("" when nothing changed)."""
        settings = self.settings().api
        wanted = (settings.host, settings.port) if settings.serve else None
        if wanted == self._serving:
            return ""
        await self.stop()
        if wanted is None:
            return "The task API is off."
        try:
            api, self._directory = await self.core.run(self._start())
        except Exception as exc:            # a taken port, a bad server list, a keyring fault: say it, run on
            log.warning("the task API did not start: %s", exc)
            return f"The task API could not start: {exc}"
        self._api, self._serving = api, wanted
        return f"Task API on {api.url} (token: `agentdesk serve --print-token`). " + api.warning

    async def _start(self) -> tuple[DeskApi, PhoneDirectory]:
        from app.api.desk_api import serve_desk
        from app.core.device.adb_servers import PhoneDirectory, adb_servers

        directory = PhoneDirectory(self.service.phones, adb_servers(self.settings().adb))
        virtual = self.virtual_server()
        if virtual is not None:
            directory.add_server(f"127.0.0.1:{virtual.port}", virtual=True)
        await directory.refresh()
        directory.start()
        try:
            return await serve_desk(self.service, directory, self.settings), directory
        except BaseException:
            await directory.stop()
            raise

    def use_token(self, token) -> None:
        """A rotated token: the API this window serves accepts only it from now on (none served: nothing to do)."""
        api = self._api
        if api is not None:
            self.core.call(lambda: api.use_token(token))

    async def stop(self) -> None:
        api, directory = self._api, self._directory
        self._api = self._directory = self._serving = None
        if api is not None:
            await self.core.run(api.stop())
        if directory is not None:
            await self.core.run(directory.stop())
