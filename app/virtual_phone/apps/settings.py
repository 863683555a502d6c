"""Settings (com.android.settings): Network & internet (Wi‑Fi, airplane mode), Connected devices
(Bluetooth), Display (brightness, dark theme, auto-rotate), Security (a PIN screen lock, on a
FLAG_SECURE screen), Tips & support (a WebView page), System (its update check spins without end),
About phone and a few read-only pages.

Every switch reads and writes the Settings provider, so `settings put global wifi_on 1` and a tap
on the Wi‑Fi switch are the same thing.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from .. import theme
from ..views import FRAME, IMAGE, SEEKBAR, View
from ..widgets import Ctx, Row, scroll_list, text
from . import SETTINGS
from .base import App, Screen
from .settings_apps import AllAppsPage, AppInfoPage, installed_apps
from .settings_base import SettingsPage, header_row, main_switch_bar
from .settings_help import HELP, HelpPage
from .settings_security import CHOOSE_LOCK_PASSWORD, ChoosePinScreen, SecurityPage
from .settings_system import SystemPage, SystemUpdatePage
from .settings_wifi_add import ADD_NETWORK, AddNetworkPage

WIFI = "Wi\u2011Fi"


class SettingsHome(SettingsPage):
    activity = "com.android.settings.Settings"

    ENTRIES = [
        ("Network & internet", "Mobile, Wi\u2011Fi, hotspot", "wifi", "network"),
        ("Connected devices", "Bluetooth, pairing", "bluetooth", "connected"),
        ("Apps", "Assistant, recent apps, default apps", "apps", "apps"),
        ("Notifications", "Notification history, conversations", "bell", None),
        ("Battery", "100%", "battery", None),
        ("Storage", "34% used - 42.25 GB free", "storage", None),
        ("Sound & vibration", "Volume, haptics, Do Not Disturb", "volume", None),
        ("Display", "Dark theme, font size, brightness", "sun", "display"),
        ("Wallpaper & style", "Colors, themed icons, app grid", "edit", None),
        ("Accessibility", "Display, interaction, audio", "person", None),
        ("Security & privacy", "App security, device lock, permissions", "lock", "security"),
        ("Location", "On - 3 apps have access to location", "location", None),
        ("System", "Languages, gestures, time, backup", "info", "system"),
        ("About phone", "", "info", "about"),
        ("Tips & support", "Help articles, contact support", "info", "help"),
    ]

    def build(self, ctx: Ctx) -> list[View]:
        rows = [Row(ctx.dp(120),
                    lambda top: text(ctx, (ctx.left + ctx.dp(24), top + ctx.dp(40), ctx.right, top + ctx.dp(104)),
                                                   "Settings", size=36, rid="homepage_title")),
                Row(ctx.dp(80), lambda top: self._search(ctx, top))]
        for title, summary, glyph, target in self.ENTRIES:
            if title == "About phone":
                summary = self.phone.model
            rows.append(self.row(ctx, title, summary, glyph=glyph,
                                 on_click=self.open(partial(page, self.app, target, title))))
        lst = scroll_list(ctx, ctx.content, rows, self.scroll, rid="recycler_view", pad_bottom=ctx.dp(16))
        return [View(FRAME, ctx.content, lst, rid=ctx.rid("main_content"))]

    def _search(self, ctx: Ctx, top: int) -> View:
        box = (ctx.left + ctx.dp(16), top + ctx.dp(8), ctx.right - ctx.dp(16), top + ctx.dp(64))
        bar = View(FRAME, box, rid=ctx.rid("search_action_bar"), bg=theme.SURFACE_VARIANT, radius=ctx.dp(28))
        bar.add(View(IMAGE, (box[0] + ctx.dp(12), box[1] + ctx.dp(16), box[0] + ctx.dp(36), box[1] + ctx.dp(40)),
                     kind="icon", glyph="search", gsize=ctx.dp(22), color=theme.TEXT_SECONDARY))
        bar.add(text(ctx, (box[0] + ctx.dp(52), box[1], box[2], box[3]), "Search settings", size=16,
                     color=theme.TEXT_SECONDARY, rid="search_action_bar_title"))
        return bar


class NetworkPage(SettingsPage):
    title = "Network & internet"

    def rows(self, ctx: Ctx) -> list[Row]:
        s = self.settings
        wifi, air = s.flag("global", "wifi_on"), s.flag("global", "airplane_mode_on")
        return [
            self.row(ctx, WIFI, "AndroidWifi" if wifi else "Off", glyph="wifi", checked=wifi, primary=True,
                     on_click=self.open(lambda: WifiPage(self.app)), on_switch=self.toggle("global", "wifi_on")),
            self.row(ctx, "Mobile network", "Unavailable in airplane mode" if air else "T-Mobile", glyph="signal"),
            self.row(ctx, "Airplane mode", glyph="airplane", checked=air,
                     on_click=self.toggle("global", "airplane_mode_on"),
                     on_switch=self.toggle("global", "airplane_mode_on")),
            self.row(ctx, "Hotspot & tethering", "Off", glyph="wifi"),
            self.row(ctx, "Data Saver", "Off", glyph="storage"),
            self.row(ctx, "VPN", "None", glyph="lock"),
            self.row(ctx, "Private DNS", "Automatic", glyph="lock"),
        ]


class WifiPage(SettingsPage):
    title = WIFI
    NETWORKS = [("GuestNet", "Saved"), ("Neighbor-5G", ""), ("CoffeeShop Free", ""), ("DIRECT-7B-Printer", "")]

    def rows(self, ctx: Ctx) -> list[Row]:
        on = self.settings.flag("global", "wifi_on")
        rows = [Row(ctx.dp(96),
                    lambda top: main_switch_bar(ctx, top, f"Use {WIFI}", on, self.toggle("global", "wifi_on")))]
        if not on:
            rows.append(Row(ctx.dp(80),
                            lambda top: text(ctx,
                                             (ctx.left + ctx.dp(24), top, ctx.right - ctx.dp(24), top + ctx.dp(80)),
                                                          f"To see available networks, turn {WIFI} on.", size=14,
                                                          color=theme.TEXT_SECONDARY, lines=2)))
            return rows
        rows.append(self.row(ctx, "AndroidWifi", "Connected", glyph="wifi"))
        rows += [self.row(ctx, name, status, glyph="wifi") for name, status in self.NETWORKS]
        rows += [self.row(ctx, name, "Saved", glyph="wifi") for name in self.app.added_networks
                 if name not in dict(self.NETWORKS)]
        rows.append(self.row(ctx, "Add network", glyph="plus", on_click=self.open(lambda: AddNetworkPage(self.app))))
        return rows


class ConnectedPage(SettingsPage):
    title = "Connected devices"

    def rows(self, ctx: Ctx) -> list[Row]:
        bt = self.settings.flag("global", "bluetooth_on")
        return [
            self.row(ctx, "Bluetooth", "On" if bt else "Off", glyph="bluetooth", checked=bt, primary=True,
                     on_click=self.open(lambda: BluetoothPage(self.app)),
                     on_switch=self.toggle("global", "bluetooth_on")),
            self.row(ctx, "Pair new device", glyph="plus", on_click=self.open(lambda: BluetoothPage(self.app))),
            self.row(ctx, "Connection preferences", "NFC, Android Auto", glyph="bluetooth"),
        ]


class BluetoothPage(SettingsPage):
    title = "Bluetooth"

    def rows(self, ctx: Ctx) -> list[Row]:
        on = self.settings.flag("global", "bluetooth_on")
        rows = [Row(ctx.dp(96),
                    lambda top: main_switch_bar(ctx, top, "Use Bluetooth", on, self.toggle("global", "bluetooth_on")))]
        name = self.settings.get("secure", "bluetooth_name") or self.phone.model
        rows.append(self.row(ctx, "Device name", name, glyph="edit"))
        if on:
            rows.append(self.row(ctx, "Pixel Buds Pro", "Saved", glyph="volume"))
        return rows


class DisplayPage(SettingsPage):
    title = "Display"

    def rows(self, ctx: Ctx) -> list[Row]:
        s = self.settings
        b = s.as_int("system", "screen_brightness")
        return [
            Row(ctx.dp(48), lambda top: header_row(ctx, top, "Brightness")),
            self.row(ctx, "Brightness level", f"{round(b * 100 / 255)}%", glyph="sun"),
            Row(ctx.dp(56), lambda top: self._slider(ctx, top, b)),
            self.row(ctx, "Adaptive brightness", "", glyph="sun", checked=s.flag("system", "screen_brightness_mode"),
                     on_click=self.toggle("system", "screen_brightness_mode"),
                     on_switch=self.toggle("system", "screen_brightness_mode")),
            Row(ctx.dp(48), lambda top: header_row(ctx, top, "Appearance")),
            self.row(ctx, "Dark theme", "", glyph="dark", checked=s.get("secure", "ui_night_mode") == "2",
                     on_click=self._dark, on_switch=self._dark),
            self.row(ctx, "Font size", "Default", glyph="edit"),
            Row(ctx.dp(48), lambda top: header_row(ctx, top, "Other display controls")),
            self.row(ctx, "Auto-rotate screen", "", glyph="apps", checked=s.flag("system", "accelerometer_rotation"),
                     on_click=self.toggle("system", "accelerometer_rotation"),
                     on_switch=self.toggle("system", "accelerometer_rotation")),
            self.row(ctx, "Screen timeout", "After 1 minute of inactivity", glyph="clock"),
        ]

    def _dark(self) -> None:
        dark = self.settings.get("secure", "ui_night_mode") == "2"
        self.phone.put_setting("secure", "ui_night_mode", "1" if dark else "2")

    def _slider(self, ctx: Ctx, top: int, brightness: int) -> View:
        x0, x1 = ctx.left + ctx.dp(72), ctx.right - ctx.dp(24)
        pad = ctx.dp(12)

        def slide(x: int) -> None:
            frac = (x - (x0 + pad)) / max(1, (x1 - pad) - (x0 + pad))
            # Android's slider runs from the setting's minimum, 1 on the emulator, to 255
            self.phone.put_setting("system", "screen_brightness", str(1 + round(max(0.0, min(1.0, frac)) * 254)))

        return View(SEEKBAR, (x0, top, x1, top + ctx.dp(48)), rid="android:id/seekbar", desc="Brightness level",
                    kind="seekbar", focusable=True, value=brightness / 255, pad=pad, on_slide=slide)


class AboutPage(SettingsPage):
    title = "About phone"

    def rows(self, ctx: Ctx) -> list[Row]:
        p = self.phone
        return [self.row(ctx, "Device name", p.model), self.row(ctx, "Phone number", "+1 (555) 010-0100"),
                self.row(ctx, "Model", p.model), self.row(ctx, "Android version", "14"),
                self.row(ctx, "IP address", "10.0.2.16" if p.settings.flag("global", "wifi_on") else "Unavailable"),
                self.row(ctx, "Serial number", p.serial), self.row(ctx, "Build number", "AP2A.240805.005")]


class AppsPage(SettingsPage):
    title = "Apps"

    def rows(self, ctx: Ctx) -> list[Row]:
        apps = sorted((a for a in self.phone.apps.values() if a.launchable and a.label != "Quickstep"),
                      key=lambda a: a.label)
        every = len(installed_apps(self.app))
        return [Row(ctx.dp(48), lambda top: header_row(ctx, top, "Recently opened apps"))] + [
            self.row(ctx, a.label, "", glyph=a.glyph) for a in apps] + [
            self.row(ctx, f"See all {every} apps", "", glyph="apps", on_click=self.open(lambda: AllAppsPage(self.app)))]


class InfoPage(SettingsPage):
    """A read-only page for the entries the simulation does not model."""

    def __init__(self, app: App, title: str) -> None:
        super().__init__(app)
        self.title = title

    def rows(self, ctx: Ctx) -> list[Row]:
        return [self.row(ctx, "Nothing to change here on the virtual phone", "")]


PAGES = {"network": NetworkPage, "connected": ConnectedPage, "display": DisplayPage, "about": AboutPage,
         "apps": AppsPage, "security": SecurityPage, "help": HelpPage, "system": SystemPage}


def page(app: App, target: str | None, title: str) -> Screen:
    cls = PAGES.get(target or "")
    return cls(app) if cls else InfoPage(app, title)


class SettingsApp(App):
    package = SETTINGS
    label = "Settings"
    glyph = "gear"
    main_activity = "com.android.settings.Settings"

    def __init__(self, phone) -> None:
        super().__init__(phone)
        self.pin: str | None = None   # the screen lock PIN, once one is set
        self.added_networks: list[str] = []    # Wi-Fi networks saved with Add network

    def activities(self):
        base = "com.android.settings.Settings$"
        return {
            self.main_activity: lambda: SettingsHome(self),
            base + "NetworkDashboardActivity": lambda: NetworkPage(self, base + "NetworkDashboardActivity"),
            base + "WifiSettingsActivity": lambda: WifiPage(self, base + "WifiSettingsActivity"),
            ADD_NETWORK: lambda: AddNetworkPage(self),
            base + "ConnectedDeviceDashboardActivity": lambda: ConnectedPage(self,
                                                                             base + "ConnectedDeviceDashboardActivity"),
            base + "BluetoothSettingsActivity": lambda: BluetoothPage(self, base + "BluetoothSettingsActivity"),
            base + "DisplaySettingsActivity": lambda: DisplayPage(self, base + "DisplaySettingsActivity"),
            base + "MyDeviceInfoActivity": lambda: AboutPage(self, base + "MyDeviceInfoActivity"),
            base + "ManageApplicationsActivity": lambda: AppsPage(self, base + "ManageApplicationsActivity"),
            base + "SecurityDashboardActivity": lambda: SecurityPage(self, base + "SecurityDashboardActivity"),
            CHOOSE_LOCK_PASSWORD: lambda: ChoosePinScreen(self),
            HELP: lambda: HelpPage(self),
        }

    def pages(self) -> dict[str, Callable[[], object]]:
        def opened(*makes: Callable[[], Screen]) -> Callable[[], None]:
            def push_them() -> None:
                for make in makes:
                    self.push(make())
            return push_them

        def scrolled_to_its_end() -> None:
            home = self.ensure_started()
            assert isinstance(home, SettingsHome)
            home.scroll.at_end = True                     # laid out at the end of the list, as a fling would

        def wifi_on() -> None:
            self.phone.set_setting_flag("global", "wifi_on", True)
            self.push(WifiPage(self))

        return {"home": lambda: None,
                "home, scrolled to its end": scrolled_to_its_end,
                "Network & internet": opened(lambda: NetworkPage(self)),
                "Wi-Fi": opened(lambda: NetworkPage(self), lambda: WifiPage(self)),
                "Wi-Fi, on": wifi_on,
                "Add network (the keyboard over its buttons)": opened(lambda: NetworkPage(self), lambda: WifiPage(self),
                                                                      lambda: AddNetworkPage(self)),
                "Connected devices": opened(lambda: ConnectedPage(self)),
                "Bluetooth": opened(lambda: ConnectedPage(self), lambda: BluetoothPage(self)),
                "Apps": opened(lambda: AppsPage(self)),
                "All apps": opened(lambda: AppsPage(self), lambda: AllAppsPage(self)),
                "an app's info": opened(lambda: AppsPage(self), lambda: AllAppsPage(self),
                                        lambda: AppInfoPage(self, "Shell")),
                "Display": opened(lambda: DisplayPage(self)),
                "Battery (a page the phone does not model)": opened(lambda: InfoPage(self, "Battery")),
                "Security & privacy": opened(lambda: SecurityPage(self)),
                "choose a PIN": opened(lambda: SecurityPage(self), lambda: ChoosePinScreen(self)),
                "System": opened(lambda: SystemPage(self)),
                "System update": opened(lambda: SystemPage(self), lambda: SystemUpdatePage(self)),
                "About phone": opened(lambda: AboutPage(self)),
                "Tips & support": opened(lambda: HelpPage(self))}

    def state(self) -> dict:
        return {"screen_lock": "pin" if self.pin else "none"}
