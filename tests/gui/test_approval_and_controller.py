"""The approval panel's answers, and the run controller driving a real run through them."""

from __future__ import annotations

import asyncio
import threading

import pytest
from PySide6.QtCore import Qt

from app.core.agent.actions import Action
from app.core.agent.agent_run import AgentRun
from app.core.agent.supervisor import Proposal, ReviewAnswer
from app.core.config import AgentSettings, ProviderSettings, Settings
from app.core.device.adb_transport import AdbTransport
from app.core.device.android_device import AndroidDevice
from app.core.device.phone_id import PhoneId
from app.core.device.phone_session import PhoneRegistry, PhoneSession
from app.core.loop_thread import LoopThread
from app.core.perception.hierarchy import extract_controls
from app.core.runs.service import RunRequest, RunService
from app.gui.runs.approval_panel import ApprovalPanel
from app.gui.runs.run_controller import RunController
from app.virtual_phone.phone import VirtualPhone
from tests.support.openai_server import FakeOpenAIServer, act, click, json_reply
from tests.support.waiting import until


def proposal(action: Action, step: int = 1) -> Proposal:
    phone = VirtualPhone()
    controls = extract_controls(phone.dump_hierarchy(), (1080, 2400))
    return Proposal(step=step, action=action, action_text="Tap “Settings” (#4)", thought="open settings",
                    controls=controls, screen_size=(1080, 2400))


class ThreadRecordingDevice(AndroidDevice):
    """Remembers on which threads the run asked for the phone's controls."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.threads: set[str] = set()

    async def controls(self, refresh: bool = False):
        self.threads.add(threading.current_thread().name)
        return await super().controls(refresh)


@pytest.fixture
def panel(qtbot):
    widget = ApprovalPanel()
    qtbot.addWidget(widget)
    answers: list[ReviewAnswer] = []
    widget.answered.connect(answers.append)
    widget.show()
    return widget, answers


def test_approve_by_button_and_by_enter(panel, qtbot):
    widget, answers = panel
    widget.show_proposal(proposal(Action(function="click_control", arguments={"control_id": 4})))
    assert "Step 1" in widget.title.text() and "Settings" in widget.action_label.text()
    qtbot.mouseClick(widget.approve_button, Qt.MouseButton.LeftButton)
    assert [a.kind for a in answers] == ["approve"]
    widget.show_proposal(proposal(Action(function="click_control", arguments={"control_id": 4}), step=2))
    widget.approve_button.setFocus()
    qtbot.keyClick(widget.approve_button, Qt.Key.Key_Return)
    assert [a.kind for a in answers] == ["approve", "approve"]


def test_edit_changes_the_arguments(panel, qtbot):
    widget, answers = panel
    widget.show_proposal(proposal(Action(function="type_text", arguments={"text": "Grocries", "control_id": 7})))
    widget.edit_button.click()
    widget.edit_fields["text"].setText("Groceries")
    widget._finish_edit()
    assert answers[0].kind == "edit"
    assert answers[0].action.arguments == {"text": "Groceries", "control_id": 7}


def test_edit_refuses_invalid_arguments(panel):
    widget, answers = panel
    widget.show_proposal(proposal(Action(function="tap", arguments={"x": 10, "y": 20})))
    widget.edit_button.click()
    widget.edit_fields["x"].setText("left")
    widget._finish_edit()
    assert answers == [] and widget.edit_error.text()


def test_override_by_shorthand_or_by_picking(panel, qtbot):
    widget, answers = panel
    picks: list[bool] = []
    widget.pick_requested.connect(picks.append)
    p = proposal(Action(function="press_key", arguments={"key_code": "BACK"}))
    widget.show_proposal(p)
    widget.override_button.click()
    assert picks[-1] is True
    widget.override_text.setText("tap 540 1200")
    widget._finish_override()
    assert answers[-1].kind == "override" and answers[-1].action.arguments == {"x": 540, "y": 1200}
    assert picks[-1] is False
    widget.show_proposal(p)
    widget.override_button.click()
    widget.override_with_control(p.controls[3])
    assert answers[-1].action.function == "click_control"
    assert answers[-1].action.arguments["control_id"] == p.controls[3].id


def test_a_typed_override_or_edit_that_names_nothing_on_the_screen_is_refused_where_it_was_typed(panel):
    widget, answers = panel
    p = proposal(Action(function="press_key", arguments={"key_code": "BACK"}))
    widget.show_proposal(p)
    widget.override_button.click()
    widget.override_text.setText("click 99")
    widget._finish_override()
    assert answers == [] and "control_id 99 does not exist on this screen" in widget.override_error.text()
    widget.override_text.setText("tap 5000 10")
    widget._finish_override()
    assert answers == [] and "outside the screen" in widget.override_error.text()
    widget.show_proposal(proposal(Action(function="click_control", arguments={"control_id": 4})))
    widget.edit_button.click()
    widget.edit_fields["control_id"].setText("99")
    widget._finish_edit()
    assert answers == [] and "does not exist on this screen" in widget.edit_error.text()
    widget.edit_fields["control_id"].setText("3")
    widget._finish_edit()
    assert answers[-1].kind == "edit" and answers[-1].action.arguments["control_id"] == 3


def test_reject_carries_feedback_and_stop(panel):
    widget, answers = panel
    widget.show_proposal(proposal(Action(function="tap", arguments={"x": 1, "y": 2})))
    widget.reject_button.click()
    widget.feedback.setText("Use the search box")
    widget._finish_reject()
    widget.show_proposal(proposal(Action(function="tap", arguments={"x": 1, "y": 2})))
    widget.stop_button.click()
    assert [(a.kind, a.feedback) for a in answers] == [("reject", "Use the search box"), ("stop", "")]


def test_answers_without_a_proposal_are_ignored(panel):
    widget, answers = panel
    widget.approve()
    assert answers == []


@pytest.fixture
def core(virtual_adb, tmp_path, monkeypatch):
    """The window's core as the app makes it: a loop thread, the phones, the run service.

    `core.use(device)` registers the device a test wants runs to drive.
    """
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path))

    class Core:
        def __init__(self) -> None:
            self.thread = LoopThread()
            self.phones = PhoneRegistry()
            self.settings = Settings()
            self.service = RunService(self.phones, lambda: self.settings)

        def use(self, device: AndroidDevice) -> None:
            self.phones.add(PhoneSession(PhoneId(device.transport.address, device.serial), device, virtual=True))

        def controller(self) -> RunController:
            return RunController(self.thread, self.service)

    made = Core()
    yield made
    made.thread.submit(made.service.shutdown()).result(30)
    made.thread.submit(made.phones.close()).result(10)
    made.thread.close()


@pytest.mark.asyncio
async def test_controller_runs_a_task_through_the_panel(core, virtual_adb):
    controller = core.controller()
    panel = ApprovalPanel()
    panel.answered.connect(controller.answer)
    controller.review_requested.connect(panel.show_proposal)
    # approve as soon as a proposal shows, the way a person would click
    controller.review_requested.connect(lambda p: asyncio.get_running_loop().call_soon(panel.approve))
    finished: list = []
    controller.run_finished.connect(finished.append)
    states: list[str] = []
    controller.state_changed.connect(lambda status, reason: states.append(status))
    script = [json_reply(act("launch_app", package_name="com.android.settings")), click("Network & internet"),
              click("Wi-Fi"), click("Use Wi-Fi"), json_reply(act("", status="FINISH"))]
    device = ThreadRecordingDevice(AdbTransport("127.0.0.1", virtual_adb.port), "emulator-5554")
    core.use(device)
    signal_threads: set[str] = set()
    controller.step_finished.connect(lambda item: signal_threads.add(threading.current_thread().name))
    with FakeOpenAIServer(script) as model:
        # the screen settles after each tap as in use: a step that looked at a page still sliding in proposes a
        # place the control then leaves, and the check before acting (rightly) does nothing there
        core.settings = Settings(provider=ProviderSettings(base_url=model.base_url, model="gpt-4o"),
                                 agent=AgentSettings())
        await controller.start(RunRequest("Turn on Wi-Fi", api_key="sk-test-gui-0123456789"))
        result = await asyncio.wait_for(controller.task, 60)
    assert result.status == "success" and finished == [result]
    # the run's own work happened on the core's thread; the window heard of it on the GUI thread
    assert device.threads == {"agentdesk-core"}
    assert signal_threads == {threading.main_thread().name}
    assert virtual_adb.devices[0].phone.state()["wifi"] is True
    assert states.count("CONFIRM") == 5 and states[-1] == "FINISH"


@pytest.mark.asyncio
async def test_step_pause_and_stop_reach_the_run_on_its_thread(core, virtual_adb):
    """Step takes one step and pauses; Step again takes one more; Stop ends the paused run."""
    controller = core.controller()
    steps: list[int] = []
    controller.step_finished.connect(lambda item: steps.append(item.step))
    script = [json_reply(act("launch_app", package_name="com.android.settings")), click("Network & internet"),
              click("Wi-Fi"), json_reply(act("", status="FINISH"))]
    core.use(AndroidDevice(AdbTransport("127.0.0.1", virtual_adb.port), "emulator-5554"))

    async def settled(condition) -> None:
        for _ in range(200):
            if condition():
                await asyncio.sleep(0.3)      # and nothing more happens
                return
            await asyncio.sleep(0.05)
        raise AssertionError("timed out")

    with FakeOpenAIServer(script) as model:
        core.settings = Settings(provider=ProviderSettings(base_url=model.base_url, model="gpt-4o"),
                                 agent=AgentSettings(mode="auto", settle_seconds=0))
        await controller.start(RunRequest("Turn on Wi-Fi", api_key="sk-test-gui-0123456789", paused=True))
        await settled(lambda: steps == [1])
        assert steps == [1] and controller.paused and controller.running
        controller.step_once()
        await settled(lambda: steps == [1, 2])
        assert steps == [1, 2] and controller.paused
        controller.stop()
        result = await asyncio.wait_for(controller.task, 30)
    assert result.status == "stopped" and result.steps_taken == 2
    assert virtual_adb.devices[0].phone.state()["wifi"] is False


@pytest.mark.asyncio
async def test_a_crash_inside_the_run_reaches_the_window_and_ends_the_run(core, virtual_adb, tmp_path, monkeypatch):
    async def crash(self):
        raise RuntimeError("a bug inside the run")

    monkeypatch.setattr(AgentRun, "run", crash)
    controller = core.controller()
    finished: list = []
    controller.run_finished.connect(finished.append)
    core.use(AndroidDevice(AdbTransport("127.0.0.1", virtual_adb.port), "emulator-5554"))
    with FakeOpenAIServer([]) as model:
        core.settings = Settings(provider=ProviderSettings(base_url=model.base_url, model="gpt-4o"))
        handle = await controller.start(RunRequest("Turn on Wi-Fi", api_key="sk-test-gui-0123456789"))
        with pytest.raises(RuntimeError, match="a bug inside the run"):
            await asyncio.wait_for(controller.task, 30)
    assert finished == [None]                         # the window leaves its running state
    assert not controller.running
    assert handle.finished and not core.service.live()     # the service holds no half-ended run
    assert not core.phones.get(None).busy                   # and the phone is free for the next one
    assert list((tmp_path / "data" / "runs").iterdir())     # the run folder was made and stays


@pytest.mark.asyncio
async def test_a_click_on_step_1s_approve_that_arrives_after_step_2_began_waiting_never_approves_step_2(
        core, virtual_adb, monkeypatch):
    """The window's answer names the proposal it showed. Step 1 is approved elsewhere (a script through the
    API) while the person is about to click; the window has not yet shown step 2 when the click reaches the
    run: the click is refused and step 2 still waits."""
    controller = core.controller()
    panel = ApprovalPanel()
    panel.answered.connect(controller.answer)
    controller.review_requested.connect(panel.show_proposal)
    shown: list[Proposal] = []
    controller.review_requested.connect(shown.append)
    script = [json_reply(act("launch_app", package_name="com.android.settings")), click("Network & internet"),
              json_reply(act("", status="FINISH"))]
    core.use(AndroidDevice(AdbTransport("127.0.0.1", virtual_adb.port), "emulator-5554"))

    with FakeOpenAIServer(script) as model:
        core.settings = Settings(provider=ProviderSettings(base_url=model.base_url, model="gpt-4o"),
                                 agent=AgentSettings(mode="step", settle_seconds=0))
        handle = await controller.start(RunRequest("Turn on Wi-Fi", api_key="sk-test-gui-0123456789"))
        await until(lambda: len(shown) == 1, seconds=20)
        monkeypatch.setattr(controller, "_show_review", lambda proposal: None, raising=False)   # a busy window
        step_1 = shown[0].id
        core.thread.call(lambda: handle.answer(step_1, ReviewAnswer.approve()))      # decided elsewhere
        await until(lambda: handle.awaiting_review and handle.pending_proposal.step == 2, seconds=20)
        panel.approve()                                        # the person's click on step 1, as shown
        await core.thread.run(asyncio.sleep(0))                # the click has reached the run
        assert handle.awaiting_review and handle.pending_proposal.step == 2
        controller.stop()
        result = await asyncio.wait_for(controller.task, 30)
    assert result.status == "stopped"


def test_a_thought_the_comment_repeats_is_shown_once(panel):
    widget, _ = panel
    shown = lambda label: label.text() if label.isVisible() else None      # noqa: E731
    repeated = proposal(Action(function="click_control", arguments={"control_id": 4}))
    repeated.thought, repeated.comment = "Opening Settings to find Wi-Fi.", "Opening settings to find Wi-Fi"
    widget.show_proposal(repeated)
    assert shown(widget.thought) == "Thought: Opening Settings to find Wi-Fi." and shown(widget.comment) is None
    inside = proposal(Action(function="click_control", arguments={"control_id": 4}), step=2)
    inside.thought, inside.comment = "Open Settings", "Open Settings, then Network & internet."
    widget.show_proposal(inside)
    assert shown(widget.thought) is None and shown(widget.comment) == "Comment: Open Settings, then Network & internet."
    different = proposal(Action(function="click_control", arguments={"control_id": 4}), step=3)
    different.thought, different.comment = "Wi-Fi lives under Network.", "Opening Settings"
    widget.show_proposal(different)
    assert shown(widget.thought) == "Thought: Wi-Fi lives under Network."
    assert shown(widget.comment) == "Comment: Opening Settings"
