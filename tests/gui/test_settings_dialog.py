"""The Settings dialog: presets, inline validation, the API key field and the background connection test."""

from __future__ import annotations

import asyncio

import keyring
import pytest
from keyring.backends import fail
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QLineEdit

from app.core.config import IMAGE_SEND_CHOICES, Settings
from app.core.secrets import SecretStore
from app.gui.settings.settings_dialog import SettingsDialog
from tests.support.memory_keyring import MemoryKeyring
from tests.support.openai_server import FakeOpenAIServer, delayed, http_error, text_reply

SERVICE = "AgentDeskTest"
STORED_KEY = "sk-stored-key-0123456789abcdef"
TYPED_KEY = "sk-typed-key-9876543210fedcba"
ACCEPTED = QDialog.DialogCode.Accepted.value
REJECTED = QDialog.DialogCode.Rejected.value


@pytest.fixture
def memory_keyring():
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def secrets(memory_keyring) -> SecretStore:
    return SecretStore(SERVICE)


@pytest.fixture
def make_dialog(qtbot, secrets):
    def make(settings: Settings | None = None, store: SecretStore | None = None) -> SettingsDialog:
        dialog = SettingsDialog(settings or Settings(), store or secrets)
        qtbot.addWidget(dialog)
        dialog.show()
        return dialog
    return make


def choose_preset(dialog: SettingsDialog, name: str) -> None:
    """As a person picks from the combo: `activated` fires only for user choices."""
    index = dialog.preset_combo.findText(name)
    assert index >= 0, name
    dialog.preset_combo.setCurrentIndex(index)
    dialog.preset_combo.activated.emit(index)


def type_into(qtbot, edit: QLineEdit, text: str) -> None:
    edit.selectAll()
    qtbot.keyClick(edit, Qt.Key.Key_Delete)
    qtbot.keyClicks(edit, text)


# ----------------------------------------------------------------------------- presets and validation


def test_a_preset_fills_base_url_model_and_hint(make_dialog):
    dialog = make_dialog()
    choose_preset(dialog, "Groq")
    assert dialog.base_url_edit.text() == "https://api.groq.com/openai/v1"
    assert dialog.model_edit.text() == "meta-llama/llama-4-scout-17b-16e-instruct"
    assert "console.groq.com" in dialog.hint_label.text()

    choose_preset(dialog, "Ollama")
    assert dialog.base_url_edit.text() == "http://localhost:11434/v1"
    assert dialog.model_edit.text() == "qwen2.5vl:7b"
    assert dialog.key_edit.placeholderText() == "Not needed for this provider"

    choose_preset(dialog, "Azure OpenAI")
    assert dialog.model_edit.text() == "" and dialog.model_edit.placeholderText() == "deployment name"
    assert "Azure resource key" in dialog.hint_label.text()


def test_custom_keeps_the_fields_and_later_edits_are_kept(make_dialog, qtbot):
    dialog = make_dialog()
    choose_preset(dialog, "OpenRouter")
    type_into(qtbot, dialog.model_edit, "anthropic/claude-sonnet-4")
    choose_preset(dialog, "Custom")
    assert dialog.base_url_edit.text() == "https://openrouter.ai/api/v1"
    provider = dialog.result_settings().provider
    assert (provider.preset, provider.model) == ("Custom", "anthropic/claude-sonnet-4")


def test_an_invalid_base_url_is_shown_next_to_the_field_and_ok_is_refused(make_dialog, qtbot):
    dialog = make_dialog()
    dialog.tabs.setCurrentIndex(2)
    type_into(qtbot, dialog.base_url_edit, "ftp://models.example.com")
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)

    assert dialog.isVisible() and dialog.result() != ACCEPTED
    error = dialog._errors["provider.base_url"]
    assert error.isVisible() and "must start with http:// or https://" in error.text()
    assert dialog.tabs.currentIndex() == 0, "the dialog shows the tab with the problem"

    type_into(qtbot, dialog.base_url_edit, "https://models.example.com/v1/")
    assert not error.isVisible(), "editing the field clears its error"
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    assert dialog.result() == ACCEPTED and not dialog.isVisible()
    assert dialog.result_settings().provider.base_url == "https://models.example.com/v1"


def test_an_empty_model_and_the_azure_placeholder_are_refused(make_dialog):
    dialog = make_dialog()
    choose_preset(dialog, "Azure OpenAI")
    dialog.accept()
    assert dialog.isVisible()
    assert "YOUR-RESOURCE" in dialog._errors["provider.base_url"].text()
    assert dialog._errors["provider.model"].text() == "Enter the deployment name."


def test_valid_edits_round_trip_into_result_settings(make_dialog, qtbot):
    original = Settings()
    original.provider.http_retries = 7
    original.provider.temperature = 0.4
    original.prices = {"my-model": (1.0, 2.0)}
    dialog = make_dialog(original)

    type_into(qtbot, dialog.base_url_edit, "http://localhost:9999/v1/")
    type_into(qtbot, dialog.model_edit, "my-model")
    fields = dialog._fields
    fields["provider.timeout_seconds"].setValue(45)
    fields["provider.use_tools"].setChecked(False)
    fields["provider.coordinate_mode"].setCurrentIndex(fields["provider.coordinate_mode"].findData("normalized"))
    fields["images.send"].setCurrentIndex(fields["images.send"].findData("clean"))
    fields["images.max_side"].setValue(1024)
    fields["images.format"].setCurrentIndex(fields["images.format"].findData("png"))
    assert not fields["images.jpeg_quality"].isEnabled(), "JPEG quality does not apply to PNG"
    fields["agent.mode"].setCurrentIndex(fields["agent.mode"].findData("auto"))
    for key, value in (("agent.max_steps", 12), ("agent.timeout_seconds", 300), ("agent.max_consecutive_failures", 4),
                       ("agent.reply_retries", 2), ("agent.stuck_threshold", 5), ("agent.settle_seconds", 1.5)):
        fields[key].setValue(value)
    fields["agent.reflection"].setChecked(False)
    assert not fields["agent.model_reflection"].isEnabled()
    dialog.words_edit.setPlainText("pay\n\n  wire money  \npay\n")
    dialog.accept()
    assert dialog.result() == ACCEPTED

    result = dialog.result_settings()
    assert result.provider.model_dump() == {**original.provider.model_dump(), "base_url": "http://localhost:9999/v1",
                                            "model": "my-model", "timeout_seconds": 45.0, "use_tools": False,
                                            "coordinate_mode": "normalized"}
    assert result.images.model_dump() == {"send": "clean", "max_side": 1024, "format": "png",
                                          "jpeg_quality": original.images.jpeg_quality,
                                          "never_send_apps": original.images.never_send_apps}
    assert (result.agent.mode, result.agent.max_steps, result.agent.timeout_seconds) == ("auto", 12, 300.0)
    assert (result.agent.max_consecutive_failures, result.agent.reply_retries, result.agent.stuck_threshold,
            result.agent.settle_seconds, result.agent.reflection) == (4, 2, 5, 1.5, False)
    assert result.agent.sensitive_words == ["pay", "wire money"]
    assert result.prices == {"my-model": (1.0, 2.0)}, "values the dialog does not show are kept"


def test_the_fields_start_from_the_given_settings(make_dialog):
    settings = Settings()
    settings.provider.preset, settings.provider.base_url = "Ollama", "http://box:11434/v1"
    settings.provider.model = "llava"
    settings.images.format = "png"
    settings.agent.mode = "auto"
    settings.agent.sensitive_words = ["bank"]
    dialog = make_dialog(settings)
    assert dialog.preset_combo.currentText() == "Ollama" and "no key needed" in dialog.hint_label.text()
    assert (dialog.base_url_edit.text(), dialog.model_edit.text()) == ("http://box:11434/v1", "llava")
    assert dialog._fields["agent.mode"].currentData() == "auto"
    assert not dialog._fields["images.jpeg_quality"].isEnabled()
    assert dialog.words_edit.toPlainText() == "bank"
    assert dialog.result_settings() == settings


def test_a_text_only_setting_is_shown_and_kept(make_dialog):
    settings = Settings()
    settings.images.send = "none"
    dialog = make_dialog(settings)
    assert dialog._fields["images.send"].currentText().startswith("None: text only")
    assert dialog.result_settings().images.send == "none"


def test_never_send_apps_and_the_completion_check_are_shown_and_kept(make_dialog):
    settings = Settings()
    settings.images.never_send_apps = ["com.example.bank"]
    settings.agent.completion_check = "screen_only"
    dialog = make_dialog(settings)
    apps = dialog._fields["images.never_send_apps"]
    assert apps.text() == "com.example.bank"
    assert dialog._fields["agent.completion_check"].currentData() == "screen_only"
    apps.setText("com.example.bank, com.example.wallet")
    result = dialog.result_settings()
    assert result.images.never_send_apps == ["com.example.bank", "com.example.wallet"]
    assert result.agent.completion_check == "screen_only"


def test_the_mirror_tab_shows_and_saves_the_mirror_settings(make_dialog):
    settings = Settings()
    settings.mirror.max_size, settings.mirror.show_touches = 0, True
    dialog = make_dialog(settings)
    assert dialog.tabs.tabText(4) == "Mirror"
    fields = dialog._fields
    assert fields["mirror.max_size"].text() == "Full resolution" and fields["mirror.show_touches"].isChecked()
    assert dialog.result_settings() == settings
    fields["mirror.max_size"].setValue(1024)
    fields["mirror.max_fps"].setValue(30)
    fields["mirror.video_bit_rate_mbps"].setValue(4.5)
    fields["mirror.video_codec"].setCurrentIndex(fields["mirror.video_codec"].findData("av1"))
    fields["mirror.show_touches"].setChecked(False)
    fields["mirror.record_runs"].setChecked(False)
    dialog.accept()
    assert dialog.result() == ACCEPTED
    assert dialog.result_settings().mirror.model_dump() == {
        "stream": "auto", "max_size": 1024, "max_fps": 30, "video_bit_rate_mbps": 4.5, "video_codec": "av1",
        "show_touches": False, "record_runs": False}


def test_programs_may_approve_sensitive_actions_is_off_unless_the_person_turns_it_on(make_dialog):
    dialog = make_dialog()
    box = dialog._fields["api.programs_may_approve_sensitive"]
    assert box.accessibleName() == "Programs may approve sensitive actions" and not box.isChecked()
    assert box.isEnabled()                  # it holds for MCP's own desk too, served or not
    assert dialog.result_settings().api.programs_may_approve_sensitive is False
    box.setChecked(True)
    dialog.accept()
    assert dialog.result_settings().api.programs_may_approve_sensitive is True


def test_screenshots_only_greys_out_what_only_the_stream_uses(make_dialog):
    dialog = make_dialog()
    fields = dialog._fields
    assert fields["mirror.max_size"].isEnabled() and fields["mirror.record_runs"].isEnabled()
    fields["mirror.stream"].setCurrentIndex(fields["mirror.stream"].findData("screenshots"))
    assert not any(fields[key].isEnabled() for key in ("mirror.max_size", "mirror.max_fps",
                                                          "mirror.video_bit_rate_mbps", "mirror.video_codec",
                                                          "mirror.record_runs"))
    assert fields["mirror.show_touches"].isEnabled()
    assert dialog.result_settings().mirror.stream == "screenshots"


def test_enter_accepts_and_escape_cancels(make_dialog, qtbot):
    dialog = make_dialog()
    qtbot.keyClick(dialog.model_edit, Qt.Key.Key_Return)
    assert dialog.result() == ACCEPTED and not dialog.isVisible()

    dialog = make_dialog()
    qtbot.keyClick(dialog.model_edit, Qt.Key.Key_Escape)
    assert dialog.result() == REJECTED and not dialog.isVisible()

    dialog = make_dialog()
    dialog.base_url_edit.setText("localhost:1234")
    qtbot.keyClick(dialog.base_url_edit, Qt.Key.Key_Return)
    assert dialog.isVisible(), "Enter does not accept invalid settings"


# ----------------------------------------------------------------------------- the API key


def test_the_key_field_never_shows_the_stored_key(make_dialog, secrets, qtbot):
    secrets.set("default", STORED_KEY)
    dialog = make_dialog()
    assert dialog.key_edit.text() == "" and dialog.entered_key() is None
    assert dialog.key_edit.echoMode() == QLineEdit.EchoMode.Password
    assert "stored" in dialog.key_edit.placeholderText()
    assert dialog.key_note.text().startswith("Stored in the system keyring (memory_keyring)")
    qtbot.mouseClick(dialog.show_key_button, Qt.MouseButton.LeftButton)
    assert dialog.key_edit.echoMode() == QLineEdit.EchoMode.Normal and dialog.key_edit.text() == ""
    assert dialog.show_key_button.text() == "Hide"

    qtbot.keyClicks(dialog.key_edit, f"  {TYPED_KEY} ")
    assert dialog.entered_key() == TYPED_KEY
    type_into(qtbot, dialog.key_edit, "   ")
    assert dialog.entered_key() is None


def test_remove_key_is_a_request_the_caller_carries_out(make_dialog, secrets, memory_keyring, qtbot):
    secrets.set("default", STORED_KEY)
    dialog = make_dialog()
    qtbot.mouseClick(dialog.remove_key_button, Qt.MouseButton.LeftButton)
    assert dialog.key_removal_requested() and not dialog.remove_key_button.isEnabled()
    assert "will be removed" in dialog.key_note.text()
    dialog.accept()
    assert memory_keyring.passwords[(SERVICE, "default")] == STORED_KEY, "the dialog itself writes nothing"

    dialog = make_dialog()
    qtbot.mouseClick(dialog.remove_key_button, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(dialog.key_edit, TYPED_KEY)
    assert not dialog.key_removal_requested() and dialog.entered_key() == TYPED_KEY


def test_without_a_keyring_the_note_says_the_key_lasts_this_session(make_dialog, memory_keyring):
    keyring.set_keyring(fail.Keyring())
    store = SecretStore(SERVICE)
    dialog = make_dialog(store=store)
    assert store.notice and dialog.key_note.text() == store.notice
    assert "for this session only" in dialog.key_note.text()


# ----------------------------------------------------------------------------- connection test


@pytest.mark.asyncio
async def test_connection_test_uses_the_unsaved_fields_and_keeps_the_gui_responsive(make_dialog):
    dialog = make_dialog()
    with FakeOpenAIServer([delayed(0.3, text_reply("ok"))], models=["fake-vision", "other"]) as server:
        dialog.base_url_edit.setText(server.base_url)
        dialog.model_edit.setText("fake-vision")
        dialog.key_edit.setText(TYPED_KEY)
        dialog.test_button.click()
        task = dialog.connection_test
        assert task is not None and dialog.test_result.text() == "Testing…"
        assert dialog.connection_row.spinner.isVisible() and not dialog.test_button.isEnabled()
        ticks = 0
        while not task.done():
            ticks += 1
            await asyncio.sleep(0.01)
        await task

    assert ticks >= 5, "the event loop kept running while the model answered"
    assert dialog.test_result.text().startswith("Connected: fake-vision answers in ")
    assert dialog.test_result.text().endswith(" ms") and dialog.test_result.property("tone") == "success"
    assert dialog.test_button.isEnabled() and not dialog.connection_row.spinner.isVisible()
    chat = server.chat_requests[0]
    assert chat.body["model"] == "fake-vision"
    assert chat.headers["authorization"] == f"Bearer {TYPED_KEY}"
    assert dialog.model_names.stringList() == ["fake-vision", "other"], "listed models complete the model field"


@pytest.mark.asyncio
async def test_a_refused_key_is_reported_in_red_without_the_key(make_dialog):
    dialog = make_dialog()
    with FakeOpenAIServer([http_error(401, f"Incorrect API key provided: {TYPED_KEY}")]) as server:
        dialog.base_url_edit.setText(server.base_url)
        dialog.key_edit.setText(TYPED_KEY)
        dialog.test_button.click()
        await dialog.connection_test
    text = dialog.test_result.text()
    assert "API key was refused" in text and "HTTP 401" in text
    assert TYPED_KEY not in text and dialog.test_result.property("tone") == "error"
    assert dialog.isVisible() and dialog.test_button.isEnabled()


@pytest.mark.asyncio
async def test_an_invalid_provider_is_not_tested(make_dialog):
    dialog = make_dialog()
    dialog.base_url_edit.setText("not a url")
    dialog.test_button.click()
    assert dialog.connection_test is None
    assert dialog.test_result.text() == "Fix the provider settings above first."
    assert dialog._errors["provider.base_url"].isVisible()


@pytest.mark.asyncio
async def test_closing_the_dialog_cancels_a_running_test(make_dialog):
    dialog = make_dialog()
    with FakeOpenAIServer([delayed(30, text_reply("ok"))]) as server:
        dialog.base_url_edit.setText(server.base_url)
        dialog.test_button.click()
        task = dialog.connection_test
        for _ in range(500):
            if server.chat_requests:
                break
            await asyncio.sleep(0.01)
        assert server.chat_requests, "the test request reached the server"
        dialog.reject()
        await asyncio.gather(task, return_exceptions=True)
    assert task.cancelled()


def test_the_images_choice_offers_auto_as_the_default_and_every_setting(make_dialog):
    dialog = make_dialog(Settings())
    combo = dialog._fields["images.send"]
    assert combo.currentData() == "auto" and combo.currentText().startswith("Auto: annotated")
    assert {combo.itemData(index) for index in range(combo.count())} == set(IMAGE_SEND_CHOICES)
    assert combo.accessibleName() == "Send to the model"
    assert dialog.result_settings().images.send == "auto"
