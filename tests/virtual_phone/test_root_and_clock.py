"""`adb root` on the virtual phone's userdebug build, and what it allows: the shell runs as root, `date` sets the
clock, `service call alarm 3 s16 ZONE` sets the time zone (what AndroidWorld's set-up does on its emulator).
Checked with Debian's adb and adbutils, clients nobody here wrote."""

from __future__ import annotations

import shutil

import adbutils
import pytest

from app.virtual_phone.system_programs.properties import properties
from tests.virtual_phone.test_shell_clients import adb


def device(server) -> adbutils.AdbDevice:
    return adbutils.AdbClient("127.0.0.1", server.port).device(server.devices[0].serial)


@pytest.mark.skipif(shutil.which("adb") is None, reason="Debian's adb client is not installed (apt-get install adb)")
def test_adb_root_and_unroot_as_on_a_userdebug_emulator(virtual_adb):
    assert adb(virtual_adb, "shell", "whoami").stdout == b"shell\n"
    rooted = adb(virtual_adb, "root")
    assert (rooted.returncode, rooted.stdout) == (0, b"restarting adbd as root\n")
    assert adb(virtual_adb, "root").stdout == b"adbd is already running as root\n"
    assert adb(virtual_adb, "shell", "whoami; id -u").stdout == b"root\n0\n"
    assert adb(virtual_adb, "unroot").stdout == b"restarting adbd as non root\n"
    assert adb(virtual_adb, "shell", "whoami; id -u").stdout == b"shell\n2000\n"
    assert adb(virtual_adb, "unroot").stdout == b"adbd not running as root\n"


def test_a_production_build_refuses_root(virtual_adb):
    phone = virtual_adb.devices[0].phone
    phone.system.properties["ro.debuggable"] = "0"
    assert properties(phone)["ro.debuggable"] == "0"
    assert device(virtual_adb).root() == "adbd cannot run as root in production builds\n"
    assert device(virtual_adb).shell("whoami") == "shell"


def test_only_root_sets_the_clock_which_then_runs_on(virtual_adb):
    phone = virtual_adb.devices[0].phone
    shell = device(virtual_adb).shell2
    refused = shell("date 101515342023.00")
    assert refused.returncode == 1 and "Operation not permitted" in refused.output
    assert phone.now().year != 2023
    device(virtual_adb).root()
    set_to = shell("date 101515342023.00")
    assert set_to.returncode == 0 and set_to.output.startswith("Sun Oct 15 15:34:0")
    assert phone.now().strftime("%Y-%m-%d %H:%M") == "2023-10-15 15:34"
    assert shell("date +%Y").output.strip() == "2023"
    assert shell("date 13455555").returncode == 1                 # month 13: a bad date, the clock unchanged
    assert phone.now().year == 2023


def test_service_call_alarm_sets_the_time_zone_and_other_calls_say_they_are_not_simulated(virtual_adb):
    shell = device(virtual_adb).shell2
    assert shell("service call alarm 3 s16 America/New_York").output == "Result: Parcel(00000000    '....')\n"
    assert shell("getprop persist.sys.timezone").output == "America/New_York\n"
    refused = shell("service call alarm 3 s16 'not a zone'")
    assert refused.returncode == 0 and "fffffffd" in refused.output             # an exception parcel
    assert shell("getprop persist.sys.timezone").output == "America/New_York\n"
    other = shell("service call alarm 7 i32 1")
    assert other.returncode == 1 and "does not simulate" in other.output
    assert shell("service call nosuch 1").returncode == 255
    assert "alarm: [android.app.IAlarmManager]" in shell("service list").output
    assert shell("service check alarm").output == "Service alarm: found\n"


def test_am_stack_list_names_the_app_in_front(virtual_adb):
    shell = device(virtual_adb).shell
    assert "com.android.launcher3/" in shell("am stack list | grep visible=true")
    shell("monkey -p com.android.settings -c android.intent.category.LAUNCHER 1")
    visible = shell("am stack list | grep visible=true")
    assert "taskId=" in visible and "topActivity=ComponentInfo{com.android.settings/com.android.settings.Settings}" \
        in visible
    assert shell("am stack list | grep -c visible=true") == "1"
