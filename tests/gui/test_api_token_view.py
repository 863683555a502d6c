"""The window shows its task API token: "API token…" in the status bar while the API is served opens the address
and the token (hidden until asked) with Copy buttons; with no keyring the token is the one in the private token
file, so a program that copies it — or reads the file as the same user — is let in."""

from __future__ import annotations

import asyncio

import httpx2
import keyring
import pytest
from keyring.backends import fail
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLineEdit

from app.core import paths
from app.core.config import AgentSettings, ApiSettings, ProviderSettings, Settings
from app.gui.main_window import MainWindow


@pytest.mark.asyncio
async def test_the_window_shows_its_token_to_copy_and_the_token_lets_a_program_in(qapp, tmp_path, monkeypatch,
                                                                                 virtual_adb):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path))
    monkeypatch.delenv("AGENTDESK_API_TOKEN", raising=False)
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())               # a desktop without a keyring
    window = MainWindow(asyncio.Event())
    window.show()
    try:
        window.settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="gpt-4o"),
                                   agent=AgentSettings(), api=ApiSettings(serve=True, port=0))
        await window.start()
        link = window.api_host.token_link
        assert link is not None and link.isVisible() and "API token" in link.text()
        said = window.status.text()
        assert "API token…" in said and "--print-token" not in said
        kept = paths.api_token_path().read_text().strip()
        assert kept not in said

        dialog = link.open_dialog()
        assert dialog is not None and dialog.isVisible()
        assert dialog.url.text() == window.api_host.url
        assert dialog.token.text() == kept and dialog.token.echoMode() == QLineEdit.EchoMode.Password
        assert str(paths.api_token_path()) in dialog.where.text()
        QTest.mouseClick(dialog.show_token, Qt.MouseButton.LeftButton)
        assert dialog.token.echoMode() == QLineEdit.EchoMode.Normal
        QTest.mouseClick(dialog.copy_token, Qt.MouseButton.LeftButton)
        copied = QGuiApplication.clipboard().text()
        assert copied == kept
        async with httpx2.AsyncClient(base_url=window.api_host.url) as http:
            allowed = await http.get("/v1/tasks", headers={"Authorization": f"Bearer {copied}"})
            assert allowed.status_code == 200
            refused = await http.get("/v1/tasks")
            assert refused.status_code == 401 and "API token…" in refused.json()["error"]
        dialog.close()

        window.settings = window.settings.model_copy(update={"api": ApiSettings(serve=False, port=0)})
        await window.api_host.apply()
        assert not link.isVisible()                    # nothing to show while the API is off
        QGuiApplication.clipboard().clear()
    finally:
        window.close()
        await window.shutdown()
        keyring.set_keyring(previous)
