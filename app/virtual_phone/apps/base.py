"""What every simulated app is made of: an `App` (package, label, data, a stack of screens)
and `Screen`s (one per activity on the stack) that build their view tree from state."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .. import theme
from ..editing import TextField
from ..views import View

if TYPE_CHECKING:
    from ..phone import VirtualPhone
    from ..widgets import Ctx


class Screen:
    """One activity instance. Subclasses set `activity` and implement `build`."""

    activity: str = ""
    bar_color: tuple[int, int, int] | None = theme.SURFACE   # colour behind the status bar (None: clear)
    background = theme.BACKGROUND    # window background
    auto_focus: str | None = None    # field focused (keyboard up) when the screen opens
    return_to: str | None = None     # started from another app: Back returns to it
    is_root: bool = False            # the launcher activity at the root of its task
    animating: bool = False          # something on it moves without end (uiautomator never sees it idle)
    secure: bool = False             # FLAG_SECURE: captures show it black, the dump still lists it

    def __init__(self, app: App) -> None:
        self.app = app
        self.phone = app.phone
        self.fields: dict[str, TextField] = {}
        self.focus: str | None = None
        self.dialog: Dialog | None = None

    def add_field(self, key: str, text: str = "", **options) -> TextField:
        f = TextField(text=text, **options)
        f.cursor = len(text)
        self.fields[key] = f
        return f

    def build(self, ctx: Ctx) -> list[View]:
        raise NotImplementedError

    def animation_frame(self) -> object:
        """While `animating`: what the moving part shows now; a new value redraws the screen."""
        return None

    def back(self) -> bool:
        """Handle Back inside the screen (close a dialog…); False lets the app pop the screen."""
        if self.dialog is not None:
            self.close_dialog()
            return True
        return False

    def open_dialog(self, dialog: Dialog) -> None:
        self.dialog = dialog
        self.focus = None
        self.phone.hide_keyboard()

    def close_dialog(self) -> None:
        if self.dialog is not None:
            for key in self.dialog.field_keys:
                if self.focus == key:
                    self.focus = None
        self.dialog = None
        self.phone.hide_keyboard()

    def leave(self) -> None:
        """Called when the screen is popped (e.g. to save an edit)."""

    snackbar: Snackbar | None = None

    def show_snackbar(self, message: str, action: str, on_action: Callable[[], None]) -> None:
        """A Material snackbar at the bottom of this screen for `SNACKBAR_SECONDS`, or the longer time the person
        gave controls in Accessibility › Time to take action (Material asks AccessibilityManager for it); its
        action ends it early."""
        chosen = self.phone.settings.as_int("secure", "accessibility_interactive_ui_timeout_ms", 0) / 1000
        self.snackbar = Snackbar(message, action, on_action, time.monotonic() + max(SNACKBAR_SECONDS, chosen))

    def timed_change(self, now: float) -> bool:
        """Something on the screen changes at a set time (a snackbar goes): True when it changed now."""
        if self.snackbar is not None and now >= self.snackbar.until:
            self.snackbar = None
            return True
        return False


SNACKBAR_SECONDS = 2.75
"""Snackbar.LENGTH_LONG (Material Components), what apps use for an action such as Undo."""


@dataclass
class Snackbar:
    message: str
    action: str
    on_action: Callable[[], None]
    until: float                     # monotonic seconds


class Dialog:
    """A dialog shown in its own window over the screen (package = the app's)."""

    field_keys: tuple[str, ...] = ()
    dim = True

    def __init__(self, screen: Screen) -> None:
        self.screen = screen
        self.phone = screen.phone

    def build(self, ctx: Ctx) -> View:
        raise NotImplementedError

    def cancel(self) -> None:
        """A touch outside the dialog, or Back."""
        self.screen.close_dialog()


class App:
    package: str = ""
    label: str = ""
    glyph: str = "apps"
    third_party: bool = False
    launchable: bool = True
    main_activity: str = ""
    appcompat: bool = True           # its activities sit in AppCompat's action_bar_root (as most apps' do)

    def __init__(self, phone: VirtualPhone) -> None:
        self.phone = phone
        self.stack: list[Screen] = []
        self.launched_from: str | None = None  # the app that started this task (Back returns there)

    # ---- activities
    def activities(self) -> dict[str, Callable[[], Screen]]:
        """Exported activity class names → screen factories (the first is the launcher activity)."""
        return {}

    def pages(self) -> dict[str, Callable[[], object]]:
        """Every screen and dialog the app shows, by name: how to bring the app there from its first screen, just
        launched (run under the phone's lock). A test visits each one, so a screen added without its page fails
        it."""
        return {"first screen": lambda: None}

    def main_screen(self) -> Screen:
        screen = self.activities()[self.main_activity]()
        screen.is_root = True
        return screen

    @property
    def top(self) -> Screen | None:
        return self.stack[-1] if self.stack else None

    def ensure_started(self) -> Screen:
        """Start the task if it is not running; its top screen."""
        if not self.stack:
            self.stack.append(self.main_screen())
            self.on_start(self.stack[-1])
        return self.stack[-1]

    def start_activity(self, activity: str | None) -> bool:
        """`am start -n` / monkey: resume the task, or open the named activity on a fresh stack."""
        acts = self.activities()
        if activity is None or activity == self.main_activity:
            self.ensure_started()
            return True
        factory = acts.get(activity)
        if factory is None:
            return False
        self.stack = [factory()]
        self.on_start(self.stack[-1])
        return True

    def push(self, screen: Screen) -> None:
        self.phone.hide_keyboard()
        self.stack.append(screen)
        self.on_start(screen)
        self.phone.changed()

    def on_start(self, screen: Screen) -> None:
        if screen.auto_focus and screen.auto_focus in screen.fields:
            self.phone.focus_field(screen, screen.auto_focus)

    def pop(self) -> None:
        """Finish the top activity; the last one ends the task."""
        if not self.stack:
            return
        screen = self.stack.pop()
        screen.leave()
        self.phone.hide_keyboard()
        self.phone.screen_left(self, screen)
        self.phone.changed()

    def back(self) -> None:
        top = self.top
        if top is None:
            return
        if top.back():
            self.phone.changed()
            return
        if top.is_root and len(self.stack) == 1:
            # Android 12+: Back on a task's root launcher activity moves the task to the back, keeping it.
            top.leave()
            self.phone.leave_app(self)
            return
        self.pop()

    def reset(self) -> None:
        """Force-stop: the activities go, saved data stays."""
        self.stack = []
        self.launched_from = None

    def state(self) -> dict:
        return {}
