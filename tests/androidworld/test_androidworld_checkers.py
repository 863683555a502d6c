"""AndroidWorld's own tasks, unchanged, on the virtual phone through Agent Desk's adapter
(app/bench/androidworld): their set-up succeeds command by command and does what it says on the phone, and
their checkers say no before the goal is reached and yes after (the goal done here by adb, not by an agent)."""

from __future__ import annotations

import random
import subprocess

import pytest

from app.virtual_phone.adb_server import VirtualAdbServer
from app.virtual_phone.phone import VirtualPhone

PLAYABLE_SYSTEM_TASKS = ("SystemBluetoothTurnOff", "SystemBluetoothTurnOffVerify", "SystemBluetoothTurnOn",
                         "SystemBluetoothTurnOnVerify", "SystemBrightnessMax", "SystemBrightnessMaxVerify",
                         "SystemBrightnessMin", "SystemBrightnessMinVerify", "SystemWifiTurnOff",
                         "SystemWifiTurnOffVerify", "SystemWifiTurnOn", "SystemWifiTurnOnVerify",
                         "TurnOffWifiAndTurnOnBluetooth")


@pytest.fixture(scope="module")
def androidworld_tasks(androidworld_registry):
    tasks = androidworld_registry.TaskRegistry()
    return tasks.get_registry(tasks.ANDROID_WORLD_FAMILY)


@pytest.fixture
def served():
    server = VirtualAdbServer().start()
    attached = server.add_phone(VirtualPhone())
    yield server, attached
    server.stop()


class FailedCommands:
    """The adb commands of AndroidWorld's code that failed, with what they printed."""

    def __init__(self, adb) -> None:
        self.failed: list[tuple[list[str], bytes]] = []
        run = adb.execute_command

        def recording(args, timeout=None, device_specific=True):
            try:
                return run(args, timeout, device_specific)
            except subprocess.CalledProcessError as exc:
                self.failed.append((list(args), exc.output))
                raise
        adb.execute_command = recording


def environment_on(server, attached):
    from app.bench.androidworld.environment import DeskAdb, DeskController, DeskEnv

    adb = DeskAdb("127.0.0.1", server.port, attached.serial)
    return DeskEnv(DeskController(adb)), FailedCommands(adb)


def shell(env, command: str) -> str:
    return env.controller.adb.execute_command(["shell", command]).decode().strip()


def reach_the_goal(env, task) -> None:
    """Do by adb what the task's goal asks (what an agent would do by hand)."""
    goal = task.goal.lower()
    if "wifi" in goal:
        shell(env, "svc wifi " + ("disable" if "wifi off" in goal or "off wifi" in goal else "enable"))
    if "bluetooth" in goal:
        shell(env, "svc bluetooth " + ("disable" if "bluetooth off" in goal else "enable"))
    if "brightness" in goal:
        shell(env, "settings put system screen_brightness " + ("255" if "max" in goal else "1"))


def test_the_set_up_succeeds_on_the_virtual_phone_and_its_effects_read_back(androidworld_tasks, served):
    from android_world.env import device_constants

    env, commands = environment_on(*served)
    task_class = androidworld_tasks["SystemWifiTurnOff"]
    task = task_class(task_class.generate_random_params())
    task.initialize_task(env)
    try:
        assert commands.failed == []
        assert shell(env, "whoami") == "root"                                   # adb root
        assert shell(env, "getprop persist.sys.timezone") == "UTC"              # service call alarm 3 s16 UTC
        assert shell(env, "date +%Y-%m-%d\\ %H:%M") == device_constants.DT.strftime("%Y-%m-%d %H:%M")
        assert shell(env, "settings get global auto_time") == "0"
        assert shell(env, "settings get system time_12_24") == "24"
        assert shell(env, "settings get global wifi_on") == "1"                 # the task's precondition
    finally:
        task.tear_down(env)


@pytest.mark.parametrize("name", PLAYABLE_SYSTEM_TASKS)
def test_androidworlds_checker_says_no_before_the_goal_and_yes_after(androidworld_tasks, served, name):
    env, commands = environment_on(*served)
    task_class = androidworld_tasks[name]
    random.seed(name)
    task = task_class(task_class.generate_random_params())
    task.initialize_task(env)
    try:
        before = task.is_successful(env)
        assert before == (1.0 if name.endswith("Verify") else 0.0), task.goal
        reach_the_goal(env, task)
        assert task.is_successful(env) == 1.0, task.goal
    finally:
        task.tear_down(env)
    assert [args for args, _output in commands.failed] == []


def test_opening_settings_is_judged_by_the_app_in_front(androidworld_tasks, served):
    """AndroidWorld reads the app in front from `am stack list` (android_env's own parser)."""
    env, _ = environment_on(*served)
    task_class = androidworld_tasks["OpenAppTaskEval"]
    task = task_class({"app_name": "settings"})
    task.initialize_task(env)
    try:
        assert task.is_successful(env) == 0.0
        shell(env, "monkey -p com.android.settings -c android.intent.category.LAUNCHER 1")
        assert task.is_successful(env) == 1.0
    finally:
        task.tear_down(env)


def test_an_adb_command_the_adapter_does_not_know_fails_and_is_never_ok(served):
    pytest.importorskip("android_env", reason="android_env (the androidworld extra) is not installed")
    from app.bench.androidworld.environment import DeskAdb

    adb = DeskAdb("127.0.0.1", served[0].port, served[1].serial)
    with pytest.raises(subprocess.CalledProcessError, match="emu"):
        adb.execute_command(["emu", "sms", "send", "5550100", "hi"])
    with pytest.raises(subprocess.CalledProcessError) as failed:
        adb.execute_command(["shell", "exit 3"])
    assert failed.value.returncode == 3


def test_every_task_is_listed_runnable_on_the_virtual_phone_or_with_the_reason(androidworld_tasks):
    from app.bench.androidworld.catalogue import catalogue

    entries = catalogue(androidworld_tasks, set(VirtualPhone().installed_packages()))
    assert len(entries) == len(androidworld_tasks) == 116
    runnable = {entry.name for entry in entries if entry.runnable}
    assert set(PLAYABLE_SYSTEM_TASKS) <= runnable
    assert runnable - set(PLAYABLE_SYSTEM_TASKS) == {"TurnOnWifiAndOpenApp"}
    by_name = {entry.name: entry for entry in entries}
    assert by_name["SystemCopyToClipboard"].reason == "this phone has no ca.zgrs.clipper"
    assert "com.google.android.contacts" in by_name["OpenAppTaskEval"].reason
    # the information-retrieval tasks name their apps only once made: they are judged by those apps too
    assert by_name["NotesIsTodo"].packages and "this phone has no" in by_name["NotesIsTodo"].reason
    assert all(entry.reason.startswith(("this phone has no", "its checker")) for entry in entries if not entry.runnable)


def test_a_phone_with_a_tasks_apps_makes_it_runnable(androidworld_tasks):
    from app.bench.androidworld.catalogue import catalogue

    markor = {"SomeMarkorTask": androidworld_tasks["MarkorCreateNote"]}
    assert not catalogue(markor, {"com.android.settings"})[0].runnable
    assert catalogue(markor, {"com.android.settings", "net.gsantner.markor"})[0].runnable
