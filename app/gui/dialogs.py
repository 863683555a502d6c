"""Await a dialog without a nested event loop (GUIDE §3: never exec() inside a coroutine), and the
small pieces several windows share (the paragraph an empty list shows, a loading dialog)."""

from __future__ import annotations

import asyncio
import contextlib

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QWidget

from app.gui.window_fit import fit_window


async def run_dialog(dialog: QDialog) -> int:
    """Show `dialog` with open() and return its result code once it finishes.

    The result is `QDialog.DialogCode.Accepted` (1) or `Rejected` (0) as an int, or whatever
    was passed to `done()`. If the awaiting task is cancelled, the dialog is rejected.
    """
    finished: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def on_finished(result: int) -> None:
        if not finished.done():
            finished.set_result(int(result))

    dialog.finished.connect(on_finished)
    dialog.open()
    try:
        return await finished
    except asyncio.CancelledError:
        if dialog.isVisible():
            dialog.reject()
        raise
    finally:
        with contextlib.suppress(RuntimeError):  # the dialog may already be deleted (WA_DeleteOnClose)
            dialog.finished.disconnect(on_finished)


def empty_state_page(text: str, width: int = 680) -> tuple[QLabel, QWidget]:
    """A page that says, in a centred paragraph at most `width` wide, why a list or map is empty (or that
    it is loading): the label (to change its words) and the page (to put in a QStackedWidget)."""
    label = QLabel(text)
    label.setWordWrap(True)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setMargin(24)
    label.setMaximumWidth(width)            # a paragraph, not one line across the window
    page = QWidget()
    QHBoxLayout(page).addWidget(label)
    return label, page


class LoadingDialog(QDialog):
    """A dialog that reads what it shows in the background each time it is shown (`reload()`, a coroutine
    of the subclass); closing it cancels a read still going."""

    loading: asyncio.Task | None = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        fit_window(self)      # at the size the subclass gives itself, within the screen

    async def reload(self):
        raise NotImplementedError

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self.loading is None or self.loading.done():
            self.loading = asyncio.get_running_loop().create_task(self.reload())

    def done(self, result: int) -> None:
        if self.loading is not None:
            self.loading.cancel()
        super().done(result)


def show_single(parent: QWidget, window_class, make):
    """Open `parent`'s one window of `window_class` (made by `make()` the first time), or bring it to the front."""
    window = parent.findChild(window_class)
    if window is None:
        window = make()
    window.show()
    window.raise_()
    window.activateWindow()
    return window
