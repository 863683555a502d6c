"""What the parts of VirtualPhone (InputEventsMixin, KeyguardMixin, WindowsMixin) use of one another.

`phone.py` sets these attributes and the parts define these methods; they are declared here
only so that each part is type-checked against them. Nothing here exists at run time.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL import Image

    from .apps import App, Screen
    from .apps.launcher import LauncherApp
    from .latency import Timing
    from .motion import ScreenMotion
    from .profiles import DeviceProfile
    from .settings_store import SettingsStore
    from .system_dialogs import SystemDialog
    from .theme import Metrics
    from .views import Window


class PhoneParts:
    """The state and methods VirtualPhone's parts share (declarations only)."""

    lock: threading.RLock
    profile: DeviceProfile
    timing: Timing
    density: int
    motion: ScreenMotion
    clock: Callable[[], datetime]
    rotation: int
    screen_on: bool
    settings: SettingsStore
    current_ime: str
    kb_mode: str
    kb_shift: bool
    apps: dict[str, App]
    fg: str
    overview: bool
    keyguard_showing: bool
    _version: int
    _toast: tuple[str, float] | None
    system_dialog: SystemDialog | None
    list_load_seconds: tuple[float, float]
    inputs_while_unsettled: list[str]
    _built: tuple[int, list[Window], list[Window]] | None
    _shot: tuple[int, Image.Image] | None
    _xml: tuple[int, str] | None

    if TYPE_CHECKING:
        # phone.py
        @property
        def version(self) -> int: ...
        @property
        def foreground_app(self) -> App: ...
        @property
        def launcher(self) -> LauncherApp: ...
        @property
        def keyboard_visible(self) -> bool: ...
        def _tick(self) -> None: ...
        def now(self) -> datetime: ...
        def changed(self) -> None: ...
        def display_size(self) -> tuple[int, int]: ...
        def metrics(self) -> Metrics: ...
        def focused(self) -> tuple[Screen, str] | None: ...
        def focus_field(self, screen: Screen, key: str) -> None: ...
        def hide_keyboard(self) -> None: ...
        def go_home(self) -> None: ...
        def press_back(self) -> None: ...
        def show_recents(self) -> None: ...
        # keyguard.py
        def keyguard_window(self, m: Metrics) -> Window: ...
        def input_blocked(self) -> bool: ...
        def screen_turned_off(self) -> None: ...
        # input_events.py
        def ime_key(self, code: str) -> None: ...
        def tap(self, x: int, y: int) -> None: ...
        def long_press(self, x: int, y: int, duration_ms: int = 600) -> None: ...
        def _window_at(self, x: int, y: int) -> Window | None: ...
        # gestures.py
        def note_input(self, what: str) -> None: ...
        def edge_stretched(self, picture: Image.Image) -> Image.Image: ...
        # compositor.py
        def _windows(self) -> tuple[list[Window], list[Window]]: ...
        def _clock_text(self) -> str: ...
