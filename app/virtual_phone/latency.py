"""What each phone service costs in time, and how long a screen keeps moving after an action.

Two profiles:
- `quick` (the default, for trying the app): services answer at once, screens change at once.
- `realistic`: costs of a mid-range phone over USB, drawn at random (seeded) from the ranges
  below; after an action the screen animates for a few hundred ms (a capture in that time shows
  a half-changed picture), and `uiautomator dump` waits, as the real one does, for one second
  without UI events (at most ten), failing with "could not get idle state." otherwise.

Every range has a public source (cost_sources.py, docs/virtual-phone.md): its middle is the
middle of what the sources measured, or a modest band around a single figure.

A time scale (e.g. 0.25) shrinks every cost and duration alike, so CI stays fast while tests
still see events in the same order; benchmarks use full scale.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field, replace

# Service kinds, as `command_kind` names them.
DUMP, SCREENCAP_PNG, SCREENCAP_RAW = "uiautomator dump", "screencap -p", "screencap (raw)"
INPUT, AM_START, MONKEY, PM = "input", "am start", "monkey", "pm"
JAVA_TOOL, DUMPSYS, TOYBOX, SERVICE_OPEN = "am/wm/settings/ime/cmd", "dumpsys", "toybox command", "service open"
SERVER_DUMP = "uiautomator2 server dump"
"""A dump answered by uiautomator2's server that stays on the phone (no app_process start per dump)."""

# Commands that pay their cost after doing their work (screencap grabs the frame, then encodes).
COST_AFTER = frozenset({SCREENCAP_PNG, SCREENCAP_RAW})
# Commands after which the screen animates when they changed it.
ACTIONS = frozenset({INPUT, AM_START, MONKEY, JAVA_TOOL})

# What a mid-range phone over USB takes (seconds, low–high), at full scale; sources: cost_sources.py.
REALISTIC_COSTS: dict[str, tuple[float, float]] = {
    DUMP: (2.0, 3.0),             # app_process start, the 1 s quiet wait every dump pays, the dump
    SCREENCAP_PNG: (1.3, 2.7),         # the phone's own capture and encoding come on top
    SCREENCAP_RAW: (0.6, 0.66),
    INPUT: (0.22, 0.4),           # `cmd input` over adb shell
    AM_START: (0.6, 2.0),         # until the started app has drawn (warm to cold)
    MONKEY: (0.6, 2.0),
    PM: (0.22, 0.4),
    JAVA_TOOL: (0.22, 0.4),
    DUMPSYS: (0.05, 0.15),
    TOYBOX: (0.004, 0.02),
    SERVICE_OPEN: (0.002, 0.006),
    SERVER_DUMP: (0.05, 0.15),    # a simple screen through uiautomator2's server on the phone
}
# How long a screen moves after an action: Android's short to long animation times (config.xml).
REALISTIC_ANIMATION = (0.2, 0.5)
# UiAutomation.waitForIdle(1000, 10000) in `uiautomator dump` (AOSP DumpCommand).
IDLE_QUIET, IDLE_TIMEOUT = 1.0, 10.0

_JAVA_TOOLS = {"am", "wm", "settings", "ime", "cmd", "svc", "content", "appops", "uiautomator"}


def command_kind(argv: list[str]) -> str:
    """The cost class of one simple command the phone's shell runs."""
    name = argv[0].rsplit("/", 1)[-1] if argv else ""
    args = argv[1:]
    if name == "uiautomator" and args[:1] == ["dump"]:
        return DUMP
    if name == "screencap":
        return SCREENCAP_PNG if ("-p" in args or any(a.endswith(".png") for a in args)) else SCREENCAP_RAW
    if name == "input":
        return INPUT
    if name == "am" and args[:1] in (["start"], ["start-activity"]):
        return AM_START
    if name == "monkey":
        return MONKEY
    if name == "pm" or (name == "cmd" and args[:1] == ["package"]):
        return PM
    if name in _JAVA_TOOLS:
        return JAVA_TOOL
    if name == "dumpsys":
        return DUMPSYS
    return TOYBOX


@dataclass(frozen=True)
class LatencyProfile:
    name: str
    costs: dict[str, tuple[float, float]] = field(default_factory=dict)
    animation: tuple[float, float] = (0.0, 0.0)   # how long a screen moves after an action
    idle_quiet: float = 0.0                        # uiautomator waits for this long without events…
    idle_timeout: float = 0.0                      # …but at most this long, then fails
    scale: float = 1.0

    @property
    def quick(self) -> bool:
        return not self.costs and self.animation == (0.0, 0.0)

    def scaled(self, scale: float) -> LatencyProfile:
        if scale <= 0:
            raise ValueError("the time scale must be above 0")
        return replace(self, scale=scale)

    def describe(self) -> str:
        return self.name if self.scale == 1.0 else f"{self.name} at {self.scale:g}× time"


QUICK = LatencyProfile("quick")
REALISTIC = LatencyProfile("realistic", costs=REALISTIC_COSTS, animation=REALISTIC_ANIMATION,
                           idle_quiet=IDLE_QUIET, idle_timeout=IDLE_TIMEOUT)
LATENCY_PROFILES = {p.name: p for p in (QUICK, REALISTIC)}


def latency_named(name: str, scale: float = 1.0) -> LatencyProfile:
    """`quick` or `realistic`, optionally with a time scale (`realistic@0.25` works too)."""
    if "@" in name:
        name, _, scale_text = name.partition("@")
        try:
            scale = float(scale_text.rstrip("x×"))
        except ValueError:
            raise ValueError(f"bad time scale {scale_text!r} in latency {name!r}") from None
    try:
        profile = LATENCY_PROFILES[name.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown latency profile {name!r}; choose one of {', '.join(LATENCY_PROFILES)}") from None
    return profile if scale == 1.0 else profile.scaled(scale)


class Timing:
    """One phone's clock for costs: draws each cost from its range (seeded) and sleeps it."""

    def __init__(self, profile: LatencyProfile = QUICK, seed: int = 0) -> None:
        self.profile = profile
        self._random = random.Random(seed)
        self._lock = threading.Lock()

    def cost(self, kind: str) -> float:
        """Seconds this service costs now (scaled); 0 in the quick profile."""
        low_high = self.profile.costs.get(kind)
        if not low_high:
            return 0.0
        with self._lock:
            seconds = self._random.uniform(*low_high)
        return seconds * self.profile.scale

    def animation(self) -> float:
        low, high = self.profile.animation
        if high <= 0:
            return 0.0
        with self._lock:
            seconds = self._random.uniform(low, high)
        return seconds * self.profile.scale

    def draw(self, low: float, high: float) -> float:
        """Seconds drawn (seeded) from [low, high], scaled like every cost."""
        with self._lock:
            seconds = self._random.uniform(low, high)
        return seconds * self.profile.scale

    def scaled(self, seconds: float) -> float:
        return seconds * self.profile.scale

    def pause(self, kind: str) -> float:
        seconds = self.cost(kind)
        if seconds > 0:
            time.sleep(seconds)
        return seconds
