"""History tells the truth (issue 17, section 4), in the window: a rejected proposal is a row of its own with
who rejected it and why; every step's thumbnail arrives (the last one too, even when its picture is
readable only a moment after its row); past runs can be searched, filtered by result, deleted and run again."""

from __future__ import annotations

import asyncio
import shutil
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, Qt

import app.gui.runs.timeline_model as timeline_model
from app.core.agent.events import RunStarted, StepRecorded
from app.core.agent.memory import ActionOutcome, Decision, MemoryItem, RunResult
from app.core.agent.step_reviews import ProposalReview, QuestionAndAnswer, ReviewedStep
from app.core.agent.supervisor import ReviewAnswer
from app.core.agent.trajectory import TrajectoryWriter
from app.gui.runs.past_run_actions import NotDeletable, delete_run, rerun_request
from app.gui.runs.past_runs import PastRunsDialog
from tests.e2e import conftest as e2e_fixtures
from tests.e2e.conftest import ScriptedPerson
from tests.gui import test_timeline as timeline_fixtures
from tests.gui.test_timeline import record_run, texts, until
from tests.support.openai_server import act, click, json_reply

# Fixtures of other modules, bound here where pytest looks for them. agent_home (autouse here too): every
# test's runs, skills and map live in a temporary home, keys in memory.
agent_home, phone_server, run_agent = e2e_fixtures.agent_home, e2e_fixtures.phone_server, e2e_fixtures.run_agent
agentdesk_home, panel, screens = timeline_fixtures.agentdesk_home, timeline_fixtures.panel, timeline_fixtures.screens


def press(key: str) -> dict:
    return {"function": "press_key", "arguments": {"key_code": key}, "status": "CONTINUE"}


def reviewed_step(screens_, writer: TrajectoryWriter) -> ReviewedStep:
    """Step 1: the model proposed HOME, the person rejected it, then approved BACK; the agent asked a question."""
    step = ReviewedStep(1, "Go back", action=press("BACK"), action_text="Press BACK", decision=Decision("approve"),
                        result=ActionOutcome(True, "pressed"),
                        reviews=[ProposalReview(press("HOME"), "Press HOME", decision="reject",
                                                feedback="stay in Settings"),
                                 ProposalReview(press("BACK"), "Press BACK", decision="approve")],
                        questions=[QuestionAndAnswer("Which screen?", "the first", True)])
    step.screenshot, step.annotated_screenshot = writer.save_screens(1, *screens_[0])
    return step


@pytest.mark.asyncio
async def test_a_rejected_proposal_is_a_row_with_who_rejected_it_and_why(panel, agentdesk_home, screens):
    writer = TrajectoryWriter.create("Go back", {}, {}, {})
    writer.append_step(reviewed_step(screens, writer))
    writer.finish(RunResult("success", 1, ["Press BACK"], 2.0))
    for shown in ("reopened", "live"):
        if shown == "reopened":
            await panel.load_run(writer.run_dir)
        else:
            panel.start_run(writer.run_dir, "Go back")
            panel.add_step(reviewed_step(screens, writer).to_dict())     # as the run's step arrives
        model = panel.model
        assert model.rowCount() == 2, shown
        assert texts(model, model.NUMBER) == ["1", "1"]
        assert texts(model, model.ACTION) == ["Press HOME", "Press BACK"]
        assert texts(model, model.DECISION) == ["rejected", "approved"]
        assert texts(model, model.RESULT) == ["not executed", "you answered: the first"]
        notes = [model.index(row, model.DECISION).data(timeline_model.CHIP_NOTE_ROLE) for row in range(2)]
        assert notes == ["by you: stay in Settings", "by you, after 1 rejected proposal"]
        assert "rejected by you: stay in Settings" in model.index(0, model.ACTION).data(Qt.ItemDataRole.ToolTipRole)
    await until(lambda: not panel.thumbnails.loading)
    dialog = panel.open_step_detail(panel.model.row_of(panel.model.index(0, 0)).step)
    labels = [dialog.facts.itemAt(row, dialog.facts.ItemRole.LabelRole) for row in range(dialog.facts.rowCount())]
    shown = {item.widget().text(): dialog.facts.itemAt(row, dialog.facts.ItemRole.FieldRole).widget().text()
             for row, item in enumerate(labels) if item is not None}
    assert shown["Rejected"] == "Press HOME — rejected by you: stay in Settings"
    assert shown["Question"] == "asked you: Which screen? / you answered: the first"
    await dialog._images_task


@pytest.mark.asyncio
async def test_the_last_steps_thumbnail_arrives_even_when_its_picture_comes_after_its_row(
        panel, agentdesk_home, screens, monkeypatch):
    """A row shown a moment before its picture is readable is not grey for good: the picture is asked for
    again. A step with no picture at all shows the crossed-out card, never the grey loading one."""
    monkeypatch.setattr(timeline_model, "MISS_RETRY_SECONDS", (0.1, 0.2, 0.4, 0.8))
    writer = TrajectoryWriter.create("Late pictures", {}, {}, {})
    panel.start_run(writer.run_dir, "Late pictures")
    late = MemoryItem(1, "Late pictures", action=press("BACK"), result=ActionOutcome(True, ""),
                      screenshot="step_001.png", annotated_screenshot="step_001_annotated.png")
    panel.add_step(late)                        # its row, before its pictures are on disk
    paths = panel.model.thumbnail_paths(late)
    panel.model.index(0, 0).data(Qt.ItemDataRole.DecorationRole)    # painted: the load starts and misses
    await until(lambda: panel.thumbnails._misses)
    writer.save_screens(1, *screens[0])         # the pictures arrive
    await until(lambda: panel.thumbnails.is_loaded(paths))
    pixmap = panel.model.index(0, 0).data(Qt.ItemDataRole.DecorationRole)
    assert pixmap.cacheKey() not in (panel.thumbnails.placeholder.cacheKey(), panel.thumbnails.missing.cacheKey())
    panel.add_step(MemoryItem(2, "Late pictures", error="the phone went away"))    # no picture was saved
    assert panel.model.index(1, 0).data(Qt.ItemDataRole.DecorationRole).cacheKey() == \
        panel.thumbnails.missing.cacheKey()


@pytest.mark.asyncio
async def test_a_thumbnail_first_painted_outside_the_running_loop_still_loads(panel, agentdesk_home, screens):
    """Qt may paint a row while asyncio does not count the loop as running (a nested event-processing call):
    the thumbnail asks for its row to be painted again, rather than staying grey until something else does."""
    writer = TrajectoryWriter.create("Outside the loop", {}, {}, {})
    step = MemoryItem(1, "Outside the loop", action=press("BACK"), result=ActionOutcome(True, ""))
    step.screenshot, step.annotated_screenshot = writer.save_screens(1, *screens[0])
    panel.thumbnails._loop = None               # a fresh timeline: its first thumbnail ever
    panel.start_run(writer.run_dir, "Outside the loop")
    loop = asyncio.get_running_loop()
    asyncio.events._set_running_loop(None)
    try:
        panel.add_step(step)
        for _ in range(5):                      # every paint the new row asks for happens here, outside the loop
            QCoreApplication.processEvents()
            time.sleep(0.01)
        first = panel.model.index(0, 0).data(Qt.ItemDataRole.DecorationRole)
    finally:
        asyncio.events._set_running_loop(loop)
    assert first.cacheKey() == panel.thumbnails.placeholder.cacheKey()
    await until(lambda: panel.thumbnails.is_loaded(panel.model.thumbnail_paths(step)))


@pytest.mark.asyncio
async def test_the_last_step_stays_in_view_when_the_run_ends(panel, agentdesk_home, screens):
    """The end of a run writes a longer status line above the rows: the last step must stay in view (a row
    out of view is never painted, so its thumbnail would not load until the person scrolls)."""
    writer = TrajectoryWriter.create("Many steps", {}, {}, {})
    panel.start_run(writer.run_dir, "Many steps")
    for number in range(1, 9):
        step = MemoryItem(number, "Many steps", action=press("BACK"), result=ActionOutcome(True, ""))
        step.screenshot, step.annotated_screenshot = writer.save_screens(number, *screens[number % 2])
        panel.add_step(step)
    await asyncio.sleep(0.05)
    reason = "the model reported the task done after a long way round " * 4
    panel.finish_run(RunResult("success", 8, [], 12.0, completion_reason=reason))
    last = panel.model.index(panel.model.rowCount() - 1, 0)
    await until(lambda: panel.view.viewport().rect().contains(panel.view.visualRect(last)))
    await until(lambda: panel.thumbnails.is_loaded(panel.model.thumbnail_paths(panel.model.steps[-1])))
    await until(lambda: not panel.thumbnails.loading)


class FollowingPerson(ScriptedPerson):
    """The scripted person, and the timeline following the run's events as the window does."""

    def __init__(self, panel, **kwargs):
        super().__init__(**kwargs)
        self.panel = panel

    def attach(self, handle) -> None:
        super().attach(handle)

        def on_event(event) -> None:
            if isinstance(event, RunStarted):
                self.panel.start_run(Path(event.run_dir), event.request)
            elif isinstance(event, StepRecorded):
                self.panel.add_step(event.item)
        handle.events.subscribe(on_event)


@pytest.mark.asyncio
async def test_a_live_run_shows_every_thumbnail_the_last_one_too_and_its_rejection(panel, run_agent):
    script = [json_reply(act("launch_app", package_name="com.agentdesk.notes")),
              json_reply(act("press_key", key_code="HOME")),            # rejected
              click("New note"),
              json_reply(act("press_key", key_code="BACK", status="FINISH"))]
    approve = lambda proposal: ReviewAnswer.approve()                    # noqa: E731
    reject = lambda proposal: ReviewAnswer.reject("stay in Notes")       # noqa: E731
    person = FollowingPerson(panel, answers=[approve, reject, approve, approve])
    outcome = await run_agent("Start a note", script, person)
    assert outcome.result.status == "success", outcome.result
    model = panel.model
    assert texts(model, model.DECISION) == ["approved", "rejected", "approved", "approved"]
    assert texts(model, model.ACTION)[1] == "Press HOME"
    for row in range(model.rowCount()):
        model.index(row, 0).data(Qt.ItemDataRole.DecorationRole)       # painted
    steps = [row.step for row in model.rows]
    await until(lambda: all(panel.thumbnails.is_loaded(model.thumbnail_paths(step)) for step in steps))
    last = model.index(model.rowCount() - 1, 0).data(Qt.ItemDataRole.DecorationRole)
    assert last.cacheKey() not in (panel.thumbnails.placeholder.cacheKey(), panel.thumbnails.missing.cacheKey())


# ---------------------------------------------------------------- past runs: search, filter, delete, run again


async def opened_list(qtbot, agentdesk_home) -> PastRunsDialog:
    dialog = PastRunsDialog()
    qtbot.addWidget(dialog)
    dialog.show()
    await dialog.loading
    return dialog


@pytest.fixture
def three_runs(agentdesk_home, screens) -> dict[str, Path]:
    return {
        "alarm": record_run(screens, "Set an alarm for 7", started_at="2024-05-01T09:00:00+00:00"),
        "café": record_run(screens, "Find the Café Central", started_at="2024-05-02T09:00:00+00:00",
                           result=RunResult("failed", 5, [], 30.0, error="no such place")),
        "message": record_run(screens, "Send a message to Ann", started_at="2024-05-03T09:00:00+00:00",
                              result=RunResult("timeout", 5, [], 300.0)),
    }


@pytest.mark.asyncio
async def test_past_runs_are_searched_by_request_and_filtered_by_result(qtbot, three_runs, agentdesk_home):
    dialog = await opened_list(qtbot, agentdesk_home)
    assert dialog.shown_runs() == [three_runs["message"], three_runs["café"], three_runs["alarm"]]
    dialog.filter.search.setText("cafe")                       # case and accents do not matter
    assert dialog.shown_runs() == [three_runs["café"]]
    assert dialog._selected_run()[0] == three_runs["café"] and dialog.open_button.isEnabled()
    dialog.filter.search.setText("an  ALARM")                  # words in any order
    assert dialog.shown_runs() == [three_runs["alarm"]]
    dialog.filter.search.clear()
    dialog.filter.set_status("timeout")
    assert dialog.shown_runs() == [three_runs["message"]]
    dialog.filter.search.setText("alarm")                      # both must hold
    assert dialog.shown_runs() == []
    assert dialog.pages.currentWidget() is dialog.message and "No run matches" in dialog.message.text()
    assert not dialog.open_button.isEnabled() and not dialog.delete_button.isEnabled()
    dialog.filter.set_status("")
    assert dialog.shown_runs() == [three_runs["alarm"]]


@pytest.mark.asyncio
async def test_a_past_run_is_deleted_only_after_confirming(qtbot, panel, three_runs, agentdesk_home, monkeypatch):
    await panel.load_run(three_runs["café"])
    panel.show_past_runs()
    dialog = panel.past_runs_dialog
    await dialog.loading
    trashed = []
    dialog.trash = lambda path: trashed.append(path) or False   # no desktop trash here: deleted for good
    answers = [False, True]
    asked = []

    async def ask_delete(run_dir, request):
        asked.append((run_dir, request))
        return answers.pop(0)

    monkeypatch.setattr(dialog, "ask_delete", ask_delete)
    dialog.filter.search.setText("café")
    dialog.delete_button.click()                               # cancelled: nothing happens
    await until(lambda: not dialog.actions_under_way)
    assert asked == [(three_runs["café"], "Find the Café Central")] and three_runs["café"].is_dir()
    dialog.delete_button.click()                               # confirmed
    await until(lambda: not dialog.actions_under_way)
    assert not three_runs["café"].exists() and trashed == [three_runs["café"].resolve()]
    assert "was deleted" in dialog.notice.text()
    dialog.filter.search.clear()
    assert dialog.shown_runs() == [three_runs["message"], three_runs["alarm"]]
    assert panel.run_dir is None and panel.model.rowCount() == 0      # the timeline no longer shows it


def test_only_a_run_folder_inside_the_runs_folder_is_deleted(tmp_path):
    root = tmp_path / "runs"
    run = root / "20240501-run"
    run.mkdir(parents=True)
    (run / "run.json").write_text("{}")
    outside = tmp_path / "precious"
    outside.mkdir()
    (outside / "run.json").write_text("{}")
    (root / "not-a-run").mkdir()
    (root / "link").symlink_to(outside)
    for target in (outside, root / "not-a-run", root / "link", root, root / "gone"):
        with pytest.raises(NotDeletable):
            delete_run(target, root)
    assert outside.is_dir() and (root / "not-a-run").is_dir()
    moved = []
    assert delete_run(run, root, trash=lambda path: moved.append(path) or True) == "moved to the trash"
    assert moved == [run.resolve()] and run.is_dir()           # the fake trash left it; a real one moves it
    assert delete_run(run, root, trash=None) == "deleted" and not run.exists()
    shutil.rmtree(outside)


@pytest.mark.asyncio
async def test_run_again_asks_about_skills_and_asks_the_window_for_a_new_model_run(qtbot, panel, three_runs,
                                                                                  monkeypatch):
    panel.use_skills_default = lambda: False
    panel.show_past_runs()
    dialog = panel.past_runs_dialog
    await dialog.loading
    assert dialog.use_skills_default is False
    asked = []

    async def ask_rerun(request):
        asked.append(request)
        return True                                            # the person ticks "use a saved skill"

    monkeypatch.setattr(dialog, "ask_rerun", ask_rerun)
    requested = []
    panel.rerun_requested.connect(lambda request, use_skills: requested.append((request, use_skills)))
    dialog.filter.search.setText("message")
    assert dialog.rerun_button.isEnabled() and dialog.replay_button.text() == "Replay"
    dialog.rerun_button.click()
    await until(lambda: requested)
    assert asked == ["Send a message to Ann"] and requested == [("Send a message to Ann", True)]
    assert not dialog.isVisible()
    run = rerun_request("Send a message to Ann", "emulator-5554", "step", 10, False)
    assert (run.request, run.use_skills, run.replay, run.mode) == ("Send a message to Ann", False, None, "step")
    panel.set_run_going(True)                                  # while a run is going: not now
    dialog.show()
    await dialog.loading
    assert not dialog.rerun_button.isEnabled() and not dialog.replay_button.isEnabled()
    panel.set_run_going(False)


@pytest.mark.asyncio
async def test_run_again_in_the_window_is_a_new_model_run_with_the_skills_choice(qapp, three_runs, virtual_adb,
                                                                                 monkeypatch):
    from app.core.runs.service import RunRefused
    from tests.gui.conftest import shown_window

    async with shown_window() as window:
        await window.start()
        await until(lambda: window.phone.session is not None)
        asked = []

        async def start(request):
            asked.append(request)
            raise RunRefused("refused by the test")

        monkeypatch.setattr(window.controller, "start", start)
        window.settings.learning.use_skills = True
        window.request.mode.setCurrentIndex(window.request.mode.findData("auto"))
        window.open_past_runs()
        past = window.timeline.past_runs_dialog
        await past.loading
        assert past.use_skills_default is True               # the settings' choice comes first

        async def ask_rerun(request):
            return False                                     # the person unticks "use a saved skill"

        monkeypatch.setattr(past, "ask_rerun", ask_rerun)
        past.filter.search.setText("alarm")
        past.rerun_button.click()
        await until(lambda: asked)
        request = asked[0]
        assert (request.request, request.use_skills, request.replay, request.mode) == (
            "Set an alarm for 7", False, None, "auto")
        assert request.phone == window.phone.session.id
        assert window.request.request.toPlainText() == "Set an alarm for 7"
        await until(lambda: "refused by the test" in window.status.text())
        assert window.request.run_button.isEnabled() and not window.starting_run


@pytest.mark.asyncio
async def test_the_delete_question_defaults_to_cancel_and_names_the_run(qtbot, three_runs, agentdesk_home):
    from PySide6.QtWidgets import QMessageBox

    dialog = await opened_list(qtbot, agentdesk_home)
    for press_delete in (False, True):
        asking = asyncio.ensure_future(dialog.ask_delete(three_runs["alarm"], "Set an alarm for 7"))
        box = await until_found(
            lambda: next((box for box in dialog.findChildren(QMessageBox) if box.isVisible()), None))
        assert "Set an alarm for 7" in box.text() and three_runs["alarm"].name in box.text()
        assert box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)
        delete = next(button for button in box.buttons() if button.text() == "Delete")
        (delete if press_delete else box.button(QMessageBox.StandardButton.Cancel)).click()
        assert await asking is press_delete


async def until_found(find):
    found = []
    await until(lambda: found.append(find()) or found[-1] is not None)
    return found[-1]
