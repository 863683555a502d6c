"""The ways input reaches a phone: one `InputChannel` protocol, two implementations and the fallback.

`ScrcpyInput` (scrcpy_input.py) sends a message on scrcpy's open control socket; `ShellInput` runs an
`adb shell input` command (60–300 ms on a phone). `FallbackInput` is the channel the phone's input is
sent through: scrcpy's while the stream runs, and when it fails it is dropped and the same input is sent
the slow way — a channel that failed did not deliver the message, so nothing is lost or doubled. The
fallback is decided here, once, not by each verb.

Touches are a finger's press, moves and release: a tap, a long press (held), a swipe (moved at once: a
fling scrolls) and a drag (held for the long-press time first, then moved: a list row or a slider's thumb
follows the finger). Coordinates are display pixels.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol, TypeVar

from . import input_commands as cmd
from .errors import CommandFailed, DeviceError

T = TypeVar("T")
WHEEL_SWIPE_FRACTION = 0.12   # without a channel, one wheel notch is a swipe of this share of the screen
NEEDS_STREAM = ("needs the scrcpy stream (Settings › Mirror › Stream: auto); the mirror is polling "
                "screenshots on this phone")
SHELL_INPUT = "adb shell input"


class InputChannel(Protocol):
    """A way to the phone's input. Coordinates are display pixels. A method raises DeviceError when the
    input could not be delivered (a channel that is gone, a command the phone refused)."""

    name: str

    async def tap(self, x: float, y: float) -> None: ...
    async def long_press(self, x: float, y: float, duration_ms: int) -> None: ...
    async def swipe(self, x1: float, y1: float, x2: float, y2: float, duration_ms: int) -> None: ...
    async def drag(self, x1: float, y1: float, x2: float, y2: float, duration_ms: int) -> None: ...
    async def key(self, code: int) -> None: ...
    async def text(self, text: str) -> None: ...
    async def wheel(self, x: float, y: float, dx: float, dy: float) -> None: ...
    async def rotate(self) -> None: ...
    async def set_display_power(self, on: bool) -> None: ...
    async def get_clipboard(self) -> str: ...
    async def set_clipboard(self, text: str, paste: bool = False) -> None: ...
    async def start_app(self, package: str) -> None: ...


RunCommand = Callable[[str, str], Awaitable[str]]
"""Runs an input command line on the phone (`what` names it in an error) and returns its output."""


class ShellInput:
    """Input by `adb shell` commands (`input tap`, `input draganddrop`, `input keyevent`…): always there,
    slower. What only scrcpy can do (the clipboard, the display's power) raises CommandFailed saying so."""

    name = SHELL_INPUT

    def __init__(self, run: RunCommand, display_size: Callable[[], Awaitable[tuple[int, int]]],
                 rotation: Callable[[], Awaitable[int]]) -> None:
        self._run = run
        self._display_size = display_size
        self._rotation = rotation

    async def tap(self, x: float, y: float) -> None:
        await self._run(cmd.tap(x, y), f"tap at ({x:.0f}, {y:.0f})")

    async def long_press(self, x: float, y: float, duration_ms: int) -> None:
        await self._run(cmd.long_press(x, y, duration_ms), f"long-press at ({x:.0f}, {y:.0f})")

    async def swipe(self, x1: float, y1: float, x2: float, y2: float, duration_ms: int) -> None:
        await self._run(cmd.swipe(x1, y1, x2, y2, duration_ms), "swipe")

    async def drag(self, x1: float, y1: float, x2: float, y2: float, duration_ms: int) -> None:
        await self._run(cmd.drag_and_drop(x1, y1, x2, y2, duration_ms), "drag")

    async def key(self, code: int, name: str = "") -> None:
        """The key `code`; `name` is how the person named it ("BACK"), for an error."""
        await self._run(cmd.keyevent(code), f"press key {name or code}")

    async def keys(self, codes: Sequence[int]) -> None:
        """Several keys, a few hundred per command line (old ADB limits a service line to 4 kB)."""
        step = cmd.CLEAR_KEYS_PER_COMMAND
        for start in range(0, len(codes), step):
            await self._run(cmd.keyevent(*codes[start:start + step]), "press keys")

    async def text(self, text: str) -> None:
        """Printable ASCII (newlines as ENTER); other text cannot be typed by `input text`."""
        await self._run(cmd.type_ascii(text), "type text")

    async def wheel(self, x: float, y: float, dx: float, dy: float) -> None:
        """A short swipe per notch."""
        width, height = await self._display_size()
        end_x = min(max(x + dx * width * WHEEL_SWIPE_FRACTION, 0), width - 1)
        end_y = min(max(y + dy * height * WHEEL_SWIPE_FRACTION, 0), height - 1)
        await self._run(cmd.swipe(x, y, end_x, end_y, 150), "scroll")

    async def rotate(self) -> None:
        """A quarter turn with auto-rotate off, as scrcpy does."""
        quarter = 0 if await self._rotation() % 2 else 1
        await self._run(f"settings put system accelerometer_rotation 0; settings put system user_rotation {quarter}",
                        "rotate the screen")

    async def set_display_power(self, on: bool) -> None:
        raise CommandFailed(f"Turning the phone's screen off while mirroring {NEEDS_STREAM}.")

    async def get_clipboard(self) -> str:
        raise CommandFailed(f"Reading the phone's clipboard {NEEDS_STREAM}.")

    async def set_clipboard(self, text: str, paste: bool = False) -> None:
        raise CommandFailed(f"Setting the phone's clipboard {NEEDS_STREAM}.")

    async def start_app(self, package: str) -> None:
        """`monkey` starts the app's launcher screen; an app without one is an error."""
        command = cmd.launch_app(package)
        output = await self._run(command, f"launch {package}")
        if "No activities found" in output or "monkey aborted" in output:
            raise CommandFailed(f"{package} has no screen that can be launched (is it installed?).", command, output)


class FallbackInput:
    """The phone's input: over `fast` (scrcpy's control socket) while there is one, else over `shell`. When
    `fast` fails it is dropped for good (until `fast` is set again) and the input goes the shell's way."""

    def __init__(self, shell: ShellInput, *, before: Callable[[], None], sent: Callable[[str], None]) -> None:
        self.shell = shell
        self.fast: InputChannel | None = None
        self._before = before        # input is about to change the screen (cached controls go stale)
        self._sent = sent            # told "<channel>: <what>" after the fast channel delivered

    @property
    def name(self) -> str:
        return self.fast.name if self.fast is not None else self.shell.name

    async def _send(self, what: str, send: Callable[[InputChannel], Awaitable[T]]) -> T:
        fast = self.fast
        if fast is not None:
            self._before()
            try:
                result = await send(fast)
            except DeviceError:
                if self.fast is fast:
                    self.fast = None
            else:
                self._sent(f"{fast.name}: {what}")
                return result
        return await send(self.shell)

    async def tap(self, x: float, y: float) -> None:
        await self._send(f"tap {x:.0f} {y:.0f}", lambda c: c.tap(x, y))

    async def long_press(self, x: float, y: float, duration_ms: int) -> None:
        await self._send(f"long press {x:.0f} {y:.0f}", lambda c: c.long_press(x, y, duration_ms))

    async def swipe(self, x1: float, y1: float, x2: float, y2: float, duration_ms: int) -> None:
        await self._send("swipe", lambda c: c.swipe(x1, y1, x2, y2, duration_ms))

    async def drag(self, x1: float, y1: float, x2: float, y2: float, duration_ms: int) -> None:
        await self._send("drag", lambda c: c.drag(x1, y1, x2, y2, duration_ms))

    async def key(self, code: int, name: str = "") -> None:
        """The key `code`; `name` is how the person named it ("BACK"), for the words of an error or a log."""
        await self._send(f"key {name or code}",
                         lambda c: self.shell.key(code, name) if c is self.shell else c.key(code))

    async def keys(self, codes: Sequence[int]) -> None:
        """Several keys in order: one message each over the fast channel, few command lines over the shell."""
        async def send(channel: InputChannel) -> None:
            if channel is self.shell:
                await self.shell.keys(codes)
                return
            for code in codes:
                await channel.key(code)
        await self._send(f"{len(codes)} keys", send)

    async def text(self, text: str) -> None:
        await self._send("type text", lambda c: c.text(text))

    async def wheel(self, x: float, y: float, dx: float, dy: float) -> None:
        await self._send(f"wheel {dx:+.1f} {dy:+.1f}", lambda c: c.wheel(x, y, dx, dy))

    async def rotate(self) -> None:
        await self._send("rotate", lambda c: c.rotate())

    async def set_display_power(self, on: bool) -> None:
        await self._send(f"display {'on' if on else 'off'}", lambda c: c.set_display_power(on))

    async def get_clipboard(self) -> str:
        return await self._send("get clipboard", lambda c: c.get_clipboard())

    async def set_clipboard(self, text: str, paste: bool = False) -> None:
        await self._send("paste text" if paste else "set clipboard", lambda c: c.set_clipboard(text, paste))

    async def start_app(self, package: str) -> None:
        await self._send(f"start {package}", lambda c: c.start_app(package))
