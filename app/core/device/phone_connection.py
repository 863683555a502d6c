"""Open a phone to work with: a real one through the ADB server, else the built-in virtual phone."""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass

from .adb_transport import AdbTransport, DeviceListing
from .android_device import AndroidDevice
from .errors import AdbUnavailable, DeviceNotFound

log = logging.getLogger(__name__)


@dataclass
class PhoneConnection:
    """The device to use, and the virtual phone server when we had to start one."""

    device: AndroidDevice
    listing: DeviceListing
    virtual_server: object | None = None   # app.virtual_phone.adb_server.VirtualAdbServer
    note: str = ""

    @property
    def is_virtual(self) -> bool:
        return self.virtual_server is not None

    def close(self) -> None:
        if self.virtual_server is not None:
            self.virtual_server.stop()
            self.virtual_server = None


def start_virtual_phone(port: int = 0, devices: int = 1, **phone_options):
    """Start the virtual phone's ADB server on loopback (blocking; fast)."""
    from app.virtual_phone.adb_server import VirtualAdbServer

    server = VirtualAdbServer(port=port).start()
    for index in range(devices):
        server.add_phone(serial=f"emulator-{5554 + 2 * index}", **phone_options)
    return server


async def open_phone(serial: str | None = None, *, virtual: bool | None = None,
                     transport: AdbTransport | None = None) -> PhoneConnection:
    """Pick the phone to work with.

    virtual=True always uses the built-in virtual phone; virtual=False never does;
    None (the default) uses a real phone when one is attached and ready, otherwise
    starts the virtual phone and says so in `note`.
    """
    if virtual is not True:
        transport = transport or AdbTransport()
        try:
            listings = await asyncio.to_thread(transport.list_devices)
        except AdbUnavailable as exc:
            if virtual is False:
                raise
            listings, reason = [], f"no ADB server ({exc})"
        else:
            reason = "no phone is attached"
        if serial:
            chosen = next((d for d in listings if d.serial == serial), None)
            if chosen is None and (listings or virtual is False):
                raise DeviceNotFound(f"Phone {serial} is not connected. Attached: "
                                     f"{', '.join(d.serial for d in listings) or 'none'}.")
        else:
            ready = [d for d in listings if d.ready]
            chosen = ready[0] if ready else None
            if chosen is None and listings:
                reason = "; ".join(f"{d.serial}: {d.describe_state()}" for d in listings)
        if chosen is not None:
            return PhoneConnection(AndroidDevice(transport, chosen.serial), chosen)
        if virtual is False:
            raise DeviceNotFound(f"No phone is ready ({reason}).")
        log.info("using the virtual phone: %s", reason)
        note = f"Using the built-in virtual phone: {reason}."
    else:
        note = "Using the built-in virtual phone."
    server = await asyncio.to_thread(start_virtual_phone, int(os.environ.get("AGENTDESK_VIRTUAL_PORT", "0")))
    virtual_transport = AdbTransport("127.0.0.1", server.port)
    listing = (await asyncio.to_thread(virtual_transport.list_devices))[0]
    return PhoneConnection(AndroidDevice(virtual_transport, listing.serial), listing, server, note)
