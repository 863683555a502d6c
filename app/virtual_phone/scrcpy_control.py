"""The control socket of the virtual phone's scrcpy server (control/Controller.java of 3.3.4).

Every message goes to the phone the way `input` commands do (`AttachedDevice.act`: the phone's
lock held for the action only, and on the realistic latency profile the screen moves to its new
picture) — but without the few hundred ms an `input` command costs, as on a real phone.

Touches go to the phone as they come (gestures.py): the content follows the finger, a release
with speed flings, a still finger is a tap or a long press. A position measured
on another picture size than the current video's is dropped, as the real server does. An
unknown message type or the client closing the socket ends the server; nothing ends the phone.
"""

from __future__ import annotations

import select
import socket
import threading
import time
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.android.scrcpy import (
    COPY_KEY_COPY,
    COPY_KEY_NONE,
    DEVICE_CLIPBOARD_TEXT_MAX_LENGTH,
    SEQUENCE_INVALID,
    AckClipboard,
    BackOrScreenOn,
    ControlMessage,
    ControlMessageReader,
    DeviceClipboard,
    DeviceMessage,
    GetClipboard,
    InjectKeycode,
    InjectScrollEvent,
    InjectText,
    InjectTouchEvent,
    Position,
    ProtocolError,
    ResetVideo,
    RotateDevice,
    SetClipboard,
    SetDisplayPower,
    StartApp,
    truncate_utf8,
)

if TYPE_CHECKING:
    from .scrcpy_server import ScrcpyServer

ACTION_DOWN, ACTION_UP, ACTION_MOVE, ACTION_CANCEL = 0, 1, 2, 3
KEYCODE_BACK, KEYCODE_POWER, KEYCODE_WAKEUP = 4, 26, 224
KEYCODE_CUT, KEYCODE_COPY, KEYCODE_PASTE = 277, 278, 279
LETTER_KEYCODES = range(29, 55)        # KEYCODE_A … KEYCODE_Z
META_SHIFT_ON = 0x1
SCROLL_STEP_DP = 64                    # ViewConfiguration's scroll factor: one wheel notch
SCROLL_GESTURE_MS = 400                # slow enough that a notch does not fling
ACCENTS = {"\u0300", "\u0301", "\u0302", "\u0303", "\u0308"}   # KeyComposition's dead keys


@dataclass
class _Finger:
    """A pointer that is down: where and when it went down, and where it is now."""

    x: int
    y: int
    since: float
    last_x: int
    last_y: int


class ScrcpyController:
    """Reads control messages and obeys them; sends device messages back (clipboard, acks)."""

    def __init__(self, server: ScrcpyServer, sock: socket.socket):
        self.server, self.sock = server, sock
        self.device, self.phone, self.log = server.device, server.phone, server.log
        self.options = server.options
        self.restore_display_power = False
        self._send_lock = threading.Lock()
        self._fingers: dict[int, _Finger] = {}
        self._clipboard_seen = self.phone.clipboard_version

    # ------------------------------------------------------------------ the loop
    def run(self) -> None:
        """Until the client closes the socket or sends bytes that are no control message."""
        if self.options.power_on and not self.phone.screen_on:
            self.device.act(lambda: self.phone.key(KEYCODE_POWER))
        reader = ControlMessageReader()
        while not self.server.stop.is_set():
            readable, _, _ = select.select([self.sock], [], [], 0.05)
            if self.options.clipboard_autosync:
                self._sync_clipboard()
            if not readable:
                continue
            data = self.sock.recv(65536)
            if not data:
                return
            try:
                messages = reader.feed(data)
            except ProtocolError as error:   # a ControlProtocolException: the controller stops
                self.log.debug(f"Controller stopped: {error}")
                return
            for message in messages:
                self.handle(message)

    def send(self, message: DeviceMessage) -> None:
        with self._send_lock:
            self.sock.sendall(message.to_bytes())

    # ------------------------------------------------------------------ messages
    def handle(self, message: ControlMessage) -> None:
        """Obey one message (the types the virtual phone has no use for are ignored)."""
        phone, act = self.phone, self.device.act
        if isinstance(message, InjectKeycode):
            self._key(message)
        elif isinstance(message, InjectText):
            self._text(message.text)
        elif isinstance(message, InjectTouchEvent):
            self._touch(message)
        elif isinstance(message, InjectScrollEvent):
            self._scroll(message)
        elif isinstance(message, BackOrScreenOn):
            if phone.screen_on:
                if message.action == ACTION_DOWN:
                    self.device.record_input(["input", "keyevent", str(KEYCODE_BACK)])
                    act(lambda: phone.key(KEYCODE_BACK))
            elif message.action == ACTION_DOWN:
                self.device.record_input(["input", "keyevent", str(KEYCODE_POWER)])
                act(lambda: phone.key(KEYCODE_POWER))
        elif isinstance(message, GetClipboard):
            if message.copy_key != COPY_KEY_NONE:
                act(lambda: phone.key(KEYCODE_COPY if message.copy_key == COPY_KEY_COPY else KEYCODE_CUT))
            if not self.options.clipboard_autosync and phone.clipboard is not None:
                self._send_clipboard(phone.clipboard)
        elif isinstance(message, SetClipboard):
            with phone.lock:
                phone.set_clipboard(message.text)
                self._clipboard_seen = phone.clipboard_version   # our own change is not echoed
            self.log.info("Device clipboard set")
            if message.paste:
                act(lambda: phone.key(KEYCODE_PASTE))
            if message.sequence != SEQUENCE_INVALID:
                self.send(AckClipboard(message.sequence))
        elif isinstance(message, SetDisplayPower):
            with phone.lock:
                phone.display_power_on = message.on
            self.restore_display_power = not message.on
            self.log.info(f"Device display turned {'on' if message.on else 'off'}")
        elif isinstance(message, RotateDevice):
            rotation = (phone.rotation & 1) ^ 1
            self.log.info(f"Device rotation requested: {'portrait' if rotation == 0 else 'landscape'}")
            act(lambda: phone.set_rotation(rotation))
        elif isinstance(message, StartApp):
            self._start_app(message.name)
        elif isinstance(message, ResetVideo):
            self.server.reset_video()
        # panels, UHID devices and the hard-keyboard settings: the virtual phone has none of them

    def _key(self, message: InjectKeycode) -> None:
        """A key acts when it goes down (and at each auto-repeat), as the phone's `input keyevent`."""
        phone = self.phone
        if message.action != ACTION_DOWN:
            return
        code = message.keycode
        if code in LETTER_KEYCODES and message.meta_state & META_SHIFT_ON:
            letter = chr(ord("A") + code - LETTER_KEYCODES.start)
            self.device.record_input(["input", "text", letter])
            self.device.act(lambda: phone.input_text(letter))
        else:
            self.device.record_input(["input", "keyevent", str(code)])
            self.device.act(lambda: phone.key(code))

    def _text(self, text: str) -> None:
        """Type what the virtual keyboard's key map can type (ASCII, and accented letters through
        dead keys); warn about the rest, character by character, as the real server does."""
        typed = []
        for char in text:
            if _typeable(char):
                typed.append(char)
            else:
                for unit in range(0, len(char.encode("utf-16-be")), 2):   # Java chars: UTF-16 units
                    code_unit = int.from_bytes(char.encode("utf-16-be")[unit:unit + 2], "big")
                    self.log.warn(f"Could not inject char u+{code_unit:04x}")
        if typed and self.device.faults.take("dropped_typed_characters"):
            typed.pop()            # the fault `input text` has too: the phone loses the last character
        if typed:
            self.device.record_input(["input", "text", "".join(typed)])
            self.device.act(lambda: self.phone.input_text("".join(typed)))

    # ------------------------------------------------------------------ pointer events
    def display_point(self, position: Position) -> tuple[int, int] | None:
        """The display pixel a position on the video points at; None when it was measured on
        another size than the current video's (a touch generated before a rotation)."""
        video = self.server.video_size if self.options.video else None
        if video is None:
            return position.x, position.y
        if (position.screen_width, position.screen_height) != video:
            self.log.verbose(f"Ignore positional event generated for size {position.screen_width}x"
                             f"{position.screen_height} (current size is {video[0]}x{video[1]})")
            return None
        width, height = self.phone.display_size()
        return position.x * width // video[0], position.y * height // video[1]

    def _touch(self, message: InjectTouchEvent) -> None:
        """One motion event of one finger, to the phone as it comes: the content follows the finger (one finger:
        a second one is ignored). The gesture is noted, once the finger lifts, as the `input` command doing it."""
        point = self.display_point(message.position)
        if point is None:
            return
        now, pointer, phone = time.monotonic(), message.pointer_id, self.phone
        if message.action == ACTION_DOWN:
            if not self._fingers:
                self._fingers[pointer] = _Finger(*point, now, *point)
                self.device.act(lambda: phone.touch_down(*point, now))
            return
        finger = self._fingers.get(pointer)
        if finger is None:
            return
        finger.last_x, finger.last_y = point
        if message.action == ACTION_MOVE:
            self.device.act(lambda: phone.touch_move(*point, now))
        elif message.action == ACTION_CANCEL:
            del self._fingers[pointer]
            self.device.act(phone.touch_cancel)
        elif message.action == ACTION_UP:
            del self._fingers[pointer]
            held_ms = int((now - finger.since) * 1000)
            if (finger.x, finger.y) == tuple(point) and held_ms < phone.long_press_seconds * 1000:   # a tap
                self.device.record_input(["input", "tap", str(finger.x), str(finger.y)])
            else:
                self.device.record_input(["input", "swipe", str(finger.x), str(finger.y), *map(str, point),
                                          str(held_ms)])
            self.device.act(lambda: phone.touch_up(*point, now))

    def _scroll(self, message: InjectScrollEvent) -> None:
        """A wheel scroll at a point: the content under it moves by one step per notch."""
        point = self.display_point(message.position)
        if point is None or (message.hscroll == 0 and message.vscroll == 0):
            return
        step = self.phone.metrics().dp(SCROLL_STEP_DP)
        x, y = point
        # wheel up / left (positive) shows what is above / to the left: the finger moves down / right
        dx, dy = (int(message.hscroll * step), 0) if message.vscroll == 0 else (0, int(message.vscroll * step))
        self.device.record_input(["input", "swipe", str(x), str(y), str(x + dx), str(y + dy), str(SCROLL_GESTURE_MS)])
        self.device.act(lambda: self.phone.swipe(x, y, x + dx, y + dy, SCROLL_GESTURE_MS))

    # ------------------------------------------------------------------ clipboard and apps
    def _send_clipboard(self, text: str) -> None:
        data = truncate_utf8(text, DEVICE_CLIPBOARD_TEXT_MAX_LENGTH)
        self.send(DeviceClipboard(data.decode("utf-8")))

    def _sync_clipboard(self) -> None:
        """clipboard_autosync: a change made on the phone goes to the client."""
        phone = self.phone
        with phone.lock:
            version, text = phone.clipboard_version, phone.clipboard
        if version != self._clipboard_seen:
            self._clipboard_seen = version
            if text is not None:
                self._send_clipboard(text)

    def _start_app(self, name: str) -> None:
        phone = self.phone
        force_stop = name.startswith("+")
        name = name.lstrip("+")
        if name.startswith("?"):
            name = name[1:]
            self.log.info("Processing Android apps... (this may take some time)")
            found = [package for package in phone.installed_packages()
                     if name.lower() in (phone.app_label(package) or "").lower()]
            if len(found) != 1:
                self.log.warn(f'No app found for name "{name}"' if not found
                              else f'No unique app found for name "{name}":')
                return
            package = found[0]
        else:
            package = name
            if package not in phone.installed_packages():
                self.log.warn(f'No app found for package "{name}"')
                return
        self.log.info(f'Starting app "{phone.app_label(package) or package}" [{package}] on display 0...')
        self.device.record_input(["monkey", "-p", package, "-c", "android.intent.category.LAUNCHER", "1"])

        def start() -> None:
            if force_stop:
                phone.force_stop(package)
            phone.launch(package)

        self.device.act(start)


def _typeable(char: str) -> bool:
    """Whether the virtual keyboard's key map types this character (KeyCharacterMap.getEvents)."""
    if char == "\n" or " " <= char <= "~":
        return True
    decomposed = unicodedata.normalize("NFD", char)
    return len(decomposed) == 2 and decomposed[0].isascii() and decomposed[0].isalpha() \
        and decomposed[1] in ACCENTS
