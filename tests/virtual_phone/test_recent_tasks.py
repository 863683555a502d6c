"""`dumpsys activity recents` and `am stack remove ID` as on Android 11-14: the recent tasks, newest first, each
with its task id; removing one finishes it and takes it out of Recents. AndroidWorld's tear-down closes every
recent app this way. Checked with Debian's adb and adbutils, clients nobody here wrote."""

from __future__ import annotations

import re
import shutil

import adbutils
import pytest

from tests.virtual_phone.test_shell_clients import adb

SETTINGS, CLOCK, LAUNCHER = "com.android.settings", "com.android.deskclock", "com.android.launcher3"
RECENT = re.compile(r"^  \* Recent #(\d+): Task\{[0-9a-f]+ #(\d+) type=(\w+) A=\d+:([\w.]+) ", re.M)


def device(server) -> adbutils.AdbDevice:
    return adbutils.AdbClient("127.0.0.1", server.port).device(server.devices[0].serial)


def recents(phone_device: adbutils.AdbDevice) -> list[tuple[str, str, str]]:
    """(task id, type, package) of each recent task, in the dump's order."""
    return [(task, kind, package) for _n, task, kind, package in RECENT.findall(
        phone_device.shell("dumpsys activity recents"))]


def test_recent_tasks_newest_first_with_their_ids_then_home(virtual_adb):
    phone_device = device(virtual_adb)
    phone_device.app_start(SETTINGS)
    phone_device.app_start(CLOCK)
    listed = recents(phone_device)
    assert [(kind, package) for _task, kind, package in listed] == [
        ("standard", CLOCK), ("standard", SETTINGS), ("home", LAUNCHER)]
    dump = phone_device.shell("dumpsys activity recents")
    for task, _kind, _package in listed:        # the block of each task names its id again, as taskId=
        assert f"#{task} type=" in dump and f"taskId={task} rootTaskId={task}" in dump
    stacked = re.findall(r"taskId=(\d+): ([\w.]+)/", phone_device.shell("am stack list"))
    assert {(task, package) for task, package in stacked} == {(task, package) for task, _, package in listed}


def test_removing_a_task_finishes_it_and_takes_it_out_of_recents(virtual_adb):
    phone_device = device(virtual_adb)
    phone = virtual_adb.devices[0].phone
    phone_device.app_start(SETTINGS)
    phone_device.app_start(CLOCK)
    clock_task = recents(phone_device)[0][0]
    assert phone_device.shell2(f"am stack remove {clock_task}").returncode == 0
    assert [package for _, _, package in recents(phone_device)] == [SETTINGS, LAUNCHER]
    assert phone.foreground()[0] == LAUNCHER and not phone.apps[CLOCK].stack
    # an id no task has is ignored, as ActivityTaskManager ignores it (AndroidWorld also tries the uid it reads)
    assert phone_device.shell2("am stack remove 99999").returncode == 0
    assert [package for _, _, package in recents(phone_device)] == [SETTINGS, LAUNCHER]
    assert phone.apps[SETTINGS].stack, "the other task stays"


@pytest.mark.skipif(shutil.which("adb") is None, reason="Debian's adb client is not installed (apt-get install adb)")
def test_androidworlds_close_recents_with_debians_adb_removes_what_it_would_on_the_emulator(virtual_adb):
    """AndroidWorld's tear-down removes every `id=(digits)` of the dump. On Android 11-14 the task ids are printed
    as `#ID` and `taskId=ID` (capital I), so that pattern finds only uids (mRecentsUid, mCallingUid): each removal
    names no task, succeeds, and closes nothing - on the emulator as here."""
    adb(virtual_adb, "shell", "am", "start", "-n", f"{SETTINGS}/.Settings")
    adb(virtual_adb, "shell", "monkey", "-p", CLOCK, "-c", "android.intent.category.LAUNCHER", "1")
    dump = adb(virtual_adb, "shell", "dumpsys", "activity", "recents").stdout.decode()
    read = set(re.findall(r"id=(\d+)", dump))
    uids = set(re.findall(r"(?:mRecentsUid|mCallingUid)=(\d+)", dump))
    assert read and read == uids
    for number in read:
        assert adb(virtual_adb, "shell", "am", "stack", "remove", number).returncode == 0
    after = adb(virtual_adb, "shell", "dumpsys", "activity", "recents").stdout.decode()
    assert [package for _, _, _, package in RECENT.findall(after)] == [CLOCK, SETTINGS, LAUNCHER]
