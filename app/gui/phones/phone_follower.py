"""One tile's side of the core: the phone's session, a couple of frames a second, and the runs on it.

Everything that touches the phone, the run service or a run happens on the core's loop thread
(`window.core`); what comes back is handed to the GUI thread through the bridge (`app/gui/bridge.py`), as
the run controller does. The follower follows one run at a time on its phone — its own, the
main window's or a task another program posted — from its first event, and the next one
when it ends. `close()` stops the frame reader and unsubscribes from every event stream;
the runs themselves go on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import QObject

from app.core.agent.events import (
    ActionExecuted,
    Message,
    QuestionAnswered,
    QuestionAsked,
    ReviewAnswered,
    ReviewRequested,
    RunEvent,
    RunFinished,
    StateChanged,
    StepStarted,
)
from app.core.agent.run_words import counted
from app.core.agent.supervisor import ReviewAnswer
from app.core.device.adb_transport import AdbTransport
from app.core.device.errors import DeviceError
from app.core.runs.handle import NothingToAnswer, RunHandle
from app.core.runs.service import KeyForAnotherOrigin, MissingApiKey, RunRefused, RunRequest
from app.gui.bridge import Background, GuiHop, RunFollow, follow_run
from app.gui.mirror.mirror_frames import frame_for_view, qimage_from_rgb
from app.gui.phones.device_panel import DeviceEntry
from app.gui.phones.phone_tile import THUMB_SIZE, PhoneTile
from app.gui.runs.state_words import state_sentence

log = logging.getLogger(__name__)

FRAME_SECONDS = 0.5          # at most two pictures a second per tile
REJECTED = "The person rejected this action from the Phones window."


def tile_name(entry: DeviceEntry, shared: bool = False) -> str:
    """The tile's heading: name and serial, and the ADB server when another phone has that serial."""
    return entry.title(shared)


class PhoneFollower(QObject):
    def __init__(self, window: Any, entry: DeviceEntry, tile: PhoneTile,
                 runs_heard: Callable[[str], list[RunHandle]] = lambda phone_id: [],
                 parent: QObject | None = None):
        super().__init__(parent)
        self.window = window
        self.core = window.core
        self.entry = entry
        self.tile = tile
        self.runs_heard = runs_heard             # runs the Phones window was told of, for a phone id
        self.session = None                      # the core PhoneSession, once open
        self.phone_id = ""                       # str(session.id)
        self.handle: RunHandle | None = None     # the run the tile shows
        self.handle_done = True
        self._queue: list[RunHandle] = []        # runs on this phone waiting to be shown, oldest first
        self._seen: set[str] = set()
        self._step, self._last_action = 0, ""
        self._review_id, self._question_id = "", ""    # what the tile shows: the person's answers name it
        self.background = Background()                   # on the GUI loop
        self.hop = GuiHop()                              # the core's thread's way back to the tile
        self._closed = False
        self._frames_wanted = True
        self._following: dict[str, RunFollow] = {}       # run id → its events followed onto the tile
        # core loop only:
        self._reader: asyncio.Task | None = None
        tile.run_requested.connect(self.run)
        tile.stop_requested.connect(lambda: self._to_run("stop", "stopped by the person"))
        tile.approve_requested.connect(lambda: self._to_run("answer", self._review_id, ReviewAnswer.approve()))
        tile.reject_requested.connect(lambda why: self._to_run("answer", self._review_id,
                                                               ReviewAnswer.reject(why or REJECTED)))
        tile.question_answered.connect(lambda text: self._to_run("answer_question", self._question_id, text))
        tile.show_requested.connect(self.show_in_main_window)

    # ------------------------------------------------------------------ plumbing

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Future:
        return self.background.start(coro, what=f"the tile of {self.entry}")

    @property
    def tasks(self) -> set[asyncio.Task[Any]]:
        return self.background.tasks

    def show_in_main_window(self) -> None:
        """The main window shows this phone (never away from a phone a run is using: then say why here)."""
        phone = self.window.phone
        refused: list[str] = []
        phone.switch_refused.connect(refused.append)
        try:
            phone.choose(self.entry)
        finally:
            phone.switch_refused.disconnect(refused.append)
        self.tile.show_error(refused[0] if refused else "")
        if not refused and hasattr(self.window, "raise_"):
            self.window.raise_()
            self.window.activateWindow()

    # ------------------------------------------------------------------ opening the phone

    def start(self) -> None:
        self.hop.bind()
        self._spawn(self._attach(self.window.phone.list.listing(self.entry)))

    async def _attach(self, listing) -> None:
        try:
            session, live = await self.core.run(self._open(listing))
        except (DeviceError, OSError, ValueError) as exc:
            self.tile.set_state(f"Could not open the phone: {exc}")
            return
        if self._closed:
            return
        self.session, self.phone_id = session, str(session.id)
        self.tile.set_ready(True)
        for handle in [*live, *self.runs_heard(self.phone_id)]:
            self.offer(handle)
        if self._frames_wanted:
            self.core.call(self._start_reader)

    async def _open(self, listing):
        """On the core loop: the window's own session when it shows this phone, else the registry's."""
        shown = self.window.phone
        if shown.session is not None and shown.entry is not None and shown.entry.key == self.entry.key:
            session = shown.session
        else:
            host, port = self.entry.server.rsplit(":", 1)
            session = self.window.phones.open(AdbTransport(host, int(port)), listing, virtual=self.entry.virtual)
        live = [handle for handle in self.window.service.live() if handle.phone == str(session.id)]
        return session, live

    # ------------------------------------------------------------------ the picture (core loop)

    def set_frames_wanted(self, wanted: bool) -> None:
        """A hidden or minimized Phones window reads no frames (GUI thread)."""
        if wanted == self._frames_wanted:
            return
        self._frames_wanted = wanted
        if self.session is not None and not self._closed:
            self.core.call(self._start_reader if wanted else self._stop_reader)

    def _start_reader(self) -> None:
        if not self._closed and self.session is not None and (self._reader is None or self._reader.done()):
            self._reader = asyncio.ensure_future(self._read_frames(self.session))

    def _stop_reader(self) -> None:
        if self._reader is not None:
            self._reader.cancel()

    async def _read_frames(self, session) -> None:
        """Hand the tile the newest frame, shrunk off the GUI thread, at most every FRAME_SECONDS."""
        subscription = session.frames.subscribe()
        said = ""
        try:
            while not self._closed:
                try:
                    frame = await subscription.next()
                except StopAsyncIteration:         # the phone's frames ended (the app is closing)
                    return
                except DeviceError as exc:
                    if str(exc) != said:
                        said = str(exc)
                        self.hop.call(self.tile.set_message, f"No picture from the phone: {exc}")
                    await asyncio.sleep(1.0)
                    continue
                if said:
                    said = ""
                    self.hop.call(self.tile.set_message, "")
                data, size = await asyncio.to_thread(frame_for_view, frame.image, THUMB_SIZE)
                self.hop.call(self.tile.set_frame, qimage_from_rgb(data, *size))
                await asyncio.sleep(FRAME_SECONDS)
        finally:
            subscription.close()

    # ------------------------------------------------------------------ runs

    def run(self, text: str, mode: str) -> None:
        """Start a run on this phone (the tile's Run)."""
        if not text:
            self.tile.show_error("Type what the agent should do on this phone first.")
            return
        if self.session is None:
            self.tile.show_error("The phone is not open yet.")
            return
        self.tile.show_error("")
        self.tile.set_running(True)
        self.tile.set_state("Starting…")
        self._spawn(self._start_run(RunRequest(text, phone=self.phone_id, mode=mode)))

    async def _start_run(self, request: RunRequest) -> None:
        service = self.window.service
        try:
            secret_store = getattr(self.window, "_secret_store", None)
            if secret_store is not None:
                service.secrets = await secret_store()
            handle = await self.core.run(service.start(request))
        except KeyForAnotherOrigin as exc:        # a key exists, for another server: which origin, how to allow it
            self._refused(str(exc))
        except MissingApiKey:
            self._refused("Add an API key in Settings to run the agent.")
        except (RunRefused, DeviceError) as exc:
            self._refused(str(exc))
        else:
            self.offer(handle)

    def _refused(self, why: str) -> None:
        if self._closed:
            return
        self.tile.set_running(False)
        self.tile.set_state("Not started")
        self.tile.show_error(why)

    def offer(self, handle: RunHandle) -> None:
        """A run on some phone (GUI thread): shown here if it is this phone's, now or after the current one."""
        if self._closed or not self.phone_id or handle.phone != self.phone_id or handle.id in self._seen:
            return
        self._seen.add(handle.id)
        if self.handle is None or self.handle_done:
            self._follow(handle)
        else:
            self._queue.append(handle)

    def _follow(self, handle: RunHandle) -> None:
        previous = self.handle
        self.handle, self.handle_done = handle, False
        self._step, self._last_action = 0, ""
        self.tile.begin_run(handle.request)
        if previous is not None:
            following = self._following.pop(previous.id, None)
            if following is not None:
                following.stop()
        if handle.id not in self._following:
            self._following[handle.id] = follow_run(self.core, self.hop, handle, self._shown)

    def _shown(self, handle: RunHandle, event: RunEvent) -> None:
        self._event(handle, event)            # looked up at each event: the tile's current handler

    def _event(self, handle: RunHandle, event) -> None:
        """On the GUI thread: what the tile shows of the run it follows."""
        if handle is not self.handle or self.handle_done:
            return
        tile = self.tile
        if isinstance(event, StateChanged):
            tile.set_state(state_sentence(event.after, event.reason))
        elif isinstance(event, StepStarted):
            self._step = event.step
            tile.set_step(self._step, self._last_action)
        elif isinstance(event, ActionExecuted):
            self._last_action = event.action_text + ("" if event.success else " (failed)")
            tile.set_step(self._step, self._last_action)
        elif isinstance(event, ReviewRequested):
            self._review_id = event.proposal.id
            tile.show_review(event.proposal.action_text, event.proposal.sensitive_reason)
        elif isinstance(event, ReviewAnswered):
            tile.clear_review()
        elif isinstance(event, QuestionAsked):
            self._question_id = event.question_id
            tile.show_question(event.question)
        elif isinstance(event, QuestionAnswered):
            tile.clear_question()
        elif isinstance(event, Message):
            tile.set_message(event.text)
        elif isinstance(event, RunFinished):
            self._finished(handle, event)

    def _finished(self, handle: RunHandle, event: RunFinished) -> None:
        self.handle_done = True
        result = event.result
        if result is None:
            self.tile.finish_run(f"The run ended unexpectedly: {event.error or 'no reason given'}", False)
        else:
            self.tile.finish_run(f"Run {result.status} after {counted(result.steps_taken, 'step')}: "
                                 f"{result.completion_reason}", result.status == "success")
        self.tile.set_message("")
        following = self._following.pop(handle.id, None)
        if following is not None:
            following.stop()
        while self._queue:
            waiting = self._queue.pop(0)
            if not waiting.finished:
                self._follow(waiting)
                return

    def _to_run(self, method: str, *args: Any) -> None:
        """The person's answer, Stop…, to the run the tile shows (on the core loop)."""
        handle = self.handle
        if handle is None or self.handle_done:
            return

        def call() -> None:
            try:
                getattr(handle, method)(*args)
            except NothingToAnswer as exc:      # answered elsewhere first (the main window, a script)
                log.info("%s", exc)
        self.core.call(call)

    # ------------------------------------------------------------------ closing

    async def close(self) -> None:
        """Stop the frame reader and leave every event stream (GUI thread); the runs go on."""
        if self._closed:
            return
        self._closed = True
        self.hop.close()
        for following in self._following.values():
            following.stop()            # left on the core loop before _detach below runs there
        await self.background.close()
        if not self.core.loop.is_closed():
            try:
                await self.core.run(self._detach())
            except RuntimeError as exc:        # the core loop closed meanwhile (the app is quitting)
                log.info("the core loop closed before the tile left it: %s", exc)

    async def _detach(self) -> None:
        reader, self._reader = self._reader, None
        if reader is not None and not reader.done():
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)

    @property
    def reading_frames(self) -> bool:
        return self._reader is not None and not self._reader.done()

    @property
    def subscribed_runs(self) -> list[str]:
        return [run_id for run_id, following in self._following.items() if following.subscribed]
