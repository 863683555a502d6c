"""Which screen the window's phone shows now, for the Map window to frame and follow.

While the map is shown (`start()` … `stop()`), every `INTERVAL_MS` it asks the phone's shared UI tree
(`PhoneSession.screen_tree`, on the core's loop thread) for the screen: that dumps only when the
screen changed (a dump costs about a second on a real phone), and a read never starts while the
previous one is still going. During a run the timer reads nothing; the map reads once when it opens
and once after each finished step — the step's action moved the phone on, and the run's next step
needs that very dump, which the shared tree takes once for both. The screen's stable signature is
computed in a worker thread and announced with `screen_seen`. The phone's kind (model
and Android version, as runs record it) is announced once per phone with `kind_known`.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from app.core.device.errors import DeviceError
from app.core.device.phone_facts import phone_facts
from app.core.learning.screen_signature import stable_signature
from app.core.learning.transitions import phone_kind

log = logging.getLogger(__name__)

INTERVAL_MS = 2000


def signature_of(app: str, activity: str, controls: list) -> str:
    return stable_signature(app, activity, controls).id if controls else ""


class LiveScreen(QObject):
    screen_seen = Signal(str)          # the signature id of the screen the phone shows
    kind_known = Signal(str)           # the phone kind of the window's phone

    def __init__(self, host: Any = None, parent: QObject | None = None) -> None:
        """`host` is the main window (its `phone`, `core` and `controller`), or None: nothing to follow."""
        super().__init__(parent)
        self.host = host
        self.kinds: dict[str, str] = {}          # phone id → its kind
        self.timer = QTimer(self)
        self.timer.setInterval(INTERVAL_MS)
        self.timer.timeout.connect(self.read_soon)
        self._reading: asyncio.Task | None = None
        self._tasks: set[asyncio.Task] = set()
        if host is not None:
            host.controller.step_finished.connect(self._step_finished)

    @property
    def following(self) -> bool:
        return self.timer.isActive()

    def start(self) -> None:
        if self.host is not None and not self.timer.isActive():
            self.timer.start()
            self.read_soon(during_runs=True)

    def stop(self) -> None:
        self.timer.stop()
        for task in list(self._tasks):
            task.cancel()

    async def stopped(self) -> None:
        """Stop, and wait until no read is left going."""
        self.stop()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    def _spawn(self, coro) -> asyncio.Task:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def read_soon(self, during_runs: bool = False) -> None:
        """Read the phone's screen now, unless a read is going (or a run is, and this is the timer's read)."""
        host = self.host
        if host is None or (self._reading is not None and not self._reading.done()):
            return
        session = host.phone.session
        if session is None or (host.controller.running and not during_runs):
            return
        self._reading = self._spawn(self._read(session))

    async def _read(self, session) -> None:
        core = self.host.core
        try:
            key = str(session.id)
            if key not in self.kinds:
                facts = await core.run(phone_facts(session.device))
                self.kinds[key] = phone_kind(session.model, str(facts.get("android_version") or ""))
                self.kind_known.emit(self.kinds[key])
            reading = await core.run(session.screen_tree.read())
            signature = await asyncio.to_thread(signature_of, reading.package, reading.activity,
                                                list(reading.controls))
        except DeviceError as exc:
            log.info("the map could not read the phone's screen: %s", exc)
            return
        except RuntimeError as exc:          # the core's loop is closing with the window
            log.info("the map stopped reading the phone: %s", exc)
            return
        if signature and self.timer.isActive():
            self.screen_seen.emit(signature)

    def _step_finished(self, _item) -> None:
        """A run's step ended: its action moved the phone on; read where to (the next step reads the same)."""
        if self.timer.isActive():
            self.read_soon(during_runs=True)
