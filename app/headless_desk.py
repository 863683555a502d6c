"""A desk without a window: phones from every ADB server, the run service, and the task API.

What `agentdesk serve` runs, and `agentdesk mcp` when no desk is running. Like the window, it
falls back to the built-in virtual phone when no real phone is attached (and says so).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from app.api.desk_api import DeskApi, serve_desk
from app.api.token import ApiToken
from app.core.config import Settings
from app.core.device.adb_servers import PhoneDirectory, adb_servers
from app.core.device.phone_session import PhoneRegistry
from app.core.runs.handle import PersonPolicy
from app.core.runs.service import RunService
from app.phone_connection import start_virtual_phone

if TYPE_CHECKING:
    from app.virtual_phone.adb_server import VirtualAdbServer

log = logging.getLogger(__name__)


@dataclass
class HeadlessDesk:
    settings: Settings
    phones: PhoneRegistry
    directory: PhoneDirectory
    service: RunService
    api: DeskApi | None = None
    virtual_server: VirtualAdbServer | None = None
    notes: list[str] = field(default_factory=list)

    async def close(self) -> None:
        await self.service.shutdown()
        if self.api is not None:
            await self.api.stop()
        await self.directory.stop()
        await self.phones.close()
        if self.virtual_server is not None:
            await asyncio.to_thread(self.virtual_server.stop)


async def open_headless_desk(settings: Settings, *, virtual: bool | None = None, host: str | None = None,
                             port: int | None = None, token: ApiToken | None = None,
                             policy: PersonPolicy = "person", announce: bool = True,
                             client_factory: Callable | None = None) -> HeadlessDesk:
    """Find the phones (the virtual one when none is attached, unless `virtual` is False), make the run
    service and serve the API. Raises ValueError for a bad AGENTDESK_ADB_SERVERS, ServeProblem when the
    port is taken."""
    phones = PhoneRegistry(lambda: settings.mirror)
    directory = PhoneDirectory(phones, [] if virtual else adb_servers(settings.adb))
    service = (RunService(phones, settings) if client_factory is None
               else RunService(phones, settings, client_factory=client_factory))
    desk = HeadlessDesk(settings, phones, directory, service)
    try:
        if not virtual:
            entries = await directory.refresh()
            for server, reason in directory.unreachable().items():
                desk.notes.append(f"ADB server {server} did not answer ({reason}).")
        else:
            entries = []
        if virtual is not False and not any(entry.ready for entry in entries):
            virtual_port = int(os.environ.get("AGENTDESK_VIRTUAL_PORT", "0"))
            desk.virtual_server = await asyncio.to_thread(start_virtual_phone, virtual_port)
            directory.add_server(f"127.0.0.1:{desk.virtual_server.port}", virtual=True)
            await directory.refresh()
            desk.notes.append("No phone is attached: tasks go to the built-in virtual phone." if not virtual
                              else "Using the built-in virtual phone.")
        directory.start()
        desk.api = await serve_desk(desk.service, directory, lambda: settings, host=host, port=port, token=token,
                                    policy=policy, announce=announce)
    except BaseException:
        await desk.close()
        raise
    return desk
