"""Input to the phone: taps, swipes, drags, keys, text, the wheel, rotation, the clipboard and the display.

Everything goes through `self.input` (input_channel.py): the phone's fast input channel when one is open
(scrcpy's control socket: a tap costs a message on an open socket instead of an `adb shell input` process,
60–300 ms on a phone), and `adb shell` commands otherwise, or when the channel fails (then it is dropped
and the input is sent again the slow way, so no input is lost or doubled: a channel that failed did not
deliver the message). That fallback is the channel's business; the methods here only say what to send.

Text goes in this order: ASCII through the channel's text message (or `input text`); other
scripts through ADB Keyboard when it is installed; else, with a channel, through the phone's
clipboard and a paste (as scrcpy does), with the clipboard the person had put back afterwards —
never into a password field, whose text must not sit on the clipboard even for a moment.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

from app.android.keycodes import KEYCODES, keycode_from_string

from . import input_commands as cmd
from .errors import ADB_KEYBOARD_FIX, CommandFailed, DeviceError, TextInputUnsupported
from .input_channel import NEEDS_STREAM, WHEEL_SWIPE_FRACTION, FallbackInput, InputChannel, ShellInput
from .text_fields import FieldReading, TextNotCleared

if TYPE_CHECKING:
    from app.core.perception.controls import Control

    from .android_device import ScreenInfo

CLEAR_MAX_ROUNDS = 4      # delete-and-re-read rounds before a field that will not empty is reported
CLEAR_MARGIN = 5          # extra deletes per round: a dump may lag a character behind
_ERROR_MARKERS = ("Exception occurred", "Error:", "Error type", "Usage:", "inaccessible or not found",
                  "Unknown input method")
__all__ = ["NEEDS_STREAM", "WHEEL_SWIPE_FRACTION", "InputChannel", "DeviceInputMixin"]


class DeviceInputMixin:
    """The input half of AndroidDevice (which provides shell(), screen_info(), read_field(),
    input_methods() and invalidate_controls())."""

    on_input: list[Callable[[str], None]]
    _input_way: FallbackInput | None = None

    if TYPE_CHECKING:      # AndroidDevice's, declared for the checker
        async def shell(self, command: str, timeout: float | None = None, max_bytes: int | None = None) -> str: ...
        async def screen_info(self, refresh: bool = False) -> ScreenInfo: ...
        async def read_field(self, target: Control | None = None) -> FieldReading | None: ...
        async def input_methods(self) -> tuple[list[str], str]: ...
        def invalidate_controls(self) -> None: ...

    # ------------------------------------------------------------------ the two ways in

    @property
    def input(self) -> FallbackInput:
        """The channel input goes through: scrcpy's control socket while it works, else `adb shell input`."""
        if self._input_way is None:
            shell = ShellInput(self._input, self._display_size, self._rotation)
            self._input_way = FallbackInput(shell, before=self.invalidate_controls, sent=self._told)
        return self._input_way

    @property
    def input_channel(self) -> InputChannel | None:
        """The fast channel (scrcpy's control socket) while there is one; None: `adb shell input`."""
        return self.input.fast

    def use_input_channel(self, channel: InputChannel | None) -> None:
        """Send input over `channel` from now on (None: back to `adb shell input`)."""
        self.input.fast = channel

    @property
    def input_path(self) -> str:
        """Which way input goes now, in words for a status line."""
        return self.input.name

    async def _display_size(self) -> tuple[int, int]:
        return (await self.screen_info()).display_size

    async def _rotation(self) -> int:
        return (await self.screen_info(refresh=True)).rotation

    async def _input(self, command_line: str, what: str) -> str:
        """Send input as a shell command; any input makes the cached controls stale."""
        self.invalidate_controls()
        output = await self.shell(command_line)
        self._told(command_line)
        if any(marker in output for marker in _ERROR_MARKERS):
            raise CommandFailed(f"The phone refused to {what}: {output.strip().splitlines()[0]}", command_line, output)
        return output

    def _told(self, description: str) -> None:
        for listener in self.on_input:
            listener(description)

    # ------------------------------------------------------------------ touches

    async def tap(self, x: float, y: float) -> None:
        await self.input.tap(x, y)

    async def long_press(self, x: float, y: float, duration_ms: int = 800) -> None:
        await self.input.long_press(x, y, duration_ms)

    async def swipe(self, x1: float, y1: float, x2: float, y2: float, duration_ms: int = 300) -> None:
        await self.input.swipe(x1, y1, x2, y2, duration_ms)

    async def drag(self, x1: float, y1: float, x2: float, y2: float, duration_ms: int = 300) -> None:
        """Press, hold until the touched view takes the drag, move to (x2, y2), release."""
        await self.input.drag(x1, y1, x2, y2, duration_ms)

    async def scroll(self, direction: str, area: tuple[int, int, int, int] | None = None) -> None:
        """Scroll content: "down" shows what is below (the finger moves up), like a person's swipe."""
        if area is None:
            width, height = (await self.screen_info()).display_size
            area = (0, int(height * 0.15), width, int(height * 0.85))
        left, top, right, bottom = area
        cx, cy = (left + right) / 2, (top + bottom) / 2
        dx, dy = (right - left) * 0.35, (bottom - top) * 0.35
        vectors = {"down": (0, -dy), "up": (0, dy), "right": (-dx, 0), "left": (dx, 0)}
        if direction not in vectors:
            raise CommandFailed(f"Unknown scroll direction '{direction}': use up, down, left or right.")
        mx, my = vectors[direction]
        await self.swipe(cx - mx, cy - my, cx + mx, cy + my, 400)

    async def wheel(self, x: float, y: float, dx: float, dy: float) -> None:
        """Turn a mouse wheel over (x, y): `dy` notches, positive = up (content moves down), `dx`
        positive = left, as Qt and scrcpy count them. Without a channel: a short swipe per notch."""
        await self.input.wheel(x, y, dx, dy)

    # ------------------------------------------------------------------ keys

    async def press_key(self, key: str | int) -> None:
        code = keycode_from_string(key)
        if code is None:
            raise CommandFailed(f"Unknown key '{key}'. Use BACK, HOME, ENTER, APP_SWITCH or an Android key code.")
        await self.input.key(code, str(key))

    async def back(self) -> None:
        await self.press_key(KEYCODES["BACK"])

    async def home(self) -> None:
        await self.press_key(KEYCODES["HOME"])

    async def recents(self) -> None:
        await self.press_key(KEYCODES["APP_SWITCH"])

    # ------------------------------------------------------------------ the phone itself

    async def rotate(self) -> None:
        """Turn the screen a quarter (portrait ↔ landscape), with auto-rotate off as scrcpy does."""
        await self.input.rotate()

    async def set_screen_power(self, on: bool) -> None:
        """Turn the phone's own display off (or back on) while the mirror goes on showing it."""
        await self.input.set_display_power(on)

    async def set_show_touches(self, on: bool) -> None:
        """The phone draws a dot where it is touched (Developer options › Show taps)."""
        await self._input(f"settings put system show_touches {1 if on else 0}", "change Show taps")

    async def get_clipboard(self) -> str:
        return await self.input.get_clipboard()

    async def set_clipboard(self, text: str, *, paste: bool = False) -> None:
        await self.input.set_clipboard(text, paste)

    # ------------------------------------------------------------------ text

    async def type_text(self, text: str, *, clear_first: bool = False, current_length: int | None = None,
                        password: bool | None = None) -> None:
        """Type into the focused field (see the module's note for which way text goes).

        With `clear_first` the field is emptied first (`clear_focused_field`); text that will not
        go away raises TextNotCleared and nothing is typed. `password` says whether the field is a
        password field (None: unknown; it is read from the screen before a paste)."""
        if clear_first:
            left = await self.clear_focused_field(current_length)
            if left is not None and left.text:
                raise TextNotCleared(f"Could not clear the field: it still holds {left.shown()} "
                                     "after deleting repeatedly; nothing was typed.")
        if not cmd.needs_adb_keyboard(text):
            await self.input.text(text)
            return
        ime_ids, current = await self.input_methods()
        if cmd.ADB_KEYBOARD_IME in ime_ids:
            await self._type_with_adb_keyboard(text, current)
            return
        if self.input_channel is None:
            raise TextInputUnsupported("This text has characters `input text` cannot type (non-ASCII). "
                                       + ADB_KEYBOARD_FIX)
        if password is None:
            field = await self.read_field()
            password = bool(field is not None and field.password)
        if password:
            raise TextInputUnsupported("This password has characters `input text` cannot type (non-ASCII), and a "
                                       "password never goes through the phone's clipboard. " + ADB_KEYBOARD_FIX)
        await self._paste(text)

    async def _type_with_adb_keyboard(self, text: str, current: str) -> None:
        parts: list[str] = []
        if current != cmd.ADB_KEYBOARD_IME:
            parts += [cmd.switch_ime(cmd.ADB_KEYBOARD_IME), "sleep 0.5"]
        parts.append(cmd.type_with_adb_keyboard(text))
        if current and current != cmd.ADB_KEYBOARD_IME:
            parts += ["sleep 0.2", cmd.switch_ime(current)]
        await self._input("; ".join(parts), "type text with ADB Keyboard")

    async def _paste(self, text: str) -> None:
        """Put `text` on the phone's clipboard, paste it, and put the person's clipboard back."""
        if self.input_channel is None:
            raise TextInputUnsupported("The text could not be pasted: the phone's input channel closed. "
                                       + ADB_KEYBOARD_FIX)
        try:
            previous: str | None = await self.input.get_clipboard()
        except DeviceError:
            previous = None
        try:
            await self.input.set_clipboard(text, True)
        except DeviceError:
            raise TextInputUnsupported("The text could not be pasted: the phone's input channel closed. "
                                       + ADB_KEYBOARD_FIX) from None
        if previous is not None and self.input_channel is not None:
            try:
                await self.input.set_clipboard(previous, False)
            except DeviceError:
                pass           # the text was typed; only the clipboard's old content is lost

    async def _delete_keys(self, count: int, *, forward: bool) -> None:
        """Move to the end of the focused field and delete `count` characters before the cursor (and after it,
        with `forward`). The keys go the way the tap that focused the field went (`self.input`): keys sent over
        `adb shell input` while the tap went over scrcpy could overtake it and empty the field focused before."""
        codes = [KEYCODES["MOVE_END"]] + [KEYCODES["DEL"]] * count + ([KEYCODES["FORWARD_DEL"]] * count if forward
                                                                      else [])
        await self.input.keys(codes)

    async def clear_focused_field(self, known_length: int | None = None,
                                  max_rounds: int = CLEAR_MAX_ROUNDS) -> FieldReading | None:
        """Delete the whole text of the focused field, however long; return the field as it is after.

        Each round deletes what the last dump showed (plus a margin) before the cursor; later
        rounds also delete after it (a cursor left mid-text, later lines). The field is re-read
        from a dump after each round, and a field holding its hint counts as empty. On a dump
        without hints (older Android reports an empty field's hint as its text), text that a full
        round of deleting on both sides did not change at all is taken for the hint."""
        length = known_length
        reading: FieldReading | None = None
        if length is None:
            reading = await self.read_field()
            if reading is None or not reading.text:
                return reading
            length = len(reading.text)
        for round_number in range(max_rounds):
            await self._delete_keys(length + CLEAR_MARGIN, forward=round_number > 0)
            before, reading = reading, await self.read_field()
            if reading is None or not reading.text:
                return reading
            if (round_number > 0 and before is not None and not reading.hint_reported
                    and reading.text == before.text):
                return dataclasses.replace(reading, text="", hint=reading.text)
            length = len(reading.text)
        return reading
