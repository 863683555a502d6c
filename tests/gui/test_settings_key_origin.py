"""Settings › Provider: which servers the key goes to (issue 25 §1). "Also send this key to" (one origin per
line, with its accessible name) is read back and saved normalised; a bad line is shown under the field; a new
key belongs to the base URL it is entered with; the connection test never sends the stored key to a server
it does not belong to."""

from __future__ import annotations

import asyncio

import keyring
import pytest

from app.core.config import ProviderSettings, Settings
from app.core.secrets import SecretStore
from app.gui.settings.settings_dialog import SettingsDialog
from tests.support.memory_keyring import MemoryKeyring
from tests.support.openai_server import FakeOpenAIServer, text_reply

STORED_KEY = "sk-stored-for-openai-0123456789abcdef"
TYPED_KEY = "sk-typed-for-this-server-0123456789"


@pytest.fixture
def secrets():
    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    store = SecretStore("AgentDeskTest")
    store.set("default", STORED_KEY)
    yield store
    keyring.set_keyring(previous)


@pytest.fixture
def make_dialog(qtbot, secrets):
    def make(settings: Settings | None = None) -> SettingsDialog:
        dialog = SettingsDialog(settings or Settings(), secrets)
        qtbot.addWidget(dialog)
        dialog.show()
        return dialog
    return make


def test_also_send_this_key_to_is_read_back_and_saved_normalised(make_dialog):
    dialog = make_dialog(Settings(provider=ProviderSettings(key_also_for=["http://127.0.0.2:8000"])))
    assert dialog.also_for_edit.accessibleName() == "Also send this key to, one origin per line"
    assert dialog.also_for_edit.toPlainText() == "http://127.0.0.2:8000"
    dialog.also_for_edit.setPlainText("http://127.0.0.2:8000/v1\n\nHTTPS://LLM.example.com:443/v1\n")
    provider = dialog.result_settings().provider
    assert provider.key_also_for == ["http://127.0.0.2:8000", "https://llm.example.com"]
    assert provider.key_origin == "https://api.openai.com"      # the stored key stays OpenAI's



def test_the_origins_caption_stands_by_the_fields_first_line(make_dialog, qtbot):
    """Seen in a screenshot: the caption sat 90 px below its field, centred on a row the text box's
    size hint had made twice as tall as the box."""
    from PySide6.QtWidgets import QLabel

    dialog = make_dialog()
    dialog.resize(900, 640)
    qtbot.waitExposed(dialog)
    field = dialog.also_for_edit
    caption = next(label for label in dialog.findChildren(QLabel) if label.text() == "Also send this key to")
    field_top = field.mapTo(dialog, field.rect().topLeft()).y()
    caption_top = caption.mapTo(dialog, caption.rect().topLeft()).y()
    assert abs(caption_top - field_top) <= 8, (caption_top, field_top)
    assert caption.height() <= field.height()

def test_a_bad_origin_is_shown_under_the_field_and_ok_stays_open(make_dialog):
    dialog = make_dialog()
    dialog.also_for_edit.setPlainText("ftp://example.com")
    dialog.ok_button.click()
    assert dialog.isVisible()
    error = dialog._errors["provider.key_also_for"]
    assert error.isVisible() and "http://" in error.text()


def test_a_new_key_belongs_to_the_base_url_it_is_entered_with(make_dialog):
    dialog = make_dialog()
    dialog.base_url_edit.setText("https://llm.example.com:8443/v1")
    assert dialog.result_settings().provider.key_origin == "https://api.openai.com"   # only the URL changed
    dialog.key_edit.setText(TYPED_KEY)
    assert dialog.result_settings().provider.key_origin == "https://llm.example.com:8443"


@pytest.mark.asyncio
async def test_the_connection_test_sends_the_stored_key_only_where_it_belongs(make_dialog):
    dialog = make_dialog()
    with FakeOpenAIServer([text_reply("ok"), text_reply("ok")], models=["fake-vision"]) as server:
        dialog.base_url_edit.setText(server.base_url)
        dialog.model_edit.setText("fake-vision")
        dialog.test_button.click()
        await asyncio.wait_for(dialog.connection_test, 30)
        headers = [value for request in server.requests for value in request.headers.values()]
        assert headers and not any(STORED_KEY in value for value in headers)
        dialog.also_for_edit.setPlainText(server.base_url)          # the person allows this server
        dialog.test_button.click()
        await asyncio.wait_for(dialog.connection_test, 30)
        assert server.chat_requests[-1].headers["authorization"] == f"Bearer {STORED_KEY}"


@pytest.mark.asyncio
async def test_rotate_token_replaces_the_api_token_and_hands_it_to_the_window(make_dialog, monkeypatch):
    """Settings › Connections › Rotate token: a leaked API token is replaced from the window, and the
    window's own desk is given the new one (the old one then gets 401 there: tests/api/test_api_door.py)."""
    from app.api.token import KEYRING_NAME, KEYRING_SERVICE, TOKEN_VARIABLE

    monkeypatch.delenv(TOKEN_VARIABLE, raising=False)
    old = "old-token-that-leaked-0123456789"
    SecretStore(KEYRING_SERVICE).set(KEYRING_NAME, old)
    dialog = make_dialog()
    assert dialog.rotation_row.button.accessibleName() == "Rotate the task API's token"
    handed: list = []
    dialog.token_rotated.connect(handed.append)
    dialog.rotation_row.button.click()
    await dialog.rotation_row.task
    new = SecretStore(KEYRING_SERVICE).get(KEYRING_NAME)
    assert new and new != old
    assert [token.value for token in handed] == [new]
    assert "no longer works" in dialog.rotation_row.result.text() and dialog.rotation_row.button.isEnabled()

    monkeypatch.setenv(TOKEN_VARIABLE, "from-the-environment-0123456789")   # not the keyring's to change
    dialog.rotation_row.button.click()
    await dialog.rotation_row.task
    assert TOKEN_VARIABLE in dialog.rotation_row.result.text() and len(handed) == 1
