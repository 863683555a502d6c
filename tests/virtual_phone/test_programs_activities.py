"""`am`, `monkey` and `logcat` on the virtual phone: starting activities by component, action and
data, the -W report, -S, force-stop, and the ActivityManager lines the log keeps of it all."""

from __future__ import annotations

import re

import pytest

from tests.virtual_phone.program_runner import attached, sh


@pytest.fixture
def device():
    return attached()


def test_am_start_by_component_reports_and_switches_app(device):
    result = sh(device, "am start -n com.android.settings/.Settings")
    assert (result.stdout, result.stderr, result.code) == (b"Starting: Intent { cmp=com.android.settings/.Settings }\n",
                                                           b"", 0)
    assert device.phone.foreground() == ("com.android.settings", "com.android.settings.Settings")
    again = sh(device, "am start -n com.android.settings/.Settings")
    assert again.stderr == (b"Warning: Activity not started, intent has been delivered to currently running "
                            b"top-most instance.\n")


def test_am_start_of_a_missing_activity_prints_error_type_3_and_exits_0(device):
    result = sh(device, "am start -n com.android.settings/.Nope")
    assert result.code == 0
    assert result.stderr == (b"Error type 3\nError: Activity class {com.android.settings/com.android.settings.Nope} "
                             b"does not exist.\n")
    assert device.phone.foreground()[0] == "com.android.launcher3"


@pytest.mark.parametrize("profile, fields", [
    ("android14", ["Status", "LaunchState", "Activity", "TotalTime", "WaitTime"]),
    ("android9", ["Status", "Activity", "ThisTime", "TotalTime", "WaitTime"]),
])
def test_am_start_w_waits_and_reports_the_launch(profile, fields):
    device = attached(profile)
    result = sh(device, "am start -W -a android.intent.action.MAIN -c android.intent.category.LAUNCHER "
                        "-n com.agentdesk.notes/.NotesListActivity")
    text = result.stdout.decode().splitlines()
    assert text[0] == ("Starting: Intent { act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] "
                       "cmp=com.agentdesk.notes/.NotesListActivity }")
    report = dict(line.split(": ", 1) for line in text[1:-1])
    assert list(report) == fields and text[-1] == "Complete"
    assert report["Status"] == "ok" and report["Activity"] == "com.agentdesk.notes/.NotesListActivity"
    assert report.get("LaunchState", "COLD") == "COLD"
    assert int(report["WaitTime"]) >= int(report["TotalTime"]) > 0


def test_am_start_s_stops_the_app_first_and_the_start_is_cold(device):
    sh(device, "am start -n com.agentdesk.calculator/.MainActivity")
    sh(device, "input keyevent KEYCODE_HOME")
    result = sh(device, "am start -S -W -n com.agentdesk.calculator/.MainActivity").stdout.decode()
    assert result.startswith("Stopping: com.agentdesk.calculator\nStarting: Intent")
    assert "LaunchState: COLD" in result


def test_am_start_by_action_opens_the_activity_that_declares_it(device):
    result = sh(device, "am start -a android.settings.WIFI_SETTINGS")
    assert result.stdout == b"Starting: Intent { act=android.settings.WIFI_SETTINGS }\n"
    assert device.phone.foreground() == ("com.android.settings", "com.android.settings.Settings$WifiSettingsActivity")


def test_a_web_link_has_no_browser_to_open_it(device):
    result = sh(device, "am start -a android.intent.action.VIEW -d 'https://example.com/shop?item=7'")
    assert result.stdout == b"Starting: Intent { act=android.intent.action.VIEW dat=https://example.com/... }\n"
    assert result.stderr == (b"Error: Activity not started, unable to resolve Intent { act=android.intent.action.VIEW "
                             b"dat=https://example.com/... flg=0x10000000 }\n")
    phone_link = sh(device, "am start -a android.intent.action.VIEW -d tel:5551234")
    assert b"dat=tel:xxxxxxx" in phone_link.stdout
    assert device.phone.foreground()[0] == "com.android.dialer"


@pytest.mark.parametrize("line, message", [
    ("am start -n", 'java.lang.IllegalArgumentException: Argument expected after "-n"'),
    ("am start --bogus 1", "java.lang.IllegalArgumentException: Unknown option: --bogus"),
    ("am start -n nocomponent", "java.lang.IllegalArgumentException: Bad component name: nocomponent"),
    ("am start --ei count many -n com.android.settings/.Settings",
     'java.lang.NumberFormatException: For input string: "many"'),
])
def test_bad_am_arguments_end_in_the_exception_the_phone_prints(device, line, message):
    result = sh(device, line)
    assert result.code == 255
    assert result.stderr.decode().startswith(f"\nException occurred while executing 'start':\n{message}\n\tat ")


def test_force_stop_ends_the_task_and_unknown_commands_are_named(device):
    sh(device, "am start -n com.android.settings/.Settings")
    assert sh(device, "am force-stop com.android.settings").code == 0
    assert device.phone.foreground()[0] == "com.android.launcher3"
    assert not device.phone.apps["com.android.settings"].stack
    assert (sh(device, "am frobnicate").stdout, sh(device, "am frobnicate").code) == (
        b"Unknown command: frobnicate\n", 255)
    assert sh(device, "am get-current-user").stdout == b"0\n"


def test_monkey_prints_its_arguments_and_events(device):
    result = sh(device, "monkey -p com.agentdesk.notes -c android.intent.category.LAUNCHER 1")
    assert result.code == 0
    assert result.stdout.decode().splitlines() == [
        "  bash arg: -p", "  bash arg: com.agentdesk.notes", "  bash arg: -c",
        "  bash arg: android.intent.category.LAUNCHER", "  bash arg: 1", "Events injected: 1",
        result.stdout.decode().splitlines()[-1]]
    assert re.fullmatch(r"## Network stats: elapsed time=\d+ms \(0ms mobile, 0ms wifi, \d+ms not connected\)",
                        result.stdout.decode().splitlines()[-1])
    assert result.stderr.decode().startswith(
        "args: [-p, com.agentdesk.notes, -c, android.intent.category.LAUNCHER, 1]\n")
    assert device.phone.foreground()[0] == "com.agentdesk.notes"


def test_monkey_without_a_launchable_app_or_count_aborts(device):
    missing = sh(device, "monkey -p com.nope 1")
    assert missing.code == 252 and missing.stderr.endswith(b"** No activities found to run, monkey aborted.\n")
    no_count = sh(device, "monkey -p com.agentdesk.notes")
    assert no_count.code == 255 and b"** Error: Count not specified\n" in no_count.stderr


def test_logcat_keeps_the_start_lines_and_clears(device):
    sh(device, "am start -n com.agentdesk.notes/.NotesListActivity")
    log = sh(device, "logcat -d").stdout.decode()
    assert re.search(r"^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} +\d+ +\d+ I ActivityTaskManager: START u0 "
                     r"\{flg=0x10000000 cmp=com\.agentdesk\.notes/\.NotesListActivity\} .*from uid 2000", log, re.M)
    assert re.search(r"ActivityManager: Start proc \d+:com\.agentdesk\.notes/u0a\d+ for top-activity", log)
    only_starts = sh(device, "logcat -d -s ActivityTaskManager:I").stdout.decode().splitlines()
    assert only_starts and all(line.startswith("---------") or " ActivityTaskManager: " in line for line in only_starts)
    brief = sh(device, "logcat -d -v brief -t 1").stdout.decode().splitlines()
    assert re.fullmatch(r"I/ActivityTaskManager\( *\d+\): Displayed com\.agentdesk\.notes/\.NotesListActivity "
                        r"for user 0: \+\d+ms", brief[-1])
    assert sh(device, "logcat -c").code == 0
    assert sh(device, "logcat -d").stdout == b""


def test_logcat_tag_names_the_android_9_activity_manager():
    device = attached("android9")
    sh(device, "monkey -p com.android.settings 1")
    log = sh(device, "logcat -d ActivityManager:I *:S").stdout.decode()
    assert re.search(r" I ActivityManager: START u0 \{act=android\.intent\.action\.MAIN "
                     r"cat=\[android\.intent\.category\.LAUNCHER\] flg=0x10200000 "
                     r"cmp=com\.android\.settings/\.Settings\} "
                     r"from uid 2000$", log, re.M)
    assert "ActivityTaskManager" not in log
