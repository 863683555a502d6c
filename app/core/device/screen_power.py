"""The phone's screen at the start of a run: awake, unlocked, and kept on while the run goes.

How a phone says it (one shell call reads both):
- `dumpsys power`: `mWakefulness=Awake|Asleep|Dozing|Dreaming` (older: `getWakefulnessLocked()=`),
  else `Display Power: state=ON|OFF|DOZE`;
- `dumpsys window policy`: the keyguard shows when `mShowingLockscreen=true`,
  `mDreamingLockscreen=true` or `isStatusBarKeyguard=true` (Android 5–9), or under
  `KeyguardServiceDelegate` `showing=true` (not `occluded=true`) / `KeyguardStateMonitor`
  `mIsShowing=true` (Android 10+).

A sleeping phone is woken (`KEYCODE_WAKEUP`, harmless when awake). A locked one is never
unlocked by the app (it never types a PIN): `wait_until_unlocked` asks the person to unlock it
by hand and reads the state again after each answer. `StayOn` sets `stay_on_while_plugged_in`
to 7 (AC, USB, wireless) for the run and puts the old value back afterwards.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from .android_device import AndroidDevice

SPLIT = "__agentdesk_screen_split__"
READ_STATE = f"dumpsys power; echo {SPLIT}; dumpsys window policy"
STAY_ON_SETTING = "stay_on_while_plugged_in"
STAY_ON_ALWAYS = "7"        # BatteryManager.BATTERY_PLUGGED_AC | USB | WIRELESS: what `svc power stayon true` sets
WAKE_POLLS = 10
WAKE_POLL_SECONDS = 0.2

PHONE_LOCKED = ("the phone is locked: unlock it by hand and start the run again "
                "(the app never types a PIN, and this run had nobody to ask)")
UNLOCK_QUESTION = ("The phone is locked. Unlock it by hand on the phone (the app never types a PIN), "
                   "then answer here to go on.")
STILL_LOCKED_QUESTION = ("The phone is still locked. Unlock it on the phone, then answer here to go on "
                         "(or stop the run).")

_WAKEFULNESS = re.compile(r"(?:mWakefulness|getWakefulnessLocked\(\))=(\w+)")
_DISPLAY_POWER = re.compile(r"Display Power: state=(\w+)")
_LOCKED_MARKERS = re.compile(r"(?:mShowingLockscreen|mDreamingLockscreen|isStatusBarKeyguard)=(true|false)")
_DELEGATE_SHOWING = re.compile(r"KeyguardServiceDelegate\s*\n(?:[ \t]+\S.*\n)*?[ \t]+showing=(true|false)")
_DELEGATE_OCCLUDED = re.compile(r"KeyguardServiceDelegate\s*\n(?:[ \t]+\S.*\n)*?[ \t]+occluded=true")
_MONITOR_SHOWING = re.compile(r"KeyguardStateMonitor\s*\n\s*mIsShowing=(true|false)")


@dataclass(frozen=True)
class ScreenState:
    """What the phone said; None where it did not say (an unknown format: treated as fine)."""

    awake: bool | None
    locked: bool | None

    @property
    def needs_person(self) -> bool:
        return bool(self.locked) or self.awake is False


def parse_awake(power_dump: str) -> bool | None:
    """Whether the screen is on, from `dumpsys power`."""
    match = _WAKEFULNESS.search(power_dump)
    if match:
        return match.group(1) == "Awake"
    match = _DISPLAY_POWER.search(power_dump)
    return match.group(1) == "ON" if match else None


def parse_locked(policy_dump: str) -> bool | None:
    """Whether the keyguard shows, from `dumpsys window policy` (or all of `dumpsys window`)."""
    markers = _LOCKED_MARKERS.findall(policy_dump)
    if "true" in markers:
        return True
    delegate = _DELEGATE_SHOWING.search(policy_dump)
    if delegate and delegate.group(1) == "true" and not _DELEGATE_OCCLUDED.search(policy_dump):
        return True
    monitor = _MONITOR_SHOWING.search(policy_dump)
    if monitor and monitor.group(1) == "true" and not _DELEGATE_OCCLUDED.search(policy_dump):
        return True
    return False if (markers or delegate or monitor) else None


def parse_screen_state(output: str) -> ScreenState:
    power, _, policy = output.partition(SPLIT)
    return ScreenState(parse_awake(power), parse_locked(policy))


async def read_screen_state(device: AndroidDevice) -> ScreenState:
    return parse_screen_state(await device.shell(READ_STATE))


async def wake(device: AndroidDevice) -> ScreenState:
    """Wake the screen and wait (briefly) until the phone says it is awake; returns the state then."""
    await device.press_key("WAKEUP")     # KEYCODE_WAKEUP: does nothing to an awake phone
    state = await read_screen_state(device)
    for _ in range(WAKE_POLLS):
        if state.awake is not False:
            break
        await asyncio.sleep(WAKE_POLL_SECONDS)
        state = await read_screen_state(device)
    return state


async def wait_until_unlocked(device: AndroidDevice, ask: Callable[[str], Awaitable[str]],
                              tell: Callable[[str], None]) -> None:
    """Wake a sleeping phone; while it is locked (or will not wake), ask the person to unlock it by hand.

    `ask` is the run's question to the person: it raises when the run is stopped or has nobody
    to ask, which ends this wait. Nothing is typed on the phone but the wake key.
    """
    state = await read_screen_state(device)
    if state.awake is False:
        tell("The phone's screen was off: waking it.")
        state = await wake(device)
    question = UNLOCK_QUESTION
    while state.needs_person:
        await ask(question)
        state = await read_screen_state(device)
        if state.awake is False:
            state = await wake(device)
        question = STILL_LOCKED_QUESTION
    if question is STILL_LOCKED_QUESTION:
        tell("The phone is unlocked: the run goes on.")


class StayOn:
    """Keep the screen on while plugged in for the run; `restore()` puts the phone's own setting back."""

    def __init__(self, device: AndroidDevice) -> None:
        self.device = device
        self.previous: str | None = None      # None: not changed (nothing to restore)

    async def start(self) -> None:
        output = await self.device.shell(f"settings get global {STAY_ON_SETTING}")
        value = output.strip()
        if value == STAY_ON_ALWAYS:
            return
        await self.device.shell(f"settings put global {STAY_ON_SETTING} {STAY_ON_ALWAYS}")
        self.previous = value if value.isdigit() else "null"

    async def restore(self) -> None:
        if self.previous is None:
            return
        previous, self.previous = self.previous, None
        if previous == "null":
            await self.device.shell(f"settings delete global {STAY_ON_SETTING}")
        else:
            await self.device.shell(f"settings put global {STAY_ON_SETTING} {previous}")
