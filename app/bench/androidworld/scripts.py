"""What the offline scripted model (`app/bench/oracle_model.py`) does for the AndroidWorld tasks it can play.

The scripted model checks the harness, not an agent: it follows a fixed script per task, finding each control by
name on the screen it is shown, as for the project's own suite. A script is made from the task's class and its
parameters (AndroidWorld draws them at random); its goal is the request the run is given. The scripts are written
for the virtual phone's Settings, which are laid out as Android 14's. Tasks without a script are answered FAIL.

AndroidWorld judges the runs; the scripts carry no checker of their own (`check` says so if it is ever called)."""

from __future__ import annotations

from typing import Any

from app.bench.androidworld.catalogue import package_of
from app.bench.task_suite import (
    SETTINGS,
    WIFI,
    BenchTask,
    ScriptStep,
    Verdict,
    click,
    launch,
    press,
    set_switch,
    slide_to_end,
)


def _judged_by_androidworld(state: dict) -> Verdict:
    return False, "this task is judged by AndroidWorld's is_successful, not by a checker of the suite"


def _wifi(on: bool) -> tuple[ScriptStep, ...]:
    return (launch(SETTINGS), click("Network & internet"), click(WIFI), set_switch(f"Use {WIFI}", on))


def _bluetooth(on: bool) -> tuple[ScriptStep, ...]:
    return (launch(SETTINGS), click("Connected devices"), click("Bluetooth"), set_switch("Use Bluetooth", on))


def _brightness(to_max: bool) -> tuple[ScriptStep, ...]:
    return launch(SETTINGS), click("Display"), slide_to_end("Brightness level", right=to_max)


def script_for(name: str, params: dict[str, Any]) -> tuple[ScriptStep, ...] | None:
    """The script of AndroidWorld's task `name` with `params`, or None when the scripted model cannot play it."""
    if name.startswith("SystemWifiTurn"):
        return _wifi(params.get("on_or_off") == "on")
    if name.startswith("SystemBluetoothTurn"):
        return _bluetooth(params.get("on_or_off") == "on")
    if name.startswith("SystemBrightness"):
        return _brightness(params.get("max_or_min") == "max")
    if name == "TurnOffWifiAndTurnOnBluetooth":       # from the Wi-Fi page back to Settings' first page
        return (*_wifi(False), press("BACK"), press("BACK"), click("Connected devices"), click("Bluetooth"),
                set_switch("Use Bluetooth", True))
    if name == "TurnOnWifiAndOpenApp":
        package = package_of(str(params.get("app_name", "")))
        return (*_wifi(True), launch(package)) if package else None
    return None


def scripted_task(name: str, goal: str, params: dict[str, Any]) -> BenchTask | None:
    """The scripted model's task for one AndroidWorld task instance (None: it has no script for it)."""
    script = script_for(name, params)
    if script is None:
        return None
    return BenchTask(f"androidworld:{name}", "settings", goal, script, _judged_by_androidworld)
