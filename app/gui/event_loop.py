"""The qasync event loop the app and its GUI tests run on: one per process."""

from __future__ import annotations

import asyncio
import gc
import sys
from concurrent.futures import ThreadPoolExecutor

import qasync
from PySide6.QtWidgets import QApplication

# How long a thread may hold the GIL while another waits for it. Python's default, 5 ms, is
# paid by the GUI thread at every call into Python (a paint, a model's data()) while the
# run's thread and the frame decoder are busy; 1 ms keeps those waits short.
GIL_SWITCH_INTERVAL_S = 0.001


def prepare_gui_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Blocking work (adbutils, file writes) runs on plain Python threads, not qasync's QThreads,
    and the GUI thread gets the GIL back quickly from them."""
    loop.set_default_executor(ThreadPoolExecutor(max_workers=8, thread_name_prefix="agentdesk-worker"))
    sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)


def keep_startup_objects_out_of_collections() -> None:
    """Once the window has started: one full garbage collection now, then every object alive so far (Qt's
    bindings, the modules, the agent's code) is left out of later full collections (`gc.freeze`).

    A full collection walks every tracked object while holding the GIL — ~95,000 objects, 55–70 ms
    here — and the GUI thread waits for it whichever thread set it off (opening a 300-screen map
    does). Frozen, later collections walk only what was made since (`agentdesk bench map`)."""
    gc.collect()
    gc.freeze()


def new_qasync_loop() -> asyncio.AbstractEventLoop:
    """A qasync loop on the QApplication (made if needed). Make one per process: qasync
    does not fully clean up a closed loop, and Qt may later fire a timer at its freed objects."""
    loop = qasync.QEventLoop(QApplication.instance() or QApplication([]))
    prepare_gui_loop(loop)
    return loop
