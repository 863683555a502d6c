"""Each phone's latest parsed UI tree, read again only when the screen changed (seed 004's UITreeBroadcast).

A uiautomator dump costs 0.8-2.5 s on a real phone, a picture of the screen a few ms from the
mirror's stream. So a `ScreenTree` keeps its last reading with a grey picture of the frame
taken just before that dump, and answers the next `read()` from it while (a) no input reached
the phone since the dump began and (b) a current frame shows nothing new outside the status bar,
at the frame's full resolution (`picture_change.visible_change`: one changed digit is a change; a
repeated frame or the focused field's blinking cursor is not). Otherwise it dumps again
through `device.controls(refresh=True)`, which joins a dump already under way: one dump at a
time per phone, shared by the agent and the API. It never dumps on its own in the background.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections import Counter
from collections.abc import Awaitable
from dataclasses import dataclass, replace

from PIL import Image

from app.core.perception.controls import Control
from app.core.perception.hierarchy import screen_size_from_hierarchy
from app.core.perception.picture_change import SCREEN_WIDTH_DP, grey_picture, visible_change
from app.core.perception.screen_diff import screen_fingerprint

from .android_device import AndroidDevice, ControlsSnapshot, ForegroundApp
from .errors import DeviceError
from .frames import Frame, FrameSource

STATUS_BAR_DP = 24
"""The status bar's height when the dump does not show it (its clock ticks: not a change of the app)."""
TITLE_BAND = 0.25
"""A screen's title sits in the top quarter of the screen (the app bar, a dialog's heading)."""
TITLE_CHARACTERS = 40
TITLE_LONGEST = 80
"""A longer text is a paragraph (a message, an article), not a title."""
SYSTEM_UI = ("com.android.systemui",)
"""The status bar's and notification shade's package: never the screen's title or app."""
NOT_TITLES = ("clock", "date", "time", "battery", "status")
"""Resource-id endings of texts near the top that name no screen (a launcher's date, a clock)."""
SEPARATOR = " › "


@dataclass(frozen=True)
class TreeReading:
    """One parsed UI tree of a phone, and what it is known to show."""

    snapshot: ControlsSnapshot
    read_at: float            # time.monotonic() when the dump that made it began
    from_cache: bool          # answered from the kept reading, without a dump
    package: str
    activity: str
    screen_id: str            # same screen state → same id; a toggled switch → another one
    screen_name: str          # e.g. "SubSettings › Network & internet"

    @property
    def age_seconds(self) -> float:
        return max(0.0, time.monotonic() - self.read_at)

    @property
    def controls(self) -> list[Control]:
        return self.snapshot.controls


@dataclass(frozen=True)
class _Kept:
    reading: TreeReading
    generation: int           # the device's input generation when the dump began
    picture: Image.Image      # grey, of a frame taken before that dump (or while it ran, see read_during)


class ScreenTree:
    """The latest UI tree of one phone (a PhoneSession has one), shared by the agent and the API."""

    def __init__(self, device: AndroidDevice, frames: FrameSource) -> None:
        self.device = device
        self.frames = frames
        self._kept: _Kept | None = None
        self._reading = asyncio.Lock()     # reads queue here: the second finds the first's tree

    @property
    def latest(self) -> TreeReading | None:
        return self._kept.reading if self._kept is not None else None

    def reusable(self) -> bool:
        """A reading is kept and no input reached the phone since its dump began: a read only has to
        compare pictures (and dumps only when the screen changed by itself)."""
        kept = self._kept
        return kept is not None and kept.generation == self.device.input_generation

    async def read(self, frame: Frame | None = None) -> TreeReading:
        """The tree of the screen as `frame` (default: a frame taken now) shows it: the kept one
        when nothing moved and no input came since, else a new dump (joining one under way)."""
        if frame is None:
            frame = await self.frames.frame_after(time.monotonic())
        picture = await asyncio.to_thread(grey_picture, frame.image)
        async with self._reading:
            kept = self._kept
            if (kept is not None and kept.generation == self.device.input_generation
                    and not await asyncio.to_thread(_changed, kept, picture)):
                return replace(kept.reading, from_cache=True)
            generation = self.device.input_generation
            snapshot, front = await self._dump_and_foreground(self.device.controls(refresh=True))
            return self._keep(snapshot, front, generation, picture)

    async def read_now(self) -> TreeReading:
        """The tree from a dump begun now, whatever the pictures say. A picture proves a change, but not its
        absence: a change made a moment ago may not have reached the stream yet (a loaded machine, a slow
        phone). A check before acting on what the person approved must not act on such a moment."""
        async with self._reading:
            snapshot, front = await self._dump_and_foreground(self.device.controls_dumped_from_now())
            return make_reading(snapshot, front)

    async def read_during(self, frame: Awaitable[Frame]) -> TreeReading:
        """After input (the kept tree is stale anyway): the dump starts at once - or the one
        `prefetch_controls` started goes on - while `frame` (a frame request already under way)
        comes, instead of frame-then-dump. The agent's observation after an action goes this way.
        The reading is kept with the picture of that frame, taken while the dump ran; the phone's
        dump waits for the screen to be idle, so both show the screen the action led to."""
        generation, started = self.device.input_generation, time.monotonic()
        owned = not asyncio.isfuture(frame)
        frame = asyncio.ensure_future(frame)
        try:
            snapshot, front = await self._dump_and_foreground(self.device.controls())
        except BaseException:
            if owned:        # a request the caller shares is the caller's to drop
                frame.cancel()
            raise
        picture = await asyncio.to_thread(grey_picture, (await frame).image)
        if snapshot.taken_at < started:     # the device's cached dump, older than this frame: not kept
            return make_reading(snapshot, front)
        return self._keep(snapshot, front, generation, picture)

    async def _dump_and_foreground(self, dump: Awaitable[ControlsSnapshot]
                                   ) -> tuple[ControlsSnapshot, ForegroundApp | None]:
        """The dump, and meanwhile which activity is in front (one `dumpsys`, far quicker). The
        dump's own error is raised as it is (a phone gone stays a phone gone)."""
        front = asyncio.ensure_future(self._foreground())
        try:
            snapshot = await dump
        except BaseException:
            front.cancel()
            raise
        return snapshot, await front

    async def _foreground(self) -> ForegroundApp | None:
        try:
            return await self.device.foreground_app()
        except DeviceError:       # the dump says whether the phone is gone; the name can do without
            return None

    def _keep(self, snapshot: ControlsSnapshot, front: ForegroundApp | None, generation: int,
              picture: Image.Image) -> TreeReading:
        reading = make_reading(snapshot, front)
        kept = self._kept
        newer = kept is None or (generation, reading.read_at) >= (kept.generation, kept.reading.read_at)
        if newer and generation == self.device.input_generation:      # input since: never reusable
            self._kept = _Kept(reading, generation, picture)
        return reading


def make_reading(snapshot: ControlsSnapshot, front: ForegroundApp | None) -> TreeReading:
    """A reading of a fresh dump; the app in front from `dumpsys` when known, else from the controls."""
    package = front.package if front is not None else _main_package(snapshot.controls)
    activity = front.activity if front is not None else ""
    title = screen_title(snapshot, package)
    return TreeReading(snapshot=snapshot, read_at=snapshot.taken_at - snapshot.dump_ms / 1000,
                       from_cache=False, package=package, activity=activity,
                       screen_id=screen_id(activity or package, snapshot.controls),
                       screen_name=screen_name(activity or package, title))


def screen_id(activity: str, controls: list[Control]) -> str:
    """12 hex digits: the activity plus `screen_fingerprint` of the controls (which ignores ids and
    order, and sees a checked state or a text change)."""
    text = f"{activity}\n{screen_fingerprint(controls)}"
    return hashlib.blake2b(text.encode("utf-8"), digest_size=6).hexdigest()


def screen_name(activity: str, title: str) -> str:
    """"<activity's short name> › <title>"; either alone when the other is missing or the same."""
    short = activity.rsplit(".", 1)[-1].rsplit("$", 1)[0] if activity else ""
    if not title or title.casefold() == short.casefold():
        return short or title
    return f"{short}{SEPARATOR}{title}" if short else title


def screen_title(snapshot: ControlsSnapshot, package: str = "") -> str:
    """The screen's title: a short text of the app in the top quarter of the screen that is not in
    the status bar, not a field being edited, not a button (unless its id says "title"); one whose
    resource id says "title" first, else the topmost, the leftmost of a row. "" when there is none
    (a game's surface, a home screen of icons, a dialog low on the screen)."""
    _, height = screen_size_from_hierarchy(snapshot.hierarchy)
    if height <= 0:
        height = max((c.rect[3] for c in snapshot.controls), default=0)
    candidates = [c for c in snapshot.controls if _may_be_title(c, package, height * TITLE_BAND)]
    if not candidates:
        return ""
    best = min(candidates, key=lambda c: (not _titled(c), c.rect[1], c.rect[0]))
    text = " ".join(best.text.split())
    return text if len(text) <= TITLE_CHARACTERS else text[:TITLE_CHARACTERS - 1].rstrip() + "…"


def _may_be_title(control: Control, package: str, band: float) -> bool:
    text = control.text.strip()
    if (not any(ch.isalpha() for ch in text) or len(text) > TITLE_LONGEST or control.package in SYSTEM_UI
            or control.rect[1] > band or (control.clickable and not _titled(control))):
        return False       # a time, a paragraph, the status bar, below the app bar, a button or tab
    if package and control.package and control.package != package:
        return False       # a keyboard, a floating bubble
    if "EditText" in control.class_name or control.password:
        return False
    ending = control.resource_id.rsplit("/", 1)[-1].lower()
    return not ending.endswith(NOT_TITLES)


def _titled(control: Control) -> bool:
    """A resource id naming a screen title (toolbar_title, homepage_title, tvPublisherTitle); a bare
    `android:id/title` is a list row's title, not the screen's."""
    ending = control.resource_id.rsplit("/", 1)[-1].lower()
    return "title" in ending and ending != "title"


def _main_package(controls: list[Control]) -> str:
    """The app most controls belong to (system UI aside), when `dumpsys` could not say."""
    counts = Counter(c.package for c in controls if c.package and c.package not in SYSTEM_UI)
    return counts.most_common(1)[0][0] if counts else ""


def _changed(kept: _Kept, picture: Image.Image) -> bool:
    """Whether `picture` shows anything new since the kept reading's frame, outside the status bar
    and apart from the focused field's cursor (both placed from the kept dump, scaled to the frame)."""
    snapshot = kept.reading.snapshot
    screen_width, _ = screen_size_from_hierarchy(snapshot.hierarchy)
    if screen_width <= 0:
        screen_width = max((c.rect[2] for c in snapshot.controls), default=0) or picture.width
    scale = picture.width / screen_width
    status = [c.rect[3] for c in snapshot.controls
              if c.package in SYSTEM_UI and c.rect[1] <= 0 and "status_bar" in c.resource_id]
    status_bottom = max(status) * scale if status else STATUS_BAR_DP * picture.width / SCREEN_WIDTH_DP
    focused = next((c.rect for c in snapshot.controls if c.focused and "EditText" in c.class_name), None)
    field = None
    if focused is not None:
        left, top, right, bottom = (round(v * scale) for v in focused)
        field = (left, top, right, bottom)
    return visible_change(kept.picture, picture, ignore_top=round(status_bottom), focused_field=field)
