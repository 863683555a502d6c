"""Learning from past runs in the window: the past runs list replays, saves as a skill and exports a run;
the Skills panel lists, edits (checked before writing), renames, deletes, turns off, imports and exports
skills; the learning settings are in the Settings dialog. Runs and skills are written by hand under a
temporary AGENTDESK_HOME."""

from __future__ import annotations

import json
from pathlib import Path

import keyring
import pytest
import pytest_asyncio
import yaml
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox

import app.gui.skills.skills_dialog as skills_dialog
from app.core.agent.records import ActionOutcome, Decision, RunResult, StepRecord
from app.core.agent.trajectory import TrajectoryWriter
from app.core.config import Settings
from app.core.learning.recorded_steps import script_from_run
from app.core.learning.skill_store import SkillStore
from app.core.learning.skills import skill_from_script
from app.core.perception.locator import TargetLocator
from app.core.runs.service import RunRefused
from app.core.secrets import SecretStore
from app.gui.runs.past_run_actions import export_target
from app.gui.runs.past_runs import PastRunsDialog
from app.gui.settings.settings_dialog import SettingsDialog
from app.gui.skills.skill_values import ValuesDialog
from app.gui.skills.skills_dialog import EMPTY_TEXT, SkillsDialog
from tests.gui.conftest import shown_window
from tests.support.dialogs import answer_input_dialog
from tests.support.memory_keyring import MemoryKeyring
from tests.support.waiting import until

pytestmark = pytest.mark.asyncio

PIXEL = {"serial": "emulator-5554", "model": "Pixel 7", "android_version": "14", "screen_size": [1080, 2400]}


def tap(step: int, label: str, resource_id: str, *, ok: bool | None = True, decision: str = "approve") -> StepRecord:
    target = TargetLocator(name=label, text=label, resource_id=resource_id, class_name="android.widget.TextView",
                           bounds=[0, 100 * step, 1080, 100 * step + 90])
    return StepRecord(step=step, request="", action={"function": "click_control", "arguments": {"control_id": step}},
                      action_text=f"Tap “{label}”", decision=Decision(decision),
                      result=None if ok is None else ActionOutcome(ok, "tapped" if ok else "nothing happened"),
                      foreground="com.android.settings", screen_signature=f"sig{step}", target=target)


def write_run(request: str, steps: list[StepRecord]) -> Path:
    writer = TrajectoryWriter.create(request, dict(PIXEL), {"name": "test-model"}, {})
    for record in steps:
        writer.append_step(record)
    writer.finish(RunResult("success", len(steps), [record.action_text for record in steps], 3.0))
    return writer.run_dir


def wifi_steps() -> list[StepRecord]:
    return [tap(1, "Network & internet", "android:id/title"), tap(2, "Wi-Fi", "com.android.settings:id/switch"),
            StepRecord(step=3, request="", status="FINISH", comment="Wi-Fi is on")]


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.fixture
def wifi_run(home) -> Path:
    return write_run("Turn on Wi-Fi", wifi_steps())


async def open_past_runs(qtbot) -> PastRunsDialog:
    dialog = PastRunsDialog()
    qtbot.addWidget(dialog)
    dialog.show()
    await dialog.loading
    return dialog


def select_run(dialog: PastRunsDialog, request: str) -> None:
    rows = [dialog.runs.topLevelItem(i) for i in range(dialog.runs.topLevelItemCount())]
    dialog.runs.setCurrentItem(next(row for row in rows if row.text(dialog.REQUEST) == request))


async def actions_done(dialog) -> None:
    await until(lambda: not dialog.actions_under_way)


async def answer_input(text: str | None) -> str:
    """Wait for the name question, type `text` and press OK (None: Cancel); returns the text it offered."""
    return (await answer_input_dialog(text))[0]


# ---------------------------------------------------------------- the past runs list

async def test_a_run_exports_as_a_python_script_that_compiles_and_a_yaml_flow_that_loads(qtbot, wifi_run, tmp_path):
    dialog = await open_past_runs(qtbot)
    assert [dialog.runs.topLevelItem(i).text(dialog.REQUEST) for i in range(dialog.runs.topLevelItemCount())] == [
        "Turn on Wi-Fi"]
    select_run(dialog, "Turn on Wi-Fi")
    assert dialog.export_button.isEnabled() and dialog.replay_button.isEnabled()
    targets = [(tmp_path / "wifi.py", "uiautomator2"), (tmp_path / "wifi.yaml", "yaml")]

    async def choose(stem: str):
        assert stem == "turn-on-wi-fi"
        return targets.pop(0)

    dialog.ask_export_path = choose
    QTest.mouseClick(dialog.export_button, Qt.MouseButton.LeftButton)
    await actions_done(dialog)
    script = (tmp_path / "wifi.py").read_text()
    compile(script, "wifi.py", "exec")
    assert "android:id/title" in script and "com.android.settings:id/switch" in script
    assert "Exported" in dialog.notice.text() and "wifi.py" in dialog.notice.text()

    QTest.mouseClick(dialog.export_button, Qt.MouseButton.LeftButton)
    await actions_done(dialog)
    flow = yaml.safe_load((tmp_path / "wifi.yaml").read_text())
    assert isinstance(flow, dict) and "Wi-Fi" in json.dumps(flow)
    assert "android:id/title" in json.dumps(flow)


async def test_the_export_format_follows_the_typed_suffix_else_the_chosen_filter():
    assert export_target("/x/wifi", "YAML flow (*.yaml)") == (Path("/x/wifi.yaml"), "yaml")
    assert export_target("/x/wifi", "uiautomator2 Python (*.py)") == (Path("/x/wifi.py"), "uiautomator2")
    assert export_target("/x/wifi.py", "YAML flow (*.yaml)") == (Path("/x/wifi.py"), "uiautomator2")
    assert export_target("/x/wifi.yml", "uiautomator2 Python (*.py)") == (Path("/x/wifi.yml"), "yaml")


async def test_save_as_skill_asks_a_name_and_writes_a_skill_the_store_loads(qtbot, wifi_run):
    dialog = await open_past_runs(qtbot)
    select_run(dialog, "Turn on Wi-Fi")
    QTest.mouseClick(dialog.skill_button, Qt.MouseButton.LeftButton)
    offered = await answer_input("Wi-Fi on")
    assert offered == "Turn on Wi-Fi"              # the request is the default name
    await actions_done(dialog)
    skills, problems = SkillStore().load()
    assert problems == [] and [skill.name for skill in skills] == ["Wi-Fi on"]
    assert [step.target.resource_id for step in skills[0].steps] == ["android:id/title",
                                                                    "com.android.settings:id/switch"]
    assert "Saved as the skill “Wi-Fi on”" in dialog.notice.text()

    QTest.mouseClick(dialog.skill_button, Qt.MouseButton.LeftButton)
    await answer_input("wi-fi  ON")                # the same name, as the store compares names
    await actions_done(dialog)
    assert "already exists" in dialog.notice.text() and dialog.notice.property("tone") == "error"
    assert len(SkillStore().load()[0]) == 1

    QTest.mouseClick(dialog.skill_button, Qt.MouseButton.LeftButton)
    await answer_input(None)                       # cancelled: nothing written, nothing said
    await actions_done(dialog)
    assert len(SkillStore().load()[0]) == 1


async def test_replay_emits_the_run_folder_and_waits_while_a_run_is_going(qtbot, wifi_run):
    dialog = await open_past_runs(qtbot)
    select_run(dialog, "Turn on Wi-Fi")
    dialog.set_run_going(True)
    assert not dialog.replay_button.isEnabled() and "run is going" in dialog.replay_button.toolTip()
    dialog.set_run_going(False)
    assert dialog.replay_button.isEnabled()
    emitted = []
    dialog.replay_requested.connect(emitted.append)
    QTest.mouseClick(dialog.replay_button, Qt.MouseButton.LeftButton)
    await actions_done(dialog)
    assert emitted == [wifi_run] and not dialog.isVisible()


async def test_a_run_with_nothing_to_do_again_says_so_in_the_dialog(qtbot, home):
    write_run("Turn on Bluetooth", [tap(1, "Bluetooth", "android:id/title", ok=False),
                                    tap(2, "Connected devices", "", ok=None, decision="reject")])
    dialog = await open_past_runs(qtbot)
    select_run(dialog, "Turn on Bluetooth")
    emitted = []
    dialog.replay_requested.connect(emitted.append)
    for button in (dialog.replay_button, dialog.skill_button):
        QTest.mouseClick(button, Qt.MouseButton.LeftButton)
        if button is dialog.skill_button:
            await answer_input("Bluetooth")
        await actions_done(dialog)
        assert "none of its actions was carried out successfully" in dialog.notice.text()
        assert dialog.notice.property("tone") == "error" and dialog.isVisible()
    assert emitted == [] and SkillStore().load() == ([], [])


# ---------------------------------------------------------------- the Skills panel

@pytest.fixture
def store(wifi_run) -> SkillStore:
    store = SkillStore()
    store.save(skill_from_script(script_from_run(wifi_run)))
    store.save(skill_from_script(script_from_run(write_run("Open the display settings", wifi_steps()[:1])),
                                 "Display"))
    return store


async def open_skills(qtbot, store: SkillStore) -> SkillsDialog:
    dialog = SkillsDialog(store)
    qtbot.addWidget(dialog)
    dialog.show()
    await dialog.loading
    return dialog


def rows(dialog: SkillsDialog) -> list[list[str]]:
    return [[item.text(column) for column in range(5)]
            for item in (dialog.list.topLevelItem(i) for i in range(dialog.list.topLevelItemCount()))]


def choose(dialog: SkillsDialog, name: str) -> None:
    item = next(dialog.list.topLevelItem(i) for i in range(dialog.list.topLevelItemCount())
                if dialog.list.topLevelItem(i).text(0).startswith(name))
    dialog.list.setCurrentItem(item)


async def test_the_skills_are_listed_with_their_steps_and_a_broken_file_is_named(qtbot, store):
    (store.root / "broken.yaml").write_text("name: Broken\nsteps: 3\n")
    dialog = await open_skills(qtbot, store)
    listed = rows(dialog)
    assert [row[0] for row in listed] == ["Display", "Turn on Wi-Fi"]
    wifi = listed[1]
    assert wifi[1] == store.find("Turn on Wi-Fi").trigger == "Turn on Wi-Fi"     # one run: its request exactly
    assert wifi[2:] == ["2", "not used yet", "Pixel 7 · Android 14"]
    warning = dialog.problems.text()
    assert dialog.problems.isVisible() and "broken.yaml" in warning and "'steps'" in warning

    choose(dialog, "Turn on Wi-Fi")
    steps = [[dialog.steps.topLevelItem(i).text(c) for c in range(3)] for i in range(dialog.steps.topLevelItemCount())]
    assert steps == [["1", "Tap “Network & internet”", "id title · “Network & internet”"],
                     ["2", "Tap “Wi-Fi”", "id switch · “Wi-Fi”"]]
    assert "id com.android.settings:id/switch" in dialog.steps.topLevelItem(1).toolTip(2)
    assert yaml.safe_load(dialog.editor.toPlainText())["name"] == "Turn on Wi-Fi"
    assert not dialog.save_button.isEnabled()


async def test_an_empty_store_explains_where_skills_come_from(qtbot, home):
    dialog = await open_skills(qtbot, SkillStore())
    assert dialog.empty.isVisible() and dialog.empty.text() == EMPTY_TEXT and not dialog.detail.isVisible()
    assert "learning.save_skills" in EMPTY_TEXT and not dialog.problems.isVisible()
    assert not dialog.rename_button.isEnabled() and not dialog.delete_button.isEnabled()


async def test_a_bad_edit_is_refused_with_the_file_and_field_and_writes_nothing(qtbot, store):
    dialog = await open_skills(qtbot, store)
    choose(dialog, "Turn on Wi-Fi")
    path = store.path_of("Turn on Wi-Fi")
    before = path.read_bytes()
    dialog.editor.setPlainText(dialog.editor.toPlainText().replace("function: click_control", "function: ''", 1))
    assert dialog.save_button.isEnabled()
    QTest.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    await actions_done(dialog)
    assert dialog.edit_problem.isVisible()
    assert path.name in dialog.edit_problem.text() and "steps[0].action.function" in dialog.edit_problem.text()
    assert path.read_bytes() == before

    choose(dialog, "Display")                      # the unsaved edit is kept as a draft, not lost
    choose(dialog, "Turn on Wi-Fi")
    assert "function: ''" in dialog.editor.toPlainText()

    dialog.editor.setPlainText(dialog.editor.toPlainText().replace("function: ''", "function: click_control", 1)
                               .replace("enabled: true", "enabled: false"))
    QTest.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    await actions_done(dialog)
    assert store.find("Turn on Wi-Fi").enabled is False and path.read_bytes() != before
    assert "Saved" in dialog.notice.text() and "(disabled)" in rows(dialog)[1][0]


async def test_the_person_lets_a_skill_take_other_values(qtbot, store):
    """Issue 27: one run makes an exact trigger; the person ticks the value the skill may change."""
    dialog = await open_skills(qtbot, store)
    choose(dialog, "Turn on Wi-Fi")
    assert "learned from 1 run(s)" in dialog.facts.text()
    QTest.mouseClick(dialog.values_button, Qt.MouseButton.LeftButton)
    shown: list[ValuesDialog] = []
    await until(lambda: shown.extend(w for w in QApplication.topLevelWidgets()
                                     if isinstance(w, ValuesDialog) and w.isVisible()) or shown)
    values = shown[0]
    assert list(values.boxes) == ["switch"] and "Turn on Wi-Fi" in values.trigger.text()
    values.boxes["switch"].setChecked(True)
    assert values.trigger.text() == "Trigger: Turn on {switch}"
    values.accept()
    await actions_done(dialog)
    skill = store.find("Turn on Wi-Fi")
    assert skill.trigger == "Turn on {switch}" and skill.parameters == {"switch": "Wi-Fi"}
    assert "now answers “Turn on {switch}”" in dialog.notice.text() and rows(dialog)[1][1] == "Turn on {switch}"


async def test_rename_enable_and_delete_change_the_files(qtbot, store):
    dialog = await open_skills(qtbot, store)
    choose(dialog, "Turn on Wi-Fi")
    QTest.mouseClick(dialog.rename_button, Qt.MouseButton.LeftButton)
    await answer_input("Display")                  # taken: refused, nothing changed
    await actions_done(dialog)
    assert "already has that name" in dialog.notice.text() and store.find("Turn on Wi-Fi") is not None

    QTest.mouseClick(dialog.rename_button, Qt.MouseButton.LeftButton)
    await answer_input("Switch Wi-Fi on")
    await actions_done(dialog)
    assert store.find("Turn on Wi-Fi") is None and store.find("Switch Wi-Fi on") is not None
    assert [row[0] for row in rows(dialog)] == ["Display", "Switch Wi-Fi on"]
    assert dialog.current.skill.name == "Switch Wi-Fi on"

    QTest.mouseClick(dialog.enable_button, Qt.MouseButton.LeftButton)
    await actions_done(dialog)
    assert store.find("Switch Wi-Fi on").enabled is False and dialog.enable_button.text() == "Enable"

    async def answer_yes():
        found: list[QMessageBox] = []
        await until(lambda: found.extend(w for w in QApplication.topLevelWidgets()
                                         if isinstance(w, QMessageBox) and w.isVisible()) or found)
        found[0].button(QMessageBox.StandardButton.Yes).click()

    QTest.mouseClick(dialog.delete_button, Qt.MouseButton.LeftButton)
    await answer_yes()
    await actions_done(dialog)
    assert store.find("Switch Wi-Fi on") is None and [row[0] for row in rows(dialog)] == ["Display"]


async def test_import_checks_the_file_and_export_writes_it(qtbot, store, tmp_path, monkeypatch):
    dialog = await open_skills(qtbot, store)
    choose(dialog, "Display")
    answers = [(tmp_path / "display.json", "Skill file, JSON (*.json)"), (tmp_path / "display", "uiautomator2 "
               "Python script (*.py)")]

    async def ask_file(parent, title, filters, save_as=""):
        return answers.pop(0)

    monkeypatch.setattr(skills_dialog, "ask_file", ask_file)
    for _ in range(2):
        QTest.mouseClick(dialog.export_button, Qt.MouseButton.LeftButton)
        await actions_done(dialog)
    assert json.loads((tmp_path / "display.json").read_text())["name"] == "Display"
    compile((tmp_path / "display.py").read_text(), "display.py", "exec")

    broken = tmp_path / "broken.yaml"
    broken.write_text("name: Other\nsteps:\n  - action: {arguments: {}}\n")
    good = tmp_path / "other.yaml"
    good.write_text((tmp_path / "display.json").read_text().replace('"Display"', '"Other"'))
    answers[:] = [(broken, ""), (good, "")]
    QTest.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    await actions_done(dialog)
    assert "broken.yaml was not imported" in dialog.notice.text() and "steps[0].action" in dialog.notice.text()
    assert store.find("Other") is None
    QTest.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    await actions_done(dialog)
    assert store.find("Other") is not None and dialog.current.skill.name == "Other"


# ---------------------------------------------------------------- the window

@pytest_asyncio.fixture
async def window(qapp, home, virtual_adb, monkeypatch):
    """The main window on the virtual phone, without an API key; closed afterwards."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    try:
        async with shown_window() as window:
            yield window
    finally:
        keyring.set_keyring(previous)


async def test_replay_becomes_a_run_on_the_windows_phone_in_the_chosen_mode(window, wifi_run, monkeypatch):
    await window.start()
    await until(lambda: window.phone.session is not None)
    asked = []

    async def start(request):
        asked.append(request)
        raise RunRefused("refused by the test")

    monkeypatch.setattr(window.controller, "start", start)
    window.request.mode.setCurrentIndex(window.request.mode.findData("auto"))
    window.open_past_runs()
    past = window.timeline.past_runs_dialog
    await past.loading
    select_run(past, "Turn on Wi-Fi")
    QTest.mouseClick(past.replay_button, Qt.MouseButton.LeftButton)
    await until(lambda: asked)
    request = asked[0]
    assert request.request == "Turn on Wi-Fi" and request.mode == "auto" and request.use_skills is False
    assert request.phone == window.phone.session.id
    assert [step.target.resource_id for step in request.replay.steps] == ["android:id/title",
                                                                         "com.android.settings:id/switch"]
    await until(lambda: "refused by the test" in window.status.text())   # said, and the panel is usable again
    assert window.request.run_button.isEnabled() and not window.starting_run

    window.controller.run_started.emit(wifi_run, "Turn on Wi-Fi")       # a run is going: Replay waits
    assert not past.replay_button.isEnabled()
    window.controller.run_finished.emit(None)
    assert past.replay_button.isEnabled()


async def test_the_file_menu_opens_one_skills_panel(window, home):
    menu = next(action.menu() for action in window.menuBar().actions() if action.text() == "&File")
    entry = next(action for action in menu.actions() if action.text() == "Skills…")
    entry.trigger()
    entry.trigger()
    panels = window.findChildren(SkillsDialog)
    assert len(panels) == 1 and panels[0].isVisible() and not panels[0].isModal()
    await until(lambda: panels[0].loading is not None and panels[0].loading.done())
    assert panels[0].empty.text() == EMPTY_TEXT


# ---------------------------------------------------------------- settings

async def test_the_learning_settings_are_on_the_agent_tab_with_their_descriptions(qtbot, home):
    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    try:
        settings = Settings()
        settings = settings.model_copy(update={"learning": settings.learning.model_copy(
            update={"save_skills": False})})
        dialog = SettingsDialog(settings, SecretStore("AgentDeskTest"), stored_key=None)
        qtbot.addWidget(dialog)
        boxes = {key: dialog._fields[key] for key in ("learning.use_skills", "learning.save_skills",
                                                      "learning.record_screens")}
        assert [box.isChecked() for box in boxes.values()] == [True, False, True]
        assert "skill" in boxes["learning.use_skills"].toolTip() and boxes["learning.save_skills"].toolTip()
        agent_tab = dialog.tabs.widget(2)
        assert all(agent_tab.isAncestorOf(box) for box in boxes.values())
        boxes["learning.record_screens"].setChecked(False)
        assert dialog.result_settings().learning.record_screens is False
    finally:
        keyring.set_keyring(previous)
