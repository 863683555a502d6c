"""`dumpsys window`, `dumpsys display` and `dumpsys activity`: which window has focus, which
activity is resumed, the display's size, density and rotation, as the phone's version prints them.

What clients read: mCurrentFocus / mFocusedApp (in `window displays` since Android 10, in
`window windows` before), init=WxH DENSITYdpi, mResumedActivity (up to Android 12) or
topResumedActivity (13 and later), "ACTIVITY pkg/.Act hash pid=N" in `activity top`,
DisplayViewport{... orientation=N ...} in `display` (adbutils' rotation()).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..android_system import uid_name
from ..apps import LAUNCHER
from ..intents import short_component
from .common import lines
from .screen import PHYSICAL_DISPLAY_ID

if TYPE_CHECKING:
    from ..phone import VirtualPhone

SEPARATOR = "-" * 79
ROTATIONS = ("ROTATION_0", "ROTATION_90", "ROTATION_180", "ROTATION_270")


class Focus:
    """The foreground app as the window manager and activity manager see it."""

    def __init__(self, phone: VirtualPhone) -> None:
        self.phone = phone
        self.package, self.activity = phone.foreground()
        app = phone.apps[self.package]
        self.screen = app.top
        self.dialog = None if phone.overview or self.screen is None else self.screen.dialog
        system = phone.system
        self.task = system.task_id(self.package)
        self.pid = system.pid_of(self.package) or 0
        self.uid = system.uid_of(self.package)
        self.window_hash = system.hash_of(self.screen if self.screen is not None else ("w", self.package))
        self.record_hash = system.hash_of(("record", self.window_hash))

    @property
    def window_name(self) -> str:
        return f"{self.package}/{self.activity}"

    def window(self) -> str:
        return f"Window{{{self.window_hash} u0 {self.window_name}}}"

    def activity_record(self) -> str:
        return f"ActivityRecord{{{self.record_hash} u0 {short_component(self.package, self.activity)} t{self.task}}}"


# ---------------------------------------------------------------------------- dumpsys window


def dump_window(phone: VirtualPhone, args: list[str]) -> str:
    focus = Focus(phone)
    section = args[0] if args else None
    if section in ("displays", "d"):
        return _displays(phone, focus)
    if section in ("windows", "w"):
        return _windows(phone, focus)
    if section in ("policy", "p"):
        return _policy(phone)
    if section in ("lastanr", "l"):
        return _last_anr()
    if section is not None and not section.startswith("-"):
        return "".join(block for name, block in _window_blocks(phone, focus) if section in name)
    return f"{SEPARATOR}\n".join([_last_anr(), _policy(phone), _displays(phone, focus), _windows(phone, focus)])


def _last_anr() -> str:
    return "WINDOW MANAGER LAST ANR (dumpsys window lastanr)\n  <no ANR has occurred since boot>\n"


def _policy(phone: VirtualPhone) -> str:
    on = phone.screen_on
    showing, secure = str(phone.keyguard_showing).lower(), str(phone.keyguard_secure).lower()
    has_keyguard = str(phone.keyguard_secure or phone.keyguard_showing).lower()
    out = ["WINDOW MANAGER POLICY STATE (dumpsys window policy)",
           "    mSafeMode=false mSystemReady=true mSystemBooted=true",
           "    mCameraLensCoverState=LENS_COVER_ABSENT",
           "    mLidState=LID_ABSENT mLidOpenRotation=-1",
           f"    mScreenOnEarly={str(on).lower()} mScreenOnFully={str(on).lower()}",
           "    mKeyguardDrawComplete=true mWindowManagerDrawComplete=true"]
    if phone.profile.sdk < 29:
        out.append(f"    mShowingDream=false mDreamingLockscreen={showing} mDreamingSleepToken=null")
    out += ["    KeyguardServiceDelegate",
            f"      showing={showing}", f"      inputRestricted={showing}", "      occluded=false",
            f"      secure={secure}", "      dreaming=false", "      systemIsReady=true",
            f"      deviceHasKeyguard={has_keyguard}", "      enabled=true",
            "      offReason=OFF_BECAUSE_OF_USER", "      currentUser=0", "      bootCompleted=true",
            f"      screenState={'SCREEN_STATE_ON' if on else 'SCREEN_STATE_OFF'}",
            f"      interactiveState={'INTERACTIVE_STATE_AWAKE' if on else 'INTERACTIVE_STATE_SLEEP'}",
            "      KeyguardStateMonitor", f"        mIsShowing={showing}", "        mSimSecure=false",
            f"        mInputRestricted={showing}", "        mTrusted=false", "        mCurrentUserId=0"]
    return lines(out)


def _displays(phone: VirtualPhone, focus: Focus) -> str:
    sdk = phone.profile.sdk
    width, height = phone.display_size()
    physical_w, physical_h, physical_density = phone.system.physical
    init = f"init={physical_w}x{physical_h} {physical_density}dpi"
    if (phone.width, phone.height, phone.density) != (physical_w, physical_h, physical_density):
        init += f" base={phone.width}x{phone.height} {phone.density}dpi"
    bars = phone.metrics().dp(48)
    app_w, app_h = (width - bars, height) if phone.rotation % 2 else (width, height - bars)
    short, long = min(width, height), max(width, height)
    free = phone.settings.flag("system", "accelerometer_rotation")
    mode = "USER_ROTATION_FREE" if free else "USER_ROTATION_LOCKED"
    out = ["WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)",
           f"  Display: mDisplayId=0{' (organized)' if sdk >= 31 else ''}",
           f"    {init} cur={width}x{height} app={app_w}x{app_h} "
           f"rng={short}x{short - bars}-{long - bars}x{long - bars}",
           f"    deferred=false mLayoutNeeded=false mTouchExcludeRegion=SkRegion((0,0,{width},{height}))", "",
           f"  mLayoutSeq={phone.version % 10000 + 100}"]
    if sdk >= 29:
        out += [f"  mCurrentFocus={focus.window()}", f"  mFocusedApp={focus.activity_record()}"]
    out += ["", f"  DisplayFrames w={width} h={height} r={phone.rotation}", "",
            "  DisplayRotation",
            "    mCurrentAppOrientation=SCREEN_ORIENTATION_UNSPECIFIED",
            f"    mRotation={phone.rotation} mDeferredRotationPauseCount=0",
            "    mLandscapeRotation=ROTATION_90 mSeascapeRotation=ROTATION_270",
            "    mPortraitRotation=ROTATION_0 mUpsideDownRotation=ROTATION_180",
            f"    mUserRotationMode={mode} mUserRotation={ROTATIONS[phone.rotation]} mCameraRotationMode=0"
            " mAllowAllRotations=false",
            "    mFixedToUserRotation=false"]
    return lines(out)


def _window_blocks(phone: VirtualPhone, focus: Focus) -> list[tuple[str, str]]:
    """(name, dump) of every window, top of the Z order first."""
    sdk = phone.profile.sdk
    system = phone.system
    systemui_uid = system.uid_of("com.android.systemui")
    windows = [("NavigationBar0" if sdk >= 29 else "NavigationBar", systemui_uid, "NAVIGATION_BAR", False),
               ("NotificationShade" if sdk >= 30 else "StatusBar", systemui_uid, "NOTIFICATION_SHADE"
                if sdk >= 30 else "STATUS_BAR", False)]
    if sdk >= 30:
        windows.append(("StatusBar", systemui_uid, "STATUS_BAR", False))
    if phone.keyboard_visible:
        windows.append(("InputMethod", system.uid_of(phone.current_ime.split("/")[0]), "INPUT_METHOD", False))
    secure = bool(getattr(focus.screen, "secure", False))
    if focus.dialog is not None:
        windows.append((focus.window_name, focus.uid, "APPLICATION", secure))
    windows.append((focus.window_name, focus.uid, "BASE_APPLICATION", secure))
    if focus.package != LAUNCHER:
        windows.append((f"{LAUNCHER}/{phone.apps[LAUNCHER].main_activity}", system.uid_of(LAUNCHER),
                        "BASE_APPLICATION", False))
    windows.append(("com.android.systemui.wallpapers.ImageWallpaper" if sdk >= 29
                    else "com.android.systemui.ImageWallpaper", systemui_uid, "WALLPAPER", False))
    blocks = []
    width, height = phone.display_size()
    keyboard = next((w.bounds for w in phone.windows() if w.role == "ime"), None)
    for index, (name, uid, kind, is_secure) in enumerate(windows):
        frame = keyboard if kind == "INPUT_METHOD" and keyboard is not None else (0, 0, width, height)
        number = len(windows) - 1 - index
        focused = name == focus.window_name and kind == "BASE_APPLICATION"
        window_hash = focus.window_hash if focused else system.hash_of(("w", name, kind))
        flags = "LAYOUT_IN_SCREEN LAYOUT_INSET_DECOR SPLIT_TOUCH HARDWARE_ACCELERATED"
        flags += " SECURE" if is_secure else ""
        package = name.split("/")[0] if "/" in name else "com.android.systemui"
        blocks.append((name, lines([
            f"  Window #{number} Window{{{window_hash} u0 {name}}}:",
            f"    mDisplayId=0 rootTaskId={focus.task if name == focus.window_name else 1} "
            f"mSession=Session{{{system.hash_of(('session', uid))} {uid % 9000 + 1000}:{uid}}} "
            f"mClient=android.os.BinderProxy@{system.hash_of(('client', name, kind))}",
            f"    mOwnerUid={uid} showForAllUsers={'false' if '/' in name else 'true'} package={package} appop=NONE",
            f"    mAttrs={{(0,0)(fillxfill) ty={kind} fmt=TRANSPARENT",
            f"      fl={flags}}}",
            f"    Requested w={width} h={height} mLayoutSeq={phone.version % 10000 + 100}",
            f"    mFrame=[{frame[0]},{frame[1]}][{frame[2]},{frame[3]}]",
            "    isOnScreen=true",
            f"    isVisible={'true' if phone.screen_on else 'false'}"])))
    return blocks


def _windows(phone: VirtualPhone, focus: Focus) -> str:
    out = "WINDOW MANAGER WINDOWS (dumpsys window windows)\n"
    out += "".join(block for _, block in _window_blocks(phone, focus))
    tail = ["  mGlobalConfiguration={1.0 ?mcc?mnc [en_US] ldltr}", "  mHasPermanentDpad=false"]
    if phone.profile.sdk >= 29:
        tail.append("  mTopFocusedDisplayId=0")
    else:
        tail += [f"  mCurrentFocus={focus.window()}",
                 f"  mFocusedApp=AppWindowToken{{{phone.system.hash_of(('token', focus.record_hash))} "
                 f"token=Token{{{phone.system.hash_of(('tok', focus.record_hash))} {focus.activity_record()}}}}}"]
    if phone.keyboard_visible:
        tail.append(f"  mInputMethodWindow=Window{{{phone.system.hash_of(('w', 'InputMethod', 'INPUT_METHOD'))} u0 "
                    "InputMethod}")
        tail.append(f"  mInputMethodTarget={focus.window()}")
    tail.append("  mInTouchMode=true")
    return out + lines(tail)


# ---------------------------------------------------------------------------- dumpsys display


def dump_display(phone: VirtualPhone) -> str:
    sdk = phone.profile.sdk
    width, height = phone.display_size()
    rotation = phone.rotation
    unique = f"local:{PHYSICAL_DISPLAY_ID}" if sdk >= 29 else "local:0"
    physical_w, physical_h, density = phone.system.physical
    frame = f"logicalFrame=Rect(0, 0 - {width}, {height}), physicalFrame=Rect(0, 0 - {width}, {height}), " \
            f"deviceWidth={width}, deviceHeight={height}"
    if sdk >= 29:
        viewport = (f"  mViewports=[DisplayViewport{{type=INTERNAL, valid=true, isActive=true, displayId=0, "
                    f"uniqueId='{unique}', physicalPort=0, orientation={rotation}, {frame}}}]")
    else:
        viewport = (f"  mDefaultViewport=DisplayViewport{{valid=true, displayId=0, uniqueId='{unique}', "
                    f"orientation={rotation}, {frame}}}")
    state = "ON" if phone.screen_on else "OFF"
    return lines([
        "DISPLAY MANAGER (dumpsys display)",
        "  mOnlyCode=false", "  mSafeMode=false", "  mPendingTraversal=false",
        f"  mGlobalDisplayState={state}", viewport,
        "  mDefaultDisplayDefaultColorMode=0", "  mWifiDisplayScanRequestCount=0",
        f"  mStableDisplaySize=Point({physical_w}, {physical_h})", "",
        "Display Devices: size=1",
        f"  DisplayDeviceInfo{{\"Built-in Screen\": uniqueId=\"{unique}\", {physical_w} x {physical_h}, modeId 1, "
        f"defaultModeId 1, supportedModes [{{id=1, width={physical_w}, height={physical_h}, fps=60.0}}], "
        f"density {density}, {density}.0 x {density}.0 dpi, appVsyncOff 1000000, presDeadline 16666666, "
        f"touch INTERNAL, rotation 0, type INTERNAL, state {state}, FLAG_ALLOWED_TO_BE_DEFAULT_DISPLAY, "
        "FLAG_ROTATES_WITH_CONTENT, FLAG_SECURE, FLAG_SUPPORTS_PROTECTED_BUFFERS}", "",
        "Logical Displays: size=1",
        "  Display 0:", "    mDisplayId=0", "    mLayerStack=0", "    mHasContent=true",
        f"    mBaseDisplayInfo=DisplayInfo{{\"Built-in Screen\", displayId 0, real {physical_w} x {physical_h}, "
        f"largest app {physical_w} x {physical_h}, smallest app {physical_w} x {physical_h}, rotation 0, "
        f"density {density} ({density}.0 x {density}.0) dpi, layerStack 0, type INTERNAL, state {state}}}",
        f"    mOverrideDisplayInfo=DisplayInfo{{\"Built-in Screen\", displayId 0, real {width} x {height}, "
        f"largest app {max(width, height)} x {max(width, height)}, smallest app {min(width, height)} x "
        f"{min(width, height)}, rotation {rotation}, density {phone.density} ({density}.0 x {density}.0) dpi, "
        f"layerStack 0, type INTERNAL, state {state}}}",
    ])


# ---------------------------------------------------------------------------- dumpsys activity


def dump_activity(phone: VirtualPhone, args: list[str]) -> str:
    focus = Focus(phone)
    section = args[0] if args else None
    if section in ("activities", "a"):
        return _activities(phone, focus)
    if section == "top":
        return _top(phone, focus)
    if section in ("processes", "p"):
        return _processes(phone)
    if section in ("recents", "r"):
        return recent_tasks(phone)
    if section is None or section.startswith("-"):
        return _activities(phone, focus) + f"{SEPARATOR}\n" + _processes(phone)
    return f"Bad activity command, or no activities match: {section}\nUse -h for help.\n"


def recent_tasks(phone: VirtualPhone) -> str:
    """`dumpsys activity recents` (Android 11-14's shape): the recent tasks, newest first, then the home task.
    Each block names its task as `#ID` and `taskId=ID` (what tools such as AndroidWorld's close_recents read)."""
    system = phone.system
    with phone.lock:
        running = [package for package in phone.recents if package != LAUNCHER and phone.apps[package].stack]
        front, _ = phone.foreground()
        out = ["ACTIVITY MANAGER RECENT TASKS (dumpsys activity recents)",
               f"  mRecentsUid={system.uid_of(LAUNCHER)}",
               f"  mRecentsComponent=ComponentInfo{{{LAUNCHER}/com.android.quickstep.RecentsActivity}}",
               "  mFreezeTaskListReordering=false", "  mFreezeTaskListReorderingPendingTimeout=false",
               "  Recent tasks:"]
        for number, package in enumerate([*running, LAUNCHER]):
            app = phone.apps[package]
            task, uid = system.task_id(package), system.uid_of(package)
            base = app.stack[0].activity if app.stack else app.main_activity
            kind = ("home", 2) if package == LAUNCHER else ("standard", 1)
            record = system.hash_of(("record", package, task))
            out += [f"  * Recent #{number}: Task{{{system.hash_of(('task', task))} #{task} type={kind[0]} "
                    f"A={uid}:{package} U=0 visible={'true' if package == front else 'false'} mode=fullscreen "
                    "translucent=false sz=1}",
                    f"    userId=0 effectiveUid=u0a{uid % 10000} mCallingUid=2000 mUserSetupComplete=true "
                    "mCallingPackage=com.android.shell mCallingFeatureId=null",
                    f"    affinity={uid}:{package}",
                    f"    intent={{act=android.intent.action.MAIN cat=[android.intent.category."
                    f"{'HOME' if package == LAUNCHER else 'LAUNCHER'}] flg=0x10000000 "
                    f"cmp={short_component(package, base)}}}",
                    f"    mActivityComponent={short_component(package, base)}",
                    f"    autoRemoveRecents=false isPersistable=true activityType={kind[1]}",
                    f"    Activities=[ActivityRecord{{{record} u0 {short_component(package, base)} t{task}}}]",
                    "    askedCompatMode=false inRecents=true isAvailable=true",
                    f"    taskId={task} rootTaskId={task}",
                    "    hasChildPipActivity=false", "    mHasBeenVisible=true"]
        return lines(out)


def _activities(phone: VirtualPhone, focus: Focus) -> str:
    sdk = phone.profile.sdk
    record = focus.activity_record()
    uid_name = f"{focus.uid}:{focus.package}"
    out = ["ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)",
           "Display #0 (activities from top to bottom):"]
    if sdk >= 31:
        out += [f"  * Task{{{phone.system.hash_of(('task', focus.task))} #{focus.task} type="
                f"{'home' if focus.package == LAUNCHER else 'standard'} A={uid_name} U=0 visible=true "
                f"visibleRequested=true mode=fullscreen translucent=false sz=1}}",
                f"    * Hist  #0: {record}",
                f"      packageName={focus.package} processName={focus.package}", ""]
        if sdk >= 33:
            out += ["  Resumed activities in task display areas (from top to bottom):", f"    Resumed: {record}", "",
                    f"  ResumedActivity: {record}", "", "ActivityTaskSupervisor state:",
                    f"  topResumedActivity={record}"]
        else:
            out += [f"    mResumedActivity: {record}", "", f"  ResumedActivity: {record}"]
    else:
        out += [f"  Stack #{focus.task}: type={'home' if focus.package == LAUNCHER else 'standard'} mode=fullscreen",
                "  isSleeping=false",
                f"    * TaskRecord{{{phone.system.hash_of(('task', focus.task))} #{focus.task} A={focus.package} U=0 "
                f"StackId={focus.task} sz=1}}",
                f"      * Hist #0: {record}",
                f"          packageName={focus.package} processName={focus.package}",
                "    Running activities (most recent first):",
                f"        Run #0: {record}",
                f"    mResumedActivity: {record}", "",
                f" ResumedActivity: {record}"]
    return lines(out)


def _top(phone: VirtualPhone, focus: Focus) -> str:
    task = f"TASK 10000:{focus.package}" if phone.profile.sdk >= 31 else f"TASK {focus.package}"
    return lines([f"{task} id={focus.task} userId=0",
                  f"  ACTIVITY {short_component(focus.package, focus.activity)} {focus.record_hash} pid={focus.pid}",
                  f"    Local Activity {phone.system.hash_of(('local', focus.record_hash))} State:",
                  "      mResumed=true mStopped=false mFinished=false",
                  "      mIsChangingConfigurations=false"])


def _processes(phone: VirtualPhone) -> str:
    system = phone.system
    out = ["ACTIVITY MANAGER RUNNING PROCESSES (dumpsys activity processes)", "  All known processes:"]
    for pid, package in system.running_apps():
        uid = system.uid_of(package)
        out += [f"  *APP* UID {uid} ProcessRecord{{{system.hash_of(('proc', pid))} {pid}:{package}/{uid_name(uid)}}}",
                f"    user #0 uid={uid} gids={{50{uid % 1000:03d}, 20{uid % 1000:03d}, 9997}}"]
    return lines(out)
