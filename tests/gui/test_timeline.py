"""The run timeline, the step detail and the past-runs list, on a run recorded from the virtual phone."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path

import pytest
import pytest_asyncio
import shiboken6
from PySide6.QtCore import QCoreApplication, QItemSelectionModel, Qt
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtTest import QTest

import app.core.agent.run_words as run_words
import app.gui.runs.timeline_model as timeline_model
from app.core.agent.memory import ActionOutcome, Decision, MemoryItem, RunResult
from app.core.agent.report import write_report
from app.core.agent.run_words import Word
from app.core.agent.trajectory import STEPS_FILE, TrajectoryWriter
from app.core.config import ProviderSettings, Settings
from app.core.perception.annotate import annotate
from app.core.perception.hierarchy import extract_controls
from app.core.providers import pricing_for
from app.gui.runs.past_runs import PastRunsDialog
from app.gui.runs.timeline import THUMBNAIL_BOX, StepTableModel, TimelinePanel
from app.virtual_phone.phone import VirtualPhone

SCREEN = (1080, 2400)
REQUEST = "Open the display settings"


def click(name: str, control_id: int) -> dict:
    return {"function": "click_control", "arguments": {"control_id": control_id, "control_name": name},
            "status": "CONTINUE"}


@pytest.fixture(scope="module")
def screens():
    """(clean, annotated) pictures of the launcher and of the Settings app, from the virtual phone."""
    phone = VirtualPhone()
    pictures = []
    for _ in range(2):
        controls = extract_controls(phone.dump_hierarchy(), SCREEN)
        shot = phone.screenshot().copy()
        pictures.append((shot, annotate(shot, controls)))
        settings = next(control for control in controls if control.name == "Settings")
        left, top, right, bottom = settings.rect
        phone.tap((left + right) // 2, (top + bottom) // 2)
    return pictures


def record_steps(writer: TrajectoryWriter, screens) -> list[MemoryItem]:
    """Five steps: approved, edited, rejected with feedback, failed, and screenshot-only."""
    launcher, settings = screens
    timings = {"data_collection": 120.0, "collect_screen": 80.0, "llm_interaction": 1500.0, "action_execution": 380.0}
    items = [
        MemoryItem(1, REQUEST, thought="The launcher shows Settings.", comment="Opening Settings",
                   action=click("Settings", 5), action_text="Tap “Settings” (#5)",
                   decision=Decision("approve"), result=ActionOutcome(True, "tapped", 310.0),
                   reflection={"verdict": "success", "confidence": 0.9, "reasoning": "The screen changed."},
                   timings_ms=timings, tokens={"prompt": 1200, "completion": 80}, cost_usd=0.0021,
                   prompt_text="PROMPT ONE: the screen has 14 controls", raw_reply='{"thought": "reply one"}'),
        MemoryItem(2, REQUEST, thought="Network looks right.", action=click("Display", 14),
                   proposed_action=click("Network & internet", 7), action_text="Tap “Display” (#14)",
                   decision=Decision("edit"), result=ActionOutcome(True, "tapped"),
                   timings_ms={"data_collection": 100.0, "llm_interaction": 900.0},
                   tokens={"prompt": 1300, "completion": 90},
                   prompt_text="PROMPT TWO", raw_reply="REPLY TWO"),
        MemoryItem(3, REQUEST, action=click("Connected devices", 8), action_text="Tap “Connected devices” (#8)",
                   decision=Decision("reject", feedback="Do not touch Bluetooth"),
                   prompt_text="PROMPT THREE", raw_reply="REPLY THREE"),
        MemoryItem(4, REQUEST, action={"function": "type_text", "arguments": {"text": "dark"}, "status": "CONTINUE"},
                   action_text="Type “dark”", decision=Decision("auto", by="auto"),
                   result=ActionOutcome(False, "no text field has focus"), error="execute: no text field has focus",
                   prompt_text="PROMPT FOUR", raw_reply="REPLY FOUR"),
        MemoryItem(5, REQUEST, action={"function": "press_key", "arguments": {"key_code": "BACK"},
                                       "status": "CONTINUE"},
                   action_text="Press BACK", decision=Decision("auto", by="auto"), result=ActionOutcome(True, ""),
                   screen_only=True, prompt_text="PROMPT FIVE", raw_reply="REPLY FIVE"),
    ]
    for item, (clean, annotated) in zip(items, [launcher, settings, settings, settings, settings], strict=True):
        item.screenshot, item.annotated_screenshot = writer.save_screens(
            item.step, clean, None if item.screen_only else annotated)
        writer.append_step(item)
    return items


def record_run(screens, request: str = REQUEST, started_at: str | None = None,
               result: RunResult | None = None) -> Path:
    writer = TrajectoryWriter.create(request, {"serial": "emulator-5554"}, {"model": "scripted"}, {})
    items = record_steps(writer, screens)
    writer.finish(result or RunResult("success", len(items), [i.action_text for i in items], 12.5,
                                      completion_reason="The display settings are open.",
                                      tokens={"prompt": 2500, "completion": 170}, cost_usd=0.0042))
    if started_at is not None:   # list_runs orders by start time
        run_file = writer.run_dir / "run.json"
        run_file.write_text(json.dumps({**json.loads(run_file.read_text()), "started_at": started_at}))
    write_report(writer.run_dir)
    return writer.run_dir


@pytest.fixture
def agentdesk_home(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path))
    return tmp_path


@pytest.fixture
def run_dir(agentdesk_home, screens) -> Path:
    return record_run(screens)


@pytest_asyncio.fixture
async def panel(qtbot):
    widget = TimelinePanel()
    qtbot.addWidget(widget)
    widget.resize(1000, 640)
    widget.show()
    thumbnails, tasks = widget.thumbnails, widget._tasks       # plain Python: usable once the widget is gone
    yield widget
    # Hidden, it paints no more rows, so it starts no more thumbnail loads. Closing the panel
    # leaves the loads it started running (it does not cancel them itself): end them here. pytest-qt
    # may already have closed and deleted it (its teardown runs before this fixture's).
    if shiboken6.isValid(widget):
        widget.close()
    loads = list(thumbnails.loading.values())
    thumbnails.cancel()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, *loads, return_exceptions=True)


async def until(condition, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        await asyncio.sleep(0.02)


def texts(model: StepTableModel, column: int) -> list[str]:
    return [model.index(row, column).data() for row in range(model.rowCount())]


@pytest.mark.asyncio
async def test_rows_show_each_recorded_step(panel, run_dir):
    record = await panel.load_run(run_dir)
    model = panel.model
    assert model.rowCount() == len(record.steps) == 5
    assert texts(model, model.NUMBER) == ["1", "2", "3", "4", "5"]
    assert texts(model, model.ACTION)[:2] == ["Tap “Settings” (#5)", "Tap “Display” (#14)"]
    assert texts(model, model.DECISION) == ["approved", "edited", "rejected", "auto-approved", "auto-approved"]
    assert model.index(2, model.DECISION).data(timeline_model.CHIP_NOTE_ROLE) == "by you: Do not touch Bluetooth"
    results = texts(model, model.RESULT)
    assert results[0] == "ok" and results[2] == "not executed"
    assert results[3] == "failed: no text field has focus"
    assert results[4] == "ok · screenshot only"
    assert texts(model, model.TIME)[:2] == ["2.0 s", "1.0 s"]   # phases only: strategy timings are inside them
    assert texts(model, model.TOKENS)[:3] == ["1,280", "1,390", "–"]
    assert "Success" in panel.status.text() and "The display settings are open." in panel.status.text()
    assert panel.title.full_text == REQUEST
    assert panel.report_button.isEnabled()


@pytest.mark.asyncio
async def test_thumbnails_load_in_worker_threads_while_the_loop_runs(panel, run_dir, monkeypatch):
    loader_threads = []
    real_read = timeline_model.read_scaled_image

    def slow_read(paths, box):
        loader_threads.append(threading.current_thread())
        time.sleep(0.1)   # would freeze the GUI if it ran on the GUI thread
        return real_read(paths, box)

    monkeypatch.setattr(timeline_model, "read_scaled_image", slow_read)
    seen_while_loading = []

    async def ticker():
        while True:
            loaded = sum(panel.thumbnails.is_loaded(panel.model.thumbnail_paths(step)) for step in panel.model.steps)
            seen_while_loading.append((panel.model.rowCount(), loaded))
            await asyncio.sleep(0.01)

    ticking = asyncio.get_running_loop().create_task(ticker())
    try:
        await panel.load_run(run_dir)
        steps = panel.model.steps
        await until(lambda: all(panel.thumbnails.is_loaded(panel.model.thumbnail_paths(s)) for s in steps))
    finally:
        ticking.cancel()
    assert loader_threads and threading.main_thread() not in loader_threads
    # the loop kept running between thumbnails: it saw the rows with some, not all, of them loaded
    assert any(rows == 5 and 0 < loaded < 5 for rows, loaded in seen_while_loading)
    for row in range(5):
        pixmap = panel.model.index(row, 0).data(Qt.ItemDataRole.DecorationRole)
        assert pixmap.cacheKey() != panel.thumbnails.placeholder.cacheKey()
        assert pixmap.height() == THUMBNAIL_BOX.height() and pixmap.width() <= THUMBNAIL_BOX.width()
    # the screenshot-only step has no annotated picture: its clean one is shown
    assert panel.model.thumbnail_paths(steps[4])[0].name == "step_005.png"


@pytest.mark.asyncio
async def test_thumbnails_finish_loading_when_qt_delivers_them_outside_the_running_loop(panel, run_dir):
    """pytest-qt, and any nested event processing, runs queued callbacks while asyncio does not count
    the loop as running: a load must finish there too, not fail with "no running event loop"."""
    await panel.load_run(run_dir)
    steps = panel.model.steps
    cache = panel.thumbnails
    for step in steps:
        cache.get(panel.model.thumbnail_paths(step))
    assert len(cache.loading) == timeline_model.THUMBNAILS_AT_ONCE   # the rest wait for a slot
    loop = asyncio.get_running_loop()
    asyncio.events._set_running_loop(None)   # as while pytest-qt processes events between a test and its teardown
    try:
        deadline = time.monotonic() + 10
        while not all(cache.is_loaded(panel.model.thumbnail_paths(s)) for s in steps) and time.monotonic() < deadline:
            QCoreApplication.processEvents()
            time.sleep(0.01)
    finally:
        asyncio.events._set_running_loop(loop)
    assert all(cache.is_loaded(panel.model.thumbnail_paths(s)) for s in steps) and not cache.loading


@pytest.mark.asyncio
async def test_a_live_run_grows_row_by_row_and_ends_with_its_status(panel, agentdesk_home, screens):
    writer = TrajectoryWriter.create("Turn on dark theme", {}, {}, {})
    panel.start_run(writer.run_dir, "Turn on dark theme")
    assert panel.model.rowCount() == 0 and "Running" in panel.status.text()
    assert panel.folder_button.isEnabled() and not panel.report_button.isEnabled()
    items = record_steps(writer, screens)
    for count, item in enumerate(items, 1):
        panel.add_step(item if count % 2 else item.to_dict())   # MemoryItem or dict
        assert panel.model.rowCount() == count
        last = panel.view.visualRect(panel.model.index(count - 1, 0))
        assert panel.view.viewport().rect().contains(last), "the newest step is scrolled into view"
    assert texts(panel.model, panel.model.DECISION)[1] == "edited"
    panel.finish_run(RunResult("stopped", 5, [], 40.0, completion_reason="The person pressed Stop"))
    assert "Stopped" in panel.status.text() and "The person pressed Stop" in panel.status.text()
    write_report(writer.run_dir)
    await until(panel.report_button.isEnabled)   # the run folder is watched for the report


@pytest.mark.asyncio
async def test_open_buttons_hand_the_paths_to_the_desktop(panel, run_dir, monkeypatch):
    opened = []
    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(lambda url: opened.append(url) or True))
    await panel.load_run(run_dir)
    QTest.mouseClick(panel.report_button, Qt.MouseButton.LeftButton)
    QTest.mouseClick(panel.folder_button, Qt.MouseButton.LeftButton)
    assert [Path(url.toLocalFile()) for url in opened] == [run_dir / "report.html", run_dir]


@pytest.mark.asyncio
async def test_open_report_says_where_the_report_is_when_no_browser_starts(panel, run_dir, monkeypatch):
    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(lambda url: False))
    await panel.load_run(run_dir)
    QTest.mouseClick(panel.report_button, Qt.MouseButton.LeftButton)
    told = panel.not_opened
    assert told is not None and told.isVisible() and not told.isModal()
    assert told.path_label.text() == str(run_dir / "report.html") and "report" in told.windowTitle()
    QGuiApplication.clipboard().clear()
    QTest.mouseClick(told.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == str(run_dir / "report.html")
    assert told.isVisible()                                   # copying leaves the window open
    told.close()
    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(lambda url: True))
    QTest.mouseClick(panel.report_button, Qt.MouseButton.LeftButton)
    assert panel.not_opened is None                           # opened: nothing to say


@pytest.mark.asyncio
async def test_the_step_detail_says_a_repeated_thought_once_and_the_wait_apart(panel, agentdesk_home, screens):
    writer = TrajectoryWriter.create(REQUEST, {"serial": "emulator-5554"}, {"model": "scripted"}, {})
    item = MemoryItem(1, REQUEST, thought="Opening Settings to find Wi-Fi.", comment="opening settings to find Wi-Fi",
                      action=click("Settings", 5), action_text="Tap “Settings” (#5)", decision=Decision("approve"),
                      result=ActionOutcome(True, "tapped"), timings_ms={"action_execution": 380.0},
                      waiting_seconds=612.0)
    item.screenshot, item.annotated_screenshot = writer.save_screens(1, *screens[0])
    writer.append_step(item)
    writer.finish(RunResult("success", 1, [item.action_text], 1.0))
    await panel.load_run(writer.run_dir)
    dialog = panel.open_step_detail(panel.model.steps[0])
    shown = facts(dialog)
    assert shown["Thought"] == "Opening Settings to find Wi-Fi." and "Comment" not in shown
    assert shown["Timings"].splitlines() == ["acting on the phone: 0.4 s", "waiting for you: 10 min 12 s"]
    await until(lambda: dialog._images_task.done())


@pytest.mark.asyncio
async def test_activating_a_row_opens_its_detail_and_navigates(panel, run_dir):
    activated = []
    panel.step_activated.connect(activated.append)
    await panel.load_run(run_dir)
    view = panel.view
    view.setFocus()
    view.selectionModel().setCurrentIndex(panel.model.index(1, 2), QItemSelectionModel.SelectionFlag.ClearAndSelect)
    QTest.keyClick(view, Qt.Key.Key_Return)
    assert [step.step for step in activated] == [2]
    dialog = panel.detail_dialog
    assert dialog is not None and dialog.isVisible() and not dialog.isModal()
    assert dialog.prompt_text.toPlainText() == "PROMPT TWO" and dialog.raw_reply.toPlainText() == "REPLY TWO"
    assert dialog.prompt_text.isReadOnly() and dialog.raw_reply.isReadOnly()
    shown = facts(dialog)
    assert shown["Proposed"].startswith("click_control") and "Network" in shown["Proposed"]
    assert "Display" in shown["Executed"] and "edited" in shown["Decision"]
    await until(lambda: dialog.clean_view.image is not None and dialog.annotated_view.image is not None)

    QTest.mouseClick(dialog.next_button, Qt.MouseButton.LeftButton)
    assert dialog.step.step == 3 and dialog.raw_reply.toPlainText() == "REPLY THREE"
    assert "Do not touch Bluetooth" in facts(dialog)["Decision"]
    QTest.mouseClick(dialog.previous_button, Qt.MouseButton.LeftButton)
    QTest.mouseClick(dialog.previous_button, Qt.MouseButton.LeftButton)
    assert dialog.step.step == 1 and not dialog.previous_button.isEnabled()
    assert facts(dialog)["Screen check"].startswith("success (90% sure)")
    for _ in range(4):
        dialog.next_button.click()
    assert dialog.step.step == 5 and not dialog.next_button.isEnabled()
    await until(lambda: dialog.clean_view.image is not None)
    assert dialog.annotated_view.image is None   # screenshot-only step: no numbered picture


def facts(dialog) -> dict[str, str]:
    """The dialog's "label: value" rows (the heading row spans both columns and is left out)."""
    layout, shown = dialog.facts, {}
    for row in range(layout.rowCount()):
        label, field = (layout.itemAt(row, role) for role in (layout.ItemRole.LabelRole, layout.ItemRole.FieldRole))
        if label is not None and field is not None:
            shown[label.widget().text()] = field.widget().text()
    return shown


@pytest.mark.asyncio
async def test_past_runs_are_listed_newest_first_and_one_can_be_reopened(panel, agentdesk_home, screens):
    older = record_run(screens, "Set an alarm", started_at="2024-05-01T09:00:00+00:00")
    newer = record_run(screens, "Send a message", started_at="2024-05-02T10:30:00+00:00",
                       result=RunResult("timeout", 5, [], 300.0, error="The step limit was reached"))
    panel.show_past_runs()
    dialog = panel.past_runs_dialog
    await dialog.loading
    rows = [dialog.runs.topLevelItem(i) for i in range(dialog.runs.topLevelItemCount())]
    assert [row.text(dialog.REQUEST) for row in rows] == ["Send a message", "Set an alarm"]
    assert [row.text(dialog.STATUS) for row in rows] == ["timed out", "success"]
    assert rows[1].text(dialog.STARTED) == "2024-05-01 09:00" and rows[1].text(dialog.STEPS) == "5"

    chosen = []
    dialog.run_chosen.connect(chosen.append)
    dialog.runs.setCurrentItem(rows[1])
    QTest.mouseClick(dialog.open_button, Qt.MouseButton.LeftButton)
    assert chosen == [older] and not dialog.isVisible()
    await until(lambda: panel.run_dir == older and panel.model.rowCount() == 5)
    assert panel.title.full_text == "Set an alarm"

    dialog.show()
    await dialog.loading
    item = dialog.runs.topLevelItem(0)
    rect = dialog.runs.visualItemRect(item)
    QTest.mouseClick(dialog.runs.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())   # a double-click's
    QTest.mouseDClick(dialog.runs.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())  # first click
    assert chosen == [older, newer]
    await until(lambda: panel.run_dir == newer)
    assert "Timed out" in panel.status.text() and "The step limit was reached" in panel.status.text()
    # The reopened run's thumbnails are loading: let them finish while the loop runs (a load
    # left scheduled when the test returns would take its first step with no running loop).
    await until(lambda: all(panel.thumbnails.is_loaded(panel.model.thumbnail_paths(s)) for s in panel.model.steps))


@pytest.mark.asyncio
async def test_past_runs_says_so_when_there_are_none(qtbot, agentdesk_home):
    dialog = PastRunsDialog()
    qtbot.addWidget(dialog)
    dialog.show()
    await dialog.loading
    assert dialog.pages.currentWidget() is dialog.message and dialog.message.text() == "No runs yet"
    assert not dialog.open_button.isEnabled()


@pytest.mark.asyncio
async def test_a_damaged_run_still_opens_and_says_what_was_skipped(panel, run_dir):
    with (run_dir / STEPS_FILE).open("a", encoding="utf-8") as steps:
        steps.write('{"step": 6, "thought": "half writ')
    record = await panel.load_run(run_dir)
    assert panel.model.rowCount() == 5 and record.problems
    assert "incomplete" in panel.status.text()


@pytest.mark.asyncio
async def test_the_report_the_timeline_and_the_detail_take_their_words_from_one_module(panel, run_dir, monkeypatch):
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    await panel.load_run(run_dir)
    shown = texts(panel.model, panel.model.DECISION)
    for row, kind in enumerate(["approve", "edit", "reject", "auto", "auto"]):   # the recorded decisions
        word = run_words.DECISIONS[kind]
        assert shown[row] == word.text and f">{word.text}" in page
        assert panel.model.index(row, panel.model.DECISION).data(timeline_model.CHIP_COLOUR_ROLE).name() == word.colour
    # change a word in the one place: every view follows
    monkeypatch.setitem(run_words.DECISIONS, "edit", Word("changed by hand", "#123456"))
    monkeypatch.setitem(run_words.RUN_STATUSES, "success", Word("all done", "#654321"))
    write_report(run_dir)
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    await panel.load_run(run_dir)
    assert texts(panel.model, panel.model.DECISION)[1] == "changed by hand"
    assert panel.model.index(1, panel.model.DECISION).data(timeline_model.CHIP_COLOUR_ROLE).name() == "#123456"
    assert "changed by hand" in page and "all done" in page and "#654321" in page
    assert "All done" in panel.status.text() and "#654321" in panel.status.text()
    dialog = panel.open_step_detail(panel.model.steps[1])
    assert "changed by hand" in facts(dialog)["Decision"]
    await until(lambda: dialog.clean_view.image is not None and dialog.annotated_view.image is not None)
    await until(lambda: not panel.thumbnails.loading)


def tokens_tip(panel, row: int) -> str:
    return panel.model.index(row, panel.model.TOKENS).data(Qt.ItemDataRole.ToolTipRole)


@pytest.mark.asyncio
async def test_costs_are_worded_by_the_runs_pricing(panel, screens, agentdesk_home):
    """A local model's run says "free (local)", one with an unknown price "cost unknown", never a made-up $."""
    local = {"provider": {"base_url": "http://localhost:8080/v1", "model": "smollm2"}}
    writer = TrajectoryWriter.create("Turn on Wi-Fi", {"serial": "emulator-5554"}, {"model": "smollm2"}, local)
    record_steps(writer, screens)
    writer.finish(RunResult("success", 5, [], 3.0, tokens={"prompt": 900, "completion": 80}, cost_usd=0.0))
    await panel.load_run(writer.run_dir)
    assert tokens_tip(panel, 0).endswith("· free (local)")
    assert "free (local)" in panel.status.text()
    dialog = panel.open_step_detail(panel.model.steps[0])
    assert facts(dialog)["Usage"].endswith("· free (local)")

    panel.start_run(writer.run_dir, "Turn on Wi-Fi", pricing=pricing_for(
        Settings(provider=ProviderSettings(base_url="https://models.example.com/v1", model="mystery-1"))))
    panel.add_step(record_steps(writer, screens)[0])
    panel.finish_run(RunResult("success", 1, [], 1.0, tokens={"prompt": 10, "completion": 2}, cost_usd=0.0))
    assert tokens_tip(panel, 0).endswith("· cost unknown")
    assert "cost unknown" in panel.status.text() and "$" not in panel.status.text()


@pytest.mark.asyncio
async def test_the_request_stays_readable_in_a_narrow_pane(panel, run_dir, qapp):
    """The inspector pane's natural width at 1280×720 is ~440 px: beside the three buttons the request
    used to shrink to one letter ("R…")."""
    panel.resize(440, 500)
    await panel.load_run(run_dir)
    qapp.processEvents()
    shown = panel.title.text()
    assert shown.startswith(REQUEST[:20]), shown


@pytest.mark.asyncio
async def test_a_token_figure_the_desk_estimated_says_so(panel, run_dir, screens):
    """A model server that reports no usage: the run's line says its tokens are estimated."""
    writer = TrajectoryWriter.create("Turn on Wi-Fi", {"serial": "emulator-5554"}, {"model": "smollm2"}, {})
    panel.start_run(writer.run_dir, "Turn on Wi-Fi")
    panel.add_step(record_steps(writer, screens)[0])
    panel.finish_run(RunResult("success", 1, [], 1.0, tokens={"prompt": 1900, "completion": 20},
                               tokens_estimated=True))
    assert "1,920 tokens (estimated)" in panel.status.text()
    panel.finish_run(RunResult("success", 1, [], 1.0, tokens={"prompt": 1900, "completion": 20}))
    assert "1,920 tokens" in panel.status.text() and "estimated" not in panel.status.text()
