"""The window serving the task API (the `api.serve` setting, off by default).

The API is the Desk's: it lives on the core's loop beside the run service, so a task a script posts
is a run of this desk like the window's own: the window follows it live and the person approves its
steps here. Its phones are the desk's directory (every ADB server the settings name, plus the
window's virtual phone), the same one the window lists: one `track-devices` connection per server.
While it is served, "API token…" in the status bar shows its address and token to copy
(`api_token_view.py`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMainWindow

from app.core.loop_thread import LoopThread
from app.desk import Desk
from app.gui.api_token_view import LINK_TEXT, ApiTokenLink

if TYPE_CHECKING:        # the API itself loads when it is first served
    from app.api.desk_api import DeskApi
    from app.api.token import ApiToken

log = logging.getLogger(__name__)


class ApiHost:
    def __init__(self, core: LoopThread, desk: Desk, window: QMainWindow | None = None) -> None:
        self.core = core
        self.desk = desk
        self.window = window
        self.token_link: ApiTokenLink | None = None     # "API token…" in the window's status bar while serving
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
        self._show_link(True)
        return f"Task API on {api.url} — its token: “{LINK_TEXT}” at the right of this bar. " + api.warning

    def serving(self) -> tuple[str, ApiToken] | None:
        """The API's address and its token now (None while it is not served)."""
        api = self.desk.api
        return (api.url, api.token) if api is not None else None

    def _show_link(self, shown: bool) -> None:
        if self.window is None:
            return
        if self.token_link is None:
            if not shown:
                return
            self.token_link = ApiTokenLink(self.serving)
            self.window.statusBar().addPermanentWidget(self.token_link)
        self.token_link.setVisible(shown)
        if not shown and self.token_link.dialog is not None:
            self.token_link.dialog.close()

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
        self._show_link(False)
        await self.core.run(self.desk.stop_serving())
