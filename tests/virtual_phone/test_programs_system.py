"""The phone's system tools: wm, settings, getprop/setprop, ime, cmd/svc, dumpsys, input and
uiautomator, with the outputs, errors and exit codes of the Android version the phone claims."""

from __future__ import annotations

import re

import pytest

from tests.virtual_phone.conftest import node_center
from tests.virtual_phone.program_runner import attached, sh


@pytest.fixture
def device():
    return attached()


# ---------------------------------------------------------------------------- wm


def test_wm_size_and_density_overrides_change_the_screen_and_reset(device):
    assert sh(device, "wm size").stdout == b"Physical size: 1080x2400\n"
    assert sh(device, "wm size 720x1280").code == 0
    assert sh(device, "wm size").stdout == b"Physical size: 1080x2400\nOverride size: 720x1280\n"
    assert device.phone.screenshot().size == (720, 1280)
    assert sh(device, "wm density 320").code == 0
    assert sh(device, "wm density").stdout == b"Physical density: 420\nOverride density: 320\n"
    assert b"init=1080x2400 420dpi base=720x1280 320dpi cur=720x1280" in sh(device, "dumpsys window displays").stdout
    sh(device, "wm size reset; wm density reset")
    assert sh(device, "wm size").stdout == b"Physical size: 1080x2400\n"
    assert device.phone.screenshot().size == (1080, 2400)


@pytest.mark.parametrize("line, error", [
    ("wm size 720", "Error: bad size 720"),
    ("wm size axb", 'Error: bad number java.lang.NumberFormatException: For input string: "a"'),
    ("wm density 40", "Error: density must be >= 72"),
])
def test_wm_refuses_bad_values_as_the_phone_does(device, line, error):
    result = sh(device, line)
    assert (result.stderr.decode(), result.code) == (error + "\n", 255)
    assert sh(device, "wm size").stdout == b"Physical size: 1080x2400\n"


def test_wm_clamps_forced_sizes(device):
    sh(device, "wm size 50x99999")
    assert sh(device, "wm size").stdout == b"Physical size: 1080x2400\nOverride size: 200x4800\n"


# ---------------------------------------------------------------------------- settings and properties


def test_settings_verbs_and_their_errors(device):
    assert sh(device, "settings put --user 0 system screen_brightness 200").code == 0
    assert sh(device, "settings --user current get system screen_brightness").stdout == b"200\n"
    assert sh(device, "settings get global no_such_key").stdout == b"null\n"
    listing = sh(device, "settings list secure").stdout.decode().splitlines()
    assert listing == sorted(listing) and "android_id=a1b2c3d4e5f60718" in listing
    sh(device, "settings put global agent_flag 1")
    assert sh(device, "settings delete global agent_flag").stdout == b"Deleted 1 rows\n"
    assert sh(device, "settings delete global agent_flag").stdout == b"Deleted 0 rows\n"
    for line, error in (("settings get", "Bad arguments"), ("settings fetch global x", "Invalid command: fetch"),
                        ("settings get planet x", "Invalid namespace 'planet'"),
                        ("settings --user 10 get global x", "Invalid user: 10"),
                        ("settings --user 0 list global", "--user not supported for delete and list.")):
        result = sh(device, line)
        assert (result.stderr.decode(), result.code) == (error + "\n", 255), line


@pytest.mark.parametrize("profile, release, sdk", [("android14", "14", "34"), ("android9", "9", "28")])
def test_getprop_lists_what_a_phone_of_that_version_lists(profile, release, sdk):
    device = attached(profile)
    listing = dict(re.findall(r"^\[([^\]]+)\]: \[([^\]]*)\]$", sh(device, "getprop").stdout.decode(), re.M))
    assert listing["ro.build.version.release"] == release and listing["ro.build.version.sdk"] == sdk
    assert f":{release}/" in listing["ro.build.fingerprint"]
    assert listing["ro.serialno"] == device.phone.serial
    assert listing["sys.boot_completed"] == "1" and listing["init.svc.bootanim"] == "stopped"
    assert listing["ro.sf.lcd_density"] == str(device.phone.density)
    assert listing["ro.product.cpu.abi"] in listing["ro.product.cpu.abilist"].split(",")
    assert list(listing) == sorted(listing)
    assert sh(device, "getprop ro.build.version.sdk").stdout == f"{sdk}\n".encode()
    assert sh(device, "getprop no.such.prop fallback").stdout == b"fallback\n"


def test_setprop_sets_all_but_read_only_properties(device):
    assert sh(device, "setprop debug.agent.level 3; getprop debug.agent.level").stdout == b"3\n"
    refused = sh(device, "setprop ro.build.version.sdk 99")
    assert (refused.stderr, refused.code) == (
        b"Failed to set property 'ro.build.version.sdk' to '99'.\nSee dmesg for error reason.\n", 1)


# ---------------------------------------------------------------------------- ime, cmd, svc


def test_ime_lists_enables_disables_and_selects():
    device = attached()
    phone = device.phone
    assert sh(device, "ime list -s").stdout == b"com.android.inputmethod.latin/.LatinIME\n"
    full = sh(device, "ime list").stdout.decode()
    assert full.startswith("com.android.inputmethod.latin/.LatinIME:\n  mId=com.android.inputmethod.latin/.LatinIME ")
    assert sh(device, "ime enable com.android.inputmethod.latin/.LatinIME").stdout == (
        b"Input method com.android.inputmethod.latin/.LatinIME: already enabled for user #0\n")
    unknown = sh(device, "ime enable com.nope/.Ime")
    assert unknown.code == 255
    assert unknown.stderr == b"Unknown input method com.nope/.Ime cannot be enabled for user #0\n"
    unknown_set = sh(device, "ime set com.nope/.Ime")
    assert unknown_set.stderr == b"Unknown input method com.nope/.Ime cannot be selected for user #0\n"
    assert phone.current_ime == "com.android.inputmethod.latin/.LatinIME"


def test_cmd_reaches_the_services_and_names_unknown_ones(device):
    assert sh(device, "cmd package path com.android.settings").stdout.startswith(b"package:/system/")
    assert sh(device, "cmd -w wifi set-wifi-enabled enabled; cmd wifi status").stdout == b"Wifi is enabled\n"
    assert device.phone.state()["wifi"]
    sh(device, "cmd connectivity airplane-mode enable")
    assert device.phone.state()["airplane"] and not device.phone.state()["wifi"]
    missing = sh(device, "cmd frobnicator")
    assert (missing.stderr, missing.code) == (b"cmd: Can't find service: frobnicator\n", 20)
    sh(device, "svc bluetooth enable")
    assert sh(device, "settings get global bluetooth_on").stdout == b"1\n"


# ---------------------------------------------------------------------------- dumpsys


def test_dumpsys_power_battery_and_an_unknown_service(device):
    power = sh(device, "dumpsys power").stdout.decode()
    assert "mWakefulness=Awake" in power and "mHoldingDisplaySuspendBlocker=true" in power
    assert "Display Power: state=ON" in power
    sh(device, "input keyevent KEYCODE_SLEEP")
    asleep = sh(device, "dumpsys power").stdout.decode()
    assert "mWakefulness=Asleep" in asleep and "mHoldingDisplaySuspendBlocker=false" in asleep
    sh(device, "dumpsys battery set level 42; dumpsys battery unplug")
    battery = sh(device, "dumpsys battery").stdout.decode()
    assert "  level: 42\n" in battery and "  USB powered: false\n" in battery and "  status: 3\n" in battery
    unknown = sh(device, "dumpsys frobnicator")
    assert (unknown.stdout, unknown.stderr, unknown.code) == (b"", b"Can't find service: frobnicator\n", 0)
    assert "  window\n" in sh(device, "dumpsys -l").stdout.decode()


def test_dumpsys_names_the_focused_window_where_each_version_prints_it():
    for profile, in_displays in (("android14", True), ("android9", False)):
        device = attached(profile)
        sh(device, "am start -n com.android.settings/.Settings")
        focus = "mCurrentFocus=Window{"
        assert (focus in sh(device, "dumpsys window displays").stdout.decode()) is in_displays, profile
        assert (focus in sh(device, "dumpsys window windows").stdout.decode()) is not in_displays, profile
        whole = sh(device, "dumpsys window").stdout.decode()
        assert re.search(r"mCurrentFocus=Window\{\w+ u0 com\.android\.settings/com\.android\.settings\.Settings\}",
                         whole)
        assert re.search(r"mFocusedApp=.*ActivityRecord\{\w+ u0 com\.android\.settings/\.Settings t\d+\}", whole)
        activities = sh(device, "dumpsys activity activities").stdout.decode()
        resumed = "topResumedActivity=" if profile == "android14" else "mResumedActivity: "
        assert f"{resumed}ActivityRecord{{" in activities and "com.android.settings/.Settings" in activities
        top = sh(device, "dumpsys activity top").stdout.decode()
        assert re.search(r"^  ACTIVITY com\.android\.settings/\.Settings \w+ pid=\d+$", top, re.M)


def test_dumpsys_input_method_follows_the_keyboard(device):
    assert "mInputShown=false" in sh(device, "dumpsys input_method").stdout.decode()
    sh(device, "am start -n com.agentdesk.notes/.NoteEditorActivity")
    shown = sh(device, "dumpsys input_method").stdout.decode()
    assert device.phone.keyboard_visible == ("mInputShown=true" in shown)
    assert "mCurMethodId=com.android.inputmethod.latin/.LatinIME" in shown


# ---------------------------------------------------------------------------- input


def test_input_keyevent_reads_key_names_as_the_phone_does(device):
    sh(device, "am start -n com.android.settings/.Settings")
    sh(device, "input keyevent home")   # lower case is KEYCODE_UNKNOWN: nothing happens
    assert device.phone.foreground()[0] == "com.android.settings"
    sh(device, "input keyevent --longpress KEYCODE_HOME")
    assert device.phone.foreground()[0] == "com.android.launcher3"
    sh(device, "input keyboard keyevent 3 4 HOME")
    assert device.phone.foreground()[0] == "com.android.launcher3"


def test_input_touch_commands_sources_and_displays(device):
    phone = device.phone
    x, y = node_center(phone, desc="Settings")
    sh(device, f"input -d 1 tap {x} {y}")   # no display 1: nothing happens on the screen
    assert phone.foreground()[0] == "com.android.launcher3"
    sh(device, f"input touchscreen -d 0 tap {x}.4 {y}.6")
    assert phone.foreground()[0] == "com.android.settings"
    sh(device, "input keyevent KEYCODE_HOME")
    sh(device, f"input motionevent DOWN {x} {y}; input motionevent MOVE {x} {y}; input motionevent UP {x} {y}")
    assert phone.foreground()[0] == "com.android.settings"
    for line in ("input swipe 540 1800 540 600", "input swipe 540 1800 540 600 250",
                 "input draganddrop 540 1800 540 600 100", "input roll 1 1", "input press",
                 "input keycombination KEYCODE_CTRL_LEFT KEYCODE_A"):
        assert sh(device, line).code == 0, line


@pytest.mark.parametrize("line, message", [
    ("input tap 10", 'java.lang.IllegalArgumentException: Argument expected after "10"'),
    ("input tap ten 10", "java.lang.IllegalArgumentException: Error: Invalid arguments for command: tap"),
    ("input swipe 1 2 3 4 slow", "java.lang.IllegalArgumentException: Error: Invalid arguments for command: swipe"),
    ("input motionevent PRESS 1 2", "java.lang.IllegalArgumentException: Unknown action: PRESS"),
    ("input keycombination KEYCODE_A",
     "java.lang.IllegalArgumentException: keycombination requires at least 2 keycodes"),
    ("input text 'naïve'", "java.lang.NullPointerException: Attempt to get length of null array"),
])
def test_bad_input_ends_in_the_exception_the_phone_prints(device, line, message):
    result = sh(device, line)
    assert result.code == 255
    assert message in result.stderr.decode().splitlines()


def test_android_9_input_has_no_displays_motion_events_or_combinations():
    device = attached("android9")
    for line in ("input -d 0 tap 1 1", "input motionevent DOWN 1 1",
                 "input keycombination KEYCODE_CTRL_LEFT KEYCODE_A"):
        result = sh(device, line)
        assert result.code == 0 and result.stderr.startswith(b"Error: Unknown command: "), line
        assert b"Usage: input [<source>] <command> [<arg>...]" in result.stderr
    bad = sh(device, "input tap 1")
    assert bad.stderr.startswith(b"Error: Invalid arguments for command: tap\nUsage: input")
    assert sh(device, "input").stderr.startswith(b"Usage: input [<source>] <command> [<arg>...]")


def test_input_without_a_command_prints_the_usage(device):
    usage = sh(device, "input")
    assert usage.code == 0 and usage.stdout.startswith(b"Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]")
    assert sh(device, "input fly 1 2").stdout == b"Unknown command: fly\n"


# ---------------------------------------------------------------------------- uiautomator


def test_a_failed_dump_prints_the_error_and_still_exits_0(device):
    device.faults.failing_dumps = 1
    failed = sh(device, "uiautomator dump /sdcard/ui.xml")
    assert (failed.stdout, failed.stderr, failed.code) == (b"", b"ERROR: could not get idle state.\n", 0)
    assert sh(device, "uiautomator dump /sdcard/ui.xml").stdout == b"UI hierchary dumped to: /sdcard/ui.xml\n"
    assert device.storage.read("/sdcard/ui.xml").startswith(b"<?xml")


# ---------------------------------------------------------------------------- bad input


ODD_ARGUMENTS = [[], ["-"], ["--"], [""], ["\x00"], ["é"], ["-d"], ["--user"], ["--user", "all"], ["NaN", "Infinity"],
                 ["999999999999"], ["-1"], ["help"], ["start", "-n"], ["size", "0x0"], ["density", "-5"],
                 ["install", "-S", "12"], ["list", "packages", "--uid", "x"], ["tap", "1e99", "-1e99"],
                 ["keyevent", "--delay", "x", "3"], ["get", "global"], ["put", "system", "k"], ["-p", "x", "99999"],
                 ["window", "zzz"], ["battery", "set", "level", "high"], ["-v", "nope"], ["set", "com.x/.Y"],
                 ["motionevent", "UP", "5", "5"], ["intent:#Intent;bogus;end"], ["dump", "/nonexistent/dir/x.xml"]]


@pytest.mark.parametrize("profile", ["android14", "android9"])
def test_no_program_fails_on_odd_arguments_other_than_as_the_phone_would(profile):
    from app.virtual_phone.programs import PROGRAMS, run_program

    device = attached(profile)
    for name in sorted(set(PROGRAMS) - {"sh"}):
        for extra in ODD_ARGUMENTS:
            with device.phone.lock:
                result = run_program(device, [name, *extra], b"\x00not an apk")
            assert isinstance(result.code, int) and 0 <= result.code <= 255, (name, extra)
