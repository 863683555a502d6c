"""History tells the truth (issue 17, section 4), in the core: rejected proposals, edits, overrides and
questions are recorded with who decided; the report draws where the action touched the screen, shows the
screen after each step (the next one's, or the screen the run left), times in words, the phone in words,
and stays self-contained and redacted; a step is told recorded only once its pictures are on disk."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from PIL import Image

from app.core.agent.actions import Action
from app.core.agent.events import (
    ActionExecuted,
    EventStream,
    ObservationReady,
    ProposalMade,
    QuestionAnswered,
    QuestionAsked,
    ReviewAnswered,
    StepFinished,
    StepRecorded,
    StepStarted,
)
from app.core.agent.history_words import device_words, human_duration, step_decision_note
from app.core.agent.memory import ActionOutcome, Decision, MemoryItem, RunResult
from app.core.agent.report import write_report
from app.core.agent.report_images import FINAL_SCREEN_FILE, action_marks
from app.core.agent.step_reviews import ProposalReview, ReviewedStep, ReviewLog, load_reviewed_run
from app.core.agent.supervisor import Proposal, ReviewAnswer
from app.core.agent.trajectory import TrajectoryWriter, check_run, load_run
from app.core.perception.controls import Control
from app.core.perception.locator import TargetLocator
from app.core.redaction import PASSWORD_MASK
from app.core.runs.recorder import RunRecorder
from tests.e2e.conftest import ScriptedPerson, agent_home, phone_server, run_agent  # noqa: F401  (fixtures)
from tests.support.openai_server import act, click, json_reply

SIZE = (1080, 2400)
NEW_NOTE = [900, 2080, 1040, 2220]            # a control's bounds, device pixels


def action(function: str, **arguments) -> dict:
    return {"function": function, "arguments": arguments, "status": "CONTINUE"}


@pytest.mark.parametrize("seconds, words", [(0, "0 s"), (0.004, "under 0.1 s"), (0.4, "0.4 s"), (1.234, "1.2 s"),
                                            (12.4, "12 s"), (185, "3 min 5 s"), (120, "2 min"),
                                            (3720, "1 h 2 min"), (None, "–")])
def test_durations_are_said_as_a_person_would(seconds, words):
    assert human_duration(seconds) == words


def test_the_phone_is_described_in_words_not_flags():
    lines = device_words({"id": "emulator-5554@127.0.0.1:5037", "serial": "emulator-5554", "model": "AgentDesk Virtual "
                          "Phone", "virtual": True, "android_version": "14", "sdk": "34", "screen_size": [1080, 2400]})
    assert lines[0] == "AgentDesk Virtual Phone, the built-in virtual phone"
    assert "Android 14 (API level 34)" in lines and "screen 1080 × 2400 pixels" in lines
    assert not any("True" in line or "virtual:" in line for line in lines)
    assert device_words({"serial": "192.168.1.20:5555", "virtual": False})[0] == "a phone over Wi-Fi"


def test_a_tap_is_drawn_where_it_landed_and_a_key_is_not_drawn():
    marks, words = action_marks(action("click_control", control_id=4), NEW_NOTE, SIZE)
    assert words == "tapped here"
    assert '<circle cx="970" cy="2150"' in marks                  # the middle of the control
    assert '<rect x="900" y="2080" width="140" height="140"' in marks
    marks, words = action_marks(action("swipe", start_x=540, start_y=1800, end_x=540, end_y=600), None, SIZE)
    assert words == "swiped along the arrow" and '<line x1="540" y1="1800" x2="540" y2="600"' in marks
    assert action_marks(action("press_key", key_code="BACK"), None, SIZE) == ("", "")
    assert "rejected" in action_marks(action("tap", x=10, y=20), None, SIZE, rejected=True)[1]


def proposal(step: int, act_: dict, controls: list[Control] | None = None, target: Control | None = None) -> Proposal:
    return Proposal(step=step, action=Action.model_validate(act_), action_text=f"do {act_['function']}",
                    controls=controls or [], target=target)


def test_the_review_log_keeps_rejections_with_who_and_why_and_masks_passwords():
    password = Control(id=3, name="Password", type="EditText", class_name="android.widget.EditText",
                       resource_id="", text="", content_desc="", rect=(40, 500, 1040, 600), password=True)
    log = ReviewLog()
    log.on_event(StepStarted(2))
    log.on_event(ProposalMade(2, proposal(2, action("type_text", text="hunter2", control_id=3), [password], password)))
    log.on_event(ReviewAnswered(2, ReviewAnswer.reject("not into the password field")))
    log.on_event(ProposalMade(2, proposal(2, action("press_key", key_code="BACK"))))
    log.on_event(ReviewAnswered(2, ReviewAnswer.approve()))
    log.on_event(QuestionAsked("Which account?"))
    log.on_event(QuestionAnswered("Which account?", "the work one"))
    step = log.take(MemoryItem(2, "sign in", action=action("press_key", key_code="BACK"), decision=Decision("approve"),
                               result=ActionOutcome(True, "pressed")))
    assert isinstance(step, ReviewedStep)
    rejected, approved = step.reviews
    assert (rejected.decision, rejected.by, rejected.feedback) == ("reject", "person", "not into the password field")
    assert rejected.action["arguments"]["text"] == PASSWORD_MASK and "hunter2" not in str(step.to_dict())
    assert rejected.target_rect == [40, 500, 1040, 600]
    assert approved.decision == "approve"
    assert (step.questions[0].question, step.questions[0].answer) == ("Which account?", "the work one")
    assert step_decision_note(step) == "by you, after 1 rejected proposal"
    # a step with one proposal, approved, adds nothing: it stays a plain record (its line stays as it was)
    log.on_event(ProposalMade(3, proposal(3, action("press_key", key_code="HOME"))))
    log.on_event(ReviewAnswered(3, ReviewAnswer.approve()))
    plain = log.take(MemoryItem(3, "sign in", decision=Decision("approve"), result=ActionOutcome(True, "")))
    assert not isinstance(plain, ReviewedStep)


def screen(colour: str) -> Image.Image:
    return Image.new("RGB", SIZE, colour)


def test_the_report_shows_a_tap_an_after_screen_rejections_questions_and_words(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path))
    writer = TrajectoryWriter.create("Make a note", {"serial": "emulator-5554", "model": "AgentDesk Virtual Phone",
                                                     "virtual": True, "screen_size": list(SIZE)},
                                     {"model": "gpt-4o", "base_url": "http://127.0.0.1:9/v1"},
                                     {"agent": {"mode": "step"}})
    first = ReviewedStep(1, "Make a note", action=action("click_control", control_id=4, control_name="New note"),
                         action_text="Tap “New note” (#4)", decision=Decision("approve", feedback="wrong app"),
                         result=ActionOutcome(True, "tapped", 1234.0),
                         timings_ms={"data_collection": 400.0, "llm_interaction": 185000.0},
                         reviews=[ProposalReview(action("press_key", key_code="HOME"), "Press HOME", decision="reject",
                                                 feedback="wrong app"),
                                  ProposalReview(action("click_control", control_id=4), "Tap “New note” (#4)",
                                                 decision="approve")])
    first.screenshot, first.annotated_screenshot = writer.save_screens(1, screen("white"), screen("blue"))
    first.target = TargetLocator(name="New note", resource_id="notes:id/fab_new_note", bounds=NEW_NOTE)
    writer.append_step(first)
    second = MemoryItem(2, "Make a note", action=action("ask_user", question="Which title?"),
                        action_text="Ask you: Which title?", decision=Decision("override"),
                        result=ActionOutcome(True, "The person answered: Groceries"))
    second.screenshot, second.annotated_screenshot = writer.save_screens(2, screen("green"), None)
    writer.append_step(second)
    screen("red").save(writer.run_dir / FINAL_SCREEN_FILE)
    writer.finish(RunResult("success", 2, [], 185.4))
    page = write_report(writer.run_dir).read_text(encoding="utf-8")
    cards = page.split('<section class="card step"')[1:]
    assert len(cards) == 2
    # the tap: a ring in the middle of the control, on step 1's own picture; the after-picture is step 2's
    assert '<g class="mark">' in cards[0] and '<circle cx="970" cy="2150"' in cards[0]
    uses = re.findall(r'<use href="#(pic-\d+)"', cards[0])
    assert uses == ["pic-1", "pic-2"] and "Before: tapped here" in cards[0]
    # the last step's after-picture is the screen the run left
    assert re.findall(r'<use href="#(pic-\d+)"', cards[1]) == ["pic-2", "pic-3"]
    assert "After: the screen the run left" in cards[1]
    assert len(re.findall(r"<image\b", page)) == 3          # each picture embedded once
    # who decided what, in words
    assert "Press HOME" in cards[0] and "rejected by you: wrong app" in cards[0]
    assert "by you, after 1 rejected proposal" in cards[0]
    assert "asked you: Which title? / you answered: Groceries" in cards[1] and "your own action" in cards[1]
    # times and the phone in words, not milliseconds and flags
    assert "took 3 min 5 s" in cards[0] and "(took 1.2 s)" in cards[0] and "ms" not in cards[0].split("<details")[0]
    assert "3 min 5 s" in page.split('<section class="card step"')[0]
    assert "the built-in virtual phone" in page and "virtual True" not in page and ">True<" not in page
    # still one self-contained page: nothing outside it is referenced, the zoom is inline
    assert all(ref.startswith(("#pic-", "data:image/jpeg;base64,")) for ref in re.findall(r'href="([^"]*)"', page))
    assert '<script>' in page and "<script src" not in page and 'button class="zoom"' in page


def test_a_step_is_told_recorded_only_after_its_pictures_are_on_disk(tmp_path, monkeypatch):
    """The recorder writes pictures and lines on one worker, in order: however slow the pictures, the step's
    line and its StepRecorded come after them (a timeline shows the row with its thumbnail)."""
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path))

    async def scenario() -> list[bool]:
        writer = TrajectoryWriter.create("slow disk", {}, {}, {})
        real_save = writer.save_screens

        def slow_save(step, clean, annotated):
            time.sleep(0.3)
            return real_save(step, clean, annotated)

        writer.save_screens = slow_save
        events = EventStream()
        recorder = RunRecorder(writer, events)
        present = []
        events.subscribe(lambda event: present.append(
            all((writer.run_dir / name).is_file() for name in (event.item.screenshot, event.item.annotated_screenshot)))
            if isinstance(event, StepRecorded) else None)
        for step in (1, 2):
            events.emit(StepStarted(step))
            events.emit(ObservationReady(step, screen("white"), screen("blue")))
            events.emit(StepFinished(step, MemoryItem(step, "slow disk", result=ActionOutcome(True, ""))))
        await recorder.close(RunResult("success", 2, [], 1.0))
        return present

    assert asyncio.run(scenario()) == [True, True]


class StillScreen:
    """A frame source whose screen does not change after the last action (a streamed mirror sends nothing)."""

    def __init__(self, image: Image.Image, captured_at: float):
        self.frame = SimpleNamespace(image=image, captured_at=captured_at)

    def latest(self):
        return self.frame

    async def frame_after(self, moment=None):
        await asyncio.sleep(3600)


def test_the_screen_the_run_left_is_saved_after_a_last_action(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path))
    monkeypatch.setattr("app.core.runs.final_screen.FRAME_WAIT_SECONDS", 0.05)

    async def scenario():
        writer = TrajectoryWriter.create("final", {}, {}, {})
        events = EventStream()
        recorder = RunRecorder(writer, events)
        recorder.final_screen.frames = StillScreen(screen("purple"), captured_at=0.0)   # older than the action
        events.emit(StepStarted(1))
        events.emit(ObservationReady(1, screen("white"), None))
        events.emit(ActionExecuted(1, "Tap", True))
        events.emit(StepFinished(1, MemoryItem(1, "final", result=ActionOutcome(True, ""))))
        await recorder.close(RunResult("success", 1, [], 1.0))
        return writer.run_dir

    run_dir = asyncio.run(scenario())
    with Image.open(run_dir / FINAL_SCREEN_FILE) as final:
        assert final.convert("RGB").getpixel((5, 5)) == (128, 0, 128)
    assert check_run(run_dir) == []


@pytest.mark.asyncio
async def test_a_real_run_records_the_rejection_the_question_and_reports_the_tap(run_agent):  # noqa: F811 (fixture)
    """Through the run service on the virtual phone: the person rejects a proposal, then approves; the agent
    asks a question; the record and the report say so, and the report draws the tap and the screens after."""
    script = [json_reply(act("launch_app", package_name="com.agentdesk.notes")),
              json_reply(act("press_key", key_code="HOME")),                        # rejected
              click("New note"),
              json_reply(act("ask_user", question="Which title?")),
              json_reply(act("press_key", key_code="BACK", status="FINISH"))]
    reject = lambda proposal: ReviewAnswer.reject("stay in Notes")                   # noqa: E731
    approve = lambda proposal: ReviewAnswer.approve()                                # noqa: E731
    person = ScriptedPerson(answers=[approve, reject, approve, approve, approve], replies=["Groceries"])
    outcome = await run_agent("Start a note", script, person)
    assert outcome.result.status == "success", outcome.result
    run_dir = outcome.result.run_dir
    assert outcome.trajectory_problems() == []
    steps = load_reviewed_run(run_dir).steps
    tap_step = next(step for step in steps if step.action.get("function") == "click_control")
    assert [(r.action_text, r.decision, r.feedback) for r in tap_step.reviews][0] == ("Press HOME", "reject",
                                                                                       "stay in Notes")
    asked = next(step for step in steps if step.action.get("function") == "ask_user")
    assert asked.questions[0].answer == "Groceries"
    assert load_run(run_dir).run.report == "report.html"
    assert (Path(run_dir) / FINAL_SCREEN_FILE).is_file()            # the last step pressed BACK: its after-picture
    page = (Path(run_dir) / "report.html").read_text(encoding="utf-8")
    assert "rejected by you: stay in Notes" in page and "you answered: Groceries" in page
    assert page.count('<g class="mark">') >= 1 and "After: the screen the run left" in page
    assert "sk-test-E2E" not in page
