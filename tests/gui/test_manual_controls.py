"""The manual control bar asks for the right phone actions, and only while a phone is ready."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from app.gui.mirror.manual_controls import ManualControlBar


@pytest.fixture
def bar(qtbot):
    widget = ManualControlBar()
    qtbot.addWidget(widget)
    widget.show()
    signals = {"touch": [], "keys": [], "texts": [], "screenshots": []}
    widget.touch_mode_changed.connect(signals["touch"].append)
    widget.key_requested.connect(signals["keys"].append)
    widget.text_requested.connect(signals["texts"].append)
    widget.screenshot_requested.connect(lambda: signals["screenshots"].append(True))
    return widget, signals


def click(button) -> None:
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)


def test_system_keys_send_their_android_names(bar):
    widget, signals = bar
    for key in ("BACK", "HOME", "APP_SWITCH", "BACK"):
        click(widget.key_buttons[key])
    assert signals["keys"] == ["BACK", "HOME", "APP_SWITCH", "BACK"]
    assert [widget.key_buttons[k].toolTip() for k in ("BACK", "HOME", "APP_SWITCH")] == ["Back", "Home", "Recent apps"]


def test_touch_mode_toggles_on_and_off(bar):
    widget, signals = bar
    click(widget.touch_button)
    assert widget.touch_button.isChecked()
    click(widget.touch_button)
    assert signals["touch"] == [True, False]


def test_typed_text_is_sent_by_button_or_enter_and_the_field_clears(bar):
    widget, signals = bar
    assert not widget.type_button.isEnabled()   # nothing to type yet
    widget.text_field.insert("héllo wörld")   # pasted (QTest types ASCII only)
    click(widget.type_button)
    assert signals["texts"] == ["héllo wörld"] and widget.text_field.text() == ""
    QTest.keyClicks(widget.text_field, "second")
    QTest.keyClick(widget.text_field, Qt.Key.Key_Return)
    assert signals["texts"] == ["héllo wörld", "second"] and widget.text_field.text() == ""
    QTest.keyClick(widget.text_field, Qt.Key.Key_Return)   # an empty field sends nothing
    assert signals["texts"] == ["héllo wörld", "second"]


def test_screenshot_button(bar):
    widget, signals = bar
    click(widget.screenshot_button)
    assert signals["screenshots"] == [True]


def test_without_a_phone_everything_is_greyed_out_and_touch_mode_ends(bar):
    widget, signals = bar
    click(widget.touch_button)
    widget.set_enabled_for_device(False)
    assert signals["touch"] == [True, False] and not widget.touch_button.isChecked()
    controls = [widget.touch_button, *widget.key_buttons.values(), widget.text_field, widget.type_button,
                widget.screenshot_button]
    assert not any(control.isEnabled() for control in controls)
    for control in (widget.touch_button, widget.key_buttons["HOME"], widget.screenshot_button):
        click(control)
    QTest.keyClicks(widget.text_field, "ignored")
    QTest.keyClick(widget.text_field, Qt.Key.Key_Return)
    assert signals == {"touch": [True, False], "keys": [], "texts": [], "screenshots": []}

    widget.set_enabled_for_device(True)
    assert all(control.isEnabled() for control in controls if control is not widget.type_button)
    click(widget.key_buttons["HOME"])
    assert signals["keys"] == ["HOME"]
