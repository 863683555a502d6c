"""The main window: phones and request on the left, the live mirror in the middle, the inspector
and the run's timeline on the right. It wires panels to the phone session and the run
controller; it holds no logic of its own beyond that wiring."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QDialog, QMainWindow

from app.core import paths
from app.core.agent.run_words import counted
from app.core.config import Settings, save_settings
from app.core.device.errors import DeviceError
from app.core.device.phone_session import PhoneRegistry
from app.core.loop_thread import LoopThread
from app.core.providers import pricing_for
from app.core.runs.service import KeyForAnotherOrigin, MissingApiKey, RunRefused, RunRequest, RunService
from app.core.secrets import SecretStore
from app.desk import Desk, load_desk_settings
from app.gui.api_host import ApiHost
from app.gui.dialogs import run_dialog
from app.gui.inspector.inspector_wiring import connect_inspector
from app.gui.mirror.phone_extras import connect_phone_extras
from app.gui.phones.phone_grid import phones_window_open
from app.gui.phones.window_phone import WindowPhone
from app.gui.runs.past_run_actions import connect_learning
from app.gui.runs.run_controller import RunController
from app.gui.runs.state_words import state_sentence
from app.gui.runs.take_over_wiring import PersonInput, connect_take_over
from app.gui.settings.settings_dialog import SettingsDialog
from app.gui.side_panes import RIGHT, show_pane
from app.gui.window_layout import build_panes, first_layout, reveal
from app.gui.window_menus import apply_appearance, build_menus
from app.gui.window_state import ScreenLayouts

if TYPE_CHECKING:     # the panes' types, for the attributes other modules set on the window
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QLabel, QSplitter, QToolButton, QWidget

    from app.gui.inspector.inspector import InspectorPanel
    from app.gui.inspector.inspector_wiring import RunTrees
    from app.gui.mirror.manual_controls import ManualControlBar
    from app.gui.mirror.mirror_panel import MirrorPanel
    from app.gui.mirror.mirror_view import MirrorView
    from app.gui.phones.adb_keyboard import AdbKeyboardInstall
    from app.gui.phones.device_panel import DevicePanel
    from app.gui.runs.approval_panel import ApprovalPanel
    from app.gui.runs.request_panel import RequestPanel
    from app.gui.runs.take_over_bar import TakeOverBar
    from app.gui.runs.timeline import TimelinePanel
    from app.gui.side_panes import SidePanes
    from app.gui.status_line import StatusLine
    from app.gui.view_modes import ViewModes
    from app.gui.window_layout import PaneBalancer, ScrollingPane

log = logging.getLogger(__name__)
MODEL_WORDS_SHOWN = 120   # characters of the streaming reply shown under the request (its newest end)


def warm_up_agent(settings: Settings) -> None:
    """Import and build, off the GUI thread, what the first run would otherwise do on it
    (the openai package loads its request and response types lazily; prompts build schemas)."""
    import importlib

    from app.core.agent.prompts import PromptBuilder

    for module in ("openai.resources.chat.completions", "openai.types.chat", "app.core.agent.agent_run"):
        importlib.import_module(module)

    builder = PromptBuilder(settings)
    builder.system_message()
    builder.reply_tool()


class MainWindow(QMainWindow):
    # Set by build_panes (window_layout.py)
    devices: DevicePanel
    request: RequestPanel
    approval: ApprovalPanel
    left_pane: ScrollingPane
    mirror_panel: MirrorPanel
    mirror: MirrorView
    manual: ManualControlBar
    overlay_button: QToolButton
    state_label: QLabel
    take_over_bar: TakeOverBar
    inspector: InspectorPanel
    timeline: TimelinePanel
    right_pane: ScrollingPane
    splitters: dict[str, QSplitter]
    pane_balancer: PaneBalancer
    status_line: StatusLine
    status: QLabel
    # Set by build_menus (window_menus.py), connect_inspector and connect_take_over
    side_panes: SidePanes
    adb_keyboard: AdbKeyboardInstall        # set by connect_phone_extras (mirror/phone_extras.py)
    view_modes: ViewModes
    ctrl_enter_action: QAction
    overlay_action: QAction
    theme_actions: dict[str, QAction]
    derived_accessible_names: list[tuple[QWidget, str]]
    run_trees: RunTrees
    take_over_or_hand_back: Callable[[], None]

    def __init__(self, closed: asyncio.Event, secrets: SecretStore | None = None):
        super().__init__()
        self.setWindowTitle("Agent Desk")
        self._closed = closed
        self._tasks: set[asyncio.Task] = set()
        self.starting_run = False        # a run is being asked for (Run, Replay, Run again): no second one
        settings, warnings = load_desk_settings()
        # The desk (settings, keys, phones, the run service, every run) lives on the core's own loop thread.
        # The keyring-backed store is made there in a worker thread unless one is given: keyring's backend
        # detection takes ~90 ms, and a locked keyring may wait for an unlock prompt.
        self.core = LoopThread()
        self.desk = Desk(settings, secrets=secrets, bad_servers_noted=True)
        self.phone = WindowPhone(lambda: self.mirror.size(), self.core, self.desk, self)
        self.controller = RunController(self.core, self.service, self)
        self.api_host = ApiHost(self.core, self.desk, self)
        build_panes(self)
        self.person_input = PersonInput(self)
        self._connect()
        build_menus(self)
        first_layout(self)
        self.layouts = ScreenLayouts(self, self.splitters)
        self.layouts.restore()        # the layout this screen had last time, if any
        self.side_panes.sync()
        for warning in warnings:
            self.show_status(warning)

    @property
    def settings(self) -> Settings:
        """The desk's settings (the person changes them in Settings)."""
        return self.desk.settings

    @settings.setter
    def settings(self, settings: Settings) -> None:
        self.desk.settings = settings

    @property
    def phones(self) -> PhoneRegistry:
        return self.desk.phones

    @property
    def service(self) -> RunService:
        return self.desk.service

    @property
    def secrets(self) -> SecretStore | None:
        return self.desk.secrets

    def _connect(self) -> None:
        phone, mirror, controller = self.phone, self.mirror, self.controller
        phone.frame_ready.connect(self._show_frame)
        phone.controls_ready.connect(self._show_controls)
        phone.devices_changed.connect(self.devices.set_devices)
        phone.device_changed.connect(self._device_changed)
        phone.status.connect(self.show_status)
        phone.frame_source.connect(self._show_frame_source)
        self.devices.device_chosen.connect(phone.choose)
        self.devices.connect_requested.connect(phone.connect_wifi)
        self.devices.follow(phone)           # pairing, Wi-Fi outcomes, phones plugged in later

        mirror.control_selected.connect(self.inspector.show_control)
        self.inspector.control_selected.connect(mirror.select_control)
        connect_inspector(self)        # hover both ways between the mirror and the inspector
        person = self.person_input         # to the phone, or to the run while the person has taken it over
        mirror.tap_requested.connect(person.tap)
        mirror.swipe_requested.connect(person.swipe)
        mirror.control_picked.connect(self.approval.override_with_control)
        mirror.point_picked.connect(self.approval.override_with_point)
        self.overlay_button.toggled.connect(mirror.set_overlay_visible)

        self.manual.touch_mode_changed.connect(self._set_touch_mode)
        self.manual.key_requested.connect(person.press_key)
        self.manual.text_requested.connect(person.type_text)
        self.manual.screenshot_requested.connect(phone.save_screenshot)
        connect_phone_extras(self)       # the mirror's keyboard, wheel and drops, and the bar's More menu

        self.request.run_requested.connect(lambda text, mode, steps: self._start_run(text, mode, steps, paused=False))
        self.request.step_requested.connect(self._step)
        self.request.pause_toggled.connect(lambda paused: controller.pause() if paused else controller.resume())
        self.request.stop_requested.connect(controller.stop)
        self.request.settings_requested.connect(self.open_settings)

        # runs other programs start on another phone show in the Phones window, not over this phone's mirror
        controller.shows_phone = lambda phone_id: self.phone.session is None or str(self.phone.session.id) == phone_id
        controller.review_requested.connect(self._review)
        controller.proposal_shown.connect(self._proposal_shown)
        controller.question_asked.connect(self.approval.show_question)
        controller.question_asked.connect(lambda _question: reveal(self.left_pane, self.approval))
        controller.step_finished.connect(self._step_finished)
        controller.run_started.connect(self._run_started)
        controller.run_finished.connect(self._run_finished)
        controller.state_changed.connect(lambda status, reason: self.request.set_status(state_sentence(status, reason)))
        controller.message.connect(self.show_status)
        controller.model_words.connect(self._model_words)
        self.approval.answered.connect(self._answered)
        self.approval.question_answered.connect(controller.answer_question)
        self.approval.pick_requested.connect(self._pick_mode)
        connect_learning(self)      # the past runs list's Replay; Replay waits while a run is going
        connect_take_over(self)     # Take over, the bar over the mirror, Hand back

    def open_about(self) -> None:
        """Version and every bundled library's licence."""
        from app.gui.about_dialog import AboutDialog

        self.spawn(run_dialog(AboutDialog(self)))

    # ------------------------------------------------------------------ phone

    def _show_frame(self, image, device_size) -> None:
        self.mirror.set_device_size(device_size)
        self.mirror.set_frame(image)

    def _show_controls(self, snapshot) -> None:
        self.mirror.set_controls(snapshot.controls)
        self.inspector.set_snapshot(snapshot.controls, snapshot.hierarchy)

    def _device_changed(self, entry) -> None:
        self.devices.set_current(entry)
        self.manual.set_enabled_for_device(bool(entry and entry.ready))
        self.mirror.phone_input.drops_enabled = bool(entry and entry.ready)
        if entry is not None:
            kind = "Virtual phone" if entry.virtual else (entry.model or "Phone")
            self.setWindowTitle(f"Agent Desk — {kind} · {entry.serial}")

    def _set_touch_mode(self, on: bool) -> None:
        self.mirror.set_interaction_mode("touch" if on else "inspect")
        self.show_status("Touch mode: clicks tap the phone, drags swipe." if on else "Inspect mode.")

    def _pick_mode(self, on: bool) -> None:
        touch = self.manual.touch_button.isChecked()
        self.mirror.set_interaction_mode("pick" if on else ("touch" if touch else "inspect"))

    def _show_frame_source(self, short: str, status: str) -> None:
        """Say in the mirror's corner whether frames come from scrcpy's stream or from screenshots;
        the status bar says why when the stream could not run."""
        self.mirror_panel.show_frame_source(short, status)
        if short == "Screenshots" or status.startswith("disconnected"):
            self.show_status(f"Mirror: {status}")

    def _run_started(self, run_dir, request: str) -> None:
        self.timeline.start_run(run_dir, request, pricing_for(self.settings))
        if self.request.request.toPlainText().strip() != request.strip():    # a task another program posted
            self.request.request.setPlainText(request)
        self.request.set_running(True, self.controller.paused, self.controller.person_has_phone)

    def show_status(self, text: str) -> None:
        """Say `text` in the status bar as a sentence with its fix; raw error text goes behind Details."""
        self.status_line.show_text(text)

    def _model_words(self, step: int, text_so_far: str) -> None:
        """The model's reply as it streams in, under the request: a slow server is visibly working."""
        words = " ".join(text_so_far.split())
        if len(words) > MODEL_WORDS_SHOWN:
            words = "…" + words[-(MODEL_WORDS_SHOWN - 1):]
        self.request.set_status(f"Step {step} · the model writes: {words}")

    # ------------------------------------------------------------------ runs

    async def _secret_store(self) -> SecretStore:
        return await self.core.run(self.desk.key_store())

    async def refresh_key_notice(self) -> None:
        """Say in the request panel when runs cannot start for want of an API key, and what else the Desk's
        preflight finds missing (the ADB server, the model's server, the data folder)."""
        try:
            await self.core.run(self.desk.api_key())
            missing = False
        except MissingApiKey:
            missing = True
        self.request.set_key_missing(missing)
        await self.refresh_missing()

    async def refresh_missing(self) -> None:
        """The Desk's preflight list under the request (the key has its own notice; the window always has a phone,
        the virtual one at least)."""
        items = await self.core.run(self.desk.preflight(display=False, phone=False, key=False))
        self.request.set_missing([item.words for item in items])

    def _start_run(self, request: str, mode: str, max_steps: int, paused: bool) -> None:
        if self.phone.session is None:
            self.show_status("No phone is ready yet.")
            return
        if self.starting_run or self.controller.running:
            return
        self.starting_run = True
        self.request.set_running(True, paused)
        self.spawn(self.ask_for_run(RunRequest(request, phone=self.phone.session.id, mode=mode,
                                                 max_steps=max_steps, paused=paused)))

    async def ask_for_run(self, run_request: RunRequest) -> None:
        try:
            await self._secret_store()         # the run service's (made once, off the GUI thread)
            self.timeline.clear()
            self.phone.live_controls = False
            await self.controller.start(run_request)
        except KeyForAnotherOrigin as exc:        # which origin, and how to allow it
            self._run_refused(str(exc))
            self.open_settings()
        except MissingApiKey:
            self._run_refused("Add an API key in Settings to run the agent.")
            self.open_settings()
        except (RunRefused, DeviceError) as exc:
            self._run_refused(str(exc))
        finally:
            self.starting_run = False

    def _run_refused(self, why: str) -> None:
        self.request.set_running(False)
        self.phone.live_controls = True
        self.show_status(why)

    def _step(self, request: str, mode: str, max_steps: int) -> None:
        if self.controller.running:
            self.controller.step_once()
        elif request:
            self._start_run(request, mode, max_steps, paused=True)

    def _proposal_shown(self, proposal) -> None:
        """Show the screen as the model saw it: its controls (the ids it used) and what it proposes."""
        self.mirror.set_controls(proposal.controls)
        self.inspector.set_snapshot(proposal.controls, self.run_trees.hierarchy_for(proposal.controls))
        self.mirror.show_proposal(proposal.action, proposal.target, proposal.controls)

    def _review(self, proposal) -> None:
        self.approval.show_proposal(proposal)
        reveal(self.left_pane, self.approval)       # scrolled into view on a short screen
        self.approval.setFocus()
        if not phones_window_open(self):     # else its tile shows the proposal: this window stays where it is
            self.raise_()

    def _answered(self, answer) -> None:
        self.mirror.show_proposal(None, None)
        self.controller.answer(answer)

    def _step_finished(self, item) -> None:
        self.timeline.add_step(item)
        self.mirror.show_proposal(None, None)
        self.request.set_running(True, self.controller.paused, self.controller.person_has_phone)

    def _run_finished(self, result) -> None:
        self.request.set_running(False)
        self.approval.clear()
        self.mirror.show_proposal(None, None)
        self.phone.live_controls = True
        self.phone.request_controls()
        if result is not None:
            self.timeline.finish_run(result)
            self.request.set_status(f"Run {result.status} after {counted(result.steps_taken, 'step')}: "
                                    f"{result.completion_reason}")

    # ------------------------------------------------------------------ dialogs

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run `coro` on the GUI loop, kept until it ends (an error it raises reaches the error dialog)."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def open_settings(self) -> None:
        self.spawn(self._settings_dialog())

    async def _settings_dialog(self) -> None:
        store = await self._secret_store()
        stored_key = await asyncio.to_thread(store.get, self.settings.provider.key_name)
        dialog = SettingsDialog(self.settings, store, self, stored_key=stored_key)
        dialog.token_rotated.connect(self.api_host.use_token)
        if await run_dialog(dialog) != QDialog.DialogCode.Accepted:
            return
        mirror_before = self.settings.mirror
        self.settings = dialog.result_settings()
        await asyncio.to_thread(save_settings, self.settings, paths.settings_path())
        apply_appearance(self)         # the theme chosen in Settings › Appearance
        if self.settings.mirror != mirror_before:      # every phone's stream starts again with the new settings
            for session in self.phones.sessions():
                self.core.call(session.frames.settings_changed)
        self.core.call(self.desk.watch_settings_servers)   # other machines' servers named in Settings now
        if said := await self.api_host.apply():
            self.show_status(said)
        key_name = self.settings.provider.key_name
        if dialog.key_removal_requested():
            await asyncio.to_thread(store.delete, key_name)
            self.show_status(f"API key removed from {store.location()}.")
        key = dialog.entered_key()
        if key:
            where = await asyncio.to_thread(store.set, key_name, key)
            self.show_status(f"API key stored in {where}.")
        await self.refresh_key_notice()

    def open_past_runs(self) -> None:
        show_pane(self, RIGHT, True)        # the run chosen there opens in the timeline: shown, not in a shut pane
        self.timeline.show_past_runs()

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        self.agent_warm_up = asyncio.ensure_future(asyncio.to_thread(warm_up_agent, self.settings))
        self._tasks.add(self.agent_warm_up)
        self.spawn(self.refresh_key_notice())
        await self.phone.start()
        self.spawn(self.refresh_missing())     # again: opening the phone may have started this machine's adb
        self.controller.follow_other_runs()     # tasks from scripts (the task API) show here live
        if said := await self.api_host.apply():
            self.show_status(said)

    async def shutdown(self) -> None:
        await self.api_host.stop()
        await self.controller.shutdown()
        await self.phone.shutdown()
        await self.core.run(self.desk.close())   # runs recorded, phones, watchers and the virtual phone closed
        await self.desk.stop_helpers()       # the adb server, only when the app started it
        for task in list(self._tasks):
            task.cancel()
        await asyncio.to_thread(self.core.close)

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.WindowStateChange:
            self._mirror_visibility_changed()
        super().changeEvent(event)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.layouts.follow()             # moved to another screen: that screen's layout
        self._mirror_visibility_changed()

    def hideEvent(self, event) -> None:
        super().hideEvent(event)
        self._mirror_visibility_changed()

    def _mirror_visibility_changed(self) -> None:
        """A minimized or hidden window reads no frames from the phone (idle costs nothing)."""
        self.phone.set_mirror_visible(self.isVisible() and not self.isMinimized())

    def closeEvent(self, event) -> None:
        self.view_modes.set_full_screen(False)     # the layout saved is the desk's, not full screen's
        self.layouts.save()
        self._closed.set()
        super().closeEvent(event)
