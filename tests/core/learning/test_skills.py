"""Skills: made from a recorded run, stored as files a person edits, matched to requests without a model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from app.core.agent.records import ActionOutcome, Decision, RunResult, StepRecord
from app.core.agent.trajectory import TrajectoryWriter
from app.core.learning.recorded_steps import script_from_run, script_from_steps
from app.core.learning.skill_store import SkillStore
from app.core.learning.skills import (
    Skill,
    SkillError,
    SkillExists,
    SkillFileError,
    SkillHistory,
    SkillNotFound,
    differences,
    match_request,
    skill_from_script,
)
from app.core.perception.locator import Anchor, TargetLocator
from app.core.redaction import PASSWORD_MASK

PIXEL = {"serial": "emulator-5554", "model": "Pixel 7", "android": "14", "screen_size": [1080, 2400],
         "app_versions": {"com.android.settings": "14.0.1"}}


def tap(step: int, label: str, resource_id: str = "", *, decision: str = "approve", ok: bool | None = True,
        content_desc: str = "") -> StepRecord:
    """A tap on a labelled control; `ok` None: never executed (a rejected proposal)."""
    target = TargetLocator(name=label or content_desc, text=label, content_desc=content_desc, resource_id=resource_id,
                           class_name="android.widget.TextView", xpath=f'//*[@text="{label}"]',
                           bounds=[0, 100 * step, 1080, 100 * step + 90], node_path=[0, step],
                           anchors=[Anchor("Internet", "above", 12)])
    return StepRecord(step=step, request="", action={"function": "click_control", "arguments": {"control_id": step}},
                      action_text=f"tap {label or content_desc}", decision=Decision(decision),
                      result=None if ok is None else ActionOutcome(ok, "tapped" if ok else "nothing happened"),
                      foreground="com.android.settings", activity=".Settings", screen_signature=f"sig{step}",
                      controls_count=12, target=target)


def typing(step: int, text: str, resource_id: str, *, password: bool = False) -> StepRecord:
    target = TargetLocator(name="field", resource_id=resource_id, class_name="android.widget.EditText",
                           password=password, text=text if password else "")
    return StepRecord(step=step, request="", action={"function": "type_text",
                                                     "arguments": {"control_id": step, "text": text}},
                      action_text=f"type {text!r}", decision=Decision("approve"), result=ActionOutcome(True, "typed"),
                      target=target)


def write_run(root: Path, request: str, steps: list[StepRecord], device: dict | None = None) -> Path:
    writer = TrajectoryWriter.create(request, dict(PIXEL if device is None else device), {"name": "test-model"}, {},
                                     root=root)
    for record in steps:
        writer.append_step(record)
    writer.finish(RunResult("success", len(steps), [r.action_text for r in steps], 3.0))
    return writer.run_dir


@pytest.fixture
def wifi_skill(tmp_path) -> Skill:
    run = write_run(tmp_path / "runs", "Turn on Wi-Fi", [
        tap(1, "Network & internet", "android:id/title"),
        tap(2, "Wi-Fi", decision="reject", ok=None),           # the person rejected it: never executed
        tap(3, "Hotspot", ok=False),                           # executed, failed
        tap(4, "Wi-Fi"),
        StepRecord(step=5, request="", status="FINISH", comment="Wi-Fi is on"),
    ])
    return every_value(skill_from_script(script_from_run(run)))


def every_value(skill: Skill) -> Skill:
    """The skill as a person leaves it who generalised every value it could take (one run alone makes an
    exact trigger: tests/core/learning/test_skill_learning.py)."""
    return skill.generalised(set(skill.candidates()[1]))


@pytest.fixture
def store(tmp_path) -> SkillStore:
    return SkillStore(tmp_path / "skills")


def skill_named(name: str, request: str = "Turn on Wi-Fi", trigger: str = "Turn on {item}", **fields) -> Skill:
    fields.setdefault("parameters", {"item": "Wi-Fi"} if "{item}" in trigger else {})
    steps = script_from_steps(request, [tap(1, "Wi-Fi")]).steps
    return Skill(name=name, trigger=trigger, request=request, steps=steps, **fields)


# ---------------------------------------------------------------- made from a run

def test_a_skill_from_a_run_has_its_trigger_parameters_and_kept_steps(wifi_skill):
    assert wifi_skill.name == "Turn on Wi-Fi"
    assert wifi_skill.request == "Turn on Wi-Fi"
    assert wifi_skill.trigger == "Turn on {item}"
    assert wifi_skill.parameters == {"item": "Wi-Fi"}
    assert [step.step for step in wifi_skill.steps] == [1, 4]          # rejected and failed steps left out
    assert wifi_skill.steps[1].target.text == "Wi-Fi"
    assert wifi_skill.steps[1].screen.package == "com.android.settings"
    assert wifi_skill.recorded_on["model"] == "Pixel 7" and wifi_skill.recorded_on["android"] == "14"
    assert wifi_skill.source_run.endswith("turn-on-wi-fi")
    assert wifi_skill.enabled and wifi_skill.history == SkillHistory() and wifi_skill.created_at


def test_typed_text_and_resource_ids_name_the_parameters_and_passwords_never_are(tmp_path):
    run = write_run(tmp_path, "Find pizza near me in Maps, then sign in with hunter2", [
        tap(1, "", "com.android.launcher:id/icon", content_desc="Maps"),
        typing(2, "pizza near me", "com.google.maps:id/search_omnibox"),
        typing(3, PASSWORD_MASK, "com.google.maps:id/password", password=True),
        typing(4, "hunter2", "com.google.maps:id/password", password=True),   # unmasked by mistake
    ])
    skill = every_value(skill_from_script(script_from_run(run), name="Maps search"))
    assert skill.name == "Maps search"
    assert skill.parameters == {"icon": "Maps", "text": "pizza near me"}
    assert skill.trigger == "Find {text} in {icon}, then sign in with hunter2"
    assert [step.arguments["text"] for step in skill.steps[2:]] == [PASSWORD_MASK, PASSWORD_MASK]
    assert "hunter2" not in json.dumps([step.arguments for step in skill.steps])


def test_a_value_only_counts_as_whole_words_of_the_request(tmp_path):
    run = write_run(tmp_path, "Open Mapster, not maps.", [tap(1, "Maps"), tap(2, "Mapster")])
    skill = every_value(skill_from_script(script_from_run(run)))
    assert skill.parameters == {"item": "Maps", "item_2": "Mapster"}          # named in step order
    assert skill.trigger == "Open {item_2}, not {item}."
    run = write_run(tmp_path, "Open Google Maps", [tap(1, "Maps"), tap(2, "Google Maps")])
    assert every_value(skill_from_script(script_from_run(run))).trigger == "Open {item}"      # the longer value wins
    run = write_run(tmp_path, "Open Mapster", [tap(1, "Maps")])
    skill = every_value(skill_from_script(script_from_run(run)))
    assert (skill.trigger, skill.parameters) == ("Open Mapster", {})
    assert match_request("open mapster", [skill]).exact and match_request("open maps", [skill]) is None


def test_a_run_without_replayable_steps_is_no_skill(tmp_path):
    run = write_run(tmp_path, "Turn on Wi-Fi", [tap(1, "Wi-Fi", ok=False)])
    with pytest.raises(SkillError, match="no steps"):
        skill_from_script(script_from_run(run))


def test_script_swaps_the_parameter_values(wifi_skill):
    script = wifi_skill.script({"item": "Bluetooth"})
    assert script.request == "Turn on Bluetooth"
    assert script.steps[1].target.text == "Bluetooth" and script.steps[1].target.name == "Bluetooth"
    assert script.steps[0].target.text == "Network & internet"
    assert wifi_skill.steps[1].target.text == "Wi-Fi"                       # the skill itself is unchanged
    assert wifi_skill.script().steps[1].target.text == "Wi-Fi"
    with pytest.raises(SkillError, match="no parameter colour"):
        wifi_skill.script({"colour": "red"})


# ---------------------------------------------------------------- files

@pytest.mark.parametrize("fmt, suffix", [("yaml", ".yaml"), ("json", ".json")])
def test_a_skill_round_trips_through_its_file(store, wifi_skill, fmt, suffix):
    path = store.save(wifi_skill, fmt)
    assert path.suffix == suffix and path.parent == store.root
    data = yaml.safe_load(path.read_text(encoding="utf-8")) if fmt == "yaml" else json.loads(path.read_text())
    assert data["trigger"] == "Turn on {item}" and data["steps"][1]["target"]["text"] == "Wi-Fi"
    skills, problems = store.load()
    assert problems == []
    assert skills == [wifi_skill]
    assert not [name for name in store.root.iterdir() if name.name.endswith(".tmp")]


def test_a_hand_edited_wrong_field_is_reported_and_skipped_while_others_load(store, wifi_skill):
    store.save(wifi_skill)
    data = wifi_skill.to_dict()
    data["name"] = "Broken"
    data["steps"][1]["action"] = "tap Wi-Fi"
    (store.root / "broken.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    skills, problems = store.load()
    assert [skill.name for skill in skills] == ["Turn on Wi-Fi"]
    assert any(problem.startswith("broken.yaml") and "'steps[1].action'" in problem and "should be an object" in
               problem for problem in problems), problems
    assert store.find("Broken") is None


@pytest.mark.parametrize("text, expected", [
    ("name: [unclosed\n  steps: {\n", "broken.yaml is not valid YAML (line"),
    ("- just\n- a list\n", "its top level is a list"),
    ("", "its top level is empty"),
    ("name: Lonely\nsteps: []\n", "'steps' is empty"),
    ("name: Braces\ntrigger: Turn on {item\nsteps: [{action: {function: click_control}}]\n", "'trigger' cannot"),
    ("name: Typo\ntrigger: Turn on {thing}\nsteps: [{action: {function: click_control}}]\n", "no 'thing'"),
    ("trigger: x\nsteps: [{action: {function: click_control}}]\n", "has no 'name'"),
    ("name: Anchors\nsteps: &a [{action: {function: click_control}}]\nmore: *a\n", "aliases"),
])
def test_a_file_that_is_not_a_skill_is_reported(store, wifi_skill, text, expected):
    store.save(wifi_skill)
    (store.root / "broken.yaml").write_text(text, encoding="utf-8")
    skills, problems = store.load()
    assert [skill.name for skill in skills] == ["Turn on Wi-Fi"]
    assert any(expected in problem and "broken.yaml" in problem for problem in problems), problems


def test_invalid_json_and_binary_files_are_reported(store):
    store.root.mkdir(parents=True)
    (store.root / "a.json").write_text('{"name": "x", ', encoding="utf-8")
    (store.root / "b.yml").write_bytes(b"\xff\xfe\x00garbage\x9c")
    skills, problems = store.load()
    assert skills == []
    assert any(p.startswith("a.json is not valid JSON (line 1") for p in problems), problems
    assert any(p.startswith("b.yml is not a text file") for p in problems), problems


def test_an_edit_between_two_calls_is_seen(store, wifi_skill):
    path = store.save(wifi_skill)
    assert store.find("Turn on Wi-Fi").enabled
    path.write_text(path.read_text(encoding="utf-8").replace("enabled: true", "enabled: false"), encoding="utf-8")
    assert store.find("Turn on Wi-Fi").enabled is False
    path.unlink()
    assert store.load() == ([], [])


def test_save_never_overwrites_another_skill(store):
    first = skill_named("Turn on Wi-Fi")
    second = skill_named("Turn on Wi Fi", created_at="2020-01-01T00:00:00+00:00")   # the same file name
    first_path, second_path = store.save(first), store.save(second)
    assert (first_path.name, second_path.name) == ("turn-on-wi-fi.yaml", "turn-on-wi-fi-2.yaml")
    third = skill_named("Turn on Wi.Fi", created_at="2019-01-01T00:00:00+00:00")
    json_path = store.save(skill_named("Turn-on Wi-Fi", created_at="2018-01-01T00:00:00+00:00"), "json")
    assert json_path.name == "turn-on-wi-fi-3.json"
    assert store.save(third).name == "turn-on-wi-fi-4.yaml"                  # -3 is taken, whatever the format
    assert {skill.name for skill in store.load()[0]} == {"Turn on Wi-Fi", "Turn on Wi Fi", "Turn on Wi.Fi",
                                                          "Turn-on Wi-Fi"}
    stranger = skill_named("turn on wi-fi!", created_at="2021-01-01T00:00:00+00:00")      # the same name
    with pytest.raises(SkillExists):
        store.save(stranger)
    assert store.find("Turn on Wi-Fi").created_at == first.created_at
    first.enabled = False                                      # the same skill, edited: saved in place
    assert store.save(first) == first_path
    assert store.find("turn on wi-fi").enabled is False
    assert store.save(stranger, replace=True) == first_path
    assert store.find("Turn on Wi-Fi").created_at == stranger.created_at


def test_a_skill_that_would_not_read_back_is_not_saved(store):
    with pytest.raises(SkillFileError, match="no 'thing'"):
        store.save(skill_named("Odd", trigger="Turn on {thing}"))
    with pytest.raises(SkillError, match="yaml or json"):
        store.save(skill_named("Odd"), "xml")
    assert not store.root.exists() or not list(store.root.iterdir())


def test_rename_delete_and_record_outcome(store, wifi_skill):
    old_path = store.save(wifi_skill)
    renamed = store.rename("turn on wi-fi", "Wireless on")
    assert renamed.name == "Wireless on" and not old_path.exists()
    assert store.find("Turn on Wi-Fi") is None and store.path_of("Wireless on").name == "wireless-on.yaml"
    store.save(skill_named("Other"))
    with pytest.raises(SkillExists):
        store.rename("Wireless on", "other")
    after = store.record_outcome("Wireless on", True)
    store.record_outcome("Wireless on", False)
    history = store.find("Wireless on").history
    assert (history.successes, history.failures, history.last_outcome) == (1, 1, "failure")
    assert after.history.last_used and history.last_used
    store.delete("Wireless on")
    assert store.find("Wireless on") is None and [s.name for s in store.load()[0]] == ["Other"]
    with pytest.raises(SkillNotFound):
        store.delete("Wireless on")
    with pytest.raises(SkillNotFound):
        store.record_outcome("nothing", True)


def test_import_and_export(store, wifi_skill, tmp_path):
    store.save(wifi_skill)
    as_json = store.export("Turn on Wi-Fi", tmp_path / "out.json")
    as_yaml = store.export("Turn on Wi-Fi", tmp_path / "out.yml")
    assert json.loads(as_json.read_text())["parameters"] == {"item": "Wi-Fi"}
    assert yaml.safe_load(as_yaml.read_text(encoding="utf-8"))["trigger"] == "Turn on {item}"
    with pytest.raises(SkillError, match=".yaml, .yml or .json"):
        store.export("Turn on Wi-Fi", tmp_path / "out.txt")

    other = SkillStore(tmp_path / "elsewhere")
    imported = other.import_file(as_json)
    assert imported.imported and not wifi_skill.imported      # asked before its first step until approved
    imported.imported = False
    assert imported == wifi_skill and other.path_of("Turn on Wi-Fi").suffix == ".json"
    with pytest.raises(SkillExists):
        other.import_file(as_yaml)
    edited = as_yaml.read_text(encoding="utf-8").replace("function: click_control", "function: ''", 1)
    (tmp_path / "bad.yaml").write_text("# hand edited\n" + edited, encoding="utf-8")
    with pytest.raises(SkillFileError) as caught:
        SkillStore(tmp_path / "third").import_file(tmp_path / "bad.yaml")
    assert any("bad.yaml" in p and "'steps[0].action.function'" in p for p in caught.value.problems)
    assert not (tmp_path / "third").exists() or not list((tmp_path / "third").iterdir())


# ---------------------------------------------------------------- matching

def test_exact_then_parameterised_match_and_no_match(wifi_skill):
    exact = match_request("  turn ON   wi-fi! ", [wifi_skill])
    assert exact is not None and exact.exact and exact.values == {"item": "Wi-Fi"} and exact.skill is wifi_skill
    loose = match_request("Turn on Bluetooth", [wifi_skill])
    assert loose is not None and not loose.exact and loose.values == {"item": "Bluetooth"}
    assert match_request("Turn on dark mode.", [wifi_skill]).values == {"item": "dark mode"}
    assert match_request("Turn off Bluetooth", [wifi_skill]) is None
    assert match_request("Turn on", [wifi_skill]) is None
    assert match_request("", [wifi_skill]) is None


def test_disabled_skills_never_match(wifi_skill):
    wifi_skill.enabled = False
    assert match_request("Turn on Wi-Fi", [wifi_skill]) is None
    assert match_request("Turn on Bluetooth", [wifi_skill]) is None


def test_among_several_exact_wins_then_the_reliable_then_the_newest():
    general = skill_named("general", request="Turn on GPS", history=SkillHistory(successes=9))
    wifi = skill_named("wifi", history=SkillHistory(failures=3))
    assert match_request("Turn on Wi-Fi", [general, wifi]).skill is wifi                  # exact wins
    shaky = skill_named("shaky", request="Turn on NFC", history=SkillHistory(successes=20, failures=2))
    assert match_request("Turn on Bluetooth", [shaky, general]).skill is general           # fewer failures
    old = skill_named("old", request="Turn on A", created_at="2020-01-01T00:00:00+00:00")
    new = skill_named("new", request="Turn on B", created_at="2024-01-01T00:00:00+00:00")
    assert match_request("Turn on C", [old, new]).skill is new
    assert match_request("Turn on C", [new, old]).skill is new


# ---------------------------------------------------------------- where it was recorded

def test_differences_name_what_changed_and_nothing_when_the_same(wifi_skill):
    assert differences(wifi_skill, dict(PIXEL, serial="other", screen_size=[2400, 1080])) == []
    virtual = {"model": "AgentDesk Virtual Phone", "android": "13", "screen_size": "720x1600",
               "app_versions": {"com.android.settings": "13.2", "com.other": "1"}}
    assert differences(wifi_skill, virtual) == [
        "recorded on Pixel 7 (Android 14), this is AgentDesk Virtual Phone (Android 13)",
        "recorded on a 1080×2400 screen, this one is 720×1600",
        "com.android.settings was version 14.0.1 when recorded, this phone has 13.2"]
    assert differences(wifi_skill, {}) == []
