"""Every text colour of both looks reads at 4.5:1 or more (WCAG AA) on the background it is drawn on.

The pairs are read from the palette the theme puts on the app and from widgets the stylesheet paints
(tones, primary buttons, pressed and hovered buttons), never from the colour constants alone: a colour
changed in the theme, or a widget that paints its own colour, fails here.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtGui import QColor, QFont, QImage, QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QCheckBox, QLabel, QPushButton, QTabWidget, QVBoxLayout, QWidget

from app.core.agent.actions import Action
from app.core.agent.supervisor import Proposal
from app.gui.contrast import AA_TEXT, contrast_ratio, relative_luminance
from app.gui.runs.approval_panel import ApprovalPanel
from app.gui.theme import DARK, LIGHT, current_colors, set_scheme_override, set_tone

A, D = QPalette.ColorGroup.Active, QPalette.ColorGroup.Disabled
R = QPalette.ColorRole

# (what, text role, background role) for the active look; the same again for disabled widgets.
ACTIVE_PAIRS = [
    ("window text on window", R.WindowText, R.Window),
    ("text on base", R.Text, R.Base),
    ("text on alternate rows", R.Text, R.AlternateBase),
    ("button text on button", R.ButtonText, R.Button),
    ("selected text on highlight", R.HighlightedText, R.Highlight),
    ("tooltip text on tooltip", R.ToolTipText, R.ToolTipBase),
    ("placeholder on base", R.PlaceholderText, R.Base),
    ("placeholder (muted rows) on alternate rows", R.PlaceholderText, R.AlternateBase),
    ("muted labels on window", R.PlaceholderText, R.Window),
    ("link on base", R.Link, R.Base),
    ("link on window", R.Link, R.Window),
    ("visited link on base", R.LinkVisited, R.Base),
    ("bright text on window", R.BrightText, R.Window),
    ("bright text on base", R.BrightText, R.Base),
]
DISABLED_PAIRS = [
    # WCAG exempts inactive controls; the theme meets 4.5:1 for them anyway (disabled text is a mid grey,
    # enabled text near black or near white, so disabled still looks disabled).
    ("disabled window text on window", R.WindowText, R.Window),
    ("disabled text on its base", R.Text, R.Base),
    ("disabled text on alternate rows", R.Text, R.AlternateBase),
    ("disabled button text on its button", R.ButtonText, R.Button),
]


def test_the_contrast_ratio_is_wcags():
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast_ratio("#ffffff", "#000000") == pytest.approx(21.0)
    assert contrast_ratio("#777777", "#777777") == pytest.approx(1.0)
    assert contrast_ratio("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)     # the well-known AA grey
    assert relative_luminance("#ff0000") == pytest.approx(0.2126)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_text_role_of_the_palette_reads_on_its_background(themed_app, scheme):
    set_scheme_override(scheme)
    palette = themed_app.palette()
    assert palette.color(R.Window).name() == (DARK if scheme == "dark" else LIGHT).window   # the look applied
    pairs = [(what, palette.color(A, text), palette.color(A, back)) for what, text, back in ACTIVE_PAIRS]
    pairs += [(what, palette.color(D, text), palette.color(D, back)) for what, text, back in DISABLED_PAIRS]
    too_faint = [f"{what}: {text.name()} on {back.name()} is {contrast_ratio(text, back):.2f}:1"
                 for what, text, back in pairs if contrast_ratio(text, back) < AA_TEXT]
    assert not too_faint, too_faint


def ink_and_background(image: QImage, background_at: tuple[int, int]) -> tuple[QColor, QColor]:
    """The background (a pixel known to be background) and the ink: the pixel that stands out most from it."""
    background = image.pixelColor(*background_at)
    ink = max((image.pixelColor(x, y) for x in range(image.width()) for y in range(image.height())),
              key=lambda colour: contrast_ratio(colour, background))
    return ink, background


def big_font(widget: QWidget) -> QFont:
    font = QFont(widget.font())
    font.setPixelSize(28)
    font.setBold(True)          # thick stems: their inner pixels carry the exact text colour
    return font


def rendered_label(qtbot, tone: str, background: QPalette.ColorRole) -> tuple[QColor, QColor]:
    label = QLabel("IHIH")
    qtbot.addWidget(label)
    label.setFont(big_font(label))
    label.setAutoFillBackground(True)
    label.setBackgroundRole(background)
    set_tone(label, tone)
    label.resize(label.sizeHint())
    return ink_and_background(label.grab().toImage(), (1, 1))


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("background", [R.Window, R.Base], ids=["window", "base"])
@pytest.mark.parametrize("tone", ["success", "error", "muted", ""])
def test_the_stylesheets_tones_read_on_window_and_base(themed_app, qtbot, scheme, background, tone):
    set_scheme_override(scheme)
    colors = current_colors()
    ink, back = rendered_label(qtbot, tone, background)
    expected = {"success": colors.success, "error": colors.error, "muted": colors.placeholder, "": colors.text}[tone]
    assert back.name() == (colors.window if background == R.Window else colors.base)
    assert contrast_ratio(ink, QColor(expected)) < 1.1, f"the {tone or 'plain'} tone was painted as {ink.name()}"
    assert contrast_ratio(ink, back) >= AA_TEXT, f"{tone} {ink.name()} on {back.name()}"


def rendered_button(qtbot, *, primary: bool = False, hovered: bool = False, pressed: bool = False,
                    enabled: bool = True) -> tuple[QColor, QColor]:
    """A button in a window, drawn in the given state; the mouse is over it or over the window beside it."""
    window = QWidget()
    qtbot.addWidget(window)
    window.resize(400, 120)
    button = QPushButton("IHIH", window)
    button.setProperty("primary", primary)
    button.setFont(big_font(button))
    button.setEnabled(enabled)
    button.setDown(pressed)
    button.setGeometry(150, 30, button.sizeHint().width() + 20, button.sizeHint().height())
    window.show()
    qtbot.waitExposed(window)
    QTest.mouseMove(window, QPoint(10, 10))
    if hovered:
        QTest.mouseMove(button, button.rect().center())
    # the enter/leave events come through the event loop: on a busy machine not at once
    qtbot.waitUntil(lambda: button.underMouse() == hovered, timeout=3000)
    image = button.grab().toImage()
    return ink_and_background(image, (6, image.height() // 2))       # inside the border, left of the text


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("state, expected_background", [
    ({}, "button"), ({"hovered": True}, "button_hover"), ({"pressed": True}, "button_pressed"),
    ({"enabled": False}, "disabled_button"),
    ({"primary": True}, "accent"), ({"primary": True, "hovered": True}, "accent_hover"),
    ({"primary": True, "enabled": False}, "disabled_button"),
], ids=["plain", "hovered", "pressed", "disabled", "primary", "primary-hovered", "primary-disabled"])
def test_button_text_reads_on_every_button_state(themed_app, qtbot, scheme, state, expected_background):
    set_scheme_override(scheme)
    colors = current_colors()
    ink, back = rendered_button(qtbot, **state)
    assert back.name() == getattr(colors, expected_background), "the state was painted"
    assert contrast_ratio(ink, back) >= AA_TEXT, f"{ink.name()} on {back.name()}"


def on_a_tab_page(qtbot, widget: QWidget) -> tuple[QColor, QColor]:
    """`widget` on a tab widget's page, as the Settings dialog shows its notes: Fusion paints that pane
    lighter than the window in the dark look."""
    tabs = QTabWidget()
    qtbot.addWidget(tabs)
    page = QWidget()
    QVBoxLayout(page).addWidget(widget)
    tabs.addTab(page, "Page")
    tabs.resize(320, 160)
    tabs.show()
    qtbot.waitExposed(tabs)
    widget.setFont(big_font(widget))
    qtbot.wait(10)                                   # the page laid out with the bigger font
    image = tabs.grab().toImage()                    # the tab widget paints the pane: grab it whole
    corner = page.mapTo(tabs, QPoint(page.width() - 3, page.height() - 3))
    background = image.pixelColor(corner)
    area = widget.geometry().translated(page.mapTo(tabs, QPoint(0, 0)))
    ink = max((image.pixelColor(x, y) for x in range(area.left(), area.right())
               for y in range(area.top(), area.bottom())),
              key=lambda colour: contrast_ratio(colour, background))
    return ink, background


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("tone", ["success", "error", "muted", "", "link"])
def test_text_on_a_tab_page_reads_too(themed_app, qtbot, scheme, tone):
    set_scheme_override(scheme)
    label = QLabel("<a href='#'>IHIH</a>" if tone == "link" else "IHIH")
    if tone != "link":
        set_tone(label, tone)
    ink, back = on_a_tab_page(qtbot, label)
    pane = {"light": "#ffffff", "dark": "#3c3f44"}[scheme]     # Fusion's pane colour from today's `button`
    assert contrast_ratio(back, QColor(pane)) < 1.2, f"the pane was sampled: {back.name()}"
    assert contrast_ratio(ink, back) >= AA_TEXT, f"{tone or 'plain'} {ink.name()} on the pane's {back.name()}"


@pytest.mark.parametrize("first, then", [("light", "dark"), ("dark", "light")])
def test_a_link_shown_before_the_look_changes_takes_the_new_links_colour(themed_app, qtbot, first, then):
    set_scheme_override(first)
    label = QLabel("<a href='settings'>IHIH</a>")
    qtbot.addWidget(label)
    label.setFont(big_font(label))
    label.resize(label.sizeHint())
    label.show()
    set_scheme_override(then)
    ink, back = ink_and_background(label.grab().toImage(), (1, 1))
    assert back.name() == current_colors().window
    assert contrast_ratio(ink, QColor(current_colors().link)) < 1.1, f"the link kept {ink.name()}"
    assert contrast_ratio(ink, back) >= AA_TEXT


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_disabled_text_on_a_tab_page_is_readable_but_dimmer_than_muted_text(themed_app, qtbot, scheme):
    """WCAG exempts disabled controls. On the window, the base and its button disabled text still reaches
    4.5:1 (above); on Fusion's lighter pane it only has to stay legible (3:1) and no brighter than a muted
    note, so that disabled still looks disabled."""
    set_scheme_override(scheme)
    box = QCheckBox("IHIH")
    box.setEnabled(False)
    ink, back = on_a_tab_page(qtbot, box)
    assert contrast_ratio(ink, back) >= 3.0, f"{ink.name()} on {back.name()}"
    assert contrast_ratio(ink, back) <= contrast_ratio(QColor(current_colors().placeholder), back) + 0.05


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_approval_panels_warning_and_errors_follow_the_look(themed_app, qtbot, scheme):
    """The panel's own red texts (why it asks, a refused edit or override) read in both looks."""
    set_scheme_override(scheme)
    panel = ApprovalPanel()
    qtbot.addWidget(panel)
    panel.show_proposal(Proposal(step=1, action=Action(function="tap", arguments={"x": 1, "y": 2}),
                                 action_text="Tap", sensitive_reason="the control says Pay"))
    panel.show()
    for label in (panel.warning, panel.edit_error, panel.override_error):
        label.setText("IHIH")
        label.setFont(big_font(label))
        label.resize(label.sizeHint())
        ink, back = ink_and_background(label.grab().toImage(), (1, 1))
        assert contrast_ratio(ink, back) >= AA_TEXT, f"{ink.name()} on {back.name()}"
