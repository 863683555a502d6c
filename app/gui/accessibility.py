"""Names for screen readers: every control a person can reach with the keyboard says what it is.

Qt names a button by its text and a field by the label whose buddy it is. The rest — icon-only
buttons, text boxes, spin boxes, tables, the mirror — are named where they are made
(`setAccessibleName`). `name_unnamed_widgets(root)` is the safety net run over a finished window: a
control still without a name gets one from its label, tooltip, placeholder text or object name.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QTextEdit,
    QWidget,
)

if TYPE_CHECKING:
    from app.gui.main_window import MainWindow

log = logging.getLogger(__name__)

NEARBY_LABEL_CHARS = 40
"""A label just before a control names it only when it is this short (a caption, not a paragraph)."""
_TAG = re.compile(r"<[^>]+>")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def accessible_name(widget: QWidget) -> str:
    """The name a screen reader says for `widget`: its own, or the one Qt derives (a button's text…)."""
    if widget.accessibleName().strip():
        return widget.accessibleName().strip()
    interface = QAccessible.queryAccessibleInterface(widget)
    return (interface.text(QAccessible.Text.Name) or "").strip() if interface is not None else ""


def is_control(widget: QWidget) -> bool:
    """Reached by the keyboard or a click (labels excepted: their text is their name)."""
    return widget.focusPolicy() != Qt.FocusPolicy.NoFocus and not isinstance(widget, QLabel)


def unnamed_controls(root: QWidget, *, visible_only: bool = False) -> list[QWidget]:
    """The controls under `root` (and `root` itself) a screen reader has no name for."""
    widgets = [root, *root.findChildren(QWidget)]
    return [widget for widget in widgets if is_control(widget) and not accessible_name(widget)
            and (not visible_only or widget.isVisibleTo(root))]


def name_unnamed_widgets(root: QWidget) -> list[tuple[QWidget, str]]:
    """Give each control under `root` that has no name one derived from what a sighted person reads
    next to it; returns what it named. Controls nothing can name are logged, and stay unnamed."""
    buddies = {id(label.buddy()): label.text() for label in root.findChildren(QLabel) if label.buddy() is not None}
    named: list[tuple[QWidget, str]] = []
    for widget in unnamed_controls(root):         # parents come before their children
        name = _derived_name(widget, buddies)
        if name:
            widget.setAccessibleName(name)
            named.append((widget, name))
        else:
            log.warning("No accessible name for %s under %s", type(widget).__name__, type(root).__name__)
    return named


def name_main_window(window: MainWindow) -> list[tuple[QWidget, str]]:
    """The window's own parts (its panes), then the safety net over everything else."""
    window.left_pane.setAccessibleName("Phones, request and approval")
    window.right_pane.setAccessibleName("Inspector and run timeline")
    return name_unnamed_widgets(window)


def _derived_name(widget: QWidget, buddies: dict[int, str]) -> str:
    owner = _owner(widget)
    if owner is not None:                         # a spin box's or combo box's inner part says its owner's name
        return accessible_name(owner)
    candidates = [buddies.get(id(widget), ""), _form_label(widget), _first_line(widget.toolTip()),
                  _label_before(widget), _placeholder(widget), _spin_words(widget), _object_words(widget)]
    return next((text for text in map(_clean, candidates) if text), "")


def _owner(widget: QWidget) -> QWidget | None:
    parent = widget.parentWidget()
    for _ in range(2):                            # the combo's list sits in a container inside the combo
        if parent is None:
            return None
        if isinstance(parent, (QAbstractSpinBox, QComboBox)):
            return parent
        parent = parent.parentWidget()
    return None


def _form_label(widget: QWidget) -> str:
    """The caption of the form row holding `widget` (or the box around it)."""
    current: QWidget = widget
    for _ in range(3):
        parent = current.parentWidget()
        if parent is None:
            return ""
        form = parent.layout()
        if isinstance(form, QFormLayout):
            label = form.labelForField(current)
            return label.text() if isinstance(label, QLabel) else ""
        current = parent
    return ""


def _placeholder(widget: QWidget) -> str:
    if isinstance(widget, (QLineEdit, QPlainTextEdit, QTextEdit, QComboBox)):
        return widget.placeholderText()
    return ""


def _label_before(widget: QWidget) -> str:
    """A short label placed just before `widget` in the same layout (a caption above a text box)."""
    parent = widget.parentWidget()
    layout = parent.layout() if parent is not None else None
    if layout is None:
        return ""
    index = layout.indexOf(widget)
    item = layout.itemAt(index - 1) if index > 0 else None
    previous = item.widget() if item is not None else None
    if isinstance(previous, QLabel) and len(_clean(previous.text())) <= NEARBY_LABEL_CHARS:
        return previous.text()
    return ""


def _spin_words(widget: QWidget) -> str:
    """"max … steps" reads as "max steps"."""
    if isinstance(widget, (QSpinBox, QDoubleSpinBox)):     # the spin boxes with a prefix and a suffix
        return f"{widget.prefix()} {widget.suffix()}"
    return ""


def _object_words(widget: QWidget) -> str:
    name = widget.objectName()
    return "" if not name or name.startswith("qt_") else _CAMEL.sub(" ", name).replace("_", " ").lower()


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def _clean(text: str) -> str:
    """Plain words: no markup, no mnemonic '&', no trailing colon, one space between words."""
    text = _TAG.sub("", text or "").replace("&&", "\0").replace("&", "").replace("\0", "&")
    text = " ".join(text.split()).rstrip(":").strip()
    return text[:1].upper() + text[1:]
