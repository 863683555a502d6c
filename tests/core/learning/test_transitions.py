"""The screens graph's data: a run's events become transitions in a per-phone-kind JSON-lines store,
read back tolerantly (screen_graph.py sums them up: tests/core/learning/test_screen_graph.py)."""

from __future__ import annotations

import json
import threading

import pytest

from app.core.agent.events import EventStream, Message, RunFinished, StepFinished
from app.core.agent.records import ActionOutcome, StepRecord
from app.core.learning.screen_signature import stable_signature
from app.core.learning.transitions import Transition, TransitionRecorder, TransitionStore, phone_kind
from app.core.perception.locator import ControlSummary, TargetLocator

pytestmark = pytest.mark.asyncio

SETTINGS = "com.android.settings"
PHONE = {"model": "Pixel 7", "serial": "emulator-5554", "virtual": False, "android_version": "14"}

LIST_SCREEN = [
    ControlSummary(1, "Network & internet", "TextView", rect=[40, 280, 1000, 420]),
    ControlSummary(2, "recycler_view", "RecyclerView", f"{SETTINGS}:id/recycler_view", rect=[0, 480, 1080, 2300],
                   flags=["scrollable"]),
    ControlSummary(3, "Wi-Fi", "LinearLayout", rect=[0, 500, 1080, 720], flags=["clickable"]),
    ControlSummary(4, "Airplane mode", "LinearLayout", rect=[0, 720, 1080, 940], flags=["clickable"]),
]
WIFI_SCREEN = [
    ControlSummary(1, "Wi-Fi", "TextView", rect=[40, 280, 1000, 420]),
    ControlSummary(2, "Use Wi-Fi", "Switch", "android:id/switch_widget", rect=[900, 500, 1040, 600],
                   flags=["checkable", "checked", "clickable"]),
    ControlSummary(3, "Navigate up", "ImageButton", content_desc="Navigate up", rect=[0, 120, 140, 260],
                   flags=["clickable"]),
]
LIST_ACTIVITY, WIFI_ACTIVITY = f"{SETTINGS}.Settings", f"{SETTINGS}.SubSettings"


def step(number: int, controls, activity: str, function: str = "", outcome: bool | None = True,
         target: TargetLocator | None = None, duration: float = 100.0, **arguments) -> StepRecord:
    return StepRecord(
        step=number, request="turn on Wi-Fi", foreground=SETTINGS, activity=activity, controls=list(controls),
        action={"function": function, "arguments": arguments, "status": "CONTINUE"} if function else {},
        action_text=f"{function} {arguments}" if function else "",
        result=None if outcome is None else ActionOutcome(outcome, "done" if outcome else "no effect", duration),
        target=target, timestamp=f"2025-01-01T10:00:{number:02d}+00:00")


def wifi_row() -> TargetLocator:
    return TargetLocator(name="Wi-Fi", xpath='//*[@text="Wi-Fi"]', text="Wi-Fi",
                         class_name="android.widget.LinearLayout", bounds=[0, 500, 1080, 720])


def screen_id(controls, activity: str) -> str:
    return stable_signature(SETTINGS, activity, controls).id


def play(events: EventStream, steps: list[StepRecord]) -> None:
    for item in steps:
        events.emit(StepFinished(item.step, item))
    events.emit(RunFinished(None))


def a_run() -> list[StepRecord]:
    """Open Wi-Fi (ok); a rejected back (no result); back (failed); open Wi-Fi again (ok), then the run ends."""
    return [
        step(1, LIST_SCREEN, LIST_ACTIVITY, "click_control", True, wifi_row(), 120.0, control_id=3),
        step(2, WIFI_SCREEN, WIFI_ACTIVITY, "press_back", None),
        step(3, WIFI_SCREEN, WIFI_ACTIVITY, "press_back", False, duration=80.0),
        step(4, LIST_SCREEN, LIST_ACTIVITY, "click_control", True, wifi_row(), 140.0, control_id=3),
    ]


async def record(store: TransitionStore, run_id: str, steps: list[StepRecord], phone=PHONE,
                 versions=None) -> TransitionRecorder:
    events = EventStream()
    recorder = TransitionRecorder(events, store, phone, run_id, versions)
    recorder.attach()
    play(events, steps)
    await recorder.close()
    return recorder


def graph_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name.startswith("agentdesk-graph")]


async def test_a_run_becomes_transitions_between_its_screens(tmp_path):
    store = TransitionStore(tmp_path)
    asked: list[str] = []

    def versions(package: str) -> str:
        asked.append(package)
        return "15.0.1"

    recorder = await record(store, "run-1", a_run(), versions=versions)
    transitions, problems = store.read()
    assert problems == [] and recorder.problems == []
    listing, wifi = screen_id(LIST_SCREEN, LIST_ACTIVITY), screen_id(WIFI_SCREEN, WIFI_ACTIVITY)
    assert listing != wifi
    assert [(t.from_screen, t.to_screen, t.step, t.success) for t in transitions] == [
        (listing, wifi, 1, True), (wifi, listing, 3, False), (listing, "", 4, True)]
    first, back, last = transitions
    assert (first.from_activity, first.to_activity, last.to_activity) == (LIST_ACTIVITY, WIFI_ACTIVITY, "")
    assert first.action == {"function": "click_control", "arguments": {"control_id": 3}}
    assert first.locator == wifi_row() and back.locator is None
    assert (first.duration_ms, back.duration_ms) == (120.0, 80.0)
    assert {(t.run_id, t.app, t.phone_model, t.android_version, t.app_version) for t in transitions} == {
        ("run-1", SETTINGS, "Pixel 7", "14", "15.0.1")}
    assert first.at == "2025-01-01T10:00:01+00:00" and first.request == "turn on Wi-Fi"
    assert asked == [SETTINGS], "an app's version is asked once per run"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["screens-pixel-7-android-14",
                                                          "transitions-pixel-7-android-14.jsonl"]
    cards = sorted(p.suffix for p in (tmp_path / "screens-pixel-7-android-14").iterdir())
    assert cards == [".json", ".json"], "one card per screen met (no picture: the steps had none)"
    assert recorder.written == 3 and graph_threads() == []


async def test_two_runs_append_to_the_same_file_and_other_phones_to_theirs(tmp_path):
    store = TransitionStore(tmp_path)
    await record(store, "run-1", a_run())
    await record(store, "run-2", a_run()[:2])
    await record(store, "run-3", a_run()[:1], phone={"model": "Galaxy S23", "serial": "R5", "virtual": False})
    path = store.path_for("pixel-7-android-14")
    assert len(path.read_text(encoding="utf-8").splitlines()) == 4
    assert store.kinds() == ["galaxy-s23-android-unknown", "pixel-7-android-14"]
    pixel, _ = store.read("pixel-7-android-14")
    assert [(t.run_id, t.step, t.to_screen == "") for t in pixel] == [
        ("run-1", 1, False), ("run-1", 3, False), ("run-1", 4, True), ("run-2", 1, False)]
    everything, _ = store.read()
    assert len(everything) == 5
    assert store.read("no-such-phone") == ([], [])


async def test_a_late_reader_gets_the_run_so_far_and_unreadable_screens_are_not_guessed(tmp_path):
    store = TransitionStore(tmp_path)
    events = EventStream()
    blind = step(2, [], WIFI_ACTIVITY, "press_back", True)
    blind.screen_only = True
    for item in (step(1, LIST_SCREEN, LIST_ACTIVITY, "click_control", True, wifi_row(), control_id=3), blind,
                 step(3, LIST_SCREEN, LIST_ACTIVITY, "", True)):          # a FINISH: no action
        events.emit(StepFinished(item.step, item))
    events.emit(Message("not a step"))
    recorder = TransitionRecorder(events, store, PHONE, "late")
    recorder.attach()
    events.emit(RunFinished(None))
    await recorder.close()
    transitions, _ = store.read()
    assert [(t.step, t.to_screen) for t in transitions] == [(1, "")]


async def test_a_damaged_line_is_skipped_and_named_with_its_file_and_line(tmp_path):
    store = TransitionStore(tmp_path)
    await record(store, "run-1", a_run()[:2])
    path = store.path_for("pixel-7-android-14")
    good = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("{this is not json\n")
        handle.write("[1, 2]\n\n")
        handle.write(json.dumps({**good, "step": "three", "success": "yes"}) + "\n")
        handle.write(json.dumps({"to_screen": "x"}) + "\n")
        handle.write('{"from_screen": "cut sh')                                   # a crash mid-line
    await record(store, "run-2", a_run()[:2])
    transitions, problems = store.read()
    assert [t.run_id for t in transitions] == ["run-1", "run-1", "run-2"]
    assert transitions[1].step == 0 and transitions[1].success is False
    assert all(str(path) in problem for problem in problems)
    joined = "\n".join(problems)
    for number in (2, 3, 5, 6, 7):
        assert f"line {number}:" in joined, (number, problems)
    assert "'step'" in joined and "'success'" in joined
    assert sum(problem.endswith("; skipped") for problem in problems) == 4


async def test_a_failing_disk_is_reported_and_never_raised(tmp_path, caplog):
    blocker = tmp_path / "graph"
    blocker.write_text("a file where the folder should be", encoding="utf-8")
    recorder = await record(TransitionStore(blocker), "run-1", a_run())
    assert recorder.written == 0 and len(recorder.problems) == 5      # 3 transitions, 2 screens' cards
    assert all("could not be written" in problem for problem in recorder.problems)
    assert sum("the card of screen" in problem for problem in recorder.problems) == 2
    assert any("screens graph" in message for message in caplog.messages)
    assert graph_threads() == []


async def test_close_without_run_finished_writes_the_open_transition_and_leaves_no_thread(tmp_path):
    store = TransitionStore(tmp_path)
    events = EventStream()
    recorder = TransitionRecorder(events, store, PHONE, "run-1")
    recorder.attach()
    for item in a_run()[:1]:
        events.emit(StepFinished(item.step, item))
    assert store.read()[0] == []            # nothing written yet: the first action's next screen is unknown
    await recorder.close()
    await recorder.close()                  # twice is harmless
    assert [(t.step, t.to_screen) for t in store.read()[0]] == [(1, "")]
    assert graph_threads() == []
    events.emit(StepFinished(9, a_run()[0]))   # after close: not read
    assert len(store.read()[0]) == 1


def transition(source: str, target: str, ok: bool, ms: float, control_id: int = 3, run: str = "r1",
               locator: TargetLocator | None = None, function: str = "click_control") -> Transition:
    return Transition(from_screen=source, to_screen=target, app="com.a", action={
        "function": function, "arguments": {"control_id": control_id}}, locator=locator, success=ok,
        duration_ms=ms, run_id=run, phone_model="Pixel 7", android_version="14")


async def test_typed_text_is_content_not_part_of_an_edge():
    typed = [Transition(from_screen="s", to_screen="t", action={"function": "type_text",
                                                                "arguments": {"text": words, "control_id": 4}})
             for words in ("hello", "good bye")]
    assert typed[0].action_key == typed[1].action_key == "type_text"
    opened = Transition(from_screen="s", action={"function": "open_app", "arguments": {"package": "com.b"}})
    assert opened.action_key == 'open_app {"package": "com.b"}'


async def test_round_trip_phone_kinds_and_default_folder(tmp_path, monkeypatch):
    original = transition("a", "b", True, 12.5, locator=TargetLocator(resource_id="x", bounds=[1, 2, 3, 4]))
    again = Transition.from_dict(json.loads(json.dumps(original.to_dict())))
    assert again == original and again.problems == []
    assert phone_kind("Pixel 7 Pro", "14") == "pixel-7-pro-android-14"
    assert phone_kind("", "") == "unknown-phone-android-unknown"
    assert phone_kind("SM-G991B/DS", "13.0") == "sm-g991b-ds-android-13-0"
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path))
    assert TransitionStore().root == tmp_path / "data" / "graph"
