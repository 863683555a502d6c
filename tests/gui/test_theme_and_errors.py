"""Theme switching, the error hooks and dialog, window-state persistence and awaiting dialogs."""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import threading

import pytest
import pytest_asyncio
from PySide6.QtCore import QSettings, QSize, Qt, QTimer
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import QDialog, QDockWidget, QLabel, QMainWindow, QPushButton, QSplitter

from app.core.redaction import REDACTED, setup_logging
from app.core.secrets import register_secret
from app.gui.dialogs import run_dialog
from app.gui.error_dialog import ErrorDialog, install_exception_hooks
from app.gui.theme import DARK, LIGHT, current_scheme, set_scheme_override
from app.gui.window_state import restore_window_state, save_window_state

SECRET = "hunter2-token-for-redaction-test"

# ----------------------------------------------------------------------------- theme


def window_colour(app) -> str:
    return app.palette().color(QPalette.ColorRole.Window).name()


def test_the_scheme_override_switches_palettes(themed_app):
    set_scheme_override("dark")
    assert current_scheme() == "dark" and window_colour(themed_app) == DARK.window
    assert themed_app.palette().color(QPalette.ColorRole.Text).lightness() > 200
    set_scheme_override("light")
    assert current_scheme() == "light" and window_colour(themed_app) == LIGHT.window
    assert themed_app.palette().color(QPalette.ColorRole.Text).lightness() < 60
    with pytest.raises(ValueError):
        set_scheme_override("sepia")


def test_the_theme_follows_the_system_scheme(themed_app):
    hints = QGuiApplication.styleHints()
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert current_scheme() == "dark" and window_colour(themed_app) == DARK.window
    set_scheme_override("light")
    assert window_colour(themed_app) == LIGHT.window, "an override wins over the system"
    set_scheme_override(None)
    assert window_colour(themed_app) == DARK.window
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Light)
    assert current_scheme() == "light" and window_colour(themed_app) == LIGHT.window


@pytest.mark.parametrize("scheme, colors", [("light", LIGHT), ("dark", DARK)])
def test_primary_buttons_wear_the_accent_and_disabled_text_stays_readable(themed_app, qtbot, scheme, colors):
    set_scheme_override(scheme)
    primary, plain = QPushButton("OK"), QPushButton("Cancel")
    primary.setProperty("primary", True)
    for button in (primary, plain):
        qtbot.addWidget(button)
        button.resize(120, 32)
    assert primary.grab().toImage().pixelColor(10, 16).name() == colors.accent
    assert plain.grab().toImage().pixelColor(10, 16).name() != colors.accent
    palette = themed_app.palette()
    disabled = palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text).lightness()
    assert abs(disabled - palette.color(QPalette.ColorRole.Window).lightness()) >= 60


# ----------------------------------------------------------------------------- error hooks


@pytest_asyncio.fixture
async def hooks(qapp, monkeypatch):
    shown_by_previous_hook: list[type] = []
    monkeypatch.setattr(sys, "excepthook", lambda kind, error, trace: shown_by_previous_hook.append(kind))
    handle = install_exception_hooks(lambda: None, asyncio.get_running_loop())
    handle.previous_hook_calls = shown_by_previous_hook
    yield handle
    handle.uninstall()
    if handle.dialog is not None:
        handle.dialog.close()


def raise_in_excepthook(error: BaseException) -> None:
    try:
        raise error
    except BaseException:  # noqa: BLE001 - handed to the hook like an uncaught error
        sys.excepthook(*sys.exc_info())


def visible_error_dialogs(app) -> list[ErrorDialog]:
    return [widget for widget in app.topLevelWidgets() if isinstance(widget, ErrorDialog) and widget.isVisible()]


@pytest.mark.asyncio
async def test_a_burst_of_errors_from_every_source_shows_one_dialog(qapp, hooks):
    loop = asyncio.get_running_loop()
    raise_in_excepthook(ValueError("from a slot"))

    def failing_callback() -> None:
        raise RuntimeError("from a loop callback")
    loop.call_soon(failing_callback)

    async def failing_task() -> None:
        raise KeyError("from a forgotten task")
    task = loop.create_task(failing_task())
    await asyncio.sleep(0.01)
    del task
    gc.collect()  # "Task exception was never retrieved" goes to the loop's handler

    worker = threading.Thread(target=lambda: 1 / 0, name="worker-7")
    worker.start()
    worker.join()
    await asyncio.sleep(0.05)  # the worker's error crosses to the GUI thread as a queued signal

    assert visible_error_dialogs(qapp) == [hooks.dialog]
    dialog = hooks.dialog
    assert len(dialog.summaries) == 4
    summary = dialog.summary_label.text()
    assert summary.startswith("Something went wrong 4 times:")
    for text in ("from a slot", "from a loop callback", "from a forgotten task", "ZeroDivisionError"):
        assert text in summary
    assert "in thread worker-7" in dialog.details_text()
    assert not dialog.isModal(), "the error dialog never blocks the window behind it"

    dialog.close()
    raise_in_excepthook(OSError("after closing"))
    assert visible_error_dialogs(qapp) == [hooks.dialog] and hooks.dialog is not dialog
    assert hooks.dialog.summary_label.text() == "Something went wrong: OSError: after closing"


@pytest.mark.asyncio
async def test_the_details_and_the_log_are_redacted(qapp, hooks, tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path))
    log_file = setup_logging()
    try:
        register_secret(SECRET)
        raise_in_excepthook(RuntimeError(f"login refused for token {SECRET}"))
        dialog = hooks.dialog
        assert SECRET not in dialog.summary_label.text() and REDACTED in dialog.summary_label.text()
        details = dialog.details_view.toPlainText()
        assert "Traceback (most recent call last)" in details and "raise_in_excepthook" in details
        assert SECRET not in details and REDACTED in details
        assert dialog.details_view.isReadOnly() and not dialog.details_view.isVisible()
        dialog.details_button.click()
        assert dialog.details_view.isVisible()
        dialog.copy_button.click()
        assert QGuiApplication.clipboard().text() == dialog.details_text()
        for handler in logging.getLogger().handlers:
            handler.flush()
        logged = log_file.read_text(encoding="utf-8")
        assert "login refused for token" in logged and "Traceback" in logged and SECRET not in logged
    finally:
        for handler in [h for h in logging.getLogger().handlers if str(tmp_path) in getattr(h, "baseFilename", "")]:
            logging.getLogger().removeHandler(handler)
            handler.close()


@pytest.mark.asyncio
async def test_interrupts_and_cancellations_are_not_shown(qapp, hooks):
    raise_in_excepthook(KeyboardInterrupt())
    raise_in_excepthook(asyncio.CancelledError())
    asyncio.get_running_loop().call_exception_handler({"message": "cancelled", "exception": asyncio.CancelledError()})
    asyncio.get_running_loop().call_exception_handler({"message": "Task was destroyed but it is pending!"})
    await asyncio.sleep(0.01)
    assert hooks.dialog is None and visible_error_dialogs(qapp) == []
    assert hooks.previous_hook_calls == [KeyboardInterrupt], "Ctrl+C keeps its usual behaviour"


@pytest.mark.asyncio
async def test_uninstall_restores_the_previous_hooks(qapp, loop_errors):
    loop = asyncio.get_running_loop()
    before = (sys.excepthook, threading.excepthook)
    handle = install_exception_hooks(lambda: None, loop)
    assert (sys.excepthook, threading.excepthook) != before
    handle.uninstall()
    assert (sys.excepthook, threading.excepthook) == before

    def failing_callback() -> None:
        raise RuntimeError("after uninstall")
    loop.call_soon(failing_callback)
    await asyncio.sleep(0.01)
    assert handle.dialog is None and visible_error_dialogs(qapp) == []
    reported = loop_errors.take()      # taken, so the leak check does not count it as unhandled
    assert any("after uninstall" in text for text in reported), "the loop's default handler logs it again"


def test_many_errors_are_summarised_not_listed_endlessly(qtbot):
    dialog = ErrorDialog()
    qtbot.addWidget(dialog)
    for number in range(60):
        dialog.add_error(f"ValueError: number {number}", "Traceback …")
    summary = dialog.summary_label.text()
    assert summary.startswith("Something went wrong 60 times:") and "… and 55 more" in summary
    assert "… and 10 more errors (see the log)." in dialog.details_text()


# ----------------------------------------------------------------------------- window state


def make_window(qtbot) -> tuple[QMainWindow, QSplitter, QDockWidget]:
    window = QMainWindow()
    splitter = QSplitter()
    splitter.addWidget(QLabel("mirror"))
    splitter.addWidget(QLabel("timeline"))
    window.setCentralWidget(splitter)
    dock = QDockWidget("Log")
    dock.setObjectName("log_dock")
    dock.setWidget(QLabel("log"))
    window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
    qtbot.addWidget(window)
    window.resize(640, 480)
    window.show()
    return window, splitter, dock


def ini_settings(tmp_path) -> QSettings:
    return QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)


def test_window_state_round_trips_through_qsettings(qtbot, tmp_path):
    window, splitter, dock = make_window(qtbot)
    window.resize(760, 540)
    window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
    splitter.setSizes([150, 450])
    saved_sizes = splitter.sizes()
    save_window_state(window, {"main": splitter}, ini_settings(tmp_path))

    restored, restored_splitter, restored_dock = make_window(qtbot)
    assert restore_window_state(restored, {"main": restored_splitter}, ini_settings(tmp_path))
    assert restored.size() == QSize(760, 540)
    assert restored.dockWidgetArea(restored_dock) == Qt.DockWidgetArea.LeftDockWidgetArea
    assert restored_splitter.sizes() == saved_sizes


def test_missing_or_corrupt_window_state_is_ignored(qtbot, tmp_path):
    window, splitter, dock = make_window(qtbot)
    assert restore_window_state(window, {"main": splitter}, ini_settings(tmp_path)), "nothing stored is fine"

    settings = ini_settings(tmp_path)
    settings.setValue("window/geometry", "not a geometry")
    settings.setValue("window/state", b"\x00\x01 junk")
    settings.setValue("splitters/main", 42)
    settings.sync()
    assert not restore_window_state(window, {"main": splitter}, ini_settings(tmp_path))
    assert window.size() == QSize(640, 480)
    assert window.dockWidgetArea(dock) == Qt.DockWidgetArea.RightDockWidgetArea


# ----------------------------------------------------------------------------- run_dialog


@pytest.mark.asyncio
@pytest.mark.parametrize("finish, expected", [("accept", QDialog.DialogCode.Accepted),
                                              ("reject", QDialog.DialogCode.Rejected)])
async def test_run_dialog_resolves_when_the_dialog_finishes(qapp, finish, expected):
    dialog = QDialog()
    seen_open: list[bool] = []

    def press() -> None:
        seen_open.append(dialog.isVisible())
        getattr(dialog, finish)()
    QTimer.singleShot(0, press)
    assert await run_dialog(dialog) == expected.value
    assert seen_open == [True] and not dialog.isVisible()


@pytest.mark.asyncio
async def test_cancelling_run_dialog_rejects_the_dialog(qapp):
    dialog = QDialog()
    task = asyncio.ensure_future(run_dialog(dialog))
    await asyncio.sleep(0.01)
    assert dialog.isVisible()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not dialog.isVisible() and dialog.result() == QDialog.DialogCode.Rejected.value
