"""Where each realistic cost comes from: public measurements of real phones, one row per cost.

`latency.REALISTIC_COSTS` (and the animation and idle figures beside it) set each cost so the middle
of its range is the middle of what these sources measured; where a source gives one figure, the
range is a modest band around it, and the row says so. `agentdesk bench phone` prints each service's
realistic figure beside its row here, and docs/virtual-phone.md cites the same sources.
"""

from __future__ import annotations

from dataclasses import dataclass

from .latency import (
    AM_START,
    DUMP,
    DUMPSYS,
    INPUT,
    JAVA_TOOL,
    MONKEY,
    PM,
    SCREENCAP_PNG,
    SCREENCAP_RAW,
    SERVER_DUMP,
    SERVICE_OPEN,
    TOYBOX,
)

# Costs that are not a service's time but shape what a capture sees and when a dump answers.
TRANSITION, IDLE_WAIT, VIDEO_STREAM = "screen transition", "uiautomator's idle wait", "scrcpy video stream"
FIRST_NEW_FRAME = "first new frame after input"
STILL_PICTURE_REPEAT = "a still picture sent again on the stream"


@dataclass(frozen=True)
class Measurement:
    source: str          # short name, as the bench's footnotes print it
    url: str
    measured: str        # what was measured, on what, and the figure


@dataclass(frozen=True)
class CostSource:
    kind: str
    published: tuple[float, float] | None   # seconds, what the measurements span (None: no figure found)
    how_set: str                            # how the realistic range follows the measurements
    measurements: tuple[Measurement, ...]
    own_work: float = 0.0                   # seconds the virtual phone's real work adds (a capture's
                                            # grab and encoding, as `quick` shows): left out of the charge


AOSP = "https://android.googlesource.com/platform/frameworks/base/+/refs/heads/main/"
_DUMP_COMMAND = Measurement(
    "AOSP DumpCommand", AOSP + "cmds/uiautomator/cmds/uiautomator/src/com/android/commands/uiautomator/"
    "DumpCommand.java",
    "`uiautomator dump` calls UiAutomation.waitForIdle(1000, 10000) and prints \"ERROR: could not get idle "
    "state.\" on its TimeoutException")
_WAIT_FOR_IDLE = Measurement(
    "AOSP UiAutomation", AOSP + "core/java/android/app/UiAutomation.java",
    "waitForIdle counts the quiet time from its own start when no event has arrived since connecting, so a "
    "fresh `uiautomator dump` always waits at least 1 s")
_CMD_WRAPPERS = Measurement(
    "AOSP am.sh/pm.sh", AOSP + "cmds/am/am.sh",
    "on current Android `am`, `pm`, `input`, `settings` and `wm` are shell wrappers around `cmd` (a binder "
    "call into system_server), no longer an app_process start")
_TAP_MOBILECLI = Measurement(
    "mobilecli #412", "https://github.com/mobile-next/mobilecli/pull/412",
    "`adb shell input` tap on real hardware: 226 ms (5.6 ms through a server kept on the phone)")
_TAP_MADB = Measurement(
    "madb #56", "https://github.com/quamotion/madb/issues/56",
    "`input tap 100 500` over ADB: 300–400 ms (2016, phone not named)")
_OLD_ERA_TOOLS = Measurement(
    "appium-adb #355", "https://github.com/appium/appium-adb/pull/355",
    "log, real phone on Android 7 (when these tools started app_process): `pm list packages X` 1,209 ms, "
    "`am force-stop` 1,146 ms, `dumpsys package X` 80 ms; the older era, kept out of the ranges above")
_APP_START = (
    Measurement("am start -W (Alibaba Cloud)",
                "https://topic.alibabacloud.com/a/how-do-i-calculate-the-app-startup-time-in-android_1_12_"
                "30725766.html",
                "`am start -W` of an app already started: TotalTime 355 ms, WaitTime 365 ms"),
    Measurement("am start -W (Jianshu)", "https://www.jianshu.com/p/374d269cdcfb",
                "`am start -W` cold start of a demo app: TotalTime 2,144 ms, WaitTime 2,262 ms"),
)

COST_SOURCES: dict[str, CostSource] = {s.kind: s for s in (
    CostSource(DUMP, (2.0, 3.0), "the middle of the cited measurements; includes the 1 s quiet wait every "
               "dump pays (AOSP UiAutomation)", (
                   Measurement("catapult #2196", "https://github.com/catapult-project/catapult/issues/2196",
                               "Chrome's telemetry: `uiautomator dump` has \"huge overhead (~2s)\""),
                   Measurement("andykong.org", "https://andykong.org/blog/fast_mobile_e2e/",
                               "default snapshot tools on dense screens: 2–3 s on Android (2026)"),
                   _DUMP_COMMAND, _WAIT_FOR_IDLE)),
    CostSource(SERVER_DUMP, (0.05, 0.15), "one figure for a simple screen (under 100 ms): a modest band "
               "around it; deep trees are slower and this range does not model them", (
                   Measurement("hmdriver2 #10", "https://github.com/codematrixer/hmdriver2/issues/10",
                               "uiautomator2's dump_hierarchy on Android: \"within 100 ms\" (user's figure)"),
                   Measurement("uiautomator2 #10", "https://github.com/openatx/uiautomator2/issues/10",
                               "debug log: one JSON-RPC call (deviceInfo) to the server 43 ms"),
                   Measurement("mobilecli #286", "https://github.com/mobile-next/mobilecli/pull/286",
                               "another server kept on the phone, production app screens of 57–137 nodes "
                               "(57–189 KB of JSON): 0.82–1.0 s per full tree"),
                   Measurement("CulebraTester2 #17", "https://github.com/dtmilano/CulebraTester2-public/issues/17",
                               "a server's dumpWindowHierarchy: \"very fast\", but 1–4 s right after an "
                               "activity starts (the idle wait)"),
                   Measurement("appium-uiautomator2-server #712",
                               "https://github.com/appium/appium-uiautomator2-server/issues/712",
                               "Appium's UiAutomator2 server, a payment app's screen: one page source 11.4 s "
                               "(log, 2025): the slow end"),
                   Measurement("uiautomator2 #1122", "https://github.com/openatx/uiautomator2/issues/1122",
                               "a dump takes 80–100× the time of a screenshot from the same server "
                               "(figures only in screenshots)"))),
    CostSource(SCREENCAP_PNG, (0.66, 3.0), "the middle of the cited medians (about 2.1 s), less the phone's "
               "own encoding", own_work=0.1, measurements=(
        Measurement("handsets blog", "https://elliotgao2.github.io/handsets/blog/why-adb-screencap-is-slow/",
                    "Android 15 emulator, 1440×3120, 20 calls: `exec-out screencap -p` median 2,122 ms "
                    "(p10 661, p90 3,007)"),
        Measurement("awesome-adb #54", "https://github.com/mzlogin/awesome-adb/issues/54",
                    "a screenshot over adb: \"2 s and more\" (maintainer), 4 s (user), 2018"))),
    CostSource(SCREENCAP_RAW, (0.64, 0.71), "one source, steady (median 675 ms, p10–p90 664–683): 5% either "
               "side of its median, less the phone's own capture", own_work=0.05, measurements=(
        Measurement("handsets blog", "https://elliotgao2.github.io/handsets/blog/why-adb-screencap-is-slow/",
                    "Android 15 emulator, 1440×3120, 20 calls: raw `exec-out screencap` median 675 ms "
                    "(p10 664, p90 683), 17.5 MB"),)),
    CostSource(INPUT, (0.226, 0.4), "the middle of the cited measurements", (
        _TAP_MOBILECLI, _TAP_MADB, _CMD_WRAPPERS,
        Measurement("prog.world", "https://prog.world/tap-swipe-and-two-smoking-events/",
                    "Galaxy Note 4 (2014): `adb shell input tap` 1,160 ms; an older phone, kept out of the range"))),
    CostSource(AM_START, (0.365, 2.262), "the middle of a warm and a cold start: the virtual phone shows the "
               "started app when `am start` returns, so the command carries the app's start", _APP_START),
    CostSource(MONKEY, (0.365, 2.262), "as `am start`: monkey starts the app the same way", (
        *_APP_START,
        Measurement("flashlight #29", "https://github.com/bamlab/flashlight/pull/29",
                    "starting an app with `monkey -p … 1` instead of `am start`: \"it doesn't seem slower\""))),
    CostSource(PM, (0.226, 0.4), "as `input`: the same `cmd` wrapper over adb shell", (
        _CMD_WRAPPERS, _TAP_MOBILECLI, _TAP_MADB, _OLD_ERA_TOOLS)),
    CostSource(JAVA_TOOL, (0.226, 0.4), "as `input`: the same `cmd` wrapper over adb shell", (
        _CMD_WRAPPERS, _TAP_MOBILECLI, _TAP_MADB, _OLD_ERA_TOOLS)),
    CostSource(DUMPSYS, (0.05, 0.15), "one figure (80 ms): a modest band around it", (
        Measurement("appium-adb #355", "https://github.com/appium/appium-adb/pull/355",
                    "real phone, Android 7: `adb shell dumpsys package X` 80 ms"),
        Measurement("pure-python-adb #24", "https://github.com/Swind/pure-python-adb/issues/24",
                    "`dumpsys meminfo` (every process) over 500 ms: a heavy dumpsys, not modelled"))),
    CostSource(TOYBOX, None, "no public measurement found: a few ms for the shell round trip, kept", ()),
    CostSource(SERVICE_OPEN, None, "no public measurement found: a few ms to open an ADB service, kept", ()),
    CostSource(TRANSITION, (0.2, 0.5), "Android's short to long animation times; the middle (350 ms) is the "
               "AOSP activity open animation of the older releases", (
                   Measurement("AOSP config.xml", AOSP + "core/res/res/values/config.xml",
                               "config_shortAnimTime 200 ms, config_mediumAnimTime 400 ms, config_longAnimTime "
                               "500 ms, config_activityDefaultDur 220 ms"),
                   Measurement("AOSP activity_open_enter", AOSP + "core/res/res/anim/activity_open_enter.xml",
                               "activity open: fade 200 ms and slide 350 ms (older releases)"))),
    CostSource(FIRST_NEW_FRAME, (2 / 60, 2 / 60), "AOSP's own figure: the old picture shows for two frames at "
               "60 Hz, then the transition", (
                   Measurement("AOSP implement-vsync", "https://source.android.com/docs/core/graphics/implement-vsync",
                               "on a VSYNC the display shows frame N, SurfaceFlinger composes N+1 and the app handles "
                               "pending input and draws N+2: input to display is at least two frames"),)),
    CostSource(IDLE_WAIT, (1.0, 10.0), "AOSP's own figures: 1 s without accessibility events, 10 s at most",
               (_DUMP_COMMAND, _WAIT_FOR_IDLE)),
    CostSource(STILL_PICTURE_REPEAT, (0.1, 0.1), "the sources' own figures: a still picture is encoded again "
               "after 100 ms, ten times at most, each sharper; then the stream is silent", (
                   Measurement("scrcpy SurfaceEncoder", "https://github.com/Genymobile/scrcpy/blob/master/server/src/"
                               "main/java/com/genymobile/scrcpy/video/SurfaceEncoder.java",
                               "REPEAT_FRAME_DELAY_US = 100_000, given to MediaCodec as "
                               "KEY_REPEAT_PREVIOUS_FRAME_AFTER"),
                   Measurement("AOSP GraphicBufferSource", "https://android.googlesource.com/platform/frameworks/av/+/"
                               "refs/heads/main/media/module/bqhelper/GraphicBufferSource.cpp",
                               "kRepeatLastFrameCount = 10: \"a single repeat might not get rid of encoder ghosting "
                               "completely, refresh a couple more times\""))),
    CostSource(VIDEO_STREAM, (0.035, 0.07), "not charged: the virtual phone's stream costs what its encoder "
               "takes on this machine", (
                   Measurement("scrcpy README", "https://github.com/Genymobile/scrcpy",
                               "\"low latency: 35~70ms\", \"~1 second to display the first image\""),)),
)}


def source_names(kind: str) -> str:
    """The short names of a cost's sources, for a table cell."""
    source = COST_SOURCES.get(kind)
    return ", ".join(dict.fromkeys(m.source for m in source.measurements)) if source else "-"
