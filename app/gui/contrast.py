"""WCAG 2 contrast between two colours: relative luminance and the ratio (1:1 … 21:1).

Text needs 4.5:1 against its background (WCAG AA, 1.4.3); the theme's colours are checked against
that in tests/gui/test_theme_contrast.py.
"""

from __future__ import annotations

from PySide6.QtGui import QColor

AA_TEXT = 4.5
"""The least contrast normal-size text may have (WCAG 2, success criterion 1.4.3, level AA)."""


def _linear(channel: float) -> float:
    """An sRGB channel (0–1) as linear light."""
    return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4


def relative_luminance(colour: QColor | str) -> float:
    """0 for black, 1 for white; any alpha is ignored (blend onto the background first)."""
    colour = QColor(colour)
    return (0.2126 * _linear(colour.redF()) + 0.7152 * _linear(colour.greenF())
            + 0.0722 * _linear(colour.blueF()))


def contrast_ratio(foreground: QColor | str, background: QColor | str) -> float:
    """(L1 + 0.05) / (L2 + 0.05), the lighter colour's luminance over the darker one's: 1.0 … 21.0."""
    first, second = relative_luminance(foreground), relative_luminance(background)
    lighter, darker = max(first, second), min(first, second)
    return (lighter + 0.05) / (darker + 0.05)
