"""The app's look: Fusion with a light and a dark palette that follow the system colour scheme.

`apply_theme(app)` once at start; it re-applies itself when the system switches between light
and dark. `apply_theme_choice` applies the person's choice from the settings (View › Theme,
Settings › Appearance: system, light or dark); `set_scheme_override` pins one look. Widgets opt in
to two dynamic properties the stylesheet knows: `primary=True` on a QPushButton gives it the accent
colour, and `set_tone(label, "success" | "error" | "muted" | "")` colours a status text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QLabel, QWidget

Scheme = Literal["light", "dark"]
ThemeChoice = Literal["system", "light", "dark"]      # app.core.config.AppearanceSettings.theme
THEME_CHOICES: tuple[tuple[ThemeChoice, str], ...] = (("system", "System"), ("light", "Light"), ("dark", "Dark"))


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
    link: str       # links on window and base colours (in the dark look lighter than the accent buttons wear)


# Every text colour reads at 4.5:1 or more (WCAG AA) on each background it is drawn on, including the
# lighter panes Fusion paints from `button` (a tab widget's page: the dark muted, error and link colours are
# light enough for it). Disabled text, which WCAG exempts, still reaches 4.5:1 on the window, the base and
# its own button, though not on those panes: it stays dimmer than muted text, so disabled looks disabled.
# tests/gui/test_theme_contrast.py computes each pair from the palette and from rendered widgets.
LIGHT = Colors(window="#f3f4f6", text="#1d2025", base="#ffffff", alternate="#f0f1f4", button="#fcfcfd",
               button_hover="#eef0f3", button_pressed="#e1e4e9", border="#c5c9d0", disabled_text="#676c74",
               disabled_button="#eceef1", placeholder="#63686f", accent="#2563d9", accent_hover="#1d54bd",
               accent_text="#ffffff", success="#1a7f37", error="#c62828", link="#2563d9")
DARK = Colors(window="#202226", text="#e6e7ea", base="#17181b", alternate="#25272c", button="#2d3035",
              button_hover="#363a40", button_pressed="#41454c", border="#4a4e56", disabled_text="#8b8f98",
              disabled_button="#26282c", placeholder="#a7abb2", accent="#2d6ce8", accent_hover="#245dd4",
              accent_text="#ffffff", success="#5cc97a", error="#ff8787", link="#7eabf9")

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


def apply_theme_choice(choice: ThemeChoice) -> None:
    """The person's choice from the settings: "system" follows the system, "light" or "dark" pins that look.
    The same choice again changes nothing (restyling every widget is not free)."""
    override = None if choice == "system" else choice
    if override != _ThemeState.override:
        set_scheme_override(override)


def theme_choice() -> ThemeChoice:
    """The choice in effect: "system" unless a look is pinned."""
    return _ThemeState.override or "system"


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
    for label in app.allWidgets():
        # Qt colours a label's links when its text is set, from the palette of that moment: set it again.
        if isinstance(label, QLabel) and "<a " in label.text():
            text = label.text()
            label.clear()                     # (setText with the same text does nothing)
            label.setText(text)


def _palette(colors: Colors) -> QPalette:
    role, group = QPalette.ColorRole, QPalette.ColorGroup
    palette = QPalette()
    for name, value in (
            (role.Window, colors.window), (role.WindowText, colors.text), (role.Base, colors.base),
            (role.AlternateBase, colors.alternate), (role.Text, colors.text), (role.Button, colors.button),
            (role.ButtonText, colors.text), (role.BrightText, colors.error), (role.Highlight, colors.accent),
            (role.HighlightedText, colors.accent_text), (role.Link, colors.link),
            (role.LinkVisited, colors.link), (role.Accent, colors.accent),
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
