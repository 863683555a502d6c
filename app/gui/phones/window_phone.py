"""The phone the window shows: which one, its live frames, its controls, and manual input to it.

The phone itself is owned by a core `PhoneSession` that lives on the core's loop thread
(`LoopThread`), with the run service and every run: the mirror reads the same frame
source a run reads, and manual input goes through the same device. This class is the
window's side of it: it asks the core thread for work and gets results back as Qt
signals, so the GUI thread never waits on the phone.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import QObject, QSize, Signal
from PySide6.QtGui import QGuiApplication

from app.core import paths
from app.core.device.adb_transport import AdbTransport
from app.core.device.android_device import ControlsSnapshot
from app.core.device.errors import DeviceError
from app.core.device.frames import FrameSubscription
from app.core.device.phone_frames import SCREENSHOTS, STREAM
from app.core.device.phone_session import PhoneSession
from app.core.device.screen_capture import PNG_METHOD
from app.core.loop_thread import LoopThread
from app.desk import Desk
from app.desk.phone_opening import PhoneConnection
from app.gui.bridge import GuiHop
from app.gui.mirror.dropped_files import send_dropped_files
from app.gui.mirror.mirror_frames import frame_for_view, qimage_from_rgb, ready_for_view
from app.gui.phones.device_panel import DeviceEntry
from app.gui.phones.phone_list import PhoneList

log = logging.getLogger(__name__)

CONTROLS_REFRESH_SECONDS = 2.5
AFTER_INPUT_SECONDS = 0.4


STILL_SECONDS = 1.0      # no frame for this long: the mirror says the screen is still (0 fps)


class WindowPhone(QObject):
    frame_ready = Signal(object, object)          # QImage, device size (w, h)
    controls_ready = Signal(object)               # ControlsSnapshot
    devices_changed = Signal(object)              # list[DeviceEntry]
    device_changed = Signal(object)               # DeviceEntry | None
    status = Signal(str)
    fps = Signal(float)
    switch_refused = Signal(str)                  # why the window stays on its phone (a run is using it)
    frame_source = Signal(str, str)               # "Stream" / "Screenshots", and why (the frames' status)

    def __init__(self, view_size: Callable[[], QSize], core: LoopThread, desk: Desk,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.view_size = view_size                # callable → QSize of the mirror (read on the GUI thread)
        self.core = core
        self.desk = desk                          # its phones, its directory and the virtual phone (core loop)
        self.phones = desk.phones
        self.connection: PhoneConnection | None = None
        self.session: PhoneSession | None = None
        self.entry: DeviceEntry | None = None
        self._lost = False                  # the phone went away (or not ready) since it was last seen ready
        self.frame_ms = 0.0                       # last frame: shrink + QImage wrap (core thread)
        self.live_controls = True                 # refresh controls while idle (off during a run's review)
        self.mirror_visible = True                # a hidden or minimized window reads no frames, no controls
        self._mirror_shown: asyncio.Event | None = None          # on the core loop
        self._mirror_subscription: FrameSubscription | None = None    # the mirror's frame subscription, while shown
        self._hidden_subscriptions: set = set()   # subscriptions closed because the mirror was hidden
        self._view = (480, 960)                   # the mirror's size, as last read on the GUI thread
        self._tasks: set[asyncio.Future] = set()
        self._input_order = asyncio.Lock()        # manual input reaches the phone in the order it was asked (core loop)
        self._mirroring: asyncio.Future | None = None
        self._controls_wanted: asyncio.Event | None = None    # on the core loop
        self.list = PhoneList(core, desk, parent=self)     # every phone of every server, as they come and go
        self.list.devices_changed.connect(self._on_devices)
        self.list.status.connect(self.status)
        self.list.offer_first_lists = lambda: self.entry is None or self.entry.virtual
        self.list.phone_attached.connect(
            lambda e: self.status.emit(f"{e.name} {e.serial} was attached: {e.state}. The phones panel offers it."))
        self._closing = False
        self.hop = GuiHop()                       # the core's thread's way back to the window

    @property
    def device(self):
        return self.session.device if self.session is not None else None

    def _spawn(self, coro) -> asyncio.Future:
        """Run `coro` on the core loop; the returned future is the GUI loop's."""
        future = asyncio.ensure_future(self.core.run(coro))     # (run's awaitable is a future already)
        self._tasks.add(future)
        future.add_done_callback(self._tasks.discard)
        return future

    # ------------------------------------------------------------------ choosing the phone

    async def start(self) -> None:
        self.hop.bind()
        for note in self.desk.notes:              # e.g. a bad list of other machines' servers
            self.status.emit(note)
        try:
            self.connection = await self.core.run(self.desk.open_phone(local=True))
        except DeviceError as exc:
            self.status.emit(str(exc))
            await self.list.watch()
            return
        if self.connection.virtual_server is not None:
            self.list.virtual_port = self.connection.virtual_server.port
        if self.connection.note:
            self.status.emit(self.connection.note)
        session = self.connection.session
        # this machine's server is watched even while the virtual phone is shown: a phone plugged in later appears
        await self.list.watch(session.device.transport.address)
        self._use(session, self.list.entry_for(session.id.server, session.listing))
        self._spawn(self._controls_loop())

    def _on_devices(self, entries: list[DeviceEntry]) -> None:
        self.devices_changed.emit(entries)
        if self.entry is not None and self.list.has_listed(self.entry.server):   # else its server has not spoken
            now = next((e for e in entries if e.key == self.entry.key), None)
            if now is None and self.entry.ready:
                self.status.emit(f"{self.entry.serial} was disconnected; waiting for it to come back…")
                now = dataclasses.replace(self.entry, state="disconnected — waiting for it to come back",
                                          ready=False)
                self._lost = True
            elif now is not None and now.ready and not self.entry.ready:
                if self._lost:                   # not on the first listing after start: it was never gone
                    self.status.emit(f"{now.serial} is back.")
                self._lost = False
            elif now is not None and self.entry.ready and not now.ready:
                self.status.emit(f"{now.serial} is {now.state}; waiting for it to come back…")
                self._lost = True
            if now is not None:
                self.entry = now
                self.device_changed.emit(now)

    @property
    def in_run(self) -> bool:
        """A run is driving the phone the window shows."""
        return self.session is not None and self.session.busy

    def _use(self, session: PhoneSession, entry: DeviceEntry) -> None:
        previous = self.session
        if previous is not None and self._on_frame_source in previous.frames.on_status:
            previous.frames.on_status.remove(self._on_frame_source)
        session.frames.on_status.append(self._on_frame_source)
        self.session, self.entry = session, entry
        self.device_changed.emit(entry)
        if self._mirroring is not None:
            self._mirroring.cancel()
        self._view = self._read_view_size()
        self._mirroring = self._spawn(self._mirror(session))
        self.request_controls()

    def _on_frame_source(self, status: str) -> None:
        """The phone's frames changed source (core thread): say which, and why when it is not the stream."""
        if status.startswith(STREAM):
            short = "Stream"
        elif status.startswith(SCREENSHOTS):
            short = "Screenshots"
        else:
            short = ""
        self.hop.emit(self.frame_source, short, status)

    def choose(self, entry: DeviceEntry) -> None:
        """Show `entry`'s phone (one click in the phones panel). Never away from a phone a run is using."""
        if self.entry is not None and entry.key == self.entry.key:
            return
        if self.in_run:
            why = (f"A run is using {self.entry.serial if self.entry else 'this phone'}: "
                   f"switch to {entry.serial} when it has ended.")
            self.status.emit(why)
            self.switch_refused.emit(why)
            return
        if not entry.ready:
            self.status.emit(f"{entry.serial} is {entry.state}.")
        host, port = entry.server.rsplit(":", 1)
        listing = self.list.listing(entry)

        async def open_session() -> PhoneSession:
            return self.phones.open(AdbTransport(host, int(port)), listing, virtual=entry.virtual)

        async def switch() -> None:
            self._use(await self.core.run(open_session()), entry)
        task = asyncio.ensure_future(switch())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def connect_wifi(self, address: str) -> None:
        self.list.connect_wifi(address)

    def pair_wifi(self, address: str, code: str) -> None:
        self.list.pair(address, code)

    # ------------------------------------------------------------------ frames and controls (core loop)

    def _read_view_size(self) -> tuple[int, int]:
        size = self.view_size()
        return (size.width(), size.height())

    def set_mirror_visible(self, visible: bool) -> None:
        """Whether the window shows the mirror (GUI thread). Hidden or minimized, it reads no frames and
        no controls, so the phone is not captured for nobody; shown again, it resumes at once."""
        if visible == self.mirror_visible:
            return
        self.mirror_visible = visible
        self.core.call(self._apply_mirror_visibility)
        if visible:
            self.request_controls()

    def _mirror_shown_event(self) -> asyncio.Event:
        """On the core loop: set while the mirror is shown."""
        if self._mirror_shown is None:
            self._mirror_shown = asyncio.Event()
            if self.mirror_visible:
                self._mirror_shown.set()
        return self._mirror_shown

    def _apply_mirror_visibility(self) -> None:
        shown = self._mirror_shown_event()
        if self.mirror_visible:
            shown.set()
            return
        shown.clear()
        subscription = self._mirror_subscription
        if subscription is not None:
            self._hidden_subscriptions.add(subscription)
            subscription.close()                   # its reader stops at once and waits to be shown

    async def _mirror(self, session: PhoneSession) -> None:
        """Follow the phone's frames while the mirror is shown: shrink each to the mirror's size off the
        GUI thread, hand it over. Hidden, it unsubscribes (the frame source stops when nobody reads)."""
        while not self._closing and self.session is session:
            await self._mirror_shown_event().wait()
            if self._closing or self.session is not session:
                return
            if not await self._follow_frames(session):
                return

    async def _follow_frames(self, session: PhoneSession) -> bool:
        """Show frames until the mirror is hidden (True: wait to be shown again) or the frames end (False)."""
        subscription = self._mirror_subscription = session.frames.subscribe()
        frames, window_start = 0, time.monotonic()
        try:
            while not self._closing and self.session is session:
                try:
                    frame = await asyncio.wait_for(subscription.next(), STILL_SECONDS)
                except TimeoutError:   # a streamed screen that stands still sends nothing
                    if frames or window_start:
                        self.hop.emit(self.fps, 0.0)
                    frames, window_start = 0, 0.0
                    continue
                except StopAsyncIteration:     # hidden (wait to be shown), or the phone's frames ended
                    return subscription in self._hidden_subscriptions
                except DeviceError as exc:
                    self.hop.emit(self.status, f"No picture from the phone: {exc}")
                    continue
                started = time.perf_counter()
                session.frames.view_size = self._view      # the decoder makes the next frames' rows for it
                image = ready_for_view(frame.shot, QSize(*self._view))
                if image is None:
                    data, size = await asyncio.to_thread(frame_for_view, frame.image, QSize(*self._view))
                    image = qimage_from_rgb(data, *size)
                self.frame_ms = frame.shot.decode_ms + (time.perf_counter() - started) * 1000
                if self._closing or self.session is not session:
                    return False
                self.hop.call(self._deliver_frame, image, frame.device_size)
                frames += 1
                window_start = window_start or time.monotonic()
                elapsed = time.monotonic() - window_start
                if elapsed >= 1.0:
                    self.hop.emit(self.fps, frames / elapsed)
                    frames, window_start = 0, time.monotonic()
            return False
        finally:
            subscription.close()
            self._hidden_subscriptions.discard(subscription)
            if self._mirror_subscription is subscription:
                self._mirror_subscription = None

    def _deliver_frame(self, image, device_size) -> None:
        """On the GUI thread: show the frame, and note the mirror's size for the next one."""
        self._view = self._read_view_size()
        self.frame_ready.emit(image, device_size)

    def request_controls(self) -> None:
        wanted = self._controls_wanted
        if wanted is not None:
            self.core.call(wanted.set)

    async def _controls_loop(self) -> None:
        """Controls for the overlay and inspector: at start, after input, and every few seconds."""
        self._controls_wanted = wanted = asyncio.Event()
        wanted.set()
        while not self._closing:
            try:
                await asyncio.wait_for(wanted.wait(), CONTROLS_REFRESH_SECONDS)
            except TimeoutError:
                pass
            wanted.clear()
            session = self.session
            if session is None or not self.live_controls or not self.mirror_visible:
                continue
            try:
                snapshot: ControlsSnapshot = await session.device.controls()
            except DeviceError as exc:
                log.info("controls not available: %s", exc)
                continue
            if self.live_controls and not self._closing:
                self.hop.emit(self.controls_ready, snapshot)

    # ------------------------------------------------------------------ manual input

    def _input(self, what: str, act, on_error: Callable[[], None] | None = None) -> None:
        """Send input to the current phone on the core loop, in order; `act(device)` makes the coroutine.
        A failure is said in the status bar, and `on_error` is called on the GUI thread."""
        session = self.session
        if session is None:
            return

        async def send() -> None:
            try:
                async with self._input_order:
                    await act(session.device)
            except DeviceError as exc:
                self.hop.emit(self.status, f"Could not {what}: {exc}")
                if on_error is not None:
                    self.hop.call(on_error)
                return
            await asyncio.sleep(AFTER_INPUT_SECONDS)
            if self._controls_wanted is not None:
                self._controls_wanted.set()
        self._spawn(send())

    def tap(self, x: int, y: int) -> None:
        self._input("tap", lambda device: device.tap(x, y))

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int) -> None:
        self._input("swipe", lambda device: device.swipe(x1, y1, x2, y2, duration_ms))

    def press_key(self, key: str) -> None:
        self._input(f"press {key}", lambda device: device.press_key(key))

    def type_text(self, text: str) -> None:
        self._input("type", lambda device: device.type_text(text))

    def wheel(self, x: int, y: int, dx: float, dy: float) -> None:
        self._input("scroll", lambda device: device.wheel(x, y, dx, dy))

    def rotate(self) -> None:
        self._input("rotate the screen", lambda device: device.rotate())

    def set_screen_power(self, on: bool, on_error: Callable[[], None] | None = None) -> None:
        self._input(f"turn the phone's screen {'on' if on else 'off'}",
                    lambda device: device.set_screen_power(on), on_error)

    def set_show_touches(self, on: bool, on_error: Callable[[], None] | None = None) -> None:
        self._input("change Show touches", lambda device: device.set_show_touches(on), on_error)

    def copy_clipboard(self) -> None:
        """The phone's clipboard onto this computer's."""
        def deliver(text: str) -> None:
            QGuiApplication.clipboard().setText(text)
            self.status.emit(f"Copied the phone's clipboard ({len(text)} characters)." if text
                             else "The phone's clipboard is empty.")

        async def copy(device) -> None:
            self.hop.call(deliver, await device.get_clipboard())
        self._input("read the phone's clipboard", copy)

    def paste_to_phone(self) -> None:
        """This computer's clipboard text, pasted into the phone's focused field."""
        text = QGuiApplication.clipboard().text()
        if not text:
            self.status.emit("Nothing to paste: this computer's clipboard holds no text.")
            return
        self._input("paste on the phone", lambda device: device.set_clipboard(text, paste=True))

    def send_files(self, paths: list[Path]) -> None:
        """Install the APKs and push the other files (dropped on the mirror); progress in the status bar."""
        session = self.session
        if session is None or self.entry is None or not self.entry.ready:
            self.status.emit("No phone is ready to receive files.")
            return
        self._spawn(send_dropped_files(session.device, list(paths), lambda text: self.hop.emit(self.status, text)))

    def save_screenshot(self) -> None:
        session, entry = self.session, self.entry
        if session is None or entry is None:      # (they are set together)
            return

        async def save() -> None:
            try:
                frame = await session.frames.frame_after()
                image = frame.image
                if frame.size != frame.device_size:        # the stream is scaled: save the phone's own pixels
                    # one capture on the known path, not the four trial captures that choose one
                    method = session.device.capture_method or PNG_METHOD
                    image = (await session.device.screenshot(method)).image
            except DeviceError as exc:
                self.hop.emit(self.status, f"Could not take a screenshot: {exc}")
                return
            folder = paths.data_dir() / "screenshots"
            path = folder / f"{entry.serial.replace(':', '_')}-{datetime.now():%Y%m%d-%H%M%S}.png"
            await asyncio.to_thread(_save_png, image, path)
            self.hop.emit(self.status, f"Screenshot saved to {path}")
        self._spawn(save())

    async def shutdown(self) -> None:
        self._closing = True
        self.hop.close()
        self.list.stop()
        for future in list(self._tasks):
            future.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=5)
        await self.list.wait_stopped()      # the phone itself (and the virtual phone) the desk closes


def _save_png(image, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path)
