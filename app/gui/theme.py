"""The app's look: Fusion with a light and a dark palette that follow the system colour scheme.

`apply_theme(app)` once at start; it re-applies itself when the system switches between light
and dark. `set_scheme_override` pins one look (a menu entry, tests). Widgets opt in to two
dynamic properties the stylesheet knows: `primary=True` on a QPushButton gives it the accent
colour, and `set_tone(label, "success" | "error" | "muted" | "")` colours a status text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QWidget

Scheme = Literal["light", "dark"]


@dataclass(frozen=True)
class Colors:
    window: str
    text: str
    base: str
    alternate: str
    button: str
    button_hover: str
    button_pressed: str
    border: str
    disabled_text: str
    disabled_button: str
    placeholder: str
    accent: str
    accent_hover: str
    accent_text: str
    success: str
    error: str


LIGHT = Colors(window="#f3f4f6", text="#1d2025", base="#ffffff", alternate="#f0f1f4", button="#fcfcfd",
               button_hover="#eef0f3", button_pressed="#e1e4e9", border="#c5c9d0", disabled_text="#8e939b",
               disabled_button="#eceef1", placeholder="#7d828b", accent="#2563d9", accent_hover="#1d54bd",
               accent_text="#ffffff", success="#1a7f37", error="#c62828")
DARK = Colors(window="#202226", text="#e6e7ea", base="#17181b", alternate="#25272c", button="#2d3035",
              button_hover="#363a40", button_pressed="#41454c", border="#4a4e56", disabled_text="#80858e",
              disabled_button="#26282c", placeholder="#8b9099", accent="#3b7bf0", accent_hover="#5590f7",
              accent_text="#ffffff", success="#5cc97a", error="#ff6b6b")

_STYLESHEET = """
QPushButton {{ border: 1px solid {border}; border-radius: 6px; padding: 4px 14px; min-height: 16px;
               background: {button}; color: {text}; }}
QPushButton:hover {{ background: {button_hover}; }}
QPushButton:pressed, QPushButton:checked {{ background: {button_pressed}; }}
QPushButton:focus {{ border-color: {accent}; }}
QPushButton:disabled {{ color: {disabled_text}; background: {disabled_button}; border-color: {disabled_button}; }}
QPushButton[primary="true"] {{ background: {accent}; border-color: {accent}; color: {accent_text}; }}
QPushButton[primary="true"]:hover {{ background: {accent_hover}; border-color: {accent_hover}; }}
QPushButton[primary="true"]:focus {{ border-color: {text}; }}
QPushButton[primary="true"]:disabled {{ background: {disabled_button}; border-color: {disabled_button};
                                        color: {disabled_text}; }}
QLineEdit, QComboBox, QAbstractSpinBox {{ min-height: 26px; }}
QLabel[tone="success"] {{ color: {success}; }}
QLabel[tone="error"] {{ color: {error}; }}
QLabel[tone="muted"] {{ color: {placeholder}; }}
QToolTip {{ color: {text}; background: {base}; border: 1px solid {border}; padding: 4px; }}
"""


class _ThemeState:
    app: QApplication | None = None
    override: Scheme | None = None
    system: Qt.ColorScheme | None = None  # last scheme the system announced


def current_scheme() -> Scheme:
    """The look in use: the override if set, else the system's scheme (light when unknown)."""
    if _ThemeState.override is not None:
        return _ThemeState.override
    system = _ThemeState.system
    if system is None:
        system = QGuiApplication.styleHints().colorScheme()
    return "dark" if system == Qt.ColorScheme.Dark else "light"


def current_colors() -> Colors:
    return DARK if current_scheme() == "dark" else LIGHT


def apply_theme(app: QApplication) -> None:
    """Fusion, the palette and stylesheet of the current scheme; follows later system changes."""
    if _ThemeState.app is not app:
        _ThemeState.app = app
        app.setStyle("Fusion")
        app.styleHints().colorSchemeChanged.connect(_on_system_scheme_changed)
    _apply(app)


def set_scheme_override(scheme: Scheme | None) -> None:
    """Pin the look to "light" or "dark"; None follows the system again."""
    if scheme not in (None, "light", "dark"):
        raise ValueError(f"unknown colour scheme {scheme!r}: use None, 'light' or 'dark'")
    _ThemeState.override = scheme
    if _ThemeState.app is not None:
        _apply(_ThemeState.app)


def set_tone(widget: QWidget, tone: str) -> None:
    """Colour a label as "success", "error" or "muted" ("" for the normal text colour)."""
    widget.setProperty("tone", tone)
    widget.style().unpolish(widget)
    widget.style().polish(widget)


def _on_system_scheme_changed(scheme: Qt.ColorScheme) -> None:
    _ThemeState.system = scheme
    if _ThemeState.app is not None:
        _apply(_ThemeState.app)


def _apply(app: QApplication) -> None:
    colors = current_colors()
    app.setPalette(_palette(colors))
    app.setStyleSheet(_STYLESHEET.format(**colors.__dict__))


def _palette(colors: Colors) -> QPalette:
    role, group = QPalette.ColorRole, QPalette.ColorGroup
    palette = QPalette()
    for name, value in (
            (role.Window, colors.window), (role.WindowText, colors.text), (role.Base, colors.base),
            (role.AlternateBase, colors.alternate), (role.Text, colors.text), (role.Button, colors.button),
            (role.ButtonText, colors.text), (role.BrightText, colors.error), (role.Highlight, colors.accent),
            (role.HighlightedText, colors.accent_text), (role.Link, colors.accent), (role.Accent, colors.accent),
            (role.ToolTipBase, colors.base), (role.ToolTipText, colors.text),
            (role.PlaceholderText, colors.placeholder), (role.Light, colors.button_hover),
            (role.Midlight, colors.button_pressed), (role.Mid, colors.border), (role.Dark, colors.border),
            (role.Shadow, "#000000")):
        palette.setColor(name, QColor(value))
    for name in (role.WindowText, role.Text, role.ButtonText):
        palette.setColor(group.Disabled, name, QColor(colors.disabled_text))
    palette.setColor(group.Disabled, role.Button, QColor(colors.disabled_button))
    palette.setColor(group.Disabled, role.Base, QColor(colors.window))
    return palette
