"""Issue 27's rules for what a run teaches the skills: a verified ending and progress to be saved, an exact
trigger from one run, a parameter only where two verified runs differ, detours cut, and a stored skill replaced
only by a run that did at least as much from a comparable start."""

from __future__ import annotations

import pytest

from app.core.learning.recorded_steps import ExpectedScreen, RecordedStep, ReplayScript
from app.core.learning.skill_learning import keep_run
from app.core.learning.skill_store import SkillStore
from app.core.learning.skills import SkillError, match_request, skill_from_script
from app.core.learning.step_trimming import trimmed_steps
from app.core.perception.locator import TargetLocator

SETTINGS = "com.android.settings"
HOME = "com.android.launcher3"
NOTES = "com.agentdesk.notes"


def launch(before: str, package: str = SETTINGS, app: str = HOME) -> RecordedStep:
    return RecordedStep(step=0, action={"function": "launch_app", "arguments": {"package_name": package}},
                        action_text="Open the app", screen=ExpectedScreen(app, "", before))


def tap(label: str, before: str, *, toggled: bool | None = None, rid: str = "", app: str = SETTINGS) -> RecordedStep:
    return RecordedStep(step=0, action={"function": "click_control", "arguments": {"control_id": 3,
                                                                                   "control_name": label}},
                        action_text=f"Tap “{label}”", target=TargetLocator(name=label, text=label, resource_id=rid),
                        screen=ExpectedScreen(app, "", before), target_checked=toggled)


def typing(text: str, before: str, field: str = "Title") -> RecordedStep:
    return RecordedStep(step=0, action={"function": "type_text", "arguments": {"control_id": 4, "text": text}},
                        action_text=f"Type “{text}”", target=TargetLocator(name=field, resource_id=f"notes:id/{field}"),
                        screen=ExpectedScreen(NOTES, "", before))


def script(request: str, steps: list[RecordedStep], final: str, run: str = "runs/1") -> ReplayScript:
    for number, step in enumerate(steps, 1):
        step.step = number
    return ReplayScript(request=request, steps=steps, source=run, ended="success", final_screen=final)


def wifi_way(run: str = "runs/wifi", already_on: bool = False) -> ReplayScript:
    steps = [launch("home"), tap("Network & internet", "settings"), tap("Wi‑Fi", "network")]
    if not already_on:
        steps.append(tap("Use Wi‑Fi", "wifi-off", toggled=False))
    return script("Turn on Wi-Fi", steps, "wifi-on", run)


def note(title: str, body: str, run: str) -> ReplayScript:
    return script(f"Create a note called {title} with {body}", [
        launch("home", NOTES), tap("New note", "list", app=NOTES), typing(title, "editor"),
        typing(body, f"editor-{title}", field="Note"), tap("Save", f"editor-{title}-{body}", app=NOTES)],
        f"list-{title}", run)


@pytest.fixture
def store(tmp_path) -> SkillStore:
    return SkillStore(tmp_path / "skills")


def words(steps) -> list[str]:
    return [step.words for step in steps]


# ---------------------------------------------------------------- one run: an exact trigger

def test_one_run_makes_an_exact_trigger_and_the_values_it_could_take_are_listed():
    skill = skill_from_script(wifi_way())
    assert skill.trigger == "Turn on Wi-Fi" and skill.parameters == {}
    assert match_request("Turn on Bluetooth", [skill]) is None               # one run says nothing of Bluetooth
    assert match_request("turn on wi-fi", [skill]).exact
    trigger, values = skill.candidates()
    assert trigger == "Turn on {item}" and values == {"item": "Wi‑Fi"}
    general = skill.generalised({"item"})                                    # the person says so
    assert general.trigger == "Turn on {item}" and match_request("Turn on Bluetooth", [general]).values == {
        "item": "Bluetooth"}
    assert general.generalised(set()).trigger == "Turn on Wi-Fi"
    with pytest.raises(SkillError, match="no value colour"):
        skill.generalised({"colour"})


# ---------------------------------------------------------------- detours are cut

def test_repeated_openings_and_pages_left_again_are_cut():
    """The report's 7-step Bluetooth skill: "Open the app" and "Navigate up" twice each."""
    steps = [launch("home"), tap("Network & internet", "settings"), tap("Navigate up", "network"),
             launch("settings", app=SETTINGS), tap("Connected devices", "settings"), tap("Bluetooth", "connected"),
             tap("Use Bluetooth", "bt-off", toggled=False)]
    kept = trimmed_steps(steps, "bt-on")
    assert words(kept) == ["Open the app", "Tap “Connected devices”", "Tap “Bluetooth”", "Tap “Use Bluetooth”"]


def test_a_switch_flipped_back_is_cut_but_one_flipped_once_or_typed_text_is_kept():
    flipped_back = [launch("home"), tap("Use Wi‑Fi", "wifi-off", toggled=False),
                    tap("Use Wi‑Fi", "wifi-on", toggled=True), tap("Use Wi‑Fi", "wifi-off", toggled=False)]
    assert words(trimmed_steps(flipped_back, "wifi-on")) == ["Open the app", "Tap “Use Wi‑Fi”"]
    away_and_back = [launch("home"), tap("Wi‑Fi", "network"), tap("Use Wi‑Fi", "wifi-off", toggled=False),
                     tap("Navigate up", "wifi-on")]          # the network page looks the same after: keep the switch
    assert len(trimmed_steps(away_and_back, "network")) == 4
    typed = [launch("home", NOTES), typing("Milk", "editor")]    # the field's text is not in the fingerprint
    assert len(trimmed_steps(typed, "editor")) == 2
    started_inside = [launch("settings", app=SETTINGS), tap("Display", "settings")]   # the first opening stays
    assert len(trimmed_steps(started_inside, "display")) == 2


# ---------------------------------------------------------------- what is saved

def test_only_a_verified_run_that_made_progress_is_saved(store):
    told = keep_run(store, wifi_way(), "Turn on Wi-Fi", "claimed")
    assert "not verified" in told[0] and store.load()[0] == []
    round_trip = script("Turn on Wi-Fi", [tap("Network & internet", "settings"), tap("Navigate up", "network")],
                        "settings")
    assert "made no progress" in keep_run(store, round_trip, "Turn on Wi-Fi", "model")[0]
    assert store.load()[0] == []
    assert "Saved as the skill" in keep_run(store, wifi_way(), "Turn on Wi-Fi", "screen")[0]
    assert [skill.name for skill in store.load()[0]] == ["Turn on Wi-Fi"]


def test_two_verified_runs_that_differ_only_in_values_generalise_them(store):
    keep_run(store, note("Groceries", "milk", "runs/1"), "Create a note called Groceries with milk", "screen")
    told = keep_run(store, note("Chores", "laundry", "runs/2"), "Create a note called Chores with laundry", "model")
    assert "now takes other values" in told[0], told
    [skill] = store.load()[0]
    assert skill.trigger == "Create a note called {text} with {text_2}"
    assert skill.parameters == {"text": "Groceries", "text_2": "milk"} and skill.runs == ["runs/1", "runs/2"]
    match = match_request("Create a note called Books with novels", [skill])
    assert match is not None and match.values == {"text": "Books", "text_2": "novels"}
    assert "new values" in skill.script(match.values).approval_needed        # still asks before its first step


def test_runs_that_differ_in_their_way_stay_separate_exact_skills(store):
    keep_run(store, wifi_way(), "Turn on Wi-Fi", "screen")
    bluetooth = script("Turn on Bluetooth", [launch("home"), tap("Connected devices", "settings"),
                                             tap("Bluetooth", "connected"),
                                             tap("Use Bluetooth", "bt-off", toggled=False)], "bt-on", "runs/bt")
    keep_run(store, bluetooth, "Turn on Bluetooth", "screen")
    skills = {skill.name: skill for skill in store.load()[0]}
    assert {name: skill.trigger for name, skill in skills.items()} == {"Turn on Wi-Fi": "Turn on Wi-Fi",
                                                                       "Turn on Bluetooth": "Turn on Bluetooth"}
    assert match_request("Turn on airplane mode", skills.values()) is None


# ---------------------------------------------------------------- what replaces a stored skill

def test_a_run_that_found_the_task_done_or_did_less_never_replaces_the_skill(store):
    keep_run(store, wifi_way("runs/good"), "Turn on Wi-Fi", "screen")
    good = store.find("Turn on Wi-Fi")
    on_already = wifi_way("runs/on", already_on=True)
    on_already.steps.append(tap("Navigate up", "wifi-page"))        # as long as the skill, but flipped nothing
    told = keep_run(store, on_already, "Turn on Wi-Fi", "screen", used=good)
    assert "already done" in told[0], told
    shorter = script("Turn on Wi-Fi", [launch("home"), tap("Use Wi‑Fi", "wifi-off", toggled=False)], "wifi-on",
                     "runs/short")                                   # Settings had been left on the Wi-Fi page
    assert "did less" in keep_run(store, shorter, "Turn on Wi-Fi", "screen", used=good)[0]
    elsewhere = wifi_way("runs/elsewhere")
    elsewhere.steps[0].screen.package = "com.android.chrome"
    assert "started somewhere else" in keep_run(store, elsewhere, "Turn on Wi-Fi", "screen", used=good)[0]
    kept = store.find("Turn on Wi-Fi")
    assert words(kept.steps) == words(good.steps) and kept.runs == ["runs/good"]


def test_a_run_that_did_as_much_from_the_same_start_renews_the_skill(store):
    keep_run(store, wifi_way("runs/old"), "Turn on Wi-Fi", "screen")
    store.record_outcome("Turn on Wi-Fi", True)
    old = store.find("Turn on Wi-Fi")
    moved = script("Turn on Wi-Fi", [launch("home"), tap("Connections", "settings"), tap("Wi‑Fi", "connections"),
                                     tap("Use Wi‑Fi", "wifi-off", toggled=False)], "wifi-on", "runs/new")
    told = keep_run(store, moved, "Turn on Wi-Fi", "model", used=old)
    assert "renewed" in told[0], told
    renewed = store.find("Turn on Wi-Fi")
    assert "Connections" in renewed.steps[1].words and renewed.runs == ["runs/old", "runs/new"]
    assert renewed.history.successes == 1 and renewed.created_at == old.created_at
