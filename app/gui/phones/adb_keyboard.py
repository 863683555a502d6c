"""Install ADB Keyboard from the desk: More › Install ADB Keyboard…, also offered in the status bar
when typing was refused for want of it.

One click opens a file dialog that says where the APK comes from; the chosen file goes to the core's
`install_adb_keyboard` on the core loop (the GUI thread never waits on the phone), and its progress
and outcome are said in the status bar in plain words (the phone's own words behind Details…).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from PySide6.QtCore import QObject, QSize, Qt, QTimer
from PySide6.QtWidgets import QDialog, QFileDialog, QGridLayout, QLabel, QWidget

from app.core.device.errors import DeviceError
from app.core.device.ime_install import DOWNLOAD_PAGE, KeyboardInstallFailed, install_adb_keyboard
from app.gui.bridge import GuiHop
from app.gui.dialogs import run_dialog
from app.gui.status_messages import StatusMessage
from app.gui.window_fit import fit_window

log = logging.getLogger(__name__)

OFFER_TEXT = "Install ADB Keyboard…"
# Typing refused for want of ADB Keyboard says this (errors.ADB_KEYBOARD_FIX): the status bar then offers the install.
REFUSAL_MARK = "More › Install ADB Keyboard…"
DIALOG_TITLE = "Install ADB Keyboard – choose its APK"
WHERE_FROM = (f"ADB Keyboard lets Agent Desk type text in any language (é, ß, 日本). Download "
              f"<b>ADBKeyboard.apk</b> from <a href='https://{DOWNLOAD_PAGE}'>{DOWNLOAD_PAGE}</a> "
              "(under Assets), then choose that file here. It is installed on the phone and turned on; "
              "the phone's own keyboard stays its default.")
OFFER_CHECK_MS = 500       # while the offer is shown: is the message it belongs to still in the status bar?


async def ask_for_apk(parent: QWidget) -> Path | None:
    """The APK the person picks (None: cancelled), in a file dialog that says where to download it."""
    ask = QFileDialog(parent, DIALOG_TITLE)
    ask.setOption(QFileDialog.Option.DontUseNativeDialog)    # a native dialog cannot say where the APK comes from
    ask.setFileMode(QFileDialog.FileMode.ExistingFile)
    ask.setNameFilters(["Android apps (*.apk)", "All files (*)"])
    downloads = Path.home() / "Downloads"
    ask.setDirectory(str(downloads if downloads.is_dir() else Path.home()))
    hint = QLabel(WHERE_FROM, wordWrap=True, openExternalLinks=True)
    hint.setObjectName("adbKeyboardHint")
    hint.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
    layout = ask.layout()
    if isinstance(layout, QGridLayout):           # Qt's own dialog: one row more, under the file type
        layout.addWidget(hint, layout.rowCount(), 0, 1, layout.columnCount())
    fit_window(ask, QSize(max(ask.width(), 760), max(ask.height(), 480)), name="AdbKeyboardFile")
    accepted = await run_dialog(ask) == QDialog.DialogCode.Accepted
    files = ask.selectedFiles()
    ask.deleteLater()
    return Path(files[0]) if accepted and files else None


class AdbKeyboardInstall(QObject):
    """The window's one-click install of ADB Keyboard, and its offer in the status bar."""

    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        self.task: asyncio.Task | None = None
        self.offer = QLabel(f"<a href='install'>{OFFER_TEXT}</a>")
        self.offer.setObjectName("adbKeyboardOffer")
        self.offer.setToolTip(f"Install ADB Keyboard on the phone from its APK file ({DOWNLOAD_PAGE}), so this "
                              "text can be typed")
        self.offer.setAccessibleName(OFFER_TEXT)
        self.offer.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse
                                           | Qt.TextInteractionFlag.LinksAccessibleByKeyboard)
        self.offer.linkActivated.connect(lambda _link: self.start())
        self.offer.hide()
        window.statusBar().addWidget(self.offer)
        self._check = QTimer(self, interval=OFFER_CHECK_MS)
        self._check.timeout.connect(self._withdraw_when_stale)
        window.phone.status.connect(self.notice)
        window.controller.message.connect(self.notice)

    # ------------------------------------------------------------------ the offer

    def notice(self, text: str) -> None:
        """A status message: offer the install beside one that says typing needs ADB Keyboard."""
        if REFUSAL_MARK in text and not self.installing:
            self.offer.show()
            self._check.start()

    def _withdraw_when_stale(self) -> None:
        if REFUSAL_MARK not in self.window.status_line.message.text:
            self.withdraw()

    def withdraw(self) -> None:
        self._check.stop()
        self.offer.hide()

    # ------------------------------------------------------------------ the install

    @property
    def installing(self) -> bool:
        return self.task is not None and not self.task.done()

    def start(self) -> None:
        """Ask for the APK and install it (More › Install ADB Keyboard…, or the status bar's offer)."""
        if self.installing:
            self.say("ADB Keyboard is being installed already; its progress is shown here.")
            return
        self.withdraw()
        self.task = asyncio.ensure_future(self.install())

    async def install(self) -> str | None:
        """The dialog, then the install on the core loop; returns what the status bar said last."""
        phone = self.window.phone
        if phone.session is None or phone.entry is None or not phone.entry.ready:
            return self.say("No phone is ready: ADB Keyboard can be installed once a phone is connected.")
        path = await ask_for_apk(self.window)
        session = phone.session
        if path is None or session is None:
            return None
        self.window.status_line.clear()         # the person acts on an error: the progress need not wait behind it
        hop = GuiHop()
        hop.bind()

        def progress(text: str) -> None:        # called on the core loop
            hop.call(self.say, text)
        try:
            done = await self.window.core.run(install_adb_keyboard(session.device, path, progress))
        except KeyboardInstallFailed as exc:
            return self.say(str(exc), details=exc.output, error=True)
        except DeviceError as exc:
            return self.say(f"Could not install ADB Keyboard: {exc}")
        except Exception as exc:               # a bug must not pass unseen: say it, log it
            log.exception("installing ADB Keyboard failed")
            return self.say(f"Could not install ADB Keyboard: {exc}")
        return self.say(done)

    def say(self, text: str, *, details: str = "", error: bool = False) -> str:
        if details or error:
            self.window.status_line.show_message(StatusMessage(text, details.strip(), error=True))
        else:
            self.window.show_status(text)
        return text
