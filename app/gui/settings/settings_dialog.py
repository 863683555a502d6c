"""The Settings dialog: provider and key, images, agent limits, sensitive words, the mirror, other ADB
servers and the task API, the look (theme), and a connection test.

The dialog never writes anything: not the settings file, not the keyring. The caller saves:

    dialog = SettingsDialog(settings, secrets, parent)
    if await run_dialog(dialog) == QDialog.DialogCode.Accepted:
        new_settings = dialog.result_settings()
        save_settings(new_settings, settings_path())
        if dialog.key_removal_requested():
            secrets.delete(new_settings.provider.key_name)
        if (key := dialog.entered_key()) is not None:
            secrets.set(new_settings.provider.key_name, key)
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Sequence
from typing import Any, TypeVar, overload

from pydantic import ValidationError
from PySide6.QtCore import QSize, QStringListModel, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.core.config import DEFAULT_SENSITIVE_WORDS, ProviderSettings, Settings, describe_validation_error
from app.core.key_origins import origin_of
from app.core.secrets import SESSION_NOTICE, SecretStore
from app.gui.settings.provider_presets import AZURE_PLACEHOLDER, CUSTOM, PRESETS, ProviderPreset, preset_named
from app.gui.settings.settings_actions import ConnectionTestRow, TokenRotationRow
from app.gui.settings.settings_form import (
    AGENT_ROWS,
    API_FIELDS,
    APPEARANCE_ROWS,
    CONNECTION_ROWS,
    IMAGE_ROWS,
    MIRROR_ROWS,
    PROVIDER_ROWS,
    STREAM_ONLY_FIELDS,
    FieldWidget,
    add_form_row,
    error_label,
    field_editor,
    field_value,
    form_page,
    hbox,
    note_label,
    row_note,
    set_field_value,
)
from app.gui.window_fit import fit_window


class _ReadFromStore(enum.Enum):
    READ = enum.auto()


READ_FROM_STORE = _ReadFromStore.READ   # SettingsDialog reads the stored key itself

TAB_OF_SECTION = {"provider": 0, "images": 1, "agent": 2, "learning": 2, "safety": 3, "mirror": 4, "adb": 5,
                  "api": 5, "appearance": 6}
WORDS_KEY = "agent.sensitive_words"
ALSO_FOR_KEY = "provider.key_also_for"
EditorT = TypeVar("EditorT", bound=QWidget)


class SettingsDialog(QDialog):
    """Edits a copy of `settings`; use with open()/run_dialog. OK validates first and stays open on errors."""

    token_rotated = Signal(object)      # the task API's new ApiToken, for the window's own desk to take

    def __init__(self, settings: Settings, secrets: SecretStore, parent: QWidget | None = None, *,
                 stored_key: str | None | _ReadFromStore = READ_FROM_STORE):
        """`stored_key`: the key stored now, when the caller has read it already (off the GUI thread)."""
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self._original = settings
        self._secrets = secrets
        self._stored_key = secrets.get(settings.provider.key_name) if stored_key is READ_FROM_STORE else stored_key
        self._remove_key = False
        self._needs_key = True  # set by the chosen preset
        self._fields: dict[str, FieldWidget] = {}  # "section.name" -> its editor
        self._errors: dict[str, QLabel] = {}       # "section.name" -> its inline error

        self.tabs = QTabWidget()
        self.tabs.addTab(self._provider_page(), "Provider")
        self.tabs.addTab(self._table_page(IMAGE_ROWS), "Images")
        self.tabs.addTab(self._table_page(AGENT_ROWS), "Agent")
        self.tabs.addTab(self._safety_page(), "Safety")
        self.tabs.addTab(self._table_page(MIRROR_ROWS), "Mirror")
        self.tabs.addTab(self._connections_page(), "Connections")
        self.tabs.addTab(self._table_page(APPEARANCE_ROWS), "Appearance")
        self.problem_label = error_label()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setProperty("primary", True)
        self.ok_button.setDefault(True)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.problem_label)
        layout.addWidget(buttons)
        self._field("images.format", QComboBox).currentIndexChanged.connect(self._sync_dependent_fields)
        self._field("agent.reflection", QCheckBox).toggled.connect(self._sync_dependent_fields)
        self._field("mirror.stream", QComboBox).currentIndexChanged.connect(self._sync_dependent_fields)
        self._field("api.serve", QCheckBox).toggled.connect(self._sync_dependent_fields)
        self._load(settings)
        fit_window(self, QSize(640, 560))

    # ------------------------------------------------------------------ results

    def result_settings(self) -> Settings:
        """New settings from the fields; raises pydantic's ValidationError when a value is invalid.
        Values the dialog does not show (key name, temperature, prices…) are kept from the original."""
        return Settings.model_validate(self._entered_data())

    def entered_key(self) -> str | None:
        """The newly typed API key, or None when the field was left empty (the stored key stays)."""
        return self.key_edit.text().strip() or None

    def key_removal_requested(self) -> bool:
        """True when the person pressed "Remove key" and typed no new one."""
        return self._remove_key and self.entered_key() is None

    def problems(self) -> dict[str, str]:
        """What is wrong, by field ("provider.base_url" → sentence); empty when the settings are valid."""
        problems: dict[str, str] = {}
        try:
            self.result_settings()
        except ValidationError as error:
            for problem in error.errors():
                key = ".".join(str(part) for part in problem["loc"][:2])
                message = problem["msg"].removeprefix("Value error, ")
                problems.setdefault(key, message[:1].upper() + message[1:])
            if any(key not in self._errors for key in problems):
                problems["*"] = describe_validation_error(error)
        base_url = self.base_url_edit.text()
        if AZURE_PLACEHOLDER in base_url:
            problems.setdefault("provider.base_url", f"Replace {AZURE_PLACEHOLDER} with the name of your resource.")
        if not self.model_edit.text().strip():
            problems.setdefault("provider.model", f"Enter the {self.model_edit.placeholderText()}.")
        return problems

    def accept(self) -> None:
        """OK and Enter: close only when every field is valid; otherwise show what is wrong."""
        if self._show_problems(self.problems()):
            super().accept()

    def done(self, result: int) -> None:
        self.connection_row.cancel()
        super().done(result)

    # ------------------------------------------------------------------ pages

    def _provider_page(self) -> QWidget:
        page, form = form_page()
        self.preset_combo = self._editor("provider.preset", [(preset.name, preset.name) for preset in PRESETS])
        self.preset_combo.activated.connect(self._apply_preset)
        self.hint_label = note_label()
        self._row(form, "Provider", "provider.preset", self.preset_combo, self.hint_label)
        self.base_url_edit = self._editor("provider.base_url", "https://…/v1")
        self._row(form, "Base URL", "provider.base_url", self.base_url_edit)
        self.model_edit = self._editor("provider.model", "model name")
        self.model_names = QStringListModel(self)  # filled by a connection test
        self.model_edit.setCompleter(QCompleter(self.model_names, self))
        self._row(form, "Model", "provider.model", self.model_edit)

        self.key_edit = QLineEdit(echoMode=QLineEdit.EchoMode.Password)
        self.key_edit.setAccessibleName("API key")
        self.key_edit.textEdited.connect(lambda: self._set_key_removal(False))
        self.show_key_button = QPushButton("Show", autoDefault=False)
        self.show_key_button.setCheckable(True)
        self.show_key_button.toggled.connect(self._toggle_key_visible)
        self.remove_key_button = QPushButton("Remove key", autoDefault=False)
        self.remove_key_button.clicked.connect(lambda: self._set_key_removal(True))
        self.key_note = note_label()
        self._row(form, "API key", "provider.api_key",
                  hbox((self.key_edit, 1), (self.show_key_button, 0), (self.remove_key_button, 0)), self.key_note)
        self.also_for_edit = QPlainTextEdit()
        self.also_for_edit.setAccessibleName("Also send this key to, one origin per line")
        self.also_for_edit.setPlaceholderText("https://llm.example.com:8443")
        self.also_for_edit.setFixedHeight(self.also_for_edit.fontMetrics().lineSpacing() * 3 + 16)
        # the row keeps its height
        self.also_for_edit.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.also_for_edit.textChanged.connect(lambda: self._clear_error(ALSO_FOR_KEY))
        also_note = note_label()
        also_note.setText("The key goes only to the server it was stored for and to these, one origin "
                          "(scheme://host:port) per line. A task or preset naming another server runs without it.")
        self._row(form, "Also send this key to", ALSO_FOR_KEY, self.also_for_edit, also_note)
        self._add_rows(form, PROVIDER_ROWS)

        self.connection_row = ConnectionTestRow(self._provider_to_test, self.model_names)
        self.test_button, self.test_result = self.connection_row.button, self.connection_row.result
        form.addRow("", self.connection_row)
        return page

    def _table_page(self, rows: tuple[tuple[str, str, Any], ...]) -> QWidget:
        page, form = form_page()
        self._add_rows(form, rows)
        return page

    def _connections_page(self) -> QWidget:
        """The other ADB servers and the task API, with a button that replaces the API's token."""
        page, form = form_page()
        self._add_rows(form, CONNECTION_ROWS)
        self.rotation_row = TokenRotationRow()
        self.rotation_row.rotated.connect(self.token_rotated)
        form.addRow("API token", self.rotation_row)
        return page

    def _safety_page(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        explanation = QLabel("Sensitive words, one per line. In automatic mode an action on a control whose "
                             "name contains one of them waits for your approval. Typing into a password "
                             "field always does.", wordWrap=True)
        self.words_edit = QPlainTextEdit()
        self.words_edit.setAccessibleName("Sensitive words, one per line")
        self.words_edit.textChanged.connect(lambda: self._clear_error(WORDS_KEY))
        defaults_button = QPushButton("Restore the default list", autoDefault=False)
        defaults_button.clicked.connect(lambda: self.words_edit.setPlainText("\n".join(DEFAULT_SENSITIVE_WORDS)))
        self._errors[WORDS_KEY] = error_label()
        layout.addWidget(explanation)
        layout.addWidget(self.words_edit, 1)
        layout.addWidget(self._errors[WORDS_KEY])
        layout.addWidget(defaults_button, 0, Qt.AlignmentFlag.AlignLeft)
        return page

    # ------------------------------------------------------------------ field helpers

    def _row(self, form: QFormLayout, label: str, key: str, editor: QWidget | QHBoxLayout,
             note: QLabel | None = None) -> None:
        """A form row (see add_form_row) whose inline error is kept under `key`."""
        self._errors[key] = add_form_row(form, label, editor, note)

    def _add_rows(self, form: QFormLayout, rows: tuple[tuple[str, str, Any], ...]) -> None:
        for label, key, spec in rows:
            self._row(form, label, key, self._editor(key, spec), row_note(key))

    @overload
    def _editor(self, key: str, spec: str) -> QLineEdit: ...
    @overload
    def _editor(self, key: str, spec: Sequence[tuple[str, Any]]) -> QComboBox: ...
    @overload
    def _editor(self, key: str, spec: Any) -> FieldWidget: ...
    def _editor(self, key: str, spec: Any) -> FieldWidget:
        """The editor for `key` (see field_editor), kept under `key` for loading, reading and errors."""
        editor = field_editor(key, spec)
        if isinstance(editor, QLineEdit):
            editor.textEdited.connect(lambda: self._clear_error(key))
        self._fields[key] = editor
        return editor

    def _field(self, key: str, kind: type[EditorT]) -> EditorT:
        """The editor for `key`, which the row tables make a `kind`."""
        editor = self._fields[key]
        if not isinstance(editor, kind):
            raise TypeError(f"{key} is edited by a {type(editor).__name__}, not a {kind.__name__}")
        return editor

    # ------------------------------------------------------------------ behaviour

    def _load(self, settings: Settings) -> None:
        for key, widget in self._fields.items():
            section, name = key.split(".")
            set_field_value(widget, getattr(getattr(settings, section), name))
        self.words_edit.setPlainText("\n".join(settings.agent.sensitive_words))
        self.also_for_edit.setPlainText("\n".join(settings.provider.key_also_for))
        self._show_preset_help(preset_named(settings.provider.preset))
        self._sync_dependent_fields()

    def _sync_dependent_fields(self) -> None:
        """JPEG quality only applies to JPEG; model reflection only with reflection on; the stream's
        size, rate, codec and recording only when the mirror may stream."""
        self._fields["images.jpeg_quality"].setEnabled(self._field("images.format", QComboBox).currentData() == "jpeg")
        self._fields["agent.model_reflection"].setEnabled(self._field("agent.reflection", QCheckBox).isChecked())
        streams = self._field("mirror.stream", QComboBox).currentData() == "auto"
        for key in STREAM_ONLY_FIELDS:
            self._fields[key].setEnabled(streams)
        for key in API_FIELDS:
            self._fields[key].setEnabled(self._field("api.serve", QCheckBox).isChecked())

    def _apply_preset(self, index: int) -> None:
        """Fill base URL, model, timeout and retries from the chosen preset (a local server gets minutes and
        one retry); later edits are kept as typed. Custom keeps every field as it is."""
        preset = PRESETS[index]
        if preset.name != CUSTOM:
            self.base_url_edit.setText(preset.base_url)
            self.model_edit.setText(preset.model)
            set_field_value(self._fields["provider.timeout_seconds"], preset.timeout_seconds)
            set_field_value(self._fields["provider.http_retries"], preset.http_retries)
            self._clear_error("provider.base_url")
            self._clear_error("provider.model")
        self._show_preset_help(preset)

    def _show_preset_help(self, preset: ProviderPreset) -> None:
        self.hint_label.setText(preset.hint if preset.name == CUSTOM else f"{preset.hint}\n{preset.facts()}")
        self.model_edit.setPlaceholderText(preset.model_placeholder)
        self._needs_key = preset.needs_key
        self._update_key_note()

    def _set_key_removal(self, remove: bool) -> None:
        """Remove key empties the field and marks the stored key for removal; typing unmarks it."""
        if remove:
            self.key_edit.clear()
        self._remove_key = remove
        self._update_key_note()

    def _toggle_key_visible(self, shown: bool) -> None:
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password)
        self.show_key_button.setText("Hide" if shown else "Show")

    def _update_key_note(self) -> None:
        stored = self._stored_key is not None and not self._remove_key
        self.remove_key_button.setEnabled(stored)
        if stored:
            placeholder = "A key is stored; type a new one to replace it"
        else:
            placeholder = "Paste your API key" if self._needs_key else "Not needed for this provider"
        self.key_edit.setPlaceholderText(placeholder)
        if self._remove_key:
            note = "The stored key will be removed when you press OK."
        elif not self._secrets.keyring_available:
            note = self._secrets.notice or SESSION_NOTICE
        elif stored:
            note = (f"Stored in {self._secrets.location()} for {self._original.provider.key_origin}. "
                    "Leave the field empty to keep it.")
        else:
            note = f"No key is stored. A key you enter is kept in {self._secrets.location()}."
        self.key_note.setText(note)

    def _clear_error(self, key: str) -> None:
        if key in self._errors:
            self._errors[key].hide()

    def _show_problems(self, problems: dict[str, str]) -> bool:
        """Show each problem next to its field and go to the first one; True when there is none."""
        for key, label in self._errors.items():
            label.setText(problems.get(key, ""))
            label.setVisible(key in problems)
        self.problem_label.setText(problems.get("*", ""))
        self.problem_label.setVisible("*" in problems)
        first = next((key for key in problems if key in self._errors), None)
        if first is not None:
            self.tabs.setCurrentIndex(TAB_OF_SECTION["safety" if first == WORDS_KEY else first.split(".")[0]])
            editors: dict[str, QWidget] = {**self._fields, WORDS_KEY: self.words_edit, ALSO_FOR_KEY: self.also_for_edit}
            editors.get(first, self.tabs).setFocus()
        return not problems

    def _entered_data(self) -> dict[str, Any]:
        """The original settings as a dict, with every field's current value put in."""
        data = self._original.model_dump()
        for key, widget in self._fields.items():
            section, name = key.split(".")
            data[section][name] = field_value(widget)
        words = (line.strip() for line in self.words_edit.toPlainText().splitlines())
        data["agent"]["sensitive_words"] = list(dict.fromkeys(word for word in words if word))
        data["provider"]["key_also_for"] = [line for line in self.also_for_edit.toPlainText().splitlines()
                                            if line.strip()]
        if self.entered_key() is not None or self._remove_key:
            data["provider"]["key_origin"] = ""     # a new key belongs to the base URL it is entered with
        return data

    # ------------------------------------------------------------------ connection test

    @property
    def connection_test(self) -> asyncio.Task | None:
        """The connection test under way or last run (None before the first)."""
        return self.connection_row.task

    def _provider_to_test(self) -> tuple[ProviderSettings, str | None] | str:
        """The provider as entered (unsaved) and the key that may go to it, or why it cannot be tested."""
        problems = {key: text for key, text in self.problems().items() if key.startswith("provider.")}
        if not self._show_problems(problems):
            return "Fix the provider settings above first."
        provider = ProviderSettings.model_validate({**self._entered_data()["provider"], "http_retries": 0})
        key = self.entered_key() or (None if self._remove_key else self._stored_key)
        if self.entered_key() is None and origin_of(provider.base_url) not in {provider.key_origin,
                                                                               *provider.key_also_for}:
            key = None               # the stored key goes only to its own origin and the allowed ones
        return provider, key
