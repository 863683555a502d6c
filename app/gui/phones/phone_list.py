"""Every phone of every ADB server the window knows, kept current as phones come and go.

A Qt face over the Desk's `PhoneDirectory` (one `track-devices` connection per ADB server, shared
with the task API), which lives on the core's loop: each change is handed to the GUI thread as a
snapshot (the GUI thread never touches a socket, nor the directory). This machine's server is
watched from the start, even while the window shows the built-in virtual phone, and when none
runs it is started the way `adb devices` would — calmly, a few seconds apart, never in a loop.
A phone that was not there before is offered (`phone_attached`); Wi-Fi connect and pairing
report what really happened (`wifi_result`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from app.core.device import wifi_adb
from app.core.device.adb_servers import PhoneEntry, ServerList
from app.core.device.adb_transport import DeviceListing
from app.core.loop_thread import LoopThread
from app.desk import Desk
from app.gui.bridge import GuiHop
from app.gui.phones.device_panel import DeviceEntry

log = logging.getLogger(__name__)


class PhoneList(QObject):
    devices_changed = Signal(object)     # list[DeviceEntry]
    phone_attached = Signal(object)      # DeviceEntry: a phone that was not listed before
    wifi_result = Signal(bool, str)      # Wi-Fi connect / pair: did it work, and what happened in words
    status = Signal(str)

    def __init__(self, core: LoopThread, desk: Desk, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.core = core
        self.desk = desk
        self.local = desk.local
        self.virtual_port: int | None = None       # the built-in virtual phone's server, when it runs
        self.entries: list[DeviceEntry] = []
        self._lists: dict[str, ServerList] = {}    # what each server said last (its phones kept while it is away)
        self._seen: set[tuple[str, str]] = set()   # every phone listed so far
        self._heard_from: set[str] = set()         # servers that reported at least once
        self._tasks: set[asyncio.Future] = set()
        self.hop = GuiHop()                        # the directory's changes, from the core's loop to this thread
        self._following = False                    # on the core loop: subscribed to the directory
        self._stopped = False
        # Whether phones already there when a server first answers are offered too: yes while the
        # window shows the virtual phone (it fell back, so any real phone is news), else no.
        self.offer_first_lists: Callable[[], bool] = lambda: False

    # ------------------------------------------------------------------ watching

    async def watch(self, address: str | None = None) -> None:
        """Follow the desk's phone directory: every server it lists (this machine's first), and `address` too."""
        self.hop.bind()
        await self.core.run(self._follow(address))

    async def _follow(self, address: str | None) -> None:
        """On the core loop: be told of each change, and watch."""
        if not self._following:
            self._following = True
            self.desk.directory.on_change(self._changed)
        self.desk.watch(address)
        if any(server.heard for server in self.desk.directory.server_lists()):
            self._changed([])               # what the directory knew already (an API that asked before)

    def _changed(self, _entries: list[PhoneEntry]) -> None:
        """On the core loop: hand the servers' lists to the GUI thread."""
        self.hop.call(self._on_lists, self.desk.directory.server_lists())

    def has_listed(self, server: str) -> bool:
        """Whether `server` has sent its list of phones yet (a phone missing before then is not gone)."""
        known = self._lists.get(server)
        return known is not None and known.listed

    def listing(self, entry: DeviceEntry) -> DeviceListing:
        known = self._lists.get(entry.server)
        listings = known.listings if known is not None else ()
        return next((d for d in listings if d.serial == entry.serial),
                    DeviceListing(entry.serial, "device", entry.model))

    def entry_for(self, server: str, listing: DeviceListing) -> DeviceEntry:
        known = self._lists.get(server)
        virtual = (self.virtual_port is not None and server.endswith(f":{self.virtual_port}")) or bool(
            known is not None and known.virtual)
        if known is not None and known.problem:
            return DeviceEntry(server, listing.serial, listing.model,
                               f"offline — its ADB server {server} is unreachable", False, virtual)
        return DeviceEntry(server, listing.serial, listing.model, listing.describe_state(), listing.ready, virtual)

    def _on_lists(self, lists: list[ServerList]) -> None:
        """On the GUI thread: the servers' lists now; say which phones are new."""
        if self._stopped:
            return
        self._lists = {server.address: server for server in lists if server.heard}
        self.entries = [self.entry_for(server.address, listing) for server in self._lists.values()
                        for listing in server.listings]
        news = []
        for address in self._lists:
            first_report = address not in self._heard_from
            new = [e for e in self.entries if e.key not in self._seen and e.server == address and not e.virtual]
            news.append((first_report, new))
        self._heard_from.update(self._lists)
        self._seen.update(e.key for e in self.entries)
        self.devices_changed.emit(self.entries)
        for first_report, new in news:
            if not first_report or self.offer_first_lists():   # the lists found at start are not "newly attached"
                for entry in new:
                    self.phone_attached.emit(entry)

    def stop(self) -> None:
        """No more lists for this window (the desk stops its watchers when it closes)."""
        self._stopped = True
        self.hop.close()
        for task in list(self._tasks):
            task.cancel()

    async def wait_stopped(self) -> None:
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=5)

    # ------------------------------------------------------------------ Wi-Fi

    def _background(self, work: Callable[[], wifi_adb.WifiOutcome]) -> None:
        async def run() -> None:
            outcome = await asyncio.to_thread(work)
            self.wifi_result.emit(outcome.ok, outcome.text)
        task = asyncio.ensure_future(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _local_server(self) -> str:
        problem = self.local.ensure_running(now=True)
        return f"No ADB server runs on this computer ({problem})." if problem else ""

    def connect_wifi(self, address: str) -> None:
        """`adb connect address` on this machine's server; the outcome comes as wifi_result."""
        def work() -> wifi_adb.WifiOutcome:
            problem = self._local_server()
            return wifi_adb.WifiOutcome(False, problem) if problem else wifi_adb.connect(self.local.address, address)
        self._background(work)

    def pair(self, address: str, code: str) -> None:
        """`adb pair address code` on this machine's server; the outcome comes as wifi_result."""
        def work() -> wifi_adb.WifiOutcome:
            problem = self._local_server()
            return wifi_adb.WifiOutcome(False, problem) if problem else wifi_adb.pair(self.local.address, address,
                                                                                       code)
        self._background(work)
