"""Settings › Connections › Built-in phone: the box that keeps the shared built-in phone running (issue 27)."""

from __future__ import annotations

import keyring
import pytest

from app.core.config import AdbSettings, Settings
from app.core.secrets import SecretStore
from app.gui.settings.settings_dialog import SettingsDialog
from tests.support.memory_keyring import MemoryKeyring


@pytest.fixture
def store():
    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    yield SecretStore("AgentDeskTest")
    keyring.set_keyring(previous)


def test_the_box_shows_and_saves_whether_the_built_in_phone_is_kept(qtbot, store):
    dialog = SettingsDialog(Settings(), store)
    qtbot.addWidget(dialog)
    box = dialog._fields["adb.keep_virtual_phone"]
    assert not box.isChecked() and "Keep it running" in box.text()
    box.setChecked(True)
    dialog.accept()
    assert dialog.result_settings().adb.keep_virtual_phone is True
    again = SettingsDialog(Settings(adb=AdbSettings(keep_virtual_phone=True)), store)
    qtbot.addWidget(again)
    assert again._fields["adb.keep_virtual_phone"].isChecked()
