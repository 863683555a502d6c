"""The phone's screen at a run's start: woken when asleep, unlocked only by the person, kept on and restored."""

from __future__ import annotations

import pytest

from app.android.keycodes import KEYCODES
from app.core.device.adb_transport import AdbTransport
from app.core.device.android_device import AndroidDevice
from app.core.device.screen_power import (
    StayOn,
    parse_awake,
    parse_locked,
    read_screen_state,
    wait_until_unlocked,
)
from app.virtual_phone.adb_server import VirtualAdbServer

# As phones print them (AOSP PowerManagerService / PhoneWindowManager / KeyguardServiceDelegate dumps).
POWER_AWAKE = "Power Manager State:\n  mDirty=0x0\n  mWakefulness=Awake\n  mWakefulnessChanging=false\n"
POWER_ASLEEP_OLD = "Power Manager State:\n  mDirty=0x0\n  getWakefulnessLocked()=Asleep\n"
POWER_DISPLAY_ONLY = "Display Power: state=OFF\n"
POLICY_10_LOCKED = """WINDOW MANAGER POLICY STATE (dumpsys window policy)
    KeyguardServiceDelegate
      showing=true
      inputRestricted=true
      occluded=false
      secure=true
      KeyguardStateMonitor
        mIsShowing=true
        mSimSecure=false
        mInputRestricted=true
"""
POLICY_10_OCCLUDED = POLICY_10_LOCKED.replace("occluded=false", "occluded=true")
POLICY_10_OPEN = POLICY_10_LOCKED.replace("=true", "=false")
POLICY_8_LOCKED = "    mStatusBar=Window{3c2 u0 StatusBar} isStatusBarKeyguard=true\n"
POLICY_7_DREAMING = "    mShowingDream=false mDreamingLockscreen=true mDreamingSleepToken=null\n"
POLICY_5_LOCKED = "    mShowingLockscreen=true mShowingDream=false mDreamingLockscreen=false\n"


@pytest.mark.parametrize("dump, awake", [(POWER_AWAKE, True), (POWER_ASLEEP_OLD, False),
                                         (POWER_DISPLAY_ONLY, False), ("mWakefulness=Dozing", False),
                                         ("nothing known", None)])
def test_wakefulness_as_phones_report_it(dump, awake):
    assert parse_awake(dump) is awake


@pytest.mark.parametrize("dump, locked", [(POLICY_10_LOCKED, True), (POLICY_10_OCCLUDED, False),
                                          (POLICY_10_OPEN, False), (POLICY_8_LOCKED, True),
                                          (POLICY_7_DREAMING, True), (POLICY_5_LOCKED, True),
                                          ("no keyguard lines", None)])
def test_keyguard_as_phones_report_it(dump, locked):
    assert parse_locked(dump) is locked


@pytest.fixture(params=["android14", "android9"])
def phone(request):
    """(device over real adbutils, the virtual phone behind it), for each Android version's dump format."""
    with VirtualAdbServer() as server:
        attached = server.add_phone(profile=request.param)
        device = AndroidDevice(AdbTransport("127.0.0.1", server.port), attached.serial)
        device.attached = attached        # the phone's side: which command lines it ran
        yield device, attached.phone


class Person:
    """Answers the run's question; `unlock` says whether the person unlocks the phone before answering."""

    def __init__(self, phone, unlock_after: int = 1):
        self.phone, self.unlock_after, self.asked = phone, unlock_after, []

    async def ask(self, question: str) -> str:
        self.asked.append(question)
        if len(self.asked) >= self.unlock_after:
            self.phone.unlock_by_hand()
        return "done"


@pytest.mark.asyncio
async def test_virtual_phone_reports_sleep_and_lock_in_real_formats(phone):
    device, virtual = phone
    assert (await read_screen_state(device)).awake is True and (await read_screen_state(device)).locked is False
    virtual.lock_screen()
    virtual.key(KEYCODES["SLEEP"])
    state = await read_screen_state(device)
    assert (state.awake, state.locked) == (False, True)
    power = await device.shell("dumpsys power")
    assert "mWakefulness=Asleep" in power and "Display Power: state=OFF" in power


@pytest.mark.asyncio
async def test_sleeping_unlocked_phone_is_woken_and_nobody_is_asked(phone):
    device, virtual = phone
    virtual.key(KEYCODES["SLEEP"])
    person, told = Person(virtual), []
    await wait_until_unlocked(device, person.ask, told.append)
    assert virtual.screen_on and not virtual.keyguard_showing
    assert person.asked == [] and "screen was off" in told[0]


@pytest.mark.asyncio
async def test_locked_phone_waits_for_the_person_and_never_types_a_pin(phone):
    device, virtual = phone
    virtual.lock_screen()
    virtual.key(KEYCODES["SLEEP"])
    person, told = Person(virtual, unlock_after=2), []      # the first answer comes before unlocking
    await wait_until_unlocked(device, person.ask, told.append)
    assert len(person.asked) == 2 and "never types a PIN" in person.asked[0] and "still locked" in person.asked[1]
    assert virtual.screen_on and not virtual.keyguard_showing
    assert virtual.inputs_refused_while_locked == 0
    inputs = [argv for argv in device.attached.command_lines() if argv[:1] == ["input"]]
    assert inputs == [["input", "keyevent", "224"]]            # the wake key only: no PIN, no touch


@pytest.mark.asyncio
async def test_a_locked_phone_refuses_input_until_unlocked(phone):
    device, virtual = phone
    virtual.lock_screen()
    await device.tap(100, 300)
    await device.press_key("HOME")
    assert virtual.inputs_refused_while_locked == 2
    await device.shell("wm dismiss-keyguard")                # a PIN lock is not dismissed by a command
    assert virtual.keyguard_showing
    controls = (await device.controls(refresh=True)).controls
    assert any(control.text == "Enter PIN" for control in controls)      # what the model would see: the lock screen


@pytest.mark.asyncio
async def test_swipe_lock_is_dismissed_by_wm(phone):
    device, virtual = phone
    virtual.lock_screen(secure=False)
    await device.shell("wm dismiss-keyguard")
    assert not virtual.keyguard_showing


@pytest.mark.asyncio
@pytest.mark.parametrize("before", ["0", "3"])
async def test_stay_on_is_set_for_the_run_and_restored(phone, before):
    device, virtual = phone
    virtual.settings.put("global", "stay_on_while_plugged_in", before)
    keeper = StayOn(device)
    await keeper.start()
    assert virtual.state()["stay_on_while_plugged_in"] == "7"
    assert "mStayOn=true" in await device.shell("dumpsys power")
    await keeper.restore()
    assert virtual.state()["stay_on_while_plugged_in"] == before
    await keeper.restore()                                    # twice is harmless
    assert virtual.state()["stay_on_while_plugged_in"] == before
