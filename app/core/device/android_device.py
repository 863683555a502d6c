"""One Android phone, as an async API. Blocking ADB calls run in worker threads, never on the loop.

Caches follow seed 000: installed apps live 5 minutes; the controls of the screen live 5
seconds and any input invalidates them (the screen has probably changed: device_tree.py, the
tree's half, with the input's half in device_input.py).
"""

from __future__ import annotations

import asyncio
import re
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass

from app.core.config import LimitSettings

from .adb_transport import DEFAULT_TIMEOUT, AdbTransport
from .app_catalog import looks_like_package, parse_package_list, resolve_app
from .device_input import DeviceInputMixin
from .device_tree import (  # noqa: F401 - the tree's names, where callers have always found them
    CONTROLS_TTL_SECONDS,
    DUMP_COMMAND,
    DUMP_SOURCE,
    SERVER_SOURCE,
    ControlsSnapshot,
    DeviceTreeMixin,
    ForegroundApp,
    parse_foreground,
)
from .errors import CommandFailed, DeviceError, DeviceTimeout, ScreenshotFailed
from .screen_capture import CAPTURE_SERVICES, DECODERS, PNG_METHOD, RAW_METHOD, Screenshot

APPS_TTL_SECONDS = 300.0


@dataclass(frozen=True)
class InputLimits:
    """Caps on what the phone sends (settings `limits`): a hostile or broken screen fails one step
    with an error naming the cap, instead of costing seconds and hundreds of MB."""

    max_dump_bytes: int
    max_dump_nodes: int
    max_screenshot_side: int
    max_screenshot_bytes: int

    @classmethod
    def from_settings(cls, limits: LimitSettings) -> InputLimits:
        return cls(int(limits.max_dump_mb * 1_000_000), limits.max_dump_nodes, limits.max_screenshot_side,
                   int(limits.max_screenshot_mb * 1_000_000))


DEFAULT_LIMITS = InputLimits.from_settings(LimitSettings())


@dataclass(frozen=True)
class ScreenInfo:
    width: int          # physical, portrait (what `wm size` says)
    height: int
    density: int
    rotation: int       # 0..3

    @property
    def display_size(self) -> tuple[int, int]:
        """Size in the current orientation (what screenshots and dumps use)."""
        return (self.height, self.width) if self.rotation % 2 else (self.width, self.height)


_FRAME = re.compile(r"(?:mFrame=|\bframe=)\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
_CONTENT_INSETS = re.compile(r"mGivenContentInsets=\[(\d+),(\d+)\]\[(\d+),(\d+)\]")


def parse_keyboard_frame(output: str) -> tuple[int, int, int, int] | None:
    """The keyboard's area from `dumpsys window InputMethod`: the window's frame (Android 9-10 print
    `mFrame=`, 11 and later `frame=` in their Frames line), its top lowered by the insets the keyboard
    gives the app (`mGivenContentInsets`, the part of a tall IME window that is see-through). None when
    the window is not there or not visible."""
    if "InputMethod" not in output or "isVisible=false" in output or "isVisible=true" not in output:
        return None
    frame = _FRAME.search(output)
    if frame is None:
        return None
    left, top, right, bottom = map(int, frame.groups())
    insets = _CONTENT_INSETS.search(output)
    if insets is not None:
        top += int(insets.group(2))
    return (left, top, right, bottom) if right > left and bottom > top else None


def parse_screen_info(output: str) -> ScreenInfo:
    size = re.search(r"Override size:\s*(\d+)x(\d+)", output) or re.search(r"Physical size:\s*(\d+)x(\d+)", output)
    density = re.search(r"Override density:\s*(\d+)", output) or re.search(r"Physical density:\s*(\d+)", output)
    rotation = (re.search(r"SurfaceOrientation:\s*(\d)", output)
                or re.search(r"mCurrentRotation=ROTATION_(\d+)", output))
    if not size:
        raise CommandFailed("The phone did not report its screen size (`wm size`).", "wm size", output)
    turn = 0
    if rotation:
        value = int(rotation.group(1))
        turn = value // 90 if value >= 90 else value
    return ScreenInfo(int(size.group(1)), int(size.group(2)), int(density.group(1)) if density else 160, turn % 4)


class AndroidDevice(DeviceTreeMixin, DeviceInputMixin):
    """Async access to one phone through an ADB server."""

    def __init__(self, transport: AdbTransport, serial: str, *, timeout: float = DEFAULT_TIMEOUT,
                 limits: InputLimits = DEFAULT_LIMITS):
        self.transport = transport
        self.limits = limits
        self.serial = serial
        self.timeout = timeout
        self.capture_method: str | None = None
        self.capture_timings: dict[str, float] = {}
        self._screen: ScreenInfo | None = None
        self._apps: tuple[float, list[str]] | None = None
        self._packages: tuple[float, list[str]] | None = None
        self._launched: set[str] = set()       # packages `monkey` launched: they have a launcher screen
        self.on_input: list[Callable[[str], None]] = []  # told of every input command sent
        self._app_versions: dict[str, str] = {}          # package → versionName (phone_facts.app_version_reader)
        self._init_tree(transport, serial)

    def __repr__(self) -> str:
        return f"AndroidDevice({self.serial!r} via {self.transport.address})"

    # ------------------------------------------------------------------ raw access

    async def _run(self, service: str, timeout: float | None = None, max_bytes: int | None = None) -> bytes:
        limit = timeout or self.timeout
        capped = {"max_bytes": max_bytes} if max_bytes is not None else {}      # read no more than the cap
        try:
            return await asyncio.wait_for(asyncio.to_thread(self.transport.run, self.serial, service, limit,
                                                            **capped), limit + 1.0)
        except TimeoutError as exc:
            raise DeviceTimeout(f"Phone {self.serial} did not answer within {limit:.0f} s.") from exc

    async def shell(self, command: str, timeout: float | None = None, max_bytes: int | None = None) -> str:
        """Run a command line in the phone's shell; stdout and stderr together, as text (at most `max_bytes` + 1
        bytes of it: the read stops there)."""
        data = await self._run("shell:" + command, timeout, max_bytes)
        return data.decode("utf-8", "replace")

    async def exec_out(self, command: str, timeout: float | None = None) -> bytes:
        """Run a command without a terminal and return its exact bytes (binary-safe)."""
        return await self._run("exec:" + command, timeout)

    # ------------------------------------------------------------------ facts about the phone

    async def properties(self) -> dict[str, str]:
        output = await self.shell("getprop")
        return dict(re.findall(r"^\[([^\]]+)\]: \[([^\]]*)\]", output, re.MULTILINE))

    async def screen_info(self, refresh: bool = False) -> ScreenInfo:
        if self._screen is None or refresh:
            output = await self.shell("wm size; wm density; dumpsys input | grep -E 'SurfaceOrientation|orientation='")
            self._screen = parse_screen_info(output)
        return self._screen

    async def installed_apps(self, refresh: bool = False) -> list[str]:
        """Third-party packages (`pm list packages -3`), cached for 5 minutes."""
        if self._apps is None or refresh or time.monotonic() - self._apps[0] > APPS_TTL_SECONDS:
            self._apps = (time.monotonic(), parse_package_list(await self.shell("pm list packages -3")))
        return list(self._apps[1])

    async def all_packages(self, refresh: bool = False) -> list[str]:
        """Every package (`pm list packages`), cached for 5 minutes like installed_apps."""
        if self._packages is None or refresh or time.monotonic() - self._packages[0] > APPS_TTL_SECONDS:
            self._packages = (time.monotonic(), parse_package_list(await self.shell("pm list packages")))
        return list(self._packages[1])

    # ------------------------------------------------------------------ screen

    async def screenshot(self, method: str | None = None) -> Screenshot:
        """Take a screenshot on the fastest path for this phone (measured once)."""
        if method is None:
            method = self.capture_method or await self.choose_capture_method()
        started = time.perf_counter()
        data = await self.exec_out(CAPTURE_SERVICES[method].removeprefix("exec:"))
        fetched = time.perf_counter()
        # before decoding: a huge image is refused unread
        check_screenshot_size(data, self.limits, png=method == PNG_METHOD)
        image = await asyncio.to_thread(DECODERS[method], data)
        done = time.perf_counter()
        return Screenshot(image, method, (fetched - started) * 1000, (done - fetched) * 1000)

    async def choose_capture_method(self, samples: int = 2) -> str:
        """Time the raw and PNG paths and keep the faster; PNG if raw is not supported.

        The best of `samples` tries counts, so a first call that pays for the phone
        redrawing its screen does not decide the matter.
        """
        timings: dict[str, float] = {}
        for method in (RAW_METHOD, PNG_METHOD):
            try:
                for _ in range(samples):
                    shot = await self.screenshot(method)
                    took = shot.fetch_ms + shot.decode_ms
                    timings[method] = min(took, timings.get(method, took))
            except DeviceError:
                if method == PNG_METHOD and not timings:
                    raise
        self.capture_timings = timings
        self.capture_method = min(timings, key=timings.__getitem__)
        return self.capture_method

    async def input_methods(self) -> tuple[list[str], str]:
        """(installed IME ids, the current one)."""
        output = await self.shell("ime list -s; echo ---; settings get secure default_input_method")
        listed, _, current = output.partition("---")
        return [line.strip() for line in listed.splitlines() if "/" in line], current.strip()

    async def keyboard_frame(self) -> tuple[int, int, int, int] | None:
        """Where the on-screen keyboard is now (its window in `dumpsys window`), None when none shows."""
        return parse_keyboard_frame(await self.shell("dumpsys window InputMethod"))

    async def launch_app(self, app: str) -> str:
        """Start an app by package, or by the name a person calls it. Returns the package."""
        package = app.strip()
        installed = await self.all_packages()
        if package not in installed and resolve_app(app, installed) is None:
            installed = await self.all_packages(refresh=True)     # installed since the list was read?
        if not looks_like_package(package) or package not in installed:
            found = resolve_app(app, installed)
            if found is None:
                raise CommandFailed(f"No installed app matches '{app}'. "
                                    "Use a package name from the installed apps list.")
            package = found
        if package in self._launched:        # known to have a launcher screen: started at once over the channel
            await self.input.start_app(package)
            return package
        await self.input.shell.start_app(package)       # `monkey` says whether the app has a launcher screen
        self._launched.add(package)
        return package


def check_screenshot_size(data: bytes, limits: InputLimits, *, png: bool) -> None:
    """Refuse a screenshot over the caps from its bytes and header alone (raw `screencap`: width and
    height first; PNG: the IHDR chunk), before any decoding: `ScreenshotFailed` naming the cap."""
    if len(data) > limits.max_screenshot_bytes:
        raise ScreenshotFailed(f"The phone's screenshot was {len(data) / 1_000_000:.1f} MB, over the "
                               f"{limits.max_screenshot_bytes / 1_000_000:g} MB cap (setting "
                               "limits.max_screenshot_mb).")
    start = data.find(b"\x89PNG", 0, 1024) if png else -1
    if start >= 0 and len(data) >= start + 24:
        width, height = struct.unpack_from(">II", data, start + 16)
    elif not png and len(data) >= 8:
        width, height = struct.unpack_from("<II", data)
    else:
        return                          # too short to say: the decoder reports it
    side = limits.max_screenshot_side
    if width > side or height > side:
        raise ScreenshotFailed(f"The phone's screenshot is {width}x{height} pixels, over the {side}x{side} cap "
                               "(setting limits.max_screenshot_side).")
