"""The Settings dialog's form rows: which settings each tab shows, and the widgets that edit them.

The row tables (`PROVIDER_ROWS`, `IMAGE_ROWS`, `AGENT_ROWS`, `MIRROR_ROWS`, `CONNECTION_ROWS`,
`APPEARANCE_ROWS`) list (label, "section.field", editor kind);
`field_editor` turns one into a widget whose limits and tooltip come from the pydantic settings model,
`add_form_row` lays it out with its note and inline error, and `field_value` / `set_field_value` read and
fill any of those widgets. Used by app.gui.settings.settings_dialog.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, overload

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.core.config import (
    AdbSettings,
    AgentSettings,
    ApiSettings,
    AppearanceSettings,
    ImageSettings,
    LearningSettings,
    MirrorSettings,
    ProviderSettings,
)
from app.gui.theme import set_tone

FieldWidget = QLineEdit | QSpinBox | QDoubleSpinBox | QCheckBox | QComboBox
SECTIONS: dict[str, type[BaseModel]] = {"provider": ProviderSettings, "images": ImageSettings,
                                        "agent": AgentSettings, "mirror": MirrorSettings, "adb": AdbSettings,
                                        "api": ApiSettings, "learning": LearningSettings,
                                        "appearance": AppearanceSettings}
UNBOUNDED_MAXIMUM = 86_400  # one day, for limits the settings leave open


@dataclass(frozen=True)
class Spin:
    """A spin box row; its range comes from the settings model's limits."""

    suffix: str = ""
    decimals: int = 0
    step: float = 1
    special: str = ""      # shown instead of the lowest value (e.g. "No cap" for 0)


@dataclass(frozen=True)
class Check:
    """A check box row with this text (and `name` for a screen reader, when the row's caption does not say it)."""

    text: str
    name: str = ""


# (label, "section.field", editor kind): see field_editor.
PROVIDER_ROWS = (
    ("Timeout", "provider.timeout_seconds", Spin(" s", step=5)),
    ("Retries", "provider.http_retries", Spin(special="None")),
    ("Tools", "provider.use_tools", Check("Send the actions as tools (function calling)")),
    ("Streaming", "provider.stream", Check("Show the model's words as they arrive")),
    ("Coordinates", "provider.coordinate_mode", [("Pixels of the sent image", "image"),
                                                 ("Normalised 0–1000", "normalized")]),
)
IMAGE_ROWS = (
    ("Send to the model", "images.send", [("Auto: annotated, and the clean one when ids hide the screen", "auto"),
                                          ("Annotated screenshot (numbered controls)", "annotated"),
                                          ("Clean screenshot", "clean"), ("Both", "both"),
                                          ("None: text only, for models that cannot see", "none")]),
    ("Longest side", "images.max_side", Spin(" px", step=64)),
    ("Format", "images.format", [("JPEG (smaller)", "jpeg"), ("PNG (lossless)", "png")]),
    ("JPEG quality", "images.jpeg_quality", Spin(step=5)),
    ("Never send pictures of", "images.never_send_apps", "package names, e.g. com.example.bank, com.example.wallet"),
)
AGENT_ROWS = (
    ("Default mode", "agent.mode", [("Step by step: approve every action", "step"),
                                    ("Automatic: sensitive actions still ask", "auto")]),
    ("System dialogs", "agent.system_dialogs", [("Ask me before answering one, even in automatic mode", "ask"),
                                                ("Let the model answer them", "model")]),
    ("Max steps", "agent.max_steps", Spin()),
    ("Overall timeout", "agent.timeout_seconds", Spin(" s", step=60)),
    ("Stop after failures", "agent.max_consecutive_failures", Spin(" in a row")),
    ("Spending cap", "agent.max_tokens_per_run", Spin(" tokens", step=10_000, special="No cap")),
    ("", "agent.max_cost_usd_per_run", Spin(" USD", decimals=2, step=0.5, special="No money cap")),
    ("Reply retries", "agent.reply_retries", Spin()),
    ("Stuck after", "agent.stuck_threshold", Spin(" repeats")),
    ("Settle, at most", "agent.settle_seconds", Spin(" s", decimals=1, step=0.1)),
    ("Settled once still for", "agent.settle_quiet_seconds", Spin(" s", decimals=2, step=0.05)),
    ("Wait for loading, at most", "agent.loading_wait_seconds", Spin(" s", decimals=1, step=0.5)),
    ("Reflection", "agent.reflection", Check("Check after each action that the screen changed as expected")),
    ("", "agent.model_reflection", Check("Ask the model when the change is unclear")),
    ("When the model is done", "agent.completion_check", [("Check the screen, else ask the model", "screen_or_model"),
                                                          ("Check the screen only", "screen_only"),
                                                          ("Trust the model (no check)", "off")]),
    ("Learning", "learning.use_skills", Check("Replay a saved skill when a request fits it")),
    ("", "learning.save_skills", Check("Save each successful run as a skill")),
    ("", "learning.record_screens", Check("Keep a map of the screens seen and the actions between them")),
    ("", "learning.use_map", Check("Tell the model where it is on that map, and let it go to a known screen")),
)

MIRROR_ROWS = (
    ("Screen", "mirror.stream", [("Stream it (scrcpy), screenshots when that cannot start", "auto"),
                                 ("Screenshots only", "screenshots")]),
    ("Size limit", "mirror.max_size", Spin(" px", step=160, special="Full resolution")),
    ("Frame rate, at most", "mirror.max_fps", Spin(" fps", step=10)),
    ("Bit rate", "mirror.video_bit_rate_mbps", Spin(" Mbit/s", decimals=1, step=1)),
    ("Codec", "mirror.video_codec", [("Automatic (H.264)", "auto"), ("H.264", "h264"),
                                     ("AV1 (only phones that encode it)", "av1")]),
    ("Show touches", "mirror.show_touches", Check("The phone shows a dot where it is touched while mirrored")),
    ("Recording", "mirror.record_runs", Check("Record each run's video into an MP4 next to its report")),
)
CONNECTION_ROWS = (
    ("Other ADB servers", "adb.servers", "host:port of other machines' ADB servers, e.g. 192.168.1.20:5037"),
    ("Built-in phone", "adb.keep_virtual_phone", Check("Keep it running after the last Agent Desk program "
                                                        "using it closes")),
    ("Screen's controls", "adb.tree_server", [
        ("uiautomator2's server on the built-in phone and emulators, else uiautomator dump", "auto"),
        ("uiautomator2's server on every phone (read the warning)", "on"),
        ("uiautomator dump only (slower; fails on screens that never stop moving)", "off")]),
    ("Task API", "api.serve", Check("Take tasks from other programs (HTTP API and MCP) while the desk runs")),
    ("Listen on", "api.host", "127.0.0.1 (this machine only)"),
    ("Port", "api.port", Spin(special="Any free port")),
    ("Decision timeout", "api.review_timeout_seconds", Spin(" s", step=60)),
    ("Tasks at once", "api.max_queued_tasks", Spin(" waiting or running")),
    ("Sensitive actions", "api.programs_may_approve_sensitive",
     Check("Programs may approve sensitive actions (off: a person decides them, here or in the console)",
           name="Programs may approve sensitive actions")),
)
ADB_SERVERS_NOTE = ("To use phones plugged into other computers (or a device farm), list their ADB servers here "
                    "as host:port, separated by commas; this computer's own server is always used.")
TREE_SERVER_NOTE = ("uiautomator2's server reads the controls about ten times quicker. It runs only while a "
                    "run or the inspector reads them, and stops 30 s later and at quit. Warning: while it runs it "
                    "listens on every network interface of the phone with no password, so any app on the phone "
                    "and any machine on its Wi-Fi can read the screen, type, tap and run shell commands through "
                    "it. On a real phone, choose “every phone” only on a network you trust.")
# a sentence under the field, saying what it is for
ROW_NOTES = {"adb.servers": ADB_SERVERS_NOTE, "adb.tree_server": TREE_SERVER_NOTE}
APPEARANCE_ROWS = (
    ("Theme", "appearance.theme", [("Follow the system (light or dark)", "system"), ("Light", "light"),
                                   ("Dark", "dark")]),
)
API_FIELDS = ("api.host", "api.port", "api.review_timeout_seconds", "api.max_queued_tasks")
STREAM_ONLY_FIELDS = ("mirror.max_size", "mirror.max_fps", "mirror.video_bit_rate_mbps", "mirror.video_codec",
                      "mirror.record_runs")


@overload
def field_editor(key: str, spec: Spin) -> QSpinBox | QDoubleSpinBox: ...
@overload
def field_editor(key: str, spec: Check) -> QCheckBox: ...
@overload
def field_editor(key: str, spec: str) -> QLineEdit: ...
@overload
def field_editor(key: str, spec: Sequence[tuple[str, Any]]) -> QComboBox: ...
def field_editor(key: str, spec: Any) -> FieldWidget:
    """The editor for the settings field `key` ("section.name"): a spin box for a `Spin`, a check box for a
    `Check`, a line edit for a placeholder text, a combo box for a list of (text, value) choices.
    Its tooltip is the field's description."""
    section, name = key.split(".")
    field = SECTIONS[section].model_fields[name]
    editor: FieldWidget
    if isinstance(spec, Spin):
        editor = _spin_box(field, spec)
    elif isinstance(spec, Check):
        editor = QCheckBox(spec.text)
        if spec.name:
            editor.setAccessibleName(spec.name)
    elif isinstance(spec, str):
        editor = QLineEdit(placeholderText=spec)
    else:
        editor = QComboBox()
        for text, value in spec:
            editor.addItem(text, value)
    if field.description:
        editor.setToolTip(field.description[0].upper() + field.description[1:] + ".")
    return editor


def add_form_row(form: QFormLayout, label: str, editor: QWidget | QHBoxLayout, note: QLabel | None = None) -> QLabel:
    """Add a row: the editor, an optional note under it, and an inline error label, hidden until needed,
    which is returned."""
    box = QWidget()
    column = QVBoxLayout(box)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(4)
    if isinstance(editor, QHBoxLayout):
        column.addLayout(editor)
    elif isinstance(editor, (QSpinBox, QDoubleSpinBox, QComboBox)):  # as wide as their content
        column.addWidget(editor, 0, Qt.AlignmentFlag.AlignLeft)
    else:
        column.addWidget(editor)
    if note is not None:
        column.addWidget(note)
    error = error_label()
    column.addWidget(error)
    multi_line = isinstance(editor, QPlainTextEdit)     # its caption stands by its first line
    caption = QLabel(label, alignment=Qt.AlignmentFlag.AlignLeft | (
        Qt.AlignmentFlag.AlignTop if multi_line else Qt.AlignmentFlag.AlignVCenter))
    if multi_line:
        caption.setContentsMargins(0, 6, 0, 0)
    if label and isinstance(editor, QWidget) and not editor.accessibleName():
        editor.setAccessibleName(label)       # a screen reader says the row's caption for its editor
    caption.setFixedHeight(_polished_height(editor))  # centred on the editor, not on its notes
    form.addRow(caption, box)
    return error


def form_page() -> tuple[QWidget, QFormLayout]:
    """A tab page holding a form layout, which is returned with it."""
    page = QWidget()
    form = QFormLayout(page)
    form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
    form.setVerticalSpacing(8)
    return page, form


def row_note(key: str) -> QLabel | None:
    """The sentence shown under the field `key` (ROW_NOTES), or None when it has none."""
    if key not in ROW_NOTES:
        return None
    label = note_label()
    label.setText(ROW_NOTES[key])
    return label


def note_label(tone: str = "muted") -> QLabel:
    """A word-wrapped label in the given theme tone."""
    label = QLabel(wordWrap=True)
    set_tone(label, tone)
    return label


def error_label() -> QLabel:
    """A hidden label in the error tone; shown when there is a problem to report."""
    label = note_label("error")
    label.hide()
    return label


def hbox(*widgets: tuple[QWidget, int]) -> QHBoxLayout:
    """A row of widgets with their stretch factors, without margins."""
    row = QHBoxLayout()
    row.setContentsMargins(0, 0, 0, 0)
    row.setSpacing(8)
    for widget, stretch in widgets:
        row.addWidget(widget, stretch)
    return row


def field_value(widget: FieldWidget) -> Any:
    """The value an editor holds, as the settings model takes it."""
    if isinstance(widget, QLineEdit):
        return widget.text().strip()
    if isinstance(widget, QCheckBox):
        return widget.isChecked()
    if isinstance(widget, QComboBox):
        return widget.currentData()
    return widget.value()


def set_field_value(widget: FieldWidget, value: Any) -> None:
    """Show a settings value in its editor."""
    if isinstance(widget, QLineEdit):
        widget.setText(", ".join(value) if isinstance(value, (list, tuple)) else str(value))
    elif isinstance(widget, QCheckBox):
        widget.setChecked(bool(value))
    elif isinstance(widget, QComboBox):
        index = widget.findData(value)
        widget.setCurrentIndex(index if index >= 0 else widget.count() - 1)  # unknown preset → Custom
    else:
        widget.setValue(value)


def _polished_height(editor: QWidget | QHBoxLayout) -> int:
    """The editor's height with the app stylesheet applied (it sets minimum heights)."""
    items = [editor.itemAt(i) for i in range(editor.count())] if isinstance(editor, QHBoxLayout) else []
    widgets = [editor] if isinstance(editor, QWidget) else [item.widget() for item in items if item is not None]
    for widget in widgets:
        if widget is not None:        # a row's stretch or spacing has no widget
            widget.ensurePolished()
    if isinstance(editor, QWidget):        # a fixed-height editor (a few lines of text) is no taller than that
        return min(editor.sizeHint().height(), editor.maximumHeight())
    return editor.sizeHint().height()


def _spin_box(field: FieldInfo, spec: Spin) -> QSpinBox | QDoubleSpinBox:
    """A spin box limited to what the settings model accepts for `field`."""
    bounds: dict[str, Any] = {}
    for rule in field.metadata:
        bounds.update({attr: getattr(rule, attr) for attr in ("ge", "gt", "le") if hasattr(rule, attr)})
    spin = QDoubleSpinBox(decimals=spec.decimals) if field.annotation is float else QSpinBox()
    spin.setRange(bounds.get("ge", bounds["gt"] + 10 ** -spec.decimals if "gt" in bounds else 0),
                  bounds.get("le", UNBOUNDED_MAXIMUM))
    if isinstance(spin, QDoubleSpinBox):
        spin.setSingleStep(spec.step)
    else:
        spin.setSingleStep(int(spec.step))
    spin.setSuffix(spec.suffix)
    if spec.special:
        spin.setSpecialValueText(spec.special)
    spin.setMinimumWidth(120)
    return spin
