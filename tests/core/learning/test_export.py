"""Exporting a recorded run as a uiautomator2 Python script and as a YAML flow: the script compiles and,
run against a fake uiautomator2 that logs every call, does the recorded steps in order by their locators."""

from __future__ import annotations

import ast
import builtins
import getpass
import sys
import time
import types

import pytest
import yaml

from app.core.learning.export import (
    SECRET_ENV_PREFIX,
    WAIT_SECONDS,
    choose_locator,
    export_script,
    to_uiautomator2,
    to_yaml_flow,
)
from app.core.learning.recorded_steps import ExpectedScreen, RecordedStep, ReplayScript
from app.core.perception.locator import TargetLocator
from app.core.redaction import PASSWORD_MASK

TRICKY = 'He said "hi", it\'s a back\\slash: café 日本 ✓\nsecond line'
SCREEN = ExpectedScreen(package="com.android.settings", activity=".Settings")


def step(number: int, function: str, target: TargetLocator | None = None, action_text: str = "",
         **arguments) -> RecordedStep:
    return RecordedStep(step=number, action={"function": function, "arguments": arguments, "status": "CONTINUE"},
                        action_text=action_text, target=target, screen=SCREEN)


WIFI = TargetLocator(name="Wi-Fi", xpath='//*[@resource-id="android:id/wifi"]', resource_id="android:id/wifi",
                     text="Wi-Fi", class_name="android.widget.Switch", bounds=[900, 300, 1040, 380])
TITLE = TargetLocator(name="Network", xpath='//*[@text="Network"]', resource_id="android:id/title",
                      text="Network", class_name="android.widget.TextView", bounds=[40, 500, 600, 560])
NOTHING_BUT_BOUNDS = TargetLocator(bounds=[100, 200, 300, 400])
QUOTED = TargetLocator(name=TRICKY, text="Say \"yes\" \\ o'clock — ñ", class_name="android.widget.Button")
PASSWORD_FIELD = TargetLocator(name=PASSWORD_MASK, xpath='//*[@resource-id="com.app:id/pw"]',
                               resource_id="com.app:id/pw", text=PASSWORD_MASK, password=True,
                               class_name="android.widget.EditText")


def script_of(*steps: RecordedStep) -> ReplayScript:
    return ReplayScript(request="Turn on Wi-Fi", steps=list(steps), source="/runs/2024-05-01_wifi",
                        recorded_on={"serial": "emulator-5554", "model": "Pixel 7", "virtual": False},
                        ended="success")


# ------------------------------------------------------------------------------ a fake uiautomator2


class FakeFound:
    """What `d(...)` or `d.xpath(...)` returns: logs each call with the selector that made it."""

    def __init__(self, log: list, how: tuple, present: bool) -> None:
        self.log, self.how, self.present = log, how, present

    def wait(self, timeout=None):
        self.log.append(("wait", self.how, timeout))
        return self.present

    def click(self):
        self.log.append(("click", self.how))

    def long_click(self):
        self.log.append(("long_click", self.how))

    def set_text(self, text):
        self.log.append(("set_text", self.how, text))

    @property
    def info(self):
        return {"bounds": {"left": 0, "top": 100, "right": 1080, "bottom": 1800}}


class FakeDevice:
    def __init__(self, log: list, missing: list[dict]) -> None:
        self.log, self.missing = log, missing

    def __call__(self, **selector):
        return FakeFound(self.log, ("select", selector), selector not in self.missing)

    def xpath(self, xpath):
        return FakeFound(self.log, ("xpath", xpath), True)

    def app_start(self, package):
        self.log.append(("app_start", package))

    def click(self, x, y):
        self.log.append(("tap", x, y))

    def long_click(self, x, y):
        self.log.append(("long_tap", x, y))

    def swipe(self, x1, y1, x2, y2, duration=None):
        self.log.append(("swipe", x1, y1, x2, y2, duration))

    def swipe_ext(self, direction, scale=None, box=None):
        self.log.append(("swipe_ext", direction, scale, box))

    def press(self, key):
        self.log.append(("press", key))

    def send_keys(self, text, clear=False):
        self.log.append(("send_keys", text, clear))


@pytest.fixture
def phone(monkeypatch):
    """Installs a fake `uiautomator2` module; returns (log, run) where run(code) executes main()."""
    log: list = []
    missing: list[dict] = []
    module = types.ModuleType("uiautomator2")

    def connect(serial=None):
        log.append(("connect", serial))
        return FakeDevice(log, missing)

    module.connect = connect
    monkeypatch.setitem(sys.modules, "uiautomator2", module)
    monkeypatch.setattr(time, "sleep", lambda seconds: log.append(("sleep", seconds)))

    def run(code: str) -> dict:
        namespace = {"__name__": "exported_script"}
        exec(compile(code, "exported.py", "exec"), namespace)
        namespace["main"]()
        return namespace

    run.missing = missing
    return log, run


# ------------------------------------------------------------------------------ the Python script


def test_the_script_compiles_and_does_the_steps_in_order_by_their_locators(phone, monkeypatch):
    log, run = phone
    monkeypatch.setattr(builtins, "input", lambda prompt="": log.append(("input", prompt)) or "ok")
    script = script_of(
        step(1, "launch_app", action_text="Open the app com.android.settings", package_name="com.android.settings"),
        step(2, "click_control", WIFI, "Tap “Wi-Fi” (#4)", control_id=4, control_name="Wi-Fi"),
        step(3, "long_press_control", TITLE, control_id=7),
        step(4, "type_text", TITLE, text="hello", control_id=7, clear_current_text=True),
        step(5, "scroll", WIFI, direction="down", control_id=4),
        step(6, "scroll", direction="up"),
        step(7, "swipe", start_x=500.4, start_y=1600, end_x=500, end_y=400, duration_ms=250),
        step(8, "tap", x=10.6, y=20),
        step(9, "press_key", key_code="KEYCODE_BACK"),
        step(10, "press_key", key_code=61),
        step(11, "wait", seconds=0.5),
        step(12, "ask_user", question="Which network?"),
        step(13, "type_text", text="no target"),
    )
    code = to_uiautomator2(script, serial="emulator-5554")
    compile(code, "exported.py", "exec")
    assert "import uiautomator2 as u2" in code and "def main():" in code
    assert "# step 2: Tap “Wi-Fi”" in code and "(#4)" not in code
    assert "# step 4: Replace the text with “hello”" in code      # no action_text: the app's own words
    run(code)
    wifi, title = ("select", {"resourceId": "android:id/wifi"}), \
        ("select", {"resourceId": "android:id/title", "text": "Network"})
    assert log == [
        ("connect", "emulator-5554"),
        ("app_start", "com.android.settings"),
        ("wait", wifi, WAIT_SECONDS), ("click", wifi),
        ("wait", title, WAIT_SECONDS), ("long_click", title),
        ("wait", title, WAIT_SECONDS), ("set_text", title, "hello"),
        ("wait", wifi, WAIT_SECONDS), ("swipe_ext", "up", 0.7, (0, 100, 1080, 1800)),
        ("swipe_ext", "down", 0.7, None),
        ("swipe", 500, 1600, 500, 400, 0.25),
        ("tap", 11, 20),
        ("press", "back"),
        ("press", 61),                    # no u2 name for TAB: its code
        ("sleep", 0.5),
        ("input", "Which network? "),
        ("send_keys", "no target", False),
    ]


def test_the_header_says_what_was_recorded_and_connects_without_a_serial(phone):
    log, run = phone
    code = to_uiautomator2(script_of(step(1, "press_key", key_code="HOME")))
    header = code.split("import getpass")[0]
    assert "Turn on Wi-Fi" in header and "emulator-5554" in header and "Pixel 7" in header
    assert "/runs/2024-05-01_wifi" in header and "success" in header
    run(code)
    assert log == [("connect", None), ("press", "home")]


def test_a_shared_resource_id_is_narrowed_by_the_text():
    locator = choose_locator(TITLE)
    assert locator.selector == {"resourceId": "android:id/title", "text": "Network"}
    code = to_uiautomator2(script_of(step(1, "click_control", TITLE, control_id=3)))
    assert "d(resourceId='android:id/title', text='Network')" in code


def test_locators_fall_back_from_text_to_the_tree_path_to_the_class():
    by_desc = TargetLocator(content_desc="Navigate up", xpath='//*[@content-desc="Navigate up"]',
                            class_name="android.widget.ImageButton")
    assert choose_locator(by_desc).selector == {"description": "Navigate up"}
    shared_text = TargetLocator(text="OK", xpath="/hierarchy/node[1]/node[4]", class_name="android.widget.Button")
    assert choose_locator(shared_text).selector == {"text": "OK", "className": "android.widget.Button"}
    by_path = TargetLocator(xpath="/hierarchy/node[1]/node[2]/node[3]", class_name="android.view.View",
                            bounds=[0, 0, 10, 10])
    assert (choose_locator(by_path).kind, choose_locator(by_path).xpath) == ("xpath", "/hierarchy/*[1]/*[2]/*[3]")
    by_class = TargetLocator(class_name="android.view.View", bounds=[0, 0, 10, 10])
    assert choose_locator(by_class).selector == {"className": "android.view.View"}


def test_a_target_with_nothing_but_bounds_is_tapped_at_its_centre_with_a_comment(phone):
    log, run = phone
    code = to_uiautomator2(script_of(step(1, "click_control", NOTHING_BUT_BOUNDS, control_id=9)))
    lines = code.splitlines()
    call = next(i for i, line in enumerate(lines) if line.strip() == "d.click(200, 300)")
    assert lines[call - 1].strip().startswith("#") and "coordinates" in lines[call - 1]
    run(code)
    assert log[1:] == [("tap", 200, 300)]


def test_texts_with_quotes_backslashes_and_non_ascii_survive(phone):
    log, run = phone
    code = to_uiautomator2(script_of(step(1, "click_control", QUOTED, TRICKY, control_id=2),
                                     step(2, "type_text", text=TRICKY)))
    run(code)
    selector = ("select", {"text": QUOTED.text, "className": "android.widget.Button"})
    assert log[1:] == [("wait", selector, WAIT_SECONDS), ("click", selector), ("send_keys", TRICKY, False)]


def test_a_missing_control_stops_the_script_with_a_clear_message(phone):
    log, run = phone
    run.missing.append({"resourceId": "android:id/wifi"})
    code = to_uiautomator2(script_of(step(1, "click_control", WIFI, control_id=4), step(2, "press_key", key_code=4)))
    with pytest.raises(RuntimeError, match=r"step 1: the control “Wi-Fi” did not appear within 10 s"):
        run(code)
    assert ("press", "back") not in log


def test_a_step_that_cannot_be_exported_fails_there_and_is_not_dropped(phone):
    log, run = phone
    code = to_uiautomator2(script_of(step(1, "press_key", key_code="BACK"), step(2, "fly_away", height=3),
                                     step(3, "tap", x="left")))
    assert "fly_away" in code and "cannot(3," in code
    with pytest.raises(RuntimeError, match="step 2 could not be exported: the recorded function 'fly_away'"):
        run(code)
    assert log == [("connect", None), ("press", "back")]


def test_a_masked_password_is_read_from_the_environment_never_written(phone, monkeypatch):
    log, run = phone
    script = script_of(step(1, "type_text", PASSWORD_FIELD, f"Type “{PASSWORD_MASK}” (#5)", text=PASSWORD_MASK,
                            control_id=5),
                       step(2, "type_text", text=PASSWORD_MASK, clear_current_text=True))
    code = to_uiautomator2(script)
    assert PASSWORD_MASK not in code and "the password field" in code
    literals = [node.value for node in ast.walk(ast.parse(code)) if isinstance(node, ast.Constant)]
    assert not any(isinstance(value, str) and PASSWORD_MASK in value for value in literals)
    monkeypatch.setenv(f"{SECRET_ENV_PREFIX}1", "s3cret")
    monkeypatch.delenv(f"{SECRET_ENV_PREFIX}2", raising=False)
    monkeypatch.setattr(getpass, "getpass", lambda prompt="": log.append(("getpass", prompt)) or "typed")
    run(code)
    field = ("select", {"resourceId": "com.app:id/pw"})
    assert log[1:] == [("wait", field, WAIT_SECONDS), ("click", field), ("send_keys", "s3cret", False),
                       ("getpass", "Password to type at step 2: "), ("send_keys", "typed", True)]


def test_an_empty_script_still_runs(phone):
    log, run = phone
    code = to_uiautomator2(ReplayScript(request="nothing"))
    run(code)
    assert log == [("connect", None)]


# ------------------------------------------------------------------------------ the YAML flow


def _keys(data) -> set[str]:
    if isinstance(data, dict):
        return set(data) | set().union(*(_keys(value) for value in data.values()))
    if isinstance(data, list):
        return set().union(*(_keys(value) for value in data)) if data else set()
    return set()


def test_the_yaml_flow_loads_back_with_the_locators_and_no_control_ids():
    script = script_of(step(1, "click_control", WIFI, "Tap “Wi-Fi” (#4)", control_id=4, control_name="Wi-Fi"),
                       step(2, "type_text", TITLE, text=TRICKY, control_id=7),
                       step(3, "type_text", PASSWORD_FIELD, text=PASSWORD_MASK, control_id=5),
                       step(4, "click_control", NOTHING_BUT_BOUNDS, control_id=9),
                       step(5, "press_key", key_code="BACK"))
    text = to_yaml_flow(script)
    data = yaml.safe_load(text)
    assert list(data)[:2] == ["name", "request"] and data["request"] == "Turn on Wi-Fi"
    assert data["name"] == "2024-05-01_wifi" and data["recorded_on"]["serial"] == "emulator-5554"
    steps = data["steps"]
    assert [s["action"] for s in steps] == ["click_control", "type_text", "type_text", "click_control", "press_key"]
    assert steps[0]["target"] == {"resource_id": "android:id/wifi", "text": "Wi-Fi",
                                  "class": "android.widget.Switch", "xpath": '//*[@resource-id="android:id/wifi"]'}
    assert steps[0]["arguments"] == {"control_name": "Wi-Fi"} and steps[0]["note"] == "Tap “Wi-Fi”"
    assert steps[0]["expect"] == {"package": "com.android.settings", "activity": ".Settings"}
    assert steps[1]["arguments"]["text"] == TRICKY
    assert "text" not in steps[2]["target"] and "text" not in steps[2].get("arguments", {})
    assert steps[2]["secret_env"] == f"{SECRET_ENV_PREFIX}1" and PASSWORD_MASK not in text
    assert steps[3]["target"] == {"bounds": [100, 200, 300, 400]}
    assert "target" not in steps[4] and steps[4]["arguments"] == {"key_code": "BACK"}
    assert "control_id" not in _keys(data) and "(#4)" not in text


def test_steps_that_cannot_be_done_again_are_kept_with_a_problem():
    data = yaml.safe_load(to_yaml_flow(script_of(step(1, "click_control", TargetLocator(), control_id=2),
                                                 step(2, "fly_away", height=3), step(3, "tap", x="left"),
                                                 step(4, "tap", x=5, y=6))))
    problems = [entry.get("problem", "") for entry in data["steps"]]
    assert "cannot be found again" in problems[0] and "'fly_away' is not one the app knows" in problems[1]
    assert "arguments do not fit tap" in problems[2] and problems[3] == ""
    assert data["steps"][1]["arguments"] == {"height": 3}


# ------------------------------------------------------------------------------ choosing the format


def test_export_script_picks_the_format_and_refuses_unknown_ones():
    script = script_of(step(1, "press_key", key_code="HOME"))
    assert export_script(script, "python") == export_script(script, "UIAutomator2") == to_uiautomator2(script)
    assert export_script(script, "yaml") == to_yaml_flow(script)
    with pytest.raises(ValueError, match="uiautomator2, python, yaml"):
        export_script(script, "appium")
    with pytest.raises(TypeError):
        to_yaml_flow({"request": "not a script"})


def test_a_row_named_by_the_texts_inside_it_is_found_by_its_title():
    row = TargetLocator(name="Wi‑Fi, Off", class_name="android.widget.LinearLayout",
                        xpath="/hierarchy/node[1]/node[2]/node[1]", bounds=[0, 252, 1080, 441])
    locator = choose_locator(row)
    assert locator.kind == "selector" and locator.selector == {"text": "Wi‑Fi"}
    nameless = TargetLocator(class_name="android.widget.LinearLayout", xpath="/hierarchy/node[1]/node[2]")
    assert choose_locator(nameless).kind == "xpath"
