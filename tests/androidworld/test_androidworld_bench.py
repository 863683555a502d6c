"""`agentdesk bench androidworld` end to end on the virtual phone: AndroidWorld's own tasks set up the phone, Agent
Desk's agent loop runs their goals with the scripted model, and AndroidWorld's own checkers judge them. The app's
ending must agree with AndroidWorld's verdict: a run the app calls a success that AndroidWorld denies fails."""

from __future__ import annotations

import dataclasses
import io
import json

import pytest

from app.bench.androidworld.bench import (
    ERASED,
    AndroidWorldOptions,
    BenchRefused,
    choose,
    instance_seed,
    run_androidworld,
)
from app.bench.androidworld.catalogue import TaskEntry
from app.bench.androidworld.report import as_dict, render, summary, wilson_interval
from app.bench.oracle_model import OracleModel
from app.bench.task_suite import BenchTask
from app.bench.tasks_bench import ORACLE_KEY, oracle_settings
from app.cli import main
from app.virtual_phone.adb_server import VirtualAdbServer
from app.virtual_phone.phone import VirtualPhone

from .conftest import CHECKOUT

# the system tasks the scripted model plays (with seed 30 TurnOnWifiAndOpenApp asks for the settings app)
PLAYED = ("SystemBluetoothTurnOnVerify", "SystemBrightnessMin", "SystemWifiTurnOff", "TurnOffWifiAndTurnOnBluetooth",
          "TurnOnWifiAndOpenApp")


@pytest.fixture(autouse=True)
def bench_home(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path / "home"))


@pytest.fixture
def oracle():
    with OracleModel(()) as model:
        yield model


def scripted(**options) -> AndroidWorldOptions:
    return AndroidWorldOptions(**options).scripted(ORACLE_KEY)


@pytest.mark.asyncio
async def test_the_scripted_model_reaches_androidworlds_done_and_the_app_agrees(androidworld_registry, oracle):
    phones: list[VirtualPhone] = []

    def phone() -> VirtualPhone:
        phones.append(VirtualPhone())
        return phones[-1]

    options = dataclasses.replace(scripted(tasks=PLAYED), provider={"model": "scripted-7b"})
    report = await run_androidworld(androidworld_registry, options, oracle_settings(oracle.base_url),
                                    oracle=oracle, make_virtual_phone=phone, out=io.StringIO())
    assert report.model == f"scripted-7b at {oracle.base_url}", "the runs' model, with the options' override"
    by_task = {episode.task: episode for episode in report.episodes}
    assert list(by_task) == sorted(PLAYED)
    for episode in report.episodes:
        assert episode.problem == "", episode
        assert episode.score == 1.0, f"{episode.task} ({episode.goal}): AndroidWorld says {episode.score}"
        assert episode.ending == "success", episode
        assert episode.steps >= 3 and episode.calls >= episode.steps and episode.tokens > 0
        assert episode.report.endswith("report.html")
    assert by_task["TurnOnWifiAndOpenApp"].goal == "Turn on Wifi, then open the settings app"
    assert summary(report)["false_successes"] == 0
    # AndroidWorld's set-up happened on the phone: its clock is AndroidWorld's date, its time zone UTC
    assert phones[0].now().year == 2023 and phones[0].get_setting("global", "auto_time") == "0"
    assert len(report.entries) == 116 and set(report.chosen) == set(PLAYED)
    table = render(report)
    assert "Success rate (AndroidWorld's verdicts): 100.0% of 5 episode(s)" in table
    assert "this phone has no net.gsantner.markor (10)" in table and "not chosen (--tasks)" in table


@pytest.mark.asyncio
async def test_a_model_that_claims_success_without_doing_the_task_is_a_false_success(androidworld_registry,
                                                                                      oracle):
    """The scripted model finishes at once (an empty script); AndroidWorld's checker sees Wi-Fi still on."""
    oracle.add_task(BenchTask("liar", "settings", "Turn wifi off.", (), lambda state: (False, "")))
    report = await run_androidworld(androidworld_registry, scripted(tasks=("SystemWifiTurnOff",)),
                                    oracle_settings(oracle.base_url), oracle=None, out=io.StringIO())
    [episode] = report.episodes
    assert episode.ending == "success" and episode.score == 0.0
    assert episode.false_success and summary(report)["false_successes"] == 1
    assert "FALSE SUCCESS: 1 run(s)" in render(report)


@pytest.mark.asyncio
async def test_a_phone_that_is_not_an_emulator_is_refused_with_what_would_be_erased(androidworld_registry, oracle):
    server = VirtualAdbServer().start()
    try:
        attached = server.add_phone(VirtualPhone())
        phone_id = f"{attached.serial}@127.0.0.1:{server.port}"
        with pytest.raises(BenchRefused) as refused:
            await run_androidworld(androidworld_registry, scripted(device=phone_id, tasks=("SystemWifiTurnOff",)),
                                   oracle_settings(oracle.base_url), oracle=oracle, out=io.StringIO())
        words = str(refused.value)
        assert f"--wipe-this-phone {attached.serial}" in words and all(item in words for item in ERASED)
        assert attached.phone.get_setting("global", "auto_time") != "0", "nothing was set up"
        # the wrong serial repeated is still refused; the emulator's property lets it run
        with pytest.raises(BenchRefused):
            await run_androidworld(androidworld_registry, scripted(device=phone_id, wipe_this_phone="emulator-9999",
                                                                   tasks=("SystemWifiTurnOff",)),
                                   oracle_settings(oracle.base_url), oracle=oracle, out=io.StringIO())
        attached.phone.system.properties["ro.boot.qemu"] = "1"
        report = await run_androidworld(androidworld_registry, scripted(device=phone_id, tasks=("SystemWifiTurnOff",)),
                                        oracle_settings(oracle.base_url), oracle=oracle, out=io.StringIO())
        assert [episode.score for episode in report.episodes] == [1.0]
    finally:
        server.stop()


@pytest.mark.asyncio
async def test_a_missing_key_is_refused_before_the_phone_is_set_up(androidworld_registry, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    phones: list[VirtualPhone] = []
    options = AndroidWorldOptions(tasks=("SystemWifiTurnOff",), provider={"base_url": "https://api.example.com/v1"})
    with pytest.raises(BenchRefused, match="key"):
        await run_androidworld(androidworld_registry, options, oracle_settings("https://api.example.com/v1"),
                               make_virtual_phone=lambda: phones.append(VirtualPhone()) or phones[-1])
    assert phones == []


def test_the_command_prints_json_and_exits_0_without_a_false_success(capsys):
    if not CHECKOUT.is_dir():
        pytest.skip(f"AndroidWorld's source is not here: expected it at {CHECKOUT}")
    pytest.importorskip("android_env", reason="android_env (the androidworld extra) is not installed")
    code = main(["bench", "androidworld", "--androidworld", str(CHECKOUT), "--scripted-model", "--tasks",
                 "SystemWifiTurnOn", "--json", "-"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    result = json.loads(captured.out)
    assert [(e["task"], e["verdict"], e["ending"]) for e in result["episodes"]] == [
        ("SystemWifiTurnOn", "done", "success")]
    assert len(result["tasks"]) == 116 and result["summary"]["success_rate"] == 1.0
    assert "SystemWifiTurnOn #1: AndroidWorld 1, the app success" in captured.err


def test_unknown_task_patterns_are_refused_with_a_hint():
    entries = [TaskEntry("SystemWifiTurnOn", "system", ("com.android.settings",)),
               TaskEntry("MarkorCreateNote", "markor", ("net.gsantner.markor",), "this phone has no markor")]
    assert choose(entries, ()) == ["SystemWifiTurnOn"]
    assert choose(entries, ("System*", "markorcreatenote")) == ["SystemWifiTurnOn", "MarkorCreateNote"]
    with pytest.raises(BenchRefused, match="did you mean SystemWifiTurnOn"):
        choose(entries, ("wifi",))


def test_seeds_are_androidworlds_and_the_interval_is_wilsons():
    assert instance_seed(30, "SystemWifiTurnOn", 0) == instance_seed(30, "SystemWifiTurnOn", 0)
    assert instance_seed(30, "SystemWifiTurnOn", 0) != instance_seed(30, "SystemWifiTurnOn", 1)
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-3)
    low, high = wilson_interval(8, 10)
    assert (round(low, 3), round(high, 3)) == (0.49, 0.943)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_the_json_lists_every_task_with_its_reason():
    from app.bench.androidworld.bench import AndroidWorldReport, Episode

    entries = [TaskEntry("A", "system", ("p",)), TaskEntry("B", "markor", ("q",), "this phone has no q")]
    report = AndroidWorldReport("the virtual phone", "m", 30, entries, ["A"], [Episode("A", 1, 5, "do A", 0.5,
                                                                                       "failed")])
    data = as_dict(report)
    assert [(t["name"], t["runnable"], t["reason"]) for t in data["tasks"]] == [("A", True, ""),
                                                                                 ("B", False, "this phone has no q")]
    assert data["episodes"][0]["verdict"] == "not done (0.5)" and data["summary"]["success_rate"] == 0.5


def test_who_is_asked_auto_on_a_test_phone_a_person_on_a_wiped_one_or_in_step_mode():
    from app.bench.androidworld.bench import AndroidWorldBench

    class Instance:
        goal = "Turn wifi off."

    class SystemTask:
        complexity = 1.5

    def request(options: AndroidWorldOptions, person_at_hand: bool = False):
        bench = AndroidWorldBench(None, None, None, {}, options, None, person_at_hand=person_at_hand)
        return bench.request_for(Instance(), SystemTask)

    auto = request(AndroidWorldOptions())
    assert (auto.mode, auto.policy, auto.sensitive_needs_person, auto.max_steps) == ("auto", "fail", False, 15)
    assert auto.use_skills is False and auto.use_map is False and auto.output == ""
    wiped = request(AndroidWorldOptions(max_steps=4), person_at_hand=True)
    assert (wiped.policy, wiped.sensitive_needs_person, wiped.max_steps) == ("person", True, 4)
    step = request(AndroidWorldOptions(mode="step"))
    assert (step.mode, step.policy) == ("step", "person")
