"""Open a phone to work with: a real one through the ADB server, else the built-in virtual phone.

Part of the Desk, the composition above both `app.core` and `app.virtual_phone` (neither imports
the other): the one place that decides to start the virtual phone. Faces ask the Desk.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

from app.core.device.adb_transport import AdbTransport, DeviceListing
from app.core.device.android_device import AndroidDevice
from app.core.device.errors import AdbUnavailable, DeviceNotFound
from app.core.device.local_adb import LocalAdbServer
from app.core.device.phone_id import PhoneId
from app.core.device.phone_session import PhoneRegistry, PhoneSession

from .shared_phone import PortTaken, SharedPhone, hold_shared_phone, shared_port

if TYPE_CHECKING:
    from app.virtual_phone.adb_server import VirtualAdbServer

log = logging.getLogger(__name__)


BuiltInPhone: TypeAlias = "SharedPhone | VirtualAdbServer"
"""The built-in phone as its user holds it: the shared one (`SharedPhone`, a hold on its own process) or a private
one in this process (`VirtualAdbServer`). Both have `port`; `stop()` lets go of it."""


@dataclass
class PhoneConnection:
    """The phone's session, and the virtual phone server when we had to start one."""

    session: PhoneSession
    virtual_server: BuiltInPhone | None = None
    note: str = ""

    @property
    def device(self) -> AndroidDevice:
        return self.session.device

    @property
    def listing(self) -> DeviceListing:
        return self.session.listing

    @property
    def is_virtual(self) -> bool:
        return self.virtual_server is not None

    def close(self) -> None:
        if self.virtual_server is not None:
            self.virtual_server.stop()
            self.virtual_server = None


def start_virtual_phone(port: int = 0, devices: int = 1, **phone_options: Any) -> VirtualAdbServer:
    """Start the virtual phone's ADB server on loopback (blocking; fast)."""
    from app.core.large_buffers import reuse_large_buffers
    from app.virtual_phone.adb_server import VirtualAdbServer

    reuse_large_buffers()         # its renderer and encoder make a 10 MB picture a frame: reuse, not page faults
    server = VirtualAdbServer(port=port).start()
    for index in range(devices):
        server.add_phone(serial=f"emulator-{5554 + 2 * index}", **phone_options)
    return server


def built_in_phone(*, keep: bool = False, what: str = "", private: bool = False) -> tuple[BuiltInPhone, str]:
    """The built-in phone, held (blocking; seconds when its process must start): the one shared by every Agent
    Desk process of this computer on its fixed port (AGENTDESK_VIRTUAL_PORT, else 5038), started when none runs;
    a private one in this process when the variable is 0 or `private`, or — said in the note — when something
    else holds the port. `keep`: the shared phone stays after its last user goes. Returns (phone, note)."""
    port = 0 if private else shared_port()
    if port == 0:
        return start_virtual_phone(0), ""
    try:
        return hold_shared_phone(port, keep=keep, what=what), ""
    except PortTaken as exc:
        log.info("the shared built-in phone cannot be used: %s", exc)
        return start_virtual_phone(0), (f"{exc} Meanwhile this program has a built-in phone of its own, not shared "
                                        "with the others.")


async def open_phone(serial: str | None = None, *, virtual: bool | None = None,
                     transport: AdbTransport | None = None, registry: PhoneRegistry | None = None,
                     local: LocalAdbServer | None = None, keep: bool = False, what: str = "") -> PhoneConnection:
    """Pick the phone to work with and register its session in `registry` (a new one if none is given).

    `serial` is a plain serial or a full id (SERIAL@HOST:PORT). virtual=True always uses
    the built-in virtual phone; virtual=False never does; None (the default) uses a real
    phone when one is attached and ready, otherwise starts the virtual phone and says so in
    `note`. `local`: this machine's server, started here (and remembered as started by the app)
    when none runs, rather than by adbutils behind our back. `keep`, `what`: see `built_in_phone`.
    """
    registry = registry if registry is not None else PhoneRegistry()
    wanted = PhoneId.parse(serial) if serial else None
    if wanted is not None and transport is None:
        host, port = wanted.server.rsplit(":", 1)
        transport = AdbTransport(host.strip("[]"), int(port))
        serial = wanted.serial
    if virtual is not True:
        transport = transport or AdbTransport()
        try:
            problem = ""
            if local is not None and transport.address == local.address:
                problem = await asyncio.to_thread(local.ensure_running, now=True)
            if problem:
                raise AdbUnavailable(f"Cannot reach the ADB server at {transport.address}: {problem}")
            listings = await asyncio.to_thread(transport.list_devices)
        except AdbUnavailable as exc:
            if virtual is False or wanted is not None:
                raise
            listings, reason = [], f"no ADB server ({exc})"
        else:
            reason = "no phone is attached"
        if serial:
            chosen = next((d for d in listings if d.serial == serial), None)
            if chosen is None and (listings or virtual is False or wanted is not None):
                raise DeviceNotFound(f"Phone {serial} is not connected. Attached: "
                                     f"{', '.join(d.serial for d in listings) or 'none'}.")
        else:
            ready = [d for d in listings if d.ready]
            chosen = ready[0] if ready else None
            if chosen is None and listings:
                reason = "; ".join(f"{d.serial}: {d.describe_state()}" for d in listings)
        if chosen is not None:
            return PhoneConnection(registry.open(transport, chosen))
        if virtual is False:
            raise DeviceNotFound(f"No phone is ready ({reason}).")
        log.info("using the virtual phone: %s", reason)
        note = f"Using the built-in virtual phone: {reason}."
    else:
        note = "Using the built-in virtual phone."
    server, said = await asyncio.to_thread(lambda: built_in_phone(keep=keep, what=what))
    try:
        virtual_transport = AdbTransport("127.0.0.1", server.port)
        listing = (await asyncio.to_thread(virtual_transport.list_devices))[0]
    except BaseException:
        await asyncio.to_thread(server.stop)
        raise
    note = f"{note} {said}" if said else note
    return PhoneConnection(registry.open(virtual_transport, listing, virtual=True), server, note)
