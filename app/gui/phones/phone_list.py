"""Every phone of every ADB server the window knows, kept current as phones come and go.

One `ServerWatcher` per server follows `host:track-devices-l` in its own thread (the GUI
thread never touches a socket). This machine's server is watched from the start, even
while the window shows the built-in virtual phone, and when none runs it is started the
way `adb devices` would — calmly, a few seconds apart, never in a loop. A phone that was
not there before is offered (`phone_attached`); Wi-Fi connect and pairing report what
really happened (`wifi_result`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from app.core.device import wifi_adb
from app.core.device.adb_servers import ServerWatcher, transport_for
from app.core.device.adb_transport import DeviceListing
from app.core.device.local_adb import LocalAdbServer
from app.gui.phones.device_panel import DeviceEntry

log = logging.getLogger(__name__)


class PhoneList(QObject):
    devices_changed = Signal(object)     # list[DeviceEntry]
    phone_attached = Signal(object)      # DeviceEntry: a phone that was not listed before
    wifi_result = Signal(bool, str)      # Wi-Fi connect / pair: did it work, and what happened in words
    status = Signal(str)

    def __init__(self, local: LocalAdbServer | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.local = local or LocalAdbServer()
        self.virtual_port: int | None = None       # the built-in virtual phone's server, when it runs
        self.entries: list[DeviceEntry] = []
        self._watchers: dict[str, ServerWatcher] = {}
        self._listings: dict[str, list[DeviceListing]] = {}   # each server's last list (kept while it is away)
        self._unreachable: dict[str, str] = {}                 # servers that do not answer now, and why
        self._seen: set[tuple[str, str]] = set()              # every phone listed so far
        self._heard_from: set[str] = set()                     # servers that reported at least once
        self._tasks: set[asyncio.Future] = set()
        # Whether phones already there when a server first answers are offered too: yes while the
        # window shows the virtual phone (it fell back, so any real phone is news), else no.
        self.offer_first_lists: Callable[[], bool] = lambda: False

    # ------------------------------------------------------------------ watching

    def watch(self, address: str) -> None:
        """Follow one ADB server's phones (this machine's is also started when none runs)."""
        if address in self._watchers or address is None:
            return
        transport = transport_for(address)
        starter = self.local if transport.address == self.local.address else None
        watcher = ServerWatcher(transport, lambda devices, a=transport.address: self._on_devices(a, devices),
                                starter=starter)
        self._watchers[transport.address] = watcher
        watcher.start()

    def watch_servers(self, servers: Callable[[], list[str]] | None) -> None:
        """This machine's server always; also the other servers (settings, AGENTDESK_ADB_SERVERS)."""
        self.watch(self.local.address)
        if servers is None:
            return
        try:
            addresses = servers()
        except ValueError as exc:
            self.status.emit(f"Other machines' phones are not listed: {exc}")
            return
        for address in addresses:
            self.watch(address)

    def has_listed(self, server: str) -> bool:
        """Whether `server` has sent its list of phones yet (a phone missing before then is not gone)."""
        return server in self._listings

    def listing(self, entry: DeviceEntry) -> DeviceListing:
        return next((d for d in self._listings.get(entry.server, []) if d.serial == entry.serial),
                    DeviceListing(entry.serial, "device", entry.model))

    def entry_for(self, server: str, listing: DeviceListing) -> DeviceEntry:
        virtual = self.virtual_port is not None and server.endswith(f":{self.virtual_port}")
        if server in self._unreachable:
            return DeviceEntry(server, listing.serial, listing.model,
                               f"offline — its ADB server {server} is unreachable", False, virtual)
        return DeviceEntry(server, listing.serial, listing.model, listing.describe_state(), listing.ready, virtual)

    def _on_devices(self, address: str, devices: list[DeviceListing]) -> None:
        watcher = self._watchers.get(address)
        problem = watcher.problem if watcher is not None else ""
        first_report = address not in self._heard_from
        self._heard_from.add(address)
        if problem:                               # the server went away: its phones stay listed, offline
            self._unreachable[address] = problem
        else:
            self._unreachable.pop(address, None)
            self._listings[address] = devices
        self.entries = [self.entry_for(server, d) for server, listed in self._listings.items() for d in listed]
        new = [e for e in self.entries if e.key not in self._seen and e.server == address and not e.virtual]
        self._seen.update(e.key for e in self.entries)
        self.devices_changed.emit(self.entries)
        if not first_report or self.offer_first_lists():   # the lists found at start are not "newly attached"
            for entry in new:
                self.phone_attached.emit(entry)

    def stop(self) -> None:
        for watcher in self._watchers.values():
            watcher.stop()
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
