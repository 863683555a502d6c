"""The Settings dialog's two rows that do something at once rather than edit a value: the provider's
connection test and the task API's token rotation. Each runs in the background and reports on its row.

Both are widgets a form row holds (`QFormLayout.addRow(label, row)`); the dialog decides what they act on
(`ConnectionTestRow` asks it for the provider as entered, `TokenRotationRow` replaces the stored token).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from PySide6.QtCore import QStringListModel, Qt, Signal
from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton, QWidget

from app.core.agent.llm_client import ModelClient, ModelError
from app.core.config import ProviderSettings
from app.core.redaction import redact
from app.gui.settings.settings_form import hbox
from app.gui.theme import set_tone

log = logging.getLogger(__name__)

CONNECTION_PROMPT = [{"role": "user", "content": "Reply with the single word: ok"}]
ProviderToTest = Callable[[], "tuple[ProviderSettings, str | None] | str"]
"""The provider as the dialog holds it now and the key that may go to it, or why it cannot be tested."""


class ConnectionTestRow(QWidget):
    """"Test connection": lists the models (into `model_names`, the Model field's completer) and asks
    for a one-word answer; the outcome replaces "Testing…". One test at a time; `cancel()` on close."""

    def __init__(self, provider_to_test: ProviderToTest, model_names: QStringListModel,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._provider_to_test = provider_to_test
        self._model_names = model_names
        self.task: asyncio.Task | None = None
        self.button = QPushButton("Test connection", autoDefault=False)
        self.button.clicked.connect(self.start)
        self.spinner = QProgressBar(minimum=0, maximum=0, textVisible=False)
        self.spinner.setFixedSize(64, 8)
        self.spinner.hide()
        self.result = QLabel(wordWrap=True)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setLayout(hbox((self.button, 0), (self.spinner, 0), (self.result, 1)))

    def start(self) -> None:
        """Test the provider as currently entered (unsaved), in the background."""
        if self.task is not None and not self.task.done():
            return
        prepared = self._provider_to_test()
        if isinstance(prepared, str):
            self._show(prepared, "error")
            return
        provider, key = prepared
        self.button.setEnabled(False)
        self.spinner.show()
        self._show("Testing…", "muted")
        self.task = asyncio.ensure_future(self._test(provider, key))

    def cancel(self) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()

    async def _test(self, provider: ProviderSettings, api_key: str | None) -> None:
        try:
            async with ModelClient(provider, api_key) as client:
                self._model_names.setStringList(await client.list_models())
                reply = await client.complete(CONNECTION_PROMPT)
            self._show(f"Connected: {provider.model} answers in {reply.duration_ms:.0f} ms", "success")
        except ModelError as error:
            self._show(str(error), "error")
        except Exception as error:  # noqa: BLE001 - any failure ends the test with a readable line
            log.exception("The connection test failed unexpectedly")
            self._show(redact(f"The test failed: {type(error).__name__}: {error}"), "error")
        finally:
            self.spinner.hide()
            self.button.setEnabled(True)

    def _show(self, text: str, tone: str) -> None:
        self.result.setText(text)
        set_tone(self.result, tone)


class TokenRotationRow(QWidget):
    """"Rotate token": makes a new task-API token where the token is kept (off the GUI thread) and
    emits it as `rotated`, for the window's own desk to take."""

    rotated = Signal(object)        # the new ApiToken

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.task: asyncio.Task | None = None
        self.button = QPushButton("Rotate token", autoDefault=False)
        self.button.setAccessibleName("Rotate the task API's token")
        self.button.setToolTip("Make a new token for the task API; programs using the old one get 401.")
        self.button.clicked.connect(self.start)
        self.result = QLabel(wordWrap=True)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setLayout(hbox((self.button, 0), (self.result, 1)))

    def start(self) -> None:
        self.button.setEnabled(False)
        self.result.setText("Making a new token…")
        self.task = asyncio.ensure_future(self._rotate())

    async def _rotate(self) -> None:
        from app.api.token import TokenProblem, rotate_api_token

        try:
            token = await asyncio.to_thread(rotate_api_token)
        except TokenProblem as exc:
            self.result.setText(str(exc))
        else:
            self.rotated.emit(token)
            self.result.setText(f"A new token is kept in {token.source}; the old one no longer works here. "
                                "The status bar's “API token…” shows it; `agentdesk api token` prints it.")
        finally:
            self.button.setEnabled(True)
