"""The screen's tree, half of AndroidDevice: reading it (uiautomator2's server on the phone, else `uiautomator
dump`), the controls cache (5 seconds, dropped by any input: seed 000) and the prefetch that starts the next
step's dump while the screen settles after an action, with the app in front read alongside."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.core.perception.controls import Control
from app.core.perception.hierarchy import DumpTooLarge, HierarchyError, UiHierarchy, parse_hierarchy, select_controls

from .adb_transport import AdbTransport
from .errors import DeviceError, HierarchyDumpFailed
from .text_fields import FieldReading, field_of, focused_field
from .tree_server import SETTLED_WAIT_FOR_IDLE_MS, WAIT_FOR_IDLE_MS, TreeServer, TreeServerUnavailable

if TYPE_CHECKING:
    from .android_device import InputLimits, ScreenInfo

log = logging.getLogger(__name__)

CONTROLS_TTL_SECONDS = 5.0
DUMP_PATH = "/sdcard/window_dump.xml"
DUMP_SOURCE, SERVER_SOURCE = "uiautomator dump", "uiautomator2 server"
SERVER_RETRY_SECONDS = 60.0
"""After the server failed, dumps go the `uiautomator dump` way this long before the server is tried again."""
DUMP_COMMAND = f"rm -f {DUMP_PATH}; uiautomator dump {DUMP_PATH} 2>&1 >/dev/null; cat {DUMP_PATH} 2>/dev/null"


@dataclass(frozen=True)
class ControlsSnapshot:
    controls: list[Control]
    hierarchy: UiHierarchy
    xml: str
    taken_at: float
    dump_ms: float
    source: str = DUMP_SOURCE       # which way the tree was read: SERVER_SOURCE or DUMP_SOURCE

    def by_id(self, control_id: int) -> Control | None:
        return next((c for c in self.controls if c.id == control_id), None)


@dataclass(frozen=True)
class ForegroundApp:
    package: str
    activity: str


def parse_foreground(output: str) -> ForegroundApp | None:
    for pattern in (r"mCurrentFocus=Window\{\S+ \S+ ([\w.]+)/([\w.$]+)\}",
                    r"mFocusedApp=\S*ActivityRecord\{\S+ \S+ ([\w.]+)/([\w.$]+)",
                    r"ResumedActivity: ActivityRecord\{\S+ \S+ ([\w.]+)/([\w.$]+)"):
        match = re.search(pattern, output)
        if match:
            package, activity = match.groups()
            return ForegroundApp(package, package + activity if activity.startswith(".") else activity)
    return None


class DeviceTreeMixin:
    """The tree half of AndroidDevice (which provides shell(), screen_info() and limits)."""

    serial: str
    limits: InputLimits

    if TYPE_CHECKING:      # AndroidDevice's, declared for the checker
        async def shell(self, command: str, timeout: float | None = None, max_bytes: int | None = None) -> str: ...
        async def screen_info(self, refresh: bool = False) -> ScreenInfo: ...

    def _init_tree(self, transport: AdbTransport, serial: str) -> None:
        self._controls: ControlsSnapshot | None = None
        self._dumping: asyncio.Future | None = None
        self._input_generation = 0
        self._prefetches_dropped = 0           # a prefetched dump started before this count changed is not kept
        self._front_prefetch: tuple[tuple[int, int], float, asyncio.Future] | None = None   # (key, started, task)
        self.tree_server = TreeServer(transport, serial)   # uiautomator2's server, when on for this phone
        self.tree_source = DUMP_SOURCE                     # where the last tree came from
        self.tree_source_note = ""                         # why the server is not used, said once
        self._tree_server_failed_at: float | None = None

    async def foreground_app(self) -> ForegroundApp | None:
        """The app and activity in front. One read along with a prefetched dump serves until input comes, the
        prefetch is dropped, or CONTROLS_TTL_SECONDS pass (as the controls it goes with)."""
        front = self._front_prefetch
        if front is not None:
            key, started, task = front
            if key == self._prefetch_key() and time.monotonic() - started < CONTROLS_TTL_SECONDS:
                try:
                    return await asyncio.shield(task)
                except DeviceError:
                    pass                               # asked again below, as without a prefetch
            self._front_prefetch = None
        return await self._read_foreground()

    def _prefetch_key(self) -> tuple[int, int]:
        return self._input_generation, self._prefetches_dropped

    async def _read_foreground(self) -> ForegroundApp | None:
        output = await self.shell("dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'")
        return parse_foreground(output) or parse_foreground(
            await self.shell("dumpsys activity activities | grep -E 'ResumedActivity'"))

    async def dump_hierarchy(self, retries: int = 3, timeout: float = 30.0, settled: bool = False) -> str:
        """The screen's uiautomator XML: from uiautomator2's server when it is on for this phone (see
        tree_server.py), else - or when it fails, said once - `uiautomator dump`, retried when the UI is
        not idle or the output is garbled. `settled`: the caller has just seen the screen stand still,
        so the server does not wait for idle again (`uiautomator dump` always does)."""
        if await self._tree_server_wanted():
            try:
                xml = await self.tree_server.dump(self.limits.max_dump_bytes,
                                                  SETTLED_WAIT_FOR_IDLE_MS if settled else WAIT_FOR_IDLE_MS)
            except TreeServerUnavailable as exc:
                self._tree_server_failed(str(exc))
                await self.tree_server.stop()        # one UI-automation client at a time: dump's turn
            else:
                self.tree_source = SERVER_SOURCE
                return xml
        self.tree_source = DUMP_SOURCE
        problem = ""
        for attempt in range(retries):
            output = await self.shell(DUMP_COMMAND, timeout=timeout, max_bytes=self.limits.max_dump_bytes)
            # not retried: the next is as large
            if len(output.encode("utf-8", "replace")) > self.limits.max_dump_bytes:
                raise HierarchyDumpFailed(
                    f"The phone's UI dump was over the {self.limits.max_dump_bytes / 1_000_000:g} MB cap (setting "
                    "limits.max_dump_mb), and was read no further; its controls were not read this step.",
                    DUMP_COMMAND)
            start = min((i for i in (output.find("<?xml"), output.find("<hierarchy")) if i >= 0), default=-1)
            if start >= 0 and "</hierarchy>" in output:
                return output[start:]
            problem = output.strip().splitlines()[0] if output.strip() else "it printed nothing"
            await asyncio.sleep(0.3 * (attempt + 1))
        raise HierarchyDumpFailed(f"Could not read the screen's controls after {retries} tries ({problem}). "
                                  "The app may be animating or playing video; a screenshot-only step is still "
                                  "possible.",
                                  DUMP_COMMAND, problem)

    async def _tree_server_wanted(self) -> bool:
        failed_at = self._tree_server_failed_at
        if failed_at is not None and time.monotonic() - failed_at < SERVER_RETRY_SECONDS:
            return False
        try:
            return await self.tree_server.wanted(self.shell)
        except DeviceError:
            return False

    def _tree_server_failed(self, why: str) -> None:
        self._tree_server_failed_at = time.monotonic()
        note = f"The screen's controls come from `uiautomator dump` (slower): {why}."
        if note != self.tree_source_note:
            log.warning("%s: %s", self.serial, note)
            self.tree_source_note = note

    async def release_ui_automation(self) -> None:
        """Stop this desk's uiautomator2 server, for another tool that needs the phone's UI automation
        (Appium, AndroidWorld's checkers); the next dump starts it again."""
        await self.tree_server.stop()

    async def controls(self, refresh: bool = False) -> ControlsSnapshot:
        """Controls on screen, cached for 5 seconds unless input happened since.

        One dump at a time: a caller that asks while a dump is under way (the mirror while a
        run observes, say) shares its result instead of starting a second one.
        """
        cached = self._controls
        if cached and not refresh and time.monotonic() - cached.taken_at < CONTROLS_TTL_SECONDS:
            return cached
        dumping = self._dumping
        if dumping is None or dumping.done():
            dumping = self._dumping = asyncio.ensure_future(self._dump_controls(self._prefetch_key()))
            dumping.add_done_callback(_retrieve)    # its error reaches the callers; none left is no leak
        # shield: one caller giving up (a stopped run) does not cancel the others' dump
        return await asyncio.shield(dumping)

    async def controls_dumped_from_now(self) -> ControlsSnapshot:
        """Controls from a dump that began after this call: never the cache, nor a dump already under way
        (it may have read the screen before a change that came just now). For a check that must see the
        screen as it is, whatever the mirror's stream has or has not shown yet."""
        dumping = self._dumping
        if dumping is not None and not dumping.done():
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.shield(dumping)    # its callers have its result; this one wants a newer dump
        return await self.controls(refresh=True)

    @property
    def dump_waits_for_idle(self) -> bool:
        """Whether the next dump waits for the phone to be idle by itself and is slow (`uiautomator dump`:
        start it as soon as the screen moves), rather than quick and told when the screen stood still
        (uiautomator2's server, the last tree's source: start it once the frames have been still a moment)."""
        return self.tree_source != SERVER_SOURCE

    def prefetch_controls(self, settled: bool = False) -> None:
        """Start reading the controls now, for whoever asks next: right after an action, while the
        step waits for the screen to settle, so the next step's `controls()` joins a dump already under
        way. `settled`: the frames have just shown the screen standing still (see `dump_waits_for_idle`)."""
        if self._controls is None and (self._dumping is None or self._dumping.done()):
            self._dumping = asyncio.ensure_future(self._dump_controls(self._prefetch_key(), settled))
            self._dumping.add_done_callback(_retrieve)
            if settled:     # (a `dumpsys` does not wait for idle as `uiautomator dump` does: not while moving)
                # the screen tree asks which app is in front along with every dump, a `dumpsys` as slow as a
                # quick dump
                front = asyncio.ensure_future(self._read_foreground())
                front.add_done_callback(_retrieve)
                self._front_prefetch = (self._prefetch_key(), time.monotonic(), front)

    def drop_prefetch(self) -> None:
        """The screen moved after a prefetch began: the dump under way may show the old picture, so it is
        neither joined nor kept (the next `controls()` dumps again)."""
        self._prefetches_dropped += 1
        self._dumping = None

    async def _dump_controls(self, key: tuple[int, int], settled: bool = False) -> ControlsSnapshot:
        """`key`: `_prefetch_key()` when the dump was asked for (the task may start after input came)."""
        started = time.perf_counter()
        xml = await self.dump_hierarchy(settled=settled)
        dumped = time.perf_counter()
        screen = await self.screen_info()
        # Parsing is a few ms of Python: a worker thread keeps it off the caller's loop (a GUI's, say).
        hierarchy, controls = await asyncio.to_thread(read_controls, xml, screen, self.limits)
        snapshot = ControlsSnapshot(controls, hierarchy, xml, time.monotonic(), (dumped - started) * 1000,
                                    self.tree_source)
        if key == self._prefetch_key():
            # no input since the dump began, nor a move after a prefetch: the cache is good
            self._controls = snapshot
        return snapshot

    @property
    def cached_controls(self) -> ControlsSnapshot | None:
        """The latest dump kept for reuse (None once input has come since): for a viewer that shows the tree
        a run read, without dumping again."""
        return self._controls

    @property
    def input_generation(self) -> int:
        """How many times input reached the phone (each drops the cached controls): whoever keeps a
        dump can tell whether input came since it began (the screen tree does)."""
        return self._input_generation

    def invalidate_controls(self) -> None:
        self._controls = None
        self._input_generation += 1
        self._dumping = None     # a dump already under way shows the screen before this input

    async def read_field(self, target: Control | None = None) -> FieldReading | None:
        """A text field read from a fresh dump: `target` (a control of an earlier dump), else the
        focused field. None when there is no such field."""
        hierarchy = (await self.controls(refresh=True)).hierarchy
        return field_of(hierarchy, target) if target is not None else focused_field(hierarchy)


def _retrieve(future: asyncio.Future) -> None:
    if not future.cancelled():
        future.exception()


def read_controls(xml: str, screen: ScreenInfo, limits: InputLimits) -> tuple[UiHierarchy, list[Control]]:
    """The hierarchy of a dump and the controls selected from it, sized to the screen (in the
    dump's rotation) and within the caps of `limits`."""
    try:
        hierarchy = parse_hierarchy(xml, max_bytes=limits.max_dump_bytes, max_nodes=limits.max_dump_nodes)
    except DumpTooLarge as exc:
        raise HierarchyDumpFailed(str(exc), DUMP_COMMAND) from exc
    except HierarchyError as exc:
        raise HierarchyDumpFailed(f"The phone sent controls that cannot be read: {exc}", DUMP_COMMAND) from exc
    size = screen.display_size
    if hierarchy.rotation % 2 != screen.rotation % 2:   # rotated since screen_info was cached
        size = (size[1], size[0])
    return hierarchy, select_controls(hierarchy, size)
