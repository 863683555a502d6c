"""`dumpsys`: the system services' state in the formats clients parse. An unknown service is
reported as the real dumpsys does ("Can't find service: X" on stderr, exit 0).

Services here: power (mWakefulness, mHoldingDisplaySuspendBlocker, Display Power), battery (and
`set`/`unplug`/`reset`), input (SurfaceOrientation, viewports), input_method (mCurMethodId,
mInputShown), SurfaceFlinger --display-id, deviceidle; window, display, activity and package
live in their own modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..shell import Result
from .common import fail, lines, ok
from .dumpsys_window import Focus, dump_activity, dump_display, dump_window
from .package_dump import dump_package
from .screen import PHYSICAL_DISPLAY_ID

if TYPE_CHECKING:
    from ..attached_device import AttachedDevice
    from ..phone import VirtualPhone

SERVICES = ("SurfaceFlinger", "activity", "battery", "deviceidle", "display", "input", "input_method", "package",
            "power", "window")


def program_dumpsys(device: AttachedDevice, argv: list[str], stdin: bytes) -> Result:
    phone = device.phone
    args = argv[1:]
    if not args:
        return ok("".join(f"{'-' * 79}\nDUMP OF SERVICE {name}:\n{_dump(phone, name, [])}" for name in SERVICES))
    if args[0] == "-l":
        return ok("Currently running services:\n" + lines(f"  {name}" for name in SERVICES))
    if args[0] in ("-h", "--help"):
        return ok("usage: dumpsys\n         To dump all services.\nor:\n"
                  "       dumpsys [-t TIMEOUT] [--priority LEVEL] [--dump] [--pid] [--thread] [--help | -l | "
                  "--skip SERVICES | SERVICE [ARGS]]\n")
    name, rest = args[0], args[1:]
    if name not in SERVICES:
        return fail(f"Can't find service: {name}\n", 0)
    return ok(_dump(phone, name, rest))


def _dump(phone: VirtualPhone, name: str, args: list[str]) -> str:
    if name == "window":
        return dump_window(phone, args)
    if name == "display":
        return dump_display(phone)
    if name == "activity":
        return dump_activity(phone, args)
    if name == "package":
        return dump_package(phone, args[0]) if args and not args[0].startswith("-") else _package_summary(phone)
    if name == "power":
        return _power(phone)
    if name == "battery":
        return _battery(phone, args)
    if name == "input":
        return _input(phone)
    if name == "input_method":
        return _input_method(phone)
    if name == "SurfaceFlinger":
        return _surface_flinger(phone, args)
    return _device_idle(phone, args)


def _package_summary(phone: VirtualPhone) -> str:
    return lines(["Packages:"] + [f"  Package [{r.package}] ({phone.system.hash_of(('package', r.package))}):"
                                  for r in phone.system.packages.records()])


def _power(phone: VirtualPhone) -> str:
    on = phone.screen_on
    battery = phone.system.battery
    plug = 1 if battery.ac else 2 if battery.usb else 4 if battery.wireless else 0
    return lines([
        "POWER MANAGER (dumpsys power)", "", "Power Manager State:",
        "  mDirty=0x0",
        f"  mWakefulness={'Awake' if on else 'Asleep'}",
        "  mWakefulnessChanging=false",
        f"  mIsPowered={str(plug != 0).lower()}",
        f"  mPlugType={plug}",
        f"  mBatteryLevel={battery.level}",
        f"  mStayOn={str(on and _stays_on(phone, plug)).lower()}",
        "  mProximityPositive=false",
        "  mBootCompleted=true",
        "  mSystemReady=true",
        f"  mHalAutoSuspendModeEnabled={str(not on).lower()}",
        "  mHalInteractiveModeEnabled=" + str(on).lower(),
        "  mWakeLockSummary=0x0",
        f"  mUserActivitySummary=0x{1 if on else 0}",
        "  mRequestWaitForNegativeProximity=false",
        "  mSandmanScheduled=false",
        "  mBatteryLevelLow=false",
        "  mLightDeviceIdleMode=false",
        "  mDeviceIdleMode=false",
        f"  mScreenOffTimeoutSetting={phone.settings.as_int('system', 'screen_off_timeout', 60000)}",
        f"  mScreenBrightnessSetting={phone.settings.as_int('system', 'screen_brightness', 102)}",
        f"  mStayOnWhilePluggedInSetting={phone.settings.as_int('global', 'stay_on_while_plugged_in', 0)}",
        "",
        "Suspend Blockers: size=4",
        "  PowerManagerService.WakeLocks: ref count=0",
        f"  PowerManagerService.Display: ref count={1 if on else 0}",
        "  PowerManagerService.Broadcasts: ref count=0",
        "  PowerManagerService.WirelessChargerDetector: ref count=0",
        "",
        "  mHoldingWakeLockSuspendBlocker=false",
        f"  mHoldingDisplaySuspendBlocker={str(on).lower()}",
        "",
        f"Display Power: state={'ON' if on else 'OFF'}",
    ])


def _stays_on(phone: VirtualPhone, plug: int) -> bool:
    """Whether `stay_on_while_plugged_in` (a mask of 1 AC, 2 USB, 4 wireless) keeps the screen on now."""
    return bool(phone.settings.as_int("global", "stay_on_while_plugged_in", 0) & plug)


def _battery(phone: VirtualPhone, args: list[str]) -> str:
    battery = phone.system.battery
    if args[:1] == ["set"] and len(args) >= 3:
        key, value = args[1], args[2]
        number = int(value) if value.lstrip("-").isdigit() else 0
        if key == "level":
            battery.level = max(0, min(100, number))
        elif key in ("ac", "usb", "wireless"):
            setattr(battery, key, number != 0)
        elif key == "status":
            battery.status = number
        elif key == "temp":
            battery.temperature = number
        return ""
    if args[:1] == ["unplug"]:
        battery.ac = battery.usb = battery.wireless = False
        battery.status = 3
        return ""
    if args[:1] == ["reset"]:
        phone.system.battery = type(battery)()
        return ""
    sdk = phone.profile.sdk
    out = ["Current Battery Service state:", f"  AC powered: {str(battery.ac).lower()}",
           f"  USB powered: {str(battery.usb).lower()}", f"  Wireless powered: {str(battery.wireless).lower()}"]
    if sdk >= 30:
        out.append("  Dock powered: false")
    out += ["  Max charging current: 500000", "  Max charging voltage: 5000000", "  Charge counter: 3000000",
            f"  status: {battery.status}", "  health: 2", "  present: true", f"  level: {battery.level}",
            "  scale: 100", f"  voltage: {battery.voltage}", f"  temperature: {battery.temperature}",
            "  technology: Li-ion"]
    return lines(out)


def _input(phone: VirtualPhone) -> str:
    width, height = phone.display_size()
    rotation = phone.rotation
    physical_w, physical_h, _ = phone.system.physical
    unique = f"local:{PHYSICAL_DISPLAY_ID}" if phone.profile.sdk >= 29 else "local:0"
    return lines([
        "INPUT MANAGER (dumpsys input)", "",
        "Input Manager State:", f"  Interactive: {str(phone.screen_on).lower()}", "",
        "Input Reader State:",
        "  Device 1: virtio_input_multi_touch",
        "    Sources: TOUCHSCREEN",
        "    Touch Input Mapper (mode - DIRECT):",
        f"      Viewport INTERNAL: displayId=0, uniqueId={unique}, port=0, orientation={rotation}, "
        f"logicalFrame=[0, 0, {width}, {height}], physicalFrame=[0, 0, {width}, {height}], "
        f"deviceSize=[{physical_w}, {physical_h}], isActive=[1]",
        f"      SurfaceWidth: {width}px",
        f"      SurfaceHeight: {height}px",
        "      SurfaceLeft: 0",
        "      SurfaceTop: 0",
        f"      SurfaceOrientation: {rotation}",
        "  Configuration:",
        "    PointerVelocityControlParameters: scale=1.000, lowThreshold=500.000, highThreshold=3000.000",
    ])


def _input_method(phone: VirtualPhone) -> str:
    shown = phone.keyboard_visible
    focus = Focus(phone)
    field = phone.focused()
    out = ["Current Input Method Manager state:", "  Input Methods: mMethodMapUpdateCount=3"]
    for i, ime in enumerate(phone.ime_ids):
        out += [f"  InputMethod #{i}:", f"    mId={ime} mSettingsActivityName=null mIsVrOnly=false"]
    out += [f"  mCurMethodId={phone.current_ime}",
            f"  mCurFocusedWindow={focus.window()}",
            f"  mCurId={phone.current_ime} mHaveConnection=true mBoundToMethod=true mVisibleBound={str(shown).lower()}",
            f"  mShowRequested={str(shown).lower()} mShowExplicitlyRequested=false mShowForced=false "
            f"mInputShown={str(shown).lower()}",
            "  mInFullscreenMode=false",
            f"  mSystemReady=true mInteractive={str(phone.screen_on).lower()}",
            "",
            "  Client:",
            f"    mServedView={'android.widget.EditText' if field else 'null'}",
            "",
            f"Input method service state for {phone.current_ime}:",
            f"  mIsInputViewShown={str(shown).lower()} mDecorViewVisible={str(shown).lower()}",
            f"  mWindowVisible={str(shown).lower()} mInShowWindow={str(shown).lower()}"]
    return lines(out)


def _surface_flinger(phone: VirtualPhone, args: list[str]) -> str:
    if args[:1] == ["--display-id"]:
        if phone.profile.sdk >= 29:
            return (f'Display {PHYSICAL_DISPLAY_ID} (HWC display 0): port=0 pnpId=GGL '
                    'displayName="EMU_display_0"\n')
        return 'Display 0 (HWC display 0): port=0 pnpId=GGL displayName="EMU_display_0"\n'
    width, height = phone.display_size()
    return lines(["Build configuration: [sf PRESENT_TIME_OFFSET=0 FORCE_HWC_FOR_RBG_TO_YUV=0 MAX_VIRT_DISPLAY_DIM=0 "
                  "RUNNING_WITHOUT_SYNC_FRAMEWORK=0 NUM_FRAMEBUFFER_SURFACE_BUFFERS=3]",
                  "Display identification data:",
                  f"Display {PHYSICAL_DISPLAY_ID if phone.profile.sdk >= 29 else 0} (HWC display 0): port=0 "
                  'pnpId=GGL displayName="EMU_display_0"', "",
                  f"  Display size: {width}x{height}"])


def _device_idle(phone: VirtualPhone, args: list[str]) -> str:
    if args[:1] == ["whitelist"]:
        return lines(f"system-excidle,{p},{phone.system.uid_of(p)}" for p in ("com.android.shell",))
    return lines(["  Settings:", "    mLightEnabled=true", "    mDeepEnabled=true", "  mForceIdle=false",
                  f"  mScreenOn={str(phone.screen_on).lower()}", "  mState=ACTIVE mLightState=ACTIVE"])
