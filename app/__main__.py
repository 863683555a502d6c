"""python -m app: the Agent Desk desktop app."""

from __future__ import annotations

import asyncio
import os
import sys

STARTUP_PROBE = "AGENTDESK_STARTUP_PROBE"
WINDOW_SHOWN = "agentdesk: window shown"


def _tell_unwritable(window, text: str) -> None:
    """Say once, in a dialog that does not block the loop, that the data folder cannot be written to."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QMessageBox

    box = QMessageBox(QMessageBox.Icon.Warning, "Agent Desk cannot save its files",
                      f"{text}\n\nRuns cannot start until it can.", QMessageBox.StandardButton.Ok, window)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()


async def _run_app(unwritable: str = "") -> None:
    from PySide6.QtWidgets import QApplication

    from app.gui.error_dialog import install_exception_hooks
    from app.gui.event_loop import keep_startup_objects_out_of_collections, prepare_gui_loop
    from app.gui.main_window import MainWindow

    prepare_gui_loop(asyncio.get_running_loop())
    app = QApplication.instance()
    assert isinstance(app, QApplication), "main() makes the QApplication before it runs this"
    app.setQuitOnLastWindowClosed(False)
    closed = asyncio.Event()
    window = MainWindow(closed)
    install_exception_hooks(lambda: window)
    window.show()
    if unwritable:                         # the window still opens; runs are refused with the same sentence
        _tell_unwritable(window, unwritable)
    if os.environ.get(STARTUP_PROBE):      # `agentdesk bench startup`: say when the window is up, then leave
        app.processEvents()                # the first paint
        print(WINDOW_SHOWN, flush=True)
        window.deleteLater()
        return
    await window.start()
    keep_startup_objects_out_of_collections()
    await closed.wait()
    await window.shutdown()


def main() -> int:
    from app.display_check import qt_platform_problem

    problem = qt_platform_problem()
    if problem:                            # Qt itself would abort with a message that names no package
        print(f"agentdesk: {problem}", file=sys.stderr)
        return 2
    import qasync
    from PySide6.QtWidgets import QApplication

    from app.core.data_folder import data_folder_problem
    from app.core.redaction import setup_logging
    from app.gui.app_icon import app_icon
    from app.gui.theme import apply_theme

    unwritable = data_folder_problem()
    if not unwritable:
        setup_logging()
    app = QApplication(sys.argv)
    app.setApplicationName("Agent Desk")
    app.setOrganizationName("AgentDesk")
    app.setDesktopFileName("agentdesk")      # packaging/linux/agentdesk.desktop
    app.setWindowIcon(app_icon())
    apply_theme(app)
    try:
        qasync.run(_run_app(unwritable))
    except asyncio.CancelledError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
