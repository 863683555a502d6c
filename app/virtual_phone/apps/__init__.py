"""The apps installed on the virtual phone, and the system packages that come with it."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from .base import App, Dialog, Screen

if TYPE_CHECKING:
    from ..phone import VirtualPhone
    from .contacts import ContactsApp
    from .dialer import DialerApp
    from .messages import MessagesApp

AppT = TypeVar("AppT", bound=App)

LAUNCHER = "com.android.launcher3"
SETTINGS = "com.android.settings"
CONTACTS = "com.android.contacts"
MESSAGES = "com.android.messaging"
NOTES = "com.agentdesk.notes"
CLOCK = "com.android.deskclock"
DIALER = "com.android.dialer"
CALCULATOR = "com.agentdesk.calculator"

# Packages without a simulated UI: (package, label).
SYSTEM_PACKAGES: list[tuple[str, str]] = [
    ("android", "Android System"),
    ("com.android.systemui", "System UI"),
    ("com.android.phone", "Phone Services"),
    ("com.android.shell", "Shell"),
    ("com.android.providers.settings", "Settings Storage"),
    ("com.android.providers.contacts", "Contacts Storage"),
    ("com.android.providers.telephony", "Phone and Messaging Storage"),
    ("com.android.providers.media", "Media Storage"),
    ("com.android.bluetooth", "Bluetooth"),
    ("com.android.packageinstaller", "Package installer"),
    ("com.android.permissioncontroller", "Permission controller"),
    ("com.android.documentsui", "Files"),
    ("com.android.webview", "Android System WebView"),
    ("com.android.inputmethod.latin", "Android Keyboard (AOSP)"),
    ("com.android.server.telecom", "Call Management"),
]
ADB_KEYBOARD = ("com.android.adbkeyboard", "ADB Keyboard")


def create_apps(phone: VirtualPhone) -> dict[str, App]:
    from .calculator import CalculatorApp
    from .clock import ClockApp
    from .contacts import ContactsApp
    from .dialer import DialerApp
    from .launcher import LauncherApp
    from .messages import MessagesApp
    from .notes import NotesApp
    from .settings import SettingsApp

    apps = [LauncherApp(phone), SettingsApp(phone), ContactsApp(phone), MessagesApp(phone), NotesApp(phone),
            ClockApp(phone), DialerApp(phone), CalculatorApp(phone)]
    return {app.package: app for app in apps}


def app_of(phone: VirtualPhone, package: str, kind: type[AppT]) -> AppT:
    """The phone's app `package`, which is a `kind`."""
    app = phone.apps[package]
    if not isinstance(app, kind):
        raise TypeError(f"{package} is a {type(app).__name__}, not a {kind.__name__}")
    return app


# What one app asks of another (the apps import one another only when they run, as create_apps does).
def contacts_of(phone: VirtualPhone) -> ContactsApp:
    from .contacts import ContactsApp
    return app_of(phone, CONTACTS, ContactsApp)


def dialer_of(phone: VirtualPhone) -> DialerApp:
    from .dialer import DialerApp
    return app_of(phone, DIALER, DialerApp)


def messages_of(phone: VirtualPhone) -> MessagesApp:
    from .messages import MessagesApp
    return app_of(phone, MESSAGES, MessagesApp)


__all__ = ["App", "Dialog", "Screen", "create_apps", "app_of", "contacts_of", "dialer_of", "messages_of",
           "SYSTEM_PACKAGES", "ADB_KEYBOARD", "LAUNCHER", "SETTINGS",
           "CONTACTS", "MESSAGES", "NOTES", "CLOCK", "DIALER", "CALCULATOR"]
