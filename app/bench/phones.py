"""Which phones a benchmark measures: the quick and the realistic virtual phone (each in its own
process, one after the other), or a phone attached to the ADB server (`--device SERIAL`).

Each phone is one column of the table; the baseline of every figure runs against the same phone.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Generator, Iterator
from dataclasses import dataclass

from app.core.device.adb_transport import AdbTransport
from app.core.device.android_device import AndroidDevice
from app.core.device.errors import DeviceError

from .phone_process import virtual_phone_process

QUICK, REALISTIC = "quick", "realistic"


@dataclass(frozen=True)
class PhoneChoice:
    """What `agentdesk bench` was asked to measure on."""

    device: str | None = None        # a serial on the ADB server: measure that phone instead of virtual ones
    latency_scale: float = 1.0       # the realistic virtual phone's time scale (1.0: full, as a phone)
    profile: str = "android14"       # the virtual phone's device profile

    def __post_init__(self) -> None:
        if self.latency_scale <= 0:
            raise ValueError("the latency scale must be above 0")

    @property
    def columns(self) -> list[str]:
        if self.device:
            return [f"phone {self.device}"]
        realistic = REALISTIC if self.latency_scale == 1.0 else f"{REALISTIC} x{self.latency_scale:g}"
        return [QUICK, realistic]

    def describe(self) -> str:
        if self.device:
            return f"attached phone {self.device}"
        return f"virtual phone ({self.profile}, own process): {' | '.join(self.columns)}"


DEFAULT_CHOICE = PhoneChoice()
"""The two virtual phones at full latency (what `agentdesk bench` measures without options)."""


@dataclass(frozen=True)
class BenchPhone:
    """One phone to measure, reachable through an ADB server."""

    column: str
    host: str
    port: int
    serial: str
    virtual: bool

    def transport(self) -> AdbTransport:
        return AdbTransport(self.host, self.port)

    def adbutils_device(self):
        """The same phone through adbutils' own client (the baseline's way in)."""
        import adbutils

        return adbutils.AdbClient(host=self.host, port=self.port).device(self.serial)


def each_phone(choice: PhoneChoice) -> Generator[BenchPhone, None, None]:
    """The phones to measure, one at a time: a virtual phone's process runs only while it is measured."""
    if choice.device:
        yield attached_phone(choice.device, choice.columns[0])
        return
    for column, latency, scale in zip(choice.columns, (QUICK, REALISTIC), (1.0, choice.latency_scale), strict=True):
        with virtual_phone_process("--profile", choice.profile, "--latency", latency,
                                   "--time-scale", f"{scale:g}") as port:
            yield virtual_phone(port, column)


def virtual_phone(port: int, column: str) -> BenchPhone:
    listing = AdbTransport("127.0.0.1", port).list_devices()[0]
    return BenchPhone(column, "127.0.0.1", port, listing.serial, virtual=True)


def attached_phone(serial: str, column: str) -> BenchPhone:
    """The phone `serial` on the ADB server adbutils finds (ANDROID_ADB_SERVER_HOST/PORT, else 5037)."""
    transport = AdbTransport()
    listings = transport.list_devices()
    chosen = next((d for d in listings if d.serial == serial), None)
    if chosen is None:
        attached = ", ".join(f"{d.serial} ({d.describe_state()})" for d in listings) or "none"
        raise SystemExit(f"error: phone {serial} is not attached to the ADB server at {transport.address}. "
                         f"Attached: {attached}.")
    if not chosen.ready:
        raise SystemExit(f"error: phone {serial} is {chosen.describe_state()}.")
    return BenchPhone(column, transport.client.host, transport.client.port, serial, virtual=False)


@contextlib.contextmanager
def adb_server_for(phone: BenchPhone) -> Iterator[None]:
    """Point adbutils (and so the app) at the phone's ADB server while the block runs."""
    saved = {k: os.environ.get(k) for k in ("ANDROID_ADB_SERVER_HOST", "ANDROID_ADB_SERVER_PORT")}
    os.environ["ANDROID_ADB_SERVER_HOST"], os.environ["ANDROID_ADB_SERVER_PORT"] = phone.host, str(phone.port)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


async def open_densest_screen(device: AndroidDevice) -> tuple[str, int]:
    """Open the first screen, among every app that launches, with the most nodes in its dump; returns
    (package, nodes). For a virtual phone only: an attached phone stays where its owner left it."""
    counts: dict[str, int] = {}
    for package in await device.all_packages():
        try:
            await device.launch_app(package)
            counts[package] = (await device.dump_hierarchy()).count("<node ")
        except DeviceError:
            continue
    package = max(counts, key=counts.__getitem__)
    await device.launch_app(package)
    return package, counts[package]
