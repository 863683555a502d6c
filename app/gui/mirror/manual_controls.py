"""Manual control of the phone: touch mode, system keys, power, typing and screenshots, and a
"More" menu for the rarer ones (volume, rotation, the phone's own screen, show touches, clipboard),
so the bar keeps to the mirror's width.

The bar only emits signals; the main window carries them out through the device layer.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLineEdit, QMenu, QPushButton, QSizePolicy, QToolButton, QWidget

from app.gui.flow_layout import FlowLayout

SYSTEM_KEYS = (  # (glyph, tooltip, key name sent to the phone)
    ("◁", "Back", "BACK"),
    ("○", "Home", "HOME"),
    ("□", "Recent apps", "APP_SWITCH"),
)
SCREEN_OFF_TIP = "Turn the phone's screen off; the mirror goes on"


def _row(*widgets: QWidget) -> QWidget:
    holder = QWidget()
    row = QHBoxLayout(holder)
    row.setContentsMargins(0, 0, 0, 0)
    row.setSpacing(6)
    for widget in widgets:
        row.addWidget(widget, 1 if isinstance(widget, QLineEdit) else 0)
    return holder


def _separator() -> QFrame:
    line = QFrame()
    line.setFrameShape(QFrame.Shape.VLine)
    line.setFrameShadow(QFrame.Shadow.Sunken)
    return line


class ManualControlBar(QWidget):
    """A row of manual phone controls; greyed out while no phone is ready."""

    touch_mode_changed = Signal(bool)     # True: clicks on the mirror are sent to the phone as taps
    key_requested = Signal(str)           # "BACK", "HOME" or "APP_SWITCH"
    text_requested = Signal(str)          # text to type into the focused field on the phone
    screenshot_requested = Signal()
    rotate_requested = Signal()
    screen_off_changed = Signal(bool)     # True: turn the phone's own screen off (the mirror goes on)
    show_touches_changed = Signal(bool)   # True: the phone shows a dot where it is touched
    copy_clipboard_requested = Signal()   # the phone's clipboard → this computer's
    paste_clipboard_requested = Signal()  # this computer's clipboard → the phone, pasted
    install_keyboard_requested = Signal()  # install ADB Keyboard on the phone from an APK the person picks

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.touch_button = QToolButton()
        self.touch_button.setText("Touch mode")
        self.touch_button.setCheckable(True)
        self.touch_button.setStyleSheet("QToolButton:checked { background: palette(highlight); "
                                        "color: palette(highlighted-text); border-radius: 3px; padding: 2px 6px; }")
        self.touch_button.setToolTip("When on, clicks and drags on the mirror are sent to the phone")
        self.touch_button.toggled.connect(self.touch_mode_changed)

        self.key_buttons: dict[str, QToolButton] = {}
        glyph_font = self.font()
        glyph_font.setPointSizeF(glyph_font.pointSizeF() * 1.2)
        for glyph, tooltip, key in SYSTEM_KEYS:
            button = QToolButton()
            button.setText(glyph)
            button.setToolTip(tooltip)
            button.setAccessibleName(tooltip)
            button.setMinimumWidth(36)
            button.setFont(glyph_font)
            button.clicked.connect(lambda _=False, key=key: self.key_requested.emit(key))
            self.key_buttons[key] = button

        self.text_field = QLineEdit()
        self.text_field.setPlaceholderText("Text…")
        self.text_field.setAccessibleName("Text to type on the phone")
        self.text_field.setToolTip("Text to type on the phone (Enter sends it). In touch mode you can also "
                                   "type straight into the mirror.")
        self.text_field.setClearButtonEnabled(True)
        self.text_field.setMinimumWidth(110)
        self.text_field.returnPressed.connect(self.send_text)
        self.text_field.textChanged.connect(self._update_type_button)
        self.type_button = QPushButton("Type")
        self.type_button.setToolTip("Type the text into the field that has focus on the phone")
        self.type_button.clicked.connect(self.send_text)

        self.screenshot_button = QToolButton()
        self.screenshot_button.setText("Screenshot")
        self.screenshot_button.setToolTip("Save a screenshot of the phone")
        self.screenshot_button.clicked.connect(self.screenshot_requested)

        self.more_button = QToolButton()
        self.more_button.setText("⋯")
        self.more_button.setToolTip("More: power, volume, rotation, the phone's screen, show touches, clipboard")
        self.more_button.setAccessibleName("More")
        self.more_button.setFont(glyph_font)
        self.more_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.more_button.setMenu(self._more_menu())

        # Three groups that wrap onto a second row when the mirror's column is narrow (a small screen).
        keys = _row(self.touch_button, _separator(), *self.key_buttons.values())
        typing = _row(self.text_field, self.type_button)
        typing.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        tools = _row(self.screenshot_button, self.more_button)
        self._flow = FlowLayout(self, spacing=12, row_spacing=4)
        self._flow.setContentsMargins(6, 4, 6, 4)
        for group in (keys, tools, typing):      # typing last: on a row of its own it takes the whole width
            self._flow.addWidget(group)
        self._update_type_button()
        self._equalise_heights()

    def add_group(self, *widgets: QWidget) -> QWidget:
        """Another group of the bar (the mirror's own buttons, its readout), before the typing group, which
        stays last; it wraps with the others. Returns the group's holder."""
        group = _row(*widgets)
        self._flow.insertWidget(self._flow.count() - 1, group)
        return group

    def _more_menu(self) -> QMenu:
        menu = QMenu(self)
        self.more_actions: dict[str, QAction] = {}

        def add(name: str, text: str, tip: str, slot, checkable: bool = False) -> None:
            action = menu.addAction(text)
            action.setToolTip(tip)
            action.setStatusTip(tip)
            action.setCheckable(checkable)
            (action.toggled if checkable else action.triggered).connect(slot)
            self.more_actions[name] = action

        add("power", "Power button", "Press the phone's power button (wakes it, or puts it to sleep)",
            lambda: self.key_requested.emit("POWER"))
        add("volume_up", "Volume up", "Press the phone's volume-up key", lambda: self.key_requested.emit("VOLUME_UP"))
        add("volume_down", "Volume down", "Press the phone's volume-down key",
            lambda: self.key_requested.emit("VOLUME_DOWN"))
        menu.addSeparator()
        add("rotate", "Rotate the screen", "Turn the phone's screen a quarter (portrait ↔ landscape)",
            self.rotate_requested.emit)
        add("screen_off", "Phone screen off", SCREEN_OFF_TIP, self.screen_off_changed.emit, checkable=True)
        add("show_touches", "Show touches", "The phone shows a dot where it is touched",
            self.show_touches_changed.emit, checkable=True)
        menu.addSeparator()
        add("copy_clipboard", "Copy phone clipboard", "Put the phone's clipboard on this computer's clipboard",
            self.copy_clipboard_requested.emit)
        add("paste_clipboard", "Paste to phone", "Paste this computer's clipboard text into the phone's focused field",
            self.paste_clipboard_requested.emit)
        menu.addSeparator()
        add("install_keyboard", "Install ADB Keyboard…", "Install ADB Keyboard on the phone from its APK file, so "
            "text in any language (é, ß, 日本) can be typed", self.install_keyboard_requested.emit)
        menu.setToolTipsVisible(True)
        return menu

    def set_toggle(self, name: str, on: bool) -> None:
        """Show a toggle's state ("screen_off", "show_touches") without asking for anything."""
        action = self.more_actions[name]
        blocked = action.blockSignals(True)
        action.setChecked(on)
        action.blockSignals(blocked)

    def set_enabled_for_device(self, ready: bool) -> None:
        """Enable the controls when a phone is ready; without one, grey them out and leave touch mode."""
        if not ready:
            self.touch_button.setChecked(False)
            self.set_toggle("screen_off", False)   # a phone that comes back has its screen on
        self.setEnabled(ready)

    def send_text(self) -> None:
        """Ask for the field's text to be typed on the phone, then empty the field."""
        text = self.text_field.text()
        if not text or not self.isEnabled():
            return
        self.text_requested.emit(text)
        self.text_field.clear()

    def _equalise_heights(self) -> None:
        """One height for every control of the row (glyph buttons, text buttons and the field differ)."""
        controls = [self.touch_button, *self.key_buttons.values(), self.text_field, self.type_button,
                    self.screenshot_button, self.more_button]
        height = max(control.sizeHint().height() for control in controls)
        for control in controls:
            control.setFixedHeight(height)

    def _update_type_button(self) -> None:
        self.type_button.setEnabled(bool(self.text_field.text()))
