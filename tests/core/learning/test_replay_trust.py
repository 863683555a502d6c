"""Issue 25's trust rules for what is replayed: a skill's parameter goes only where a step used exactly its
value; an imported skill, a skill with new values, an edited run folder and an imported map's way all ask a
person before their first step (`ReplayScript.approval_needed`) until a person has approved a run of them."""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import asdict

from app.cli import main
from app.core.agent.records import ActionOutcome, Decision, StepRecord
from app.core.agent.steps_seal import STEPS_SEAL_KEY
from app.core.learning.map_sharing import export_map, import_map
from app.core.learning.navigation import MapGuide
from app.core.learning.recorded_steps import script_from_run
from app.core.learning.screen_graph import load_graph
from app.core.learning.skill_store import SkillStore
from app.core.learning.skills import skill_from_script
from app.core.learning.transitions import TransitionStore
from app.core.perception.locator import TargetLocator
from tests.core.learning.test_screen_graph import KIND, MAIN, WIFI, settings_runs
from tests.core.learning.test_skills import tap, write_run

NETWORK_ROW = "Network & internet, Mobile, Wi‑Fi, hotspot"


def row_tap(step: int, name: str, text: str = "") -> StepRecord:
    """A tap on a Settings row as the virtual phone records it: a container named by its children."""
    target = TargetLocator(name=name, text=text, class_name="android.widget.LinearLayout",
                           xpath=f"//row[{step}]", bounds=[0, 100 * step, 1080, 100 * step + 90], node_path=[0, step])
    return StepRecord(step=step, request="", action={"function": "click_control", "arguments": {"control_id": step}},
                      action_text=f"Tap “{name}” (#{step})", decision=Decision("approve"),
                      result=ActionOutcome(True, "tapped"), foreground="com.android.settings",
                      activity=".Settings", screen_signature=f"sig{step}", controls_count=12, target=target)


def wifi_in_settings(tmp_path):
    run = write_run(tmp_path / "runs", "Turn on Wi-Fi in Settings", [
        row_tap(1, NETWORK_ROW), row_tap(2, "Wi‑Fi, Off"), row_tap(3, "Use Wi‑Fi", text="Use Wi‑Fi"),
        StepRecord(step=4, request="", status="FINISH", comment="Wi-Fi is on")])
    return skill_from_script(script_from_run(run)).generalised({"item"})     # as a person may choose


# ---------------------------------------------------------------- substitution

def test_a_parameter_goes_only_into_a_control_recorded_by_exactly_its_value(tmp_path):
    """The attack: reused for Bluetooth, "Bluetooth" went into the unrelated row "Network & internet, Mobile,
    Wi‑Fi, hotspot" (and "Use Wi‑Fi" would have read "Use Bluetooth" while the switch tapped is Wi‑Fi's)."""
    skill = wifi_in_settings(tmp_path)
    assert skill.trigger == "Turn on {item} in Settings" and skill.parameters == {"item": "Wi‑Fi"}
    script = skill.script({"item": "Bluetooth"})
    network, wifi, switch = script.steps
    assert wifi.target.name == "Bluetooth, Off" and wifi.action_text == "Tap “Bluetooth, Off” (#2)"
    assert network.target.name == NETWORK_ROW and network.action_text == f"Tap “{NETWORK_ROW}” (#1)"
    assert network.target.xpath == "//row[1]"                   # the untouched step still finds its own row
    assert switch.target.text == "Use Wi‑Fi" and switch.action_text == "Tap “Use Wi‑Fi” (#3)"
    assert "Bluetooth" not in json.dumps([asdict(network), asdict(switch)], ensure_ascii=False)


def test_typed_text_is_swapped_only_when_it_is_the_value(tmp_path):
    typing = StepRecord(step=1, request="", action={"function": "type_text", "arguments": {"control_id": 1,
                                                                                           "text": "pizza"}},
                        action_text="Type “pizza”", decision=Decision("approve"), result=ActionOutcome(True, "typed"),
                        target=TargetLocator(name="Search", class_name="android.widget.EditText"))
    other = StepRecord(step=2, request="", action={"function": "type_text", "arguments": {"control_id": 1,
                                                                                          "text": "pizza, please"}},
                       action_text="Type “pizza, please”", decision=Decision("approve"),
                       result=ActionOutcome(True, "typed"), target=TargetLocator(name="Note"))
    skill = skill_from_script(script_from_run(write_run(tmp_path, "Search pizza", [typing, other]))).generalised(
        {"text"})
    assert skill.parameters == {"text": "pizza"}
    first, second = skill.script({"text": "sushi"}).steps
    assert first.arguments["text"] == "sushi" and first.action_text == "Type “sushi”"
    assert second.arguments["text"] == "pizza, please"


# ---------------------------------------------------------------- skills ask until a person approved one

def test_an_imported_skill_asks_until_a_person_approved_a_run_of_it(tmp_path):
    """The attack: an imported skill with a broad trigger (its file even claiming approval) takes over requests
    in auto mode without asking."""
    mine = SkillStore(tmp_path / "mine")
    skill = wifi_in_settings(tmp_path)
    mine.save(skill)
    assert mine.find(skill.name).script().approval_needed == ""          # this desk's own, its recorded values
    shared = mine.export(skill.name, tmp_path / "shared.yaml")
    text = shared.read_text(encoding="utf-8").replace("approved_runs: 0", "approved_runs: 7")
    shared.write_text("# shared by a stranger\n" + text + "imported: false\n", encoding="utf-8")

    theirs = SkillStore(tmp_path / "theirs")
    imported = theirs.import_file(shared)
    assert imported.imported and imported.approved_runs == 0
    kept = theirs.path_of(skill.name).read_text(encoding="utf-8")
    assert kept.startswith("# shared by a stranger") and "approved_runs: 7" not in kept     # comments kept
    assert "was imported and has not been approved by you yet" in theirs.find(skill.name).script().approval_needed

    theirs.record_outcome(skill.name, True)                        # a success nobody approved: still asks
    assert theirs.find(skill.name).script().approval_needed
    theirs.record_outcome(skill.name, False, approved=True)        # approved, but it failed: still asks
    assert theirs.find(skill.name).script().approval_needed
    theirs.record_outcome(skill.name, True, approved=True)
    approved = theirs.find(skill.name)
    assert approved.approved_runs == 1 and approved.script({"item": "Bluetooth"}).approval_needed == ""


def test_a_json_skill_file_is_marked_imported_too(tmp_path):
    mine = SkillStore(tmp_path / "mine")
    skill = wifi_in_settings(tmp_path)
    skill.approved_runs = 3
    mine.save(skill, "json")
    shared = mine.export(skill.name, tmp_path / "shared.json")
    imported = SkillStore(tmp_path / "theirs").import_file(shared)
    assert imported.imported and imported.approved_runs == 0
    assert SkillStore(tmp_path / "theirs").find(skill.name).script().approval_needed


def test_a_skill_with_new_values_asks_until_a_person_approved_a_run(tmp_path):
    store = SkillStore(tmp_path / "skills")
    skill = wifi_in_settings(tmp_path)
    store.save(skill)
    assert skill.script().approval_needed == "" and skill.script({"item": "wi-fi"}).approval_needed == ""
    assert "used with new values" in skill.script({"item": "Bluetooth"}).approval_needed
    store.record_outcome(skill.name, True, approved=True)
    assert store.find(skill.name).script({"item": "Bluetooth"}).approval_needed == ""


# ---------------------------------------------------------------- edited run folders

def test_an_edited_or_foreign_run_folder_asks_before_its_first_step(tmp_path):
    """The attack: steps.jsonl edited after the run (another tap put in), then replayed in auto mode."""
    run = write_run(tmp_path / "runs", "Turn on Wi-Fi", [tap(1, "Network & internet"), tap(2, "Wi-Fi")])
    assert script_from_run(run).approval_needed == ""
    steps = run / "steps.jsonl"
    original = steps.read_bytes()
    steps.write_bytes(original.replace(b'"Wi-Fi"', b'"Factory reset"'))
    assert "not as this desk recorded them" in script_from_run(run).approval_needed
    forged = json.loads((run / "run.json").read_text(encoding="utf-8"))       # a digest anyone can compute
    forged[STEPS_SEAL_KEY] = hashlib.sha256(steps.read_bytes()).hexdigest()
    (run / "run.json").write_text(json.dumps(forged), encoding="utf-8")
    assert script_from_run(run).approval_needed

    other = write_run(tmp_path / "runs", "Turn on Wi-Fi", [tap(1, "Wi-Fi")])
    copied = shutil.copytree(other, tmp_path / "elsewhere" / other.name)       # from another desk's runs folder
    assert script_from_run(other).approval_needed == "" and script_from_run(copied).approval_needed
    unsealed = json.loads((other / "run.json").read_text(encoding="utf-8"))   # a run from before seals
    del unsealed[STEPS_SEAL_KEY]
    (other / "run.json").write_text(json.dumps(unsealed), encoding="utf-8")
    assert script_from_run(other).approval_needed
    assert skill_from_script(script_from_run(other)).imported            # a skill saved from it is not ours


# ---------------------------------------------------------------- imported maps

def wifi_way(root):
    guide = MapGuide(load_graph(KIND, root))
    guide.signature = lambda *_: MAIN                 # the phone shows Settings' main screen
    guide.observe("com.android.settings", ".Settings", [])
    name = next(name for name, goal in guide.offered_names().items() if goal == WIFI)
    script, _, _ = guide.way_to(name)
    return script


def test_an_imported_maps_way_asks_before_its_first_step_until_a_run_here_took_it(tmp_path):
    """The attack: a shared map's way (to "Wi‑Fi", really any tap) walked in auto mode without asking."""
    theirs, mine = tmp_path / "theirs", tmp_path / "mine"
    TransitionStore(theirs).append(settings_runs())
    assert wifi_way(theirs).approval_needed == ""                          # their own runs' way
    import_map(export_map(KIND, tmp_path / "map.zip", theirs), mine)
    assert all(transition.imported for transition in TransitionStore(mine).read(KIND)[0])
    assert "came from an imported map" in wifi_way(mine).approval_needed
    again = import_map(tmp_path / "map.zip", mine)                        # marked lines are still known lines
    assert again.transitions_added == 0

    TransitionStore(mine).append(settings_runs())                          # a run here took the same way
    assert wifi_way(mine).approval_needed == ""


def test_the_skills_import_command_marks_the_skill_and_says_it_will_ask(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path / "home"))
    shared = SkillStore(tmp_path / "theirs")
    shared.save(wifi_in_settings(tmp_path))
    file = shared.export("Turn on Wi-Fi in Settings", tmp_path / "shared.yaml")
    assert main(["skills", "import", str(file)]) == 0
    assert "It asks you before its first step, even in auto mode" in capsys.readouterr().out
    assert SkillStore().find("Turn on Wi-Fi in Settings").script().approval_needed
