"""The qasync event loop the app and its GUI tests run on: one per process."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import qasync
from PySide6.QtWidgets import QApplication


def use_plain_worker_threads(loop: asyncio.AbstractEventLoop) -> None:
    """Blocking work (adbutils, file writes) runs on plain Python threads, not qasync's QThreads."""
    loop.set_default_executor(ThreadPoolExecutor(max_workers=8, thread_name_prefix="agentdesk-worker"))


def new_qasync_loop() -> asyncio.AbstractEventLoop:
    """A qasync loop on the QApplication (made if needed). Make one per process: qasync
    does not fully clean up a closed loop, and Qt may later fire a timer at its freed objects."""
    loop = qasync.QEventLoop(QApplication.instance() or QApplication([]))
    use_plain_worker_threads(loop)
    return loop
