"""The "Map of screens" window: what the agent learned of each app, drawn as a map a person can read and correct.

A phone kind (model and Android version: maps are kept per kind) and an app are chosen at the top; the
map shows that app's screens and the actions between them (map_view.py), the side pane the selected
screen (screen_pane.py). A screen can be renamed, merged with another or split apart again (the edits
are kept apart from the recordings, so later runs keep them). The screen the window's phone shows now
is framed and followed (live_screen.py); a past run can be played over the map step by step.

Every read and write runs in a worker thread, and the map is drawn in small pieces: the window never
waits on the disk, the phone or the layout. Problems with the recorded files are listed in one short
warning line, never raised.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.core.learning.screen_cards import app_label
from app.core.learning.transitions import TransitionStore
from app.core.paths import data_dir
from app.gui.dialogs import empty_state_page, show_single
from app.gui.theme import set_tone
from app.gui.window_fit import fit_window

from .live_screen import LiveScreen
from .map_data import MapData, RunPath, kind_words, load_map_data, prepare_drawing
from .map_view import MapView
from .screen_edits import merge, rename, screen_menu, split
from .screen_pane import ScreenPane

log = logging.getLogger(__name__)

EMPTY_TEXT = ("No screens recorded yet for this phone. Run a task with “Keep a map of the screens seen and the "
              "actions between them” on (Settings › Agent › Learning) and the screens it visits appear here.")
PLAY_MS = 900
"""Time between two steps of a run played over the map."""


class MapWindow(QWidget):
    """Non-modal; `host` is the main window (its phone is followed), or None."""

    def __init__(self, host: Any = None, root: Path | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setWindowTitle("Map of screens — Agent Desk")
        self.host = host
        self.root = root                         # the graph folder; None: the data folder's graph/
        self.data: MapData | None = None
        self.app = ""
        self.selected: str | None = None
        self.current_signature = ""
        self.preferred_kind = ""                 # the window's phone's kind, once known
        self.work: asyncio.Task | None = None    # the latest load or drawing (a new one cancels it)
        self.edits_under_way: set[asyncio.Task] = set()
        self.run: RunPath | None = None
        self.play_index = -1
        fit_window(self, QSize(1320, 820))
        self._build()
        self.live = LiveScreen(host, self)
        self.live.screen_seen.connect(self.show_current)
        self.live.kind_known.connect(self._kind_known)
        self.player = QTimer(self)
        self.player.setInterval(PLAY_MS)
        self.player.timeout.connect(self.play_step)
        if host is not None:
            host.installEventFilter(self)
            host.controller.run_finished.connect(self._run_finished)

    def _build(self) -> None:
        self.kind_box, self.app_box, self.run_box = QComboBox(), QComboBox(), QComboBox()
        for box in (self.kind_box, self.app_box, self.run_box):
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.kind_box.setToolTip("Maps are kept per phone model and Android version.")
        self.kind_box.activated.connect(lambda _: self.start_work(self.load_kind(self.kind_box.currentData())))
        self.app_box.activated.connect(lambda _: self.start_work(self.draw_app(self.app_box.currentData())))
        self.follow_box = QCheckBox("Follow the phone")
        self.follow_box.setChecked(True)
        self.follow_box.setToolTip("Frame the screen the phone shows now, and show its app's map.")
        self.follow_box.toggled.connect(lambda on: self.show_current(self.current_signature)
                                        if on and self.current_signature else None)
        fit = self.fit_button = QPushButton("Fit to window")
        reload = QPushButton("Reload")
        fit.clicked.connect(lambda: self.view.fit())
        reload.clicked.connect(self.reload)
        top = QHBoxLayout()
        for widget in (QLabel("Phone:"), self.kind_box, QLabel("App:"), self.app_box, self.follow_box):
            top.addWidget(widget)
        top.addStretch(1)
        top.addWidget(fit)
        top.addWidget(reload)

        self.run_box.activated.connect(lambda _: self.choose_run(self.run_box.currentData()))
        self.play_button = QPushButton("Play")
        self.play_button.setEnabled(False)
        self.play_button.clicked.connect(self._play_clicked)
        self.step_words = QLabel()
        set_tone(self.step_words, "muted")
        runs = QHBoxLayout()
        for part in (QLabel("Play a run:"), self.run_box, self.play_button):
            runs.addWidget(part)
        runs.addWidget(self.step_words, 1)

        self.problems = QLabel()
        self.problems.setWordWrap(True)
        set_tone(self.problems, "error")
        self.problems.hide()
        self.notice = QLabel()
        self.notice.setWordWrap(True)
        self.view: MapView = MapView()
        self.view.screen_clicked.connect(self.select)
        self.view.screen_menu.connect(lambda screen, where: screen_menu(self, screen, where))
        self.pane = ScreenPane()
        self.pane.rename_button.clicked.connect(lambda: self.act(rename, self.selected))
        self.pane.merge_button.clicked.connect(lambda: self.act(merge, self.selected))
        self.pane.split_button.clicked.connect(lambda: self.act(split, self.selected))
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.view)
        splitter.addWidget(self.pane)
        splitter.setStretchFactor(0, 1)
        splitter.setSizes([920, 400])
        self.empty, empty_page = empty_state_page("Loading the map…", 640)
        self.pages = QStackedWidget()
        self.pages.addWidget(splitter)
        self.pages.addWidget(empty_page)
        self.pages.setCurrentIndex(1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(runs)
        layout.addWidget(self.problems)
        layout.addWidget(self.pages, 1)
        layout.addWidget(self.notice)

    # ------------------------------------------------------------------ tasks

    def graph_root(self) -> Path:
        return Path(self.root) if self.root is not None else data_dir() / "graph"

    def start_work(self, coro: Awaitable[None]) -> asyncio.Task:
        """Make `coro` the window's work, cancelling the work before it (a newer choice wins)."""
        if self.work is not None and not self.work.done():
            self.work.cancel()
        self.work = asyncio.ensure_future(coro)
        self.work.add_done_callback(self._work_done)
        return self.work

    def _work_done(self, task: asyncio.Task) -> None:
        if not task.cancelled() and task.exception() is not None:
            error = task.exception()
            log.error("the map could not be shown", exc_info=error)
            self.say(f"The map could not be shown: {error}")

    def act(self, action, screen_id: str | None) -> None:
        """Start an edit of the screen (`action(window, screen_id)`), kept until it ends."""
        if screen_id is None or self.data is None:
            return
        task = asyncio.ensure_future(action(self, screen_id))
        self.edits_under_way.add(task)
        task.add_done_callback(self.edits_under_way.discard)

    async def settled(self) -> None:
        """Wait until the latest load or drawing and every edit are done."""
        while True:
            pending = [task for task in [self.work, *self.edits_under_way] if task is not None and not task.done()]
            if not pending:
                return
            await asyncio.wait(pending)

    async def shutdown(self) -> None:
        """Stop following the phone and playing, cancel what is under way, and wait for it to end."""
        self.player.stop()
        for task in [self.work, *self.edits_under_way]:
            if task is not None:
                task.cancel()
        await self.live.stopped()
        pending = [task for task in [self.work, *self.edits_under_way] if task is not None and not task.done()]
        if pending:
            await asyncio.wait(pending)

    def say(self, text: str) -> None:
        self.notice.setText(text)

    # ------------------------------------------------------------------ loading and drawing

    def reload(self) -> asyncio.Task:
        """Read the phone kinds again, then the chosen kind's map (keeping the app and the selection)."""
        return self.start_work(self._reload())

    async def _reload(self) -> None:
        kinds = await asyncio.to_thread(TransitionStore(self.graph_root()).kinds)
        chosen = self.kind_box.currentData()
        self.kind_box.clear()
        for kind in kinds:
            self.kind_box.addItem(kind_words(kind), kind)
        if not kinds:
            self._show_empty()
            return
        for wanted in (chosen, self.preferred_kind, kinds[0]):
            if wanted in kinds:
                self.kind_box.setCurrentIndex(kinds.index(wanted))
                break
        await self.load_kind(self.kind_box.currentData())

    def _show_empty(self) -> None:
        self.data = None
        self.view.clear_map()
        self.app_box.clear()
        self.run_box.clear()
        self.play_button.setEnabled(False)
        self.problems.hide()
        self.empty.setText(EMPTY_TEXT)
        self.pages.setCurrentIndex(1)
        self._enable(False)

    def _enable(self, enabled: bool) -> None:
        """The choosers and Fit work only when there is a map."""
        for widget in (self.kind_box, self.app_box, self.run_box, self.fit_button):
            widget.setEnabled(enabled)
        self.kind_box.setEnabled(self.kind_box.count() > 0)

    async def load_kind(self, kind: str) -> None:
        data = await asyncio.to_thread(load_map_data, kind, self.root)
        self.data = data
        graph = data.graph
        self._show_problems(data.problems)
        apps = graph.apps()
        if not apps:
            self._show_empty()
            self._show_problems(data.problems)
            return
        self.app_box.clear()
        for app in apps:
            count = len(graph.app_nodes(app))
            self.app_box.addItem(f"{app_label(app)} ({count} screen{'s' if count != 1 else ''})", app)
        self.run_box.clear()
        self.run_box.addItem("Choose a run…" if data.runs else "No runs recorded", None)
        for run in data.runs:
            self.run_box.addItem(run.label, run.run_id)
        self.play_button.setEnabled(False)
        self.run, self.play_index = None, -1
        self.player.stop()
        self.step_words.clear()
        self.selected = graph.resolve(self.selected) if self.selected else None
        current = graph.resolve(self.current_signature) if self.current_signature else None
        app = next((a for a in (self.app, graph.nodes[current].app if current else "") if a in apps), apps[0])
        await self.draw_app(app)

    async def draw_app(self, app: str) -> None:
        if self.data is None:
            return
        graph = self.data.graph
        self.app = app
        self.app_box.setCurrentIndex(max(0, self.app_box.findData(app)))
        self.pages.setCurrentIndex(0)
        self._enable(True)
        if self.selected is not None and (self.selected not in graph.nodes or graph.nodes[self.selected].app != app):
            self.selected = None
        self.view.selected = self.selected
        current = graph.resolve(self.current_signature) if self.current_signature else None
        self.view.current = current
        drawing = await asyncio.to_thread(prepare_drawing, graph, app)
        await self.view.draw(drawing)
        self.pane.show_screen(graph, self.selected)
        if self.run is not None and self.play_index >= 0:
            self.view.show_path(self.run.screens(), self.play_index)

    def _show_problems(self, problems: list[str]) -> None:
        if not problems:
            self.problems.hide()
            return
        first = problems[0] if len(problems[0]) <= 160 else problems[0][:157] + "…"
        more = f" (and {len(problems) - 1} more: point here to see them)" if len(problems) > 1 else ""
        self.problems.setText("Some recorded files could not be read fully; the map leaves that part out. "
                              f"{first}{more}")
        self.problems.setToolTip("\n".join(problems[:50]))
        self.problems.show()

    # ------------------------------------------------------------------ selection and the phone

    def select(self, screen_id: str | None) -> None:
        self.selected = screen_id
        self.view.select(screen_id)
        self.pane.show_screen(self.data.graph if self.data else None, screen_id)

    def show_current(self, signature: str) -> None:
        """Frame the screen with this signature (the phone shows it now); with "Follow the phone", show
        its app's map first."""
        self.current_signature = signature
        if self.data is None:
            return
        node = self.data.graph.resolve(signature)
        if node is None:
            self.view.set_current(None)
            return
        app = self.data.graph.nodes[node].app
        if app != self.app and self.follow_box.isChecked():
            if self.work is None or self.work.done():
                self.start_work(self.draw_app(app))
            return
        self.view.set_current(node, scroll=self.follow_box.isChecked())

    def _run_finished(self, _result) -> None:
        """A run may have met new screens: read the map again when it is shown."""
        if self.isVisible():
            self.reload()

    def _kind_known(self, kind: str) -> None:
        self.preferred_kind = kind
        if self.kind_box.currentData() != kind and self.kind_box.findData(kind) >= 0 and self.follow_box.isChecked():
            self.kind_box.setCurrentIndex(self.kind_box.findData(kind))
            self.start_work(self.load_kind(kind))

    # ------------------------------------------------------------------ playing a past run

    def choose_run(self, run_id: str | None) -> None:
        self.player.stop()
        self.view.clear_path()
        self.step_words.clear()
        self.play_index = -1
        self.run = next((run for run in self.data.runs if run.run_id == run_id), None) if self.data else None
        self.play_button.setEnabled(self.run is not None)
        self.play_button.setText("Play")
        if self.run is not None:
            self.run_box.setCurrentIndex(max(0, self.run_box.findData(run_id)))

    def _play_clicked(self) -> None:
        if self.player.isActive():
            self.player.stop()
            self.play_button.setText("Play")
        elif self.run is not None:
            self.start_work(self.play())

    async def play(self) -> None:
        """Show the chosen run's way from its first screen, one step per PLAY_MS (on its app's map)."""
        run = self.run
        if run is None or self.data is None:
            return
        screens = [screen for screen in run.screens() if screen in self.data.graph.nodes]
        apps = [self.data.graph.nodes[screen].app for screen in screens]
        app = max(set(apps), key=apps.count) if apps else self.app
        self.play_index = -1
        if app != self.app:
            await self.draw_app(app)
        self.play_index = 0
        self._show_step()
        self.play_button.setText("Stop")
        self.player.start()

    def play_step(self) -> None:
        """The next step of the run being played (the last one stops the playing)."""
        if self.run is None:
            self.player.stop()
            return
        self.play_index = min(self.play_index + 1, len(self.run.steps))
        self._show_step()
        if self.play_index >= len(self.run.steps):
            self.player.stop()
            self.play_button.setText("Play")

    def _show_step(self) -> None:
        run, data = self.run, self.data
        if run is None or data is None:       # no run chosen, or no map loaded
            return
        graph = data.graph
        self.view.show_path(run.screens(), self.play_index)

        def name(screen: str | None) -> str:
            if screen is not None and screen in graph.nodes:
                return f"“{graph.nodes[screen].name}”"
            return "a screen the map does not know"
        if self.play_index == 0:
            text = f"The run starts on {name(run.steps[0].from_id)}." if run.steps else "The run has no steps."
        else:
            step = run.steps[self.play_index - 1]
            text = f"Step {self.play_index} of {len(run.steps)}: {step.action_text} → {name(step.to_id)}"
        self.step_words.setText(text)

    # ------------------------------------------------------------------ showing and closing

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self.data is None and (self.work is None or self.work.done()):
            self.reload()
        self.live.start()

    def hideEvent(self, event) -> None:
        super().hideEvent(event)
        self.live.stop()                 # a hidden map reads nothing from the phone
        self.player.stop()
        self.play_button.setText("Play")

    def closeEvent(self, event) -> None:
        for task in [self.work, *self.edits_under_way]:      # they end on the loop's next turn
            if task is not None:
                task.cancel()
        super().closeEvent(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.host and event.type() == QEvent.Type.Close:
            self.close()
        return False


def show_map(parent: QWidget) -> MapWindow:
    """Open the main window's (single) Map of screens, or bring it to the front."""
    return show_single(parent, MapWindow, lambda: MapWindow(parent, parent=parent))
