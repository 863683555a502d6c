"""Unexpected errors: logged with their traceback, and shown to the person in one calm dialog.

`install_exception_hooks` catches what nothing else caught: `sys.excepthook` (Qt slots and
virtual overrides), `threading.excepthook` (worker threads) and the asyncio loop's exception
handler (tasks and callbacks). Each error goes to the log (the rotating, redacted file of
`setup_logging`) and into one non-modal `ErrorDialog`: errors that arrive while it is open
are added to it instead of opening another window. Every text shown is redacted.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import traceback
from collections.abc import Callable
from types import TracebackType
from typing import Any

from PySide6.QtCore import QObject, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QFontDatabase, QGuiApplication
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QStyle, QVBoxLayout, QWidget

from app.core.paths import log_dir
from app.core.redaction import redact
from app.gui.theme import set_tone
from app.gui.window_fit import fit_window

log = logging.getLogger(__name__)

SUMMARY_LIMIT = 300
LISTED_SUMMARIES = 5
KEPT_ERRORS = 50
"""A burst beyond this many keeps the first ones and counts the rest (an error loop must not eat memory)."""
IGNORED = (KeyboardInterrupt, asyncio.CancelledError)


class ErrorDialog(QDialog):
    """One or more errors: a plain summary, the redacted tracebacks, copy and open-log buttons."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Agent Desk – Something went wrong")
        self.setModal(False)
        self.summaries: list[str] = []
        self._details: list[str] = []
        self._dropped = 0

        icon = QLabel()
        icon.setPixmap(self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxCritical).pixmap(32, 32))
        self.summary_label = QLabel(wordWrap=True)
        self.summary_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        note = QLabel("Agent Desk keeps running. The details are also in the log file.", wordWrap=True)
        set_tone(note, "muted")
        text_column = QVBoxLayout()
        text_column.addWidget(self.summary_label)
        text_column.addWidget(note)
        header = QHBoxLayout()
        header.addWidget(icon, 0, Qt.AlignmentFlag.AlignTop)
        header.addLayout(text_column, 1)

        self.details_view = QPlainTextEdit(readOnly=True)
        self.details_view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.details_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.details_view.setMinimumHeight(180)
        self.details_view.hide()

        self.details_button = QPushButton("Show details", autoDefault=False)
        self.details_button.setCheckable(True)
        self.details_button.toggled.connect(self._toggle_details)
        self.copy_button = QPushButton("Copy details", autoDefault=False)
        self.copy_button.clicked.connect(self.copy_details)
        log_button = QPushButton("Open log folder", autoDefault=False)
        log_button.setToolTip(str(log_dir()))
        log_button.clicked.connect(lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(log_dir()))))
        self.close_button = QPushButton("Close", default=True)
        self.close_button.setProperty("primary", True)
        self.close_button.clicked.connect(self.accept)
        buttons = QHBoxLayout()
        buttons.addWidget(self.details_button)
        buttons.addStretch(1)
        for button in (self.copy_button, log_button, self.close_button):
            buttons.addWidget(button)

        layout = QVBoxLayout(self)
        layout.setSpacing(12)
        layout.addLayout(header)
        layout.addWidget(self.details_view, 1)
        layout.addLayout(buttons)
        self.setMinimumWidth(560)
        fit_window(self)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.close_button.setFocus()

    def add_error(self, summary: str, details: str) -> None:
        """Add one error (texts already redacted) and refresh the summary and details."""
        if len(self.summaries) >= KEPT_ERRORS:
            self._dropped += 1
        else:
            self.summaries.append(summary)
            self._details.append(details)
        self.summary_label.setText(self._summary_text())
        self.details_view.setPlainText(self.details_text())

    def details_text(self) -> str:
        """Every traceback, oldest first, as shown in the Details area."""
        parts = [f"Error {number}: {summary}\n\n{details}".rstrip()
                 for number, (summary, details) in enumerate(zip(self.summaries, self._details, strict=True), start=1)]
        if self._dropped:
            parts.append(f"… and {self._dropped} more errors (see the log).")
        return ("\n\n" + "─" * 60 + "\n\n").join(parts)

    def copy_details(self) -> None:
        QGuiApplication.clipboard().setText(self.details_text())
        self.copy_button.setText("Copied")

    def _summary_text(self) -> str:
        total = len(self.summaries) + self._dropped
        if total == 1:
            return f"Something went wrong: {self.summaries[0]}"
        lines = [f"Something went wrong {total} times:"]
        lines += [f"• {summary}" for summary in self.summaries[:LISTED_SUMMARIES]]
        if total > LISTED_SUMMARIES:
            lines.append(f"… and {total - LISTED_SUMMARIES} more (see the details).")
        return "\n".join(lines)

    def _toggle_details(self, shown: bool) -> None:
        self.details_view.setVisible(shown)
        self.details_button.setText("Hide details" if shown else "Show details")
        self.adjustSize()


class ExceptionHooks(QObject):
    """The installed hooks; `dialog` is the error dialog on screen, if any. `uninstall()` undoes all."""

    _reported = Signal(str, str)  # summary, details: carried to the GUI thread from any thread

    def __init__(self, parent_getter: Callable[[], QWidget | None], loop: asyncio.AbstractEventLoop):
        super().__init__()
        self.dialog: ErrorDialog | None = None
        self._parent_getter = parent_getter
        self._loop = loop
        self._previous_excepthook = sys.excepthook
        self._previous_thread_hook = threading.excepthook
        self._previous_loop_handler = loop.get_exception_handler()
        self._reported.connect(self._show)
        sys.excepthook = self._excepthook
        threading.excepthook = self._thread_excepthook
        loop.set_exception_handler(self._loop_exception_handler)

    def uninstall(self) -> None:
        if sys.excepthook == self._excepthook:
            sys.excepthook = self._previous_excepthook
        if threading.excepthook == self._thread_excepthook:
            threading.excepthook = self._previous_thread_hook
        # Unconditional: qasync's loop keeps its handler privately, so get_exception_handler() cannot tell.
        self._loop.set_exception_handler(self._previous_loop_handler)

    def report(self, error: BaseException, context: str = "") -> None:
        """Log `error` with its traceback and show it; safe to call from any thread."""
        if isinstance(error, IGNORED):
            return
        log.error("Unexpected error%s", f" ({context})" if context else "",
                  exc_info=(type(error), error, error.__traceback__))
        summary = redact(f"{type(error).__name__}: {error}" if str(error) else type(error).__name__)
        if len(summary) > SUMMARY_LIMIT:
            summary = summary[: SUMMARY_LIMIT - 1] + "…"
        details = redact((f"{context}\n" if context else "") + "".join(traceback.format_exception(error)))
        self._reported.emit(summary, details)

    def _excepthook(self, kind: type[BaseException], error: BaseException, trace: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            self._previous_excepthook(kind, error, trace)
            return
        self.report(error.with_traceback(trace))

    def _thread_excepthook(self, args: threading.ExceptHookArgs) -> None:
        if args.exc_value is not None:
            name = args.thread.name if args.thread is not None else "a worker thread"
            self.report(args.exc_value.with_traceback(args.exc_traceback), f"in thread {name}")

    def _loop_exception_handler(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        if error is None:
            log.error("asyncio: %s", context.get("message", "an error without a message"))
            return
        self.report(error, str(context.get("message", "")))

    def _show(self, summary: str, details: str) -> None:
        if self.dialog is None:
            try:
                parent = self._parent_getter()
            except Exception:  # noqa: BLE001 - a broken getter must not hide the real error
                parent = None
            self.dialog = ErrorDialog(parent)
            self.dialog.finished.connect(self._forget_dialog)
        self.dialog.add_error(summary, details)
        # Not open(): that would make the dialog window-modal and block the window behind it.
        self.dialog.show()
        self.dialog.raise_()

    def _forget_dialog(self) -> None:
        if self.dialog is not None:
            self.dialog.deleteLater()
            self.dialog = None


def install_exception_hooks(parent_getter: Callable[[], QWidget | None],
                            loop: asyncio.AbstractEventLoop | None = None) -> ExceptionHooks:
    """Route uncaught errors to the log and the error dialog; call once the event loop exists.

    `parent_getter` returns the window to centre the dialog on (or None). `loop` defaults to
    `asyncio.get_event_loop()`. Keep the returned handle; `uninstall()` restores the old hooks.
    """
    return ExceptionHooks(parent_getter, loop if loop is not None else asyncio.get_event_loop())
