"""What the mirror sends to the phone besides taps and swipes, as scrcpy users expect it: the keyboard
(typed text in batches, special keys as Android keys), the mouse wheel, right-click for Back,
middle-click for Home, and files dropped on it.

`PhoneInput` turns Qt events into requests (signals); `MirrorView` hands it the events in touch mode
(drops in any mode) and the main window carries the requests out through the phone session.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QWheelEvent

TEXT_BATCH_MS = 50
"""Quickly typed characters wait this long for the next one, so "hello" is one request, not five."""
PIXELS_PER_NOTCH = 60.0
"""A trackpad's pixel scroll: this many pixels count as one wheel notch."""
MIN_NOTCHES = 0.5
"""Smaller scrolls (high-resolution wheels, trackpads) add up until they reach this much."""

SPECIAL_KEYS: dict[int, str] = {     # QKeyEvent.key() is an int
    Qt.Key.Key_Backspace: "DEL", Qt.Key.Key_Delete: "FORWARD_DEL",
    Qt.Key.Key_Return: "ENTER", Qt.Key.Key_Enter: "ENTER", Qt.Key.Key_Tab: "TAB",
    Qt.Key.Key_Escape: "BACK",                       # as scrcpy does
    Qt.Key.Key_Up: "DPAD_UP", Qt.Key.Key_Down: "DPAD_DOWN",
    Qt.Key.Key_Left: "DPAD_LEFT", Qt.Key.Key_Right: "DPAD_RIGHT",
    Qt.Key.Key_Home: "MOVE_HOME", Qt.Key.Key_End: "MOVE_END",
    Qt.Key.Key_PageUp: "PAGE_UP", Qt.Key.Key_PageDown: "PAGE_DOWN",
    Qt.Key.Key_VolumeUp: "VOLUME_UP", Qt.Key.Key_VolumeDown: "VOLUME_DOWN",
}
MOUSE_KEYS = {Qt.MouseButton.RightButton: "BACK", Qt.MouseButton.MiddleButton: "HOME"}
_COMMAND_MODIFIERS = (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
                      | Qt.KeyboardModifier.MetaModifier)


def special_key(event: QKeyEvent) -> str | None:
    """The Android key name for a special key (Backspace → DEL…), else None."""
    key = Qt.Key.Key_Tab if event.key() == Qt.Key.Key_Backtab else event.key()
    return SPECIAL_KEYS.get(key)


def typed_text(event: QKeyEvent) -> str:
    """The printable text a key press types ("" for control characters and special keys)."""
    text = event.text()
    return text if text and all(c.isprintable() for c in text) else ""


def local_files(mime: QMimeData) -> list[Path]:
    """The dropped local files, or [] when anything dropped is not a local file."""
    if not mime.hasUrls():
        return []
    urls = mime.urls()
    if not urls or not all(url.isLocalFile() for url in urls):
        return []
    return [Path(url.toLocalFile()) for url in urls]


class PhoneInput(QObject):
    """Keys, text, wheel, mouse buttons and drops on the mirror, as requests for the phone."""

    key_requested = Signal(str)                      # an Android key name: "DEL", "BACK", "HOME"…
    text_requested = Signal(str)                     # text to type, batched
    wheel_requested = Signal(int, int, float, float)  # device x, y; notches dx (+ left), dy (+ up)
    files_dropped = Signal(list)                     # list[Path]

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.drops_enabled = False                   # only while a phone is ready
        self._text: list[str] = []
        self._flush_timer = QTimer(self, singleShot=True, interval=TEXT_BATCH_MS)
        self._flush_timer.timeout.connect(self.flush_text)
        self._wheel = [0.0, 0.0]                     # notches not sent yet (x, y)

    # ------------------------------------------------------------------ keyboard

    def key_press(self, event: QKeyEvent) -> bool:
        """Handle a key press in touch mode; False leaves it to the window (its shortcuts, Ctrl+…)."""
        if event.modifiers() & _COMMAND_MODIFIERS:
            return False
        text = typed_text(event)
        if text:
            self._text.append(text)
            if not self._flush_timer.isActive():
                self._flush_timer.start()
            return True
        name = special_key(event)
        if name is None:
            return False
        self.flush_text()                            # what was typed before goes first
        self.key_requested.emit(name)
        return True

    def flush_text(self) -> None:
        """Send the text typed so far as one request."""
        self._flush_timer.stop()
        text, self._text = "".join(self._text), []
        if text:
            self.text_requested.emit(text)

    # ------------------------------------------------------------------ mouse

    def mouse_press(self, button: Qt.MouseButton) -> bool:
        """Right-click → Back, middle-click → Home (scrcpy's defaults)."""
        name = MOUSE_KEYS.get(button)
        if name is None:
            return False
        self.flush_text()
        self.key_requested.emit(name)
        return True

    def wheel(self, event: QWheelEvent, device_point: tuple[int, int] | None) -> None:
        """A wheel turn over `device_point`: whole notches go at once, smaller scrolls add up first."""
        pixels, angle = event.pixelDelta(), event.angleDelta()
        if not pixels.isNull():
            dx, dy = pixels.x() / PIXELS_PER_NOTCH, pixels.y() / PIXELS_PER_NOTCH
        else:
            dx, dy = angle.x() / 120, angle.y() / 120
        if device_point is None:
            return
        self._wheel[0] += dx
        self._wheel[1] += dy
        if max(abs(self._wheel[0]), abs(self._wheel[1])) < MIN_NOTCHES:
            return
        (sx, sy), self._wheel = self._wheel, [0.0, 0.0]
        self.flush_text()
        self.wheel_requested.emit(device_point[0], device_point[1], sx, sy)

    # ------------------------------------------------------------------ drops

    def accepts(self, mime: QMimeData) -> bool:
        """Whether a drag over the mirror may drop here (local files, a phone ready)."""
        return self.drops_enabled and bool(local_files(mime))

    def drop(self, mime: QMimeData) -> bool:
        files = local_files(mime) if self.drops_enabled else []
        if files:
            self.files_dropped.emit(files)
        return bool(files)
