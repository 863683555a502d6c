"""One owner per phone: its ADB device, its frames, and the right to drive it.

A `PhoneSession` is made once per phone and lives on the core's loop. The mirror and a
run read the same frames (`frames`), share one cached controls dump (the device
coalesces concurrent dumps), and a run takes the phone with `drive()`: one run at a
time, in the order asked, in this process (an asyncio lock, FIFO) and across processes
(a lock file, `PhoneLock`). `PhoneRegistry` holds the sessions of every known phone,
keyed by `PhoneId` (ADB server and serial together).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable

from app.core.config import MirrorSettings

from .adb_transport import DEFAULT_TIMEOUT, AdbTransport, DeviceListing
from .android_device import AndroidDevice
from .errors import DeviceNotFound
from .phone_frames import PhoneFrames
from .phone_id import PhoneId, resolve_phone
from .phone_lock import SERIALNO_COMMAND, PhoneBusy, PhoneLock, hardware_lock_name
from .screen_tree import ScreenTree
from .tree_server import TreeServerPolicy

log = logging.getLogger(__name__)


class PhoneSession:
    """The phone's one owner in this process."""

    def __init__(self, phone_id: PhoneId, device: AndroidDevice, listing: DeviceListing | None = None,
                 *, virtual: bool = False, lock: PhoneLock | None = None,
                 mirror_settings: Callable[[], MirrorSettings] = MirrorSettings) -> None:
        self.id = phone_id
        self.device = device
        self.listing = listing or DeviceListing(device.serial, "device")
        self.virtual = virtual
        self.frames = PhoneFrames(device, mirror_settings, name=str(phone_id))
        self.screen_tree = ScreenTree(device, self.frames)      # the latest UI tree, read on change
        self._lock = lock or PhoneLock(phone_id)
        self._lock_keyed = virtual       # the built-in virtual phone is named by server and serial
        self._driving = asyncio.Lock()
        self.driver: str = ""            # what drives the phone now ("" = nobody)

    def __repr__(self) -> str:
        return f"PhoneSession({self.id})"

    @property
    def serial(self) -> str:
        return self.device.serial

    @property
    def model(self) -> str:
        return self.listing.model

    @property
    def busy(self) -> bool:
        return self._driving.locked()

    def describe(self) -> dict:
        """What a run records about the phone it ran on."""
        return {"id": str(self.id), "serial": self.serial, "server": self.id.server, "model": self.model,
                "virtual": self.virtual}

    @contextlib.asynccontextmanager
    async def drive(self, what: str, *, wait: bool = True,
                    on_wait: Callable[[str], None] | None = None) -> AsyncIterator[PhoneSession]:
        """Hold the phone for one run. Waits its turn (or raises PhoneBusy when `wait` is false)."""
        if self._driving.locked():
            if not wait:
                raise PhoneBusy(f"Phone {self.id} is busy with {self.driver or 'another run'}.")
            if on_wait is not None:
                on_wait(f"Waiting for phone {self.id}: it is busy with {self.driver or 'another run'}.")
        async with self._driving:
            await self._key_lock_once()
            await self._lock.acquire(what, wait=wait, on_wait=on_wait)
            self.driver = what
            try:
                yield self
            finally:
                self.driver = ""
                await asyncio.to_thread(self._lock.release)

    async def _key_lock_once(self) -> None:
        """On the first drive, name the cross-process lock by the phone's own serial (`ro.serialno`) when it
        is a physical phone, so it is one lock through any ADB server; when that cannot be read, this
        drive locks by server and serial and the next one tries again."""
        if self._lock_keyed:
            return
        try:
            name = hardware_lock_name(await self.device.shell(SERIALNO_COMMAND, timeout=10))
        except Exception as error:      # noqa: BLE001 - any failure leaves the server-and-serial lock
            log.info("Phone %s: its serial number could not be read (%s); locked by server and serial.",
                     self.id, error)
            return
        self._lock_keyed = True
        if name:
            self._lock.key_by(name)

    async def close(self) -> None:
        await self.frames.close()
        await self.device.tree_server.stop()      # never left listening on the phone after the desk


class PhoneRegistry:
    """Every phone this process knows, by id. Lives on the core's loop."""

    def __init__(self, mirror_settings: Callable[[], MirrorSettings] = MirrorSettings,
                 tree_policy: Callable[[], TreeServerPolicy] = TreeServerPolicy) -> None:
        self._sessions: dict[PhoneId, PhoneSession] = {}
        self.mirror_settings = mirror_settings     # read each time a phone's stream starts
        self.tree_policy = tree_policy             # read when a phone's session is made (a run sets its own)

    def sessions(self) -> list[PhoneSession]:
        return list(self._sessions.values())

    def add(self, session: PhoneSession) -> PhoneSession:
        """Register a session; the one already registered for that id wins (one owner per phone)."""
        return self._sessions.setdefault(session.id, session)

    def open(self, transport: AdbTransport, listing: DeviceListing, *, virtual: bool = False,
             timeout: float | None = None) -> PhoneSession:
        """The session of a listed phone, made on first use."""
        phone_id = PhoneId(transport.address, listing.serial)
        existing = self._sessions.get(phone_id)
        if existing is not None:
            existing.listing = listing
            return existing
        device = AndroidDevice(transport, listing.serial, timeout=timeout or DEFAULT_TIMEOUT)
        device.tree_server.policy = self.tree_policy()
        return self.add(PhoneSession(phone_id, device, listing,
                                     virtual=virtual, mirror_settings=lambda: self.mirror_settings()))

    def get(self, name: str | PhoneId | None) -> PhoneSession:
        """The session `name` names (full id or an unambiguous serial); None: the only one, else the first."""
        if name is None or name == "":
            if not self._sessions:
                raise DeviceNotFound("No phone is connected.")
            return next(iter(self._sessions.values()))
        return self._sessions[resolve_phone(name, self._sessions)]

    async def close(self) -> None:
        for session in self._sessions.values():
            await session.close()
