"""The Settings dialog's presets come from the core table: choosing one also sets how long a reply may
take and how often it is retried (a local server: minutes, one retry), and says what it costs."""

from __future__ import annotations

import keyring
import pytest

from app.core.config import Settings
from app.core.providers import PRESETS
from app.core.secrets import SecretStore
from app.gui.settings.settings_dialog import SettingsDialog
from tests.support.memory_keyring import MemoryKeyring


@pytest.fixture
def dialog(qtbot):
    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    dialog = SettingsDialog(Settings(), SecretStore("AgentDeskTest"))
    qtbot.addWidget(dialog)
    dialog.show()
    yield dialog
    keyring.set_keyring(previous)


def choose(dialog: SettingsDialog, name: str) -> None:
    index = dialog.preset_combo.findText(name)
    assert index >= 0, name
    dialog.preset_combo.setCurrentIndex(index)
    dialog.preset_combo.activated.emit(index)


def test_every_core_preset_is_offered(dialog):
    assert [dialog.preset_combo.itemText(i) for i in range(dialog.preset_combo.count())] == [p.name for p in PRESETS]


def test_a_local_preset_sets_minutes_and_one_retry_and_says_it_is_free(dialog):
    choose(dialog, "llama.cpp")
    provider = dialog.result_settings().provider
    assert (provider.base_url, provider.timeout_seconds, provider.http_retries) == ("http://localhost:8080/v1", 600, 1)
    assert "Free (local)" in dialog.hint_label.text() and "10 min" in dialog.hint_label.text()

    choose(dialog, "OpenAI")
    provider = dialog.result_settings().provider
    assert (provider.timeout_seconds, provider.http_retries) == (60, 3)


def test_custom_keeps_the_timeout_and_retries_as_entered(dialog):
    choose(dialog, "Ollama")
    dialog._fields["provider.timeout_seconds"].setValue(1200)
    dialog._fields["provider.http_retries"].setValue(0)
    choose(dialog, "Custom")
    provider = dialog.result_settings().provider
    assert (provider.preset, provider.timeout_seconds, provider.http_retries) == ("Custom", 1200, 0)
