"""The Phones window: every ready phone at once, as a grid of tiles that reflows with the window's width,
each with a small live mirror and its own run (phone_tile.py, phone_follower.py).

Open it with `show_phone_grid(main_window)`. It follows the main window's list of phones (tiles
come and go with the phones) and the run service's new runs (a run started anywhere shows on
its phone's tile). Closing it stops every frame reader and event subscription it made; the
runs go on, in the main window and the task API.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtWidgets import QGridLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from app.core.runs.handle import RunHandle
from app.gui.bridge import GuiHop
from app.gui.dialogs import show_single
from app.gui.phones.device_panel import DeviceEntry, shared_serials
from app.gui.phones.phone_follower import PhoneFollower, tile_name
from app.gui.phones.phone_tile import TILE_MIN_WIDTH, PhoneTile
from app.gui.window_fit import fit_window

log = logging.getLogger(__name__)

SPACING = 10
NO_PHONES = ("No phone is ready. Plug one in with USB debugging on, or connect one over Wi-Fi from the "
             "main window's phones panel; it appears here once it is ready.")


def columns_for(width: int, tile_width: int = TILE_MIN_WIDTH) -> int:
    """How many tiles at least `tile_width` wide fit side by side in `width` pixels (at least one)."""
    return max(1, (width + SPACING) // (tile_width + SPACING))


class PhoneGridWindow(QWidget):
    """Non-modal; `host` is the main window (its phones, core loop and run service)."""

    def __init__(self, host: Any, parent: QWidget | None = None):
        super().__init__(parent, Qt.WindowType.Window)
        self.setWindowTitle("Phones — Agent Desk")
        self.host = host
        self.followers: dict[tuple[str, str], PhoneFollower] = {}
        self.tiles: dict[tuple[str, str], PhoneTile] = {}
        self.columns = 0
        self.open = False
        self.stopping: asyncio.Future | None = None      # the last close's clean-up (awaitable)
        self._heard: dict[str, list[RunHandle]] = {}     # live runs the service told of, by phone id
        self._listener: Callable[[RunHandle], None] | None = None   # on the run service, while open
        self._listening: asyncio.Future | None = None     # putting the listener there
        self._hop: GuiHop | None = None                   # the core's way back here, while open
        self._tasks: set[asyncio.Future] = set()
        self._build()
        fit_window(self, QSize(1280, 720))
        if host is not None and isinstance(host, QObject):
            host.installEventFilter(self)

    def _build(self) -> None:
        self.empty = QLabel(NO_PHONES)
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setMargin(24)
        self.grid_host = QWidget()
        self.grid = QGridLayout(self.grid_host)
        self.grid.setContentsMargins(SPACING, SPACING, SPACING, SPACING)
        self.grid.setSpacing(SPACING)
        self.grid.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QScrollArea.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll_area.setWidget(self.grid_host)
        self.scroll_area.viewport().installEventFilter(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.empty)
        layout.addWidget(self.scroll_area, 1)
        self.scroll_area.hide()

    # ------------------------------------------------------------------ opening and closing

    def _spawn(self, coro) -> asyncio.Future:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def start(self) -> None:
        """Follow the window's phones and the service's runs (on show)."""
        if self.open:
            return
        self.open = True
        hop = self._hop = GuiHop()
        hop.bind()

        def new_run(handle: RunHandle) -> None:             # on the core loop
            hop.call(self._new_run, handle, new_run)

        self._listener = new_run
        self._listening = self._spawn(self.host.core.run(self._on_core(self.host.service.on_new_run, new_run)))
        phone = self.host.phone
        phone.devices_changed.connect(self.set_devices)
        self.set_devices(phone.list.entries)

    @staticmethod
    async def _on_core(function, *args):
        return function(*args)

    def _new_run(self, handle: RunHandle, listener) -> None:
        """On the GUI thread: a run started anywhere; its phone's tile shows it."""
        if not self.open or listener is not self._listener:
            return
        heard = [h for h in self._heard.get(handle.phone, []) if not h.finished]
        self._heard[handle.phone] = [*heard, handle]
        for follower in self.followers.values():
            follower.offer(handle)

    def _runs_heard(self, phone_id: str) -> list[RunHandle]:
        return [h for h in self._heard.get(phone_id, []) if not h.finished]

    def stop(self) -> asyncio.Future | None:
        """Stop following (on close): frame readers, event streams, the service's listener. Runs go on."""
        if not self.open:
            return self.stopping
        self.open = False
        with contextlib.suppress(RuntimeError, TypeError):
            self.host.phone.devices_changed.disconnect(self.set_devices)
        followers = list(self.followers.values())
        self.followers.clear()
        for follower in followers:
            follower.hop.close()        # frames already on their way never reach a tile removed below
        for key in list(self.tiles):
            self._remove_tile(key)
        self._listener = None
        if self._hop is not None:
            self._hop.close()
        self._heard.clear()
        self.stopping = self._spawn(self._stop(followers))
        self._update_empty()
        return self.stopping

    async def _stop(self, followers: list[PhoneFollower]) -> None:
        listening, self._listening = self._listening, None
        forget = None
        if listening is not None:
            try:
                forget = await listening          # on_new_run's unsubscribe
            except BaseException:
                forget = None
        others = [task for task in self._tasks if task is not asyncio.current_task()]
        await asyncio.gather(*others, *(follower.close() for follower in followers), return_exceptions=True)
        for follower in followers:
            follower.deleteLater()
        core = self.host.core
        if forget is not None and not core.loop.is_closed():
            with contextlib.suppress(RuntimeError):
                await core.run(self._on_core(forget))

    @property
    def tasks(self) -> set[asyncio.Future]:
        """Work of this window still under way on the GUI loop (its own and its tiles')."""
        return {t for t in self._tasks if not t.done()} | {t for f in self.followers.values() for t in f.tasks}

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.start()
        self._frames_wanted(True)

    def hideEvent(self, event) -> None:
        super().hideEvent(event)
        self._frames_wanted(False)

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.WindowStateChange:
            self._frames_wanted(self.isVisible() and not self.isMinimized())
        super().changeEvent(event)

    def _frames_wanted(self, wanted: bool) -> None:
        for follower in self.followers.values():
            follower.set_frames_wanted(wanted)

    def closeEvent(self, event) -> None:
        self.stop()
        super().closeEvent(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.host and event.type() == QEvent.Type.Close:
            self.close()
        elif watched is self.scroll_area.viewport() and event.type() == QEvent.Type.Resize:
            self._reflow()
        return False

    # ------------------------------------------------------------------ tiles

    def set_devices(self, entries: list[DeviceEntry]) -> None:
        """The window's phones changed: a tile per ready phone, in the list's order."""
        if not self.open:
            return
        ready = {entry.key: entry for entry in entries if entry.ready}
        shared = shared_serials(entries)
        for key in [key for key in self.tiles if key not in ready]:
            self._remove_tile(key)
        for key, entry in ready.items():
            if key in self.tiles:
                self.followers[key].entry = entry
                self.tiles[key].set_name(tile_name(entry, entry.serial in shared))
            else:
                self._add_tile(entry, entry.serial in shared)
        order = list(ready)
        self.tiles = dict(sorted(self.tiles.items(), key=lambda item: order.index(item[0])))
        self._reflow(force=True)

    def _add_tile(self, entry: DeviceEntry, shared: bool = False) -> None:
        tile = PhoneTile(tile_name(entry, shared), self.host.settings.agent.mode)
        follower = PhoneFollower(self.host, entry, tile, self._runs_heard, parent=self)
        self.tiles[entry.key] = tile
        self.followers[entry.key] = follower
        follower.set_frames_wanted(self.isVisible() and not self.isMinimized())
        follower.start()

    def _remove_tile(self, key: tuple[str, str]) -> None:
        tile = self.tiles.pop(key)
        follower = self.followers.pop(key, None)
        if follower is not None:
            follower.hop.close()        # nothing more reaches the tile, deleted below
            self._spawn(self._close_follower(follower))
        self.grid.removeWidget(tile)
        tile.hide()
        tile.deleteLater()

    @staticmethod
    async def _close_follower(follower: PhoneFollower) -> None:
        await follower.close()
        follower.deleteLater()

    def _reflow(self, force: bool = False) -> None:
        """Lay the tiles out in as many columns as the width holds."""
        # as if the scroll bar were there: a scroll bar that comes and goes never flips the column count
        width = self.scroll_area.width() - self.scroll_area.verticalScrollBar().sizeHint().width() - 2 * SPACING
        tile_width = max((tile.minimumWidth() for tile in self.tiles.values()), default=TILE_MIN_WIDTH)
        columns = max(1, min(columns_for(width, tile_width), len(self.tiles)))
        if columns == self.columns and not force:
            return
        self.columns = columns
        for tile in self.tiles.values():
            self.grid.removeWidget(tile)
        for column in range(self.grid.columnCount()):
            self.grid.setColumnStretch(column, 0)
        for index, tile in enumerate(self.tiles.values()):
            self.grid.addWidget(tile, index // columns, index % columns)
            tile.show()
        for column in range(columns):
            self.grid.setColumnStretch(column, 1)
        self._update_empty()

    def _update_empty(self) -> None:
        has_tiles = bool(self.tiles)
        self.empty.setVisible(not has_tiles)
        self.scroll_area.setVisible(has_tiles)

    def tile_for(self, serial: str) -> PhoneTile | None:
        return next((tile for key, tile in self.tiles.items() if key[1] == serial), None)

    def follower_for(self, serial: str) -> PhoneFollower | None:
        return next((f for key, f in self.followers.items() if key[1] == serial), None)


def phones_window_open(window: Any) -> bool:
    """Whether `window`'s Phones window is open (shown, even behind others or minimised): its tiles then show
    each phone's proposals, and the main window is not pulled to the front for them."""
    grid = window.findChild(PhoneGridWindow)
    return grid is not None and grid.isVisible()


def show_phone_grid(window: Any) -> PhoneGridWindow:
    """Open the main window's (single) Phones window, or bring it to the front."""
    return show_single(window, PhoneGridWindow, lambda: PhoneGridWindow(window, parent=window))
