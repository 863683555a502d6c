"""`VirtualPhone`: the simulated Android device — its state, apps, windows, picture and UI dump.

Every public method takes `lock` (an RLock), so the ADB server's threads can call it freely.
Input (tap, swipe, keys, text) lives in `input_events.InputEventsMixin`; composing the windows, the
screenshot and the dump in `compositor.WindowsMixin`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from . import keyboard
from .android_system import AndroidSystem
from .apps import ADB_KEYBOARD, LAUNCHER, SETTINGS, SYSTEM_PACKAGES, App, AppT, Screen, app_of, create_apps
from .apps.launcher import HomeScreen, LauncherApp
from .apps.settings_apps import LOAD_SECONDS as LIST_LOAD_SECONDS
from .compositor import WindowsMixin
from .gestures import GesturesMixin
from .input_events import InputEventsMixin
from .keyguard import KeyguardMixin
from .latency import QUICK, LatencyProfile, Timing, latency_named
from .motion import ScreenMotion
from .profiles import ANDROID_14, DeviceProfile, profile_named
from .settings_store import SettingsStore
from .system_dialogs import PopUpFaults, SystemDialog, not_responding, permission_request
from .theme import Metrics
from .views import Window

if TYPE_CHECKING:
    from PIL import Image


class VirtualPhone(GesturesMixin, InputEventsMixin, KeyguardMixin, WindowsMixin):
    def __init__(self, serial: str = "emulator-5554", width: int | None = None, height: int | None = None,
                 density: int | None = None, model: str | None = None, adb_keyboard_installed: bool = False,
                 clock: Callable[[], datetime] | None = None, profile: DeviceProfile | str = ANDROID_14,
                 latency: LatencyProfile | str = QUICK, seed: int = 0) -> None:
        self.lock = threading.RLock()
        self.profile = profile_named(profile) if isinstance(profile, str) else profile
        self.latency = latency_named(latency) if isinstance(latency, str) else latency
        self.timing = Timing(self.latency, seed)
        self.serial, self.model = serial, model or self.profile.model
        self.width = width or self.profile.width
        self.height = height or self.profile.height
        self.density = density or self.profile.density
        self.motion = ScreenMotion(self.timing)
        self.adb_keyboard_installed = adb_keyboard_installed
        self.clock = clock or datetime.now
        self.clock_set_by = timedelta()   # `date` as root moved the phone's time this far from `clock`
        self.adbd_root = False        # `adb root` on this userdebug build: shells run as uid 0 until `adb unroot`
        self.rotation = 0
        self.screen_on = True
        self._version = 0
        self._minute = ""
        self._toast: tuple[str, float] | None = None
        self.system_dialog: SystemDialog | None = None      # a permission request, "isn't responding"
        self.pop_ups = PopUpFaults()
        self.list_load_seconds = LIST_LOAD_SECONDS    # how long Settings › Apps › See all apps takes to fill
        self.inputs_while_unsettled: list[str] = []   # input on a list still loading or flinging (note_input)
        self._built: tuple[int, list[Window], list[Window]] | None = None
        self._shot: tuple[int, Image.Image] | None = None
        self._xml: tuple[int, str] | None = None
        self.settings = SettingsStore(self._on_setting)
        self.settings.put("global", "device_name", self.model, notify=False)
        self.ime_ids = [keyboard.LATIN_IME] + ([keyboard.ADB_IME] if adb_keyboard_installed else [])
        self.current_ime = keyboard.LATIN_IME
        self.settings.put("secure", "enabled_input_methods", ":".join(self.ime_ids), notify=False)
        self.ime_shown = False
        self.kb_mode, self.kb_shift = "letters", False
        self.apps: dict[str, App] = create_apps(self)
        self.fg = LAUNCHER
        self.overview = False
        self.recents: list[str] = []  # most recent first, launcher excluded
        self._radios_before_airplane = ("0", "0")
        self.apps[LAUNCHER].ensure_started()
        self.system = AndroidSystem(self)  # packages, processes, log, battery: what `pm`, `am`, `dumpsys` see

    # ------------------------------------------------------------------ basics
    @property
    def version(self) -> int:
        with self.lock:
            self._tick()
            return self._version

    def _tick(self) -> None:
        self.advance_gestures()
        top = self.apps[self.fg].top if self.fg in self.apps else None
        if top is not None and top.timed_change(time.monotonic()):
            self.changed()
        minute = self.now().strftime("%Y%m%d%H%M")
        if minute != self._minute:
            self._minute = minute
            self.changed()
        if self._toast is not None and time.monotonic() > self._toast[1]:
            self._toast = None
            self.changed()

    def changed(self) -> None:
        """Something visible changed: new version, rebuild the tree on next use."""
        with self.lock:
            self._version += 1
            self._built = None

    def now(self) -> datetime:
        return self.clock() + self.clock_set_by

    def set_clock(self, moment: datetime) -> None:
        """`date MMDDhhmm…` as root: the phone's time is `moment` now and runs on from there (a clock the phone
        was made with that stands still stays still, at `moment`)."""
        with self.lock:
            self.clock_set_by = moment - self.clock()
            self.changed()

    def display_size(self) -> tuple[int, int]:
        return (self.height, self.width) if self.rotation % 2 else (self.width, self.height)

    def metrics(self) -> Metrics:
        w, h = self.display_size()
        return Metrics(self.density, w, h)

    def set_rotation(self, rotation: int) -> None:
        with self.lock:
            rotation = int(rotation) % 4
            self.settings.put("system", "user_rotation", str(rotation), notify=False)
            if rotation != self.rotation:
                self.rotation = rotation
                self.changed()

    @property
    def toast_shown(self) -> str | None:
        """The toast on screen now, if any."""
        with self.lock:
            self._tick()
            return self._toast[0] if self._toast is not None else None

    def toast(self, message: str) -> None:
        with self.lock:
            self._toast = (message, time.monotonic() + 3.5)
            self.changed()

    # ------------------------------------------------------------------ packages and tasks
    def installed_packages(self, third_party_only: bool = False) -> list[str]:
        with self.lock:
            return self.system.packages.names(third_party_only)

    def app_label(self, package: str) -> str | None:
        if package in self.apps:
            return self.apps[package].label
        if self.adb_keyboard_installed and package == ADB_KEYBOARD[0]:
            return ADB_KEYBOARD[1]
        return dict(SYSTEM_PACKAGES).get(package)

    @property
    def launcher(self) -> LauncherApp:
        """The home screen's app (it draws Overview and keeps the apps' thumbnails)."""
        return app_of(self, LAUNCHER, LauncherApp)

    @property
    def foreground_app(self) -> App:
        return self.apps[self.fg]

    def foreground(self) -> tuple[str, str]:
        with self.lock:
            app = self.foreground_app
            if self.overview or app.top is None:
                return LAUNCHER, self.apps[LAUNCHER].main_activity
            return app.package, app.top.activity

    def launch(self, package: str, activity: str | None = None) -> bool:
        with self.lock:
            app = self.apps.get(package)
            if app is None or not app.launchable:
                return False
            if activity:
                activity = activity.split("/")[-1]
                if activity.startswith("."):
                    activity = package + activity
            starting = not app.stack and package != LAUNCHER
            if not app.start_activity(activity):
                return False
            self.bring_to_front(app)
            if starting:
                self._pop_up_over(app)
            assert app.top is not None   # start_activity put a screen on the stack
            self.system.activity_started(package, app.top.activity)
            return True

    def _leaving(self) -> None:
        if self.fg != LAUNCHER and not self.overview:
            self.launcher.thumbs.pop(self.fg, None)

    def bring_to_front(self, app: App) -> None:
        self._leaving()
        self.hide_keyboard()
        self.overview = False
        app.ensure_started()
        if app.package != LAUNCHER:
            if app.package in self.recents:
                self.recents.remove(app.package)
            self.recents.insert(0, app.package)
        self.fg = app.package
        self.changed()

    def open_in_app(self, app: AppT, make_screen: Callable[[AppT], Screen]) -> None:
        """Start another app's activity from the current one (Back returns here)."""
        screen = make_screen(app)
        screen.return_to = self.fg
        app.stack.append(screen)
        self.bring_to_front(app)
        app.on_start(screen)

    def screen_left(self, app: App, screen: Screen) -> None:
        """Called by App.pop: a finished screen started from another app returns there."""
        target = getattr(screen, "return_to", None)
        if not app.stack:
            if app.package in self.recents:
                self.recents.remove(app.package)
            self.leave_app(app, target)
        elif target and target in self.apps and self.apps[target].stack:
            self.bring_to_front(self.apps[target])

    def leave_app(self, app: App, target: str | None = None) -> None:
        """The task goes to the back: show the app it came from, else the home screen."""
        target = target or app.launched_from
        if target and target != app.package and target in self.apps and self.apps[target].stack:
            self.bring_to_front(self.apps[target])
        else:
            self.go_home()

    # ------------------------------------------------------------------ dialogs of the system
    def _pop_up_over(self, app: App) -> None:
        """A fault turned on in `pop_ups`: the app that starts asks for a permission, or stops responding."""
        if self.pop_ups.take("permission_requests"):
            def answer(allowed: bool) -> None:
                self.pop_ups.answers[app.package] = allowed
                self.close_system_dialog()
            self.system_dialog = permission_request(app.label, app.package, answer)
        elif self.pop_ups.take("not_responding"):
            def close() -> None:
                self.close_system_dialog()
                self.force_stop(app.package)
            self.system_dialog = not_responding(app.label, close, self.close_system_dialog)

    def close_system_dialog(self) -> None:
        with self.lock:
            self.system_dialog = None
            self.changed()

    def force_stop(self, package: str) -> None:
        with self.lock:
            app = self.apps.get(package)
            if app is None or package == LAUNCHER:
                return
            app.reset()
            if package in self.recents:
                self.recents.remove(package)
            if self.fg == package:
                self.go_home()
            self.changed()

    def go_home(self) -> None:
        with self.lock:
            already_home = self.fg == LAUNCHER and not self.overview and self.screen_on
            self._leaving()
            self.hide_keyboard()
            self.overview = False
            home = self.launcher.top
            if home is not None and home.dialog is not None:
                home.close_dialog()                # Home closes Launcher3's pop-ups too
            elif already_home and isinstance(home, HomeScreen):      # Home on the home screen: the first page
                snap = home.to_first_page(time.monotonic(), self.timing.profile.scale)
                if snap is not None:
                    self.move_on(snap)
            self.fg = LAUNCHER
            self.changed()

    def show_recents(self) -> None:
        with self.lock:
            self.hide_keyboard()
            if self.overview:
                if self.recents:
                    self.bring_to_front(self.apps[self.recents[0]])
                return
            self._leaving()
            self.overview = True
            self.launcher.reset_recents_scroll()
            self.changed()

    def press_back(self) -> None:
        with self.lock:
            if self.system_dialog is not None:        # Back goes to the dialog on top (it may ignore it)
                if self.system_dialog.cancel is not None:
                    self.system_dialog.cancel()
                return
            if self.keyboard_visible:
                self.hide_keyboard()
                return
            if self.overview:
                self.overview = False
                self.changed()
                return
            self.foreground_app.back()

    # ------------------------------------------------------------------ settings
    def get_setting(self, namespace: str, key: str) -> str | None:
        with self.lock:
            return self.settings.get(namespace, key)

    def put_setting(self, namespace: str, key: str, value: str) -> None:
        with self.lock:
            self.settings.put(namespace, key, str(value))

    def _on_setting(self, namespace: str, key: str, old: str | None, new: str) -> None:
        s = self.settings
        if (namespace, key) == ("global", "airplane_mode_on"):
            if s.flag("global", "airplane_mode_on"):
                self._radios_before_airplane = (s.get("global", "wifi_on") or "0",
                                                s.get("global", "bluetooth_on") or "0")
                s.put("global", "wifi_on", "0", notify=False)
                s.put("global", "bluetooth_on", "0", notify=False)
            else:
                wifi, bt = self._radios_before_airplane
                s.put("global", "wifi_on", wifi, notify=False)
                s.put("global", "bluetooth_on", bt, notify=False)
        elif namespace == "system" and key in ("user_rotation", "accelerometer_rotation"):
            if not s.flag("system", "accelerometer_rotation"):
                self.set_rotation(s.as_int("system", "user_rotation"))
            else:
                self.rotation = 0  # the sensor says the phone is upright
        elif (namespace, key) == ("secure", "default_input_method") and new in self.ime_ids:
            self.current_ime = new
        elif (namespace, key) == ("system", "screen_brightness"):
            s.put("system", "screen_brightness", str(max(0, min(255, s.as_int("system", key)))), notify=False)
        self.changed()

    def set_setting_flag(self, namespace: str, key: str, on: bool) -> None:
        self.put_setting(namespace, key, "1" if on else "0")

    # ------------------------------------------------------------------ keyboard / IME
    def set_ime(self, ime_id: str) -> bool:
        with self.lock:
            if ime_id not in self.ime_ids:
                return False
            self.current_ime = ime_id
            self.settings.put("secure", "default_input_method", ime_id, notify=False)
            self.changed()
            return True

    def focused(self) -> tuple[Screen, str] | None:
        """The screen and key of the focused text field, if any."""
        if self.overview:
            return None
        top = self.foreground_app.top
        if top is None or top.focus is None or top.focus not in top.fields:
            return None
        return top, top.focus

    @property
    def keyboard_visible(self) -> bool:
        return self.screen_on and self.ime_shown and self.focused() is not None

    def focus_field(self, screen: Screen, key: str) -> None:
        with self.lock:
            if screen.focus != key:
                self.kb_mode, self.kb_shift = "letters", False
            screen.focus = key
            screen.fields[key].focus()
            self.ime_shown = True
            self.changed()

    def hide_keyboard(self) -> None:
        with self.lock:
            if self.ime_shown:
                self.ime_shown = False
                self.changed()

    # ------------------------------------------------------------------ state for tests
    def state(self) -> dict:
        with self.lock:
            s = self.settings
            f = self.focused()
            out = {
                "foreground": self.foreground()[0],
                "activity": self.foreground()[1],
                "wifi": s.flag("global", "wifi_on"),
                "bluetooth": s.flag("global", "bluetooth_on"),
                "airplane": s.flag("global", "airplane_mode_on"),
                "brightness": s.as_int("system", "screen_brightness"),
                "dark_theme": s.get("secure", "ui_night_mode") == "2",
                "focused_text": f[0].fields[f[1]].text if f else None,
                "keyboard_visible": self.keyboard_visible,
                "rotation": self.rotation,
                "screen_on": self.screen_on,
                "locked": self.keyguard_showing,
                "stay_on_while_plugged_in": self.stay_on_setting,
                "current_ime": self.current_ime,
                "recents": list(self.recents),
                "wifi_networks_added": list(getattr(self.apps.get(SETTINGS), "added_networks", [])),
            }
            for app in self.apps.values():
                out.update(app.state())
            return out
