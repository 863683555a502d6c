"""The apps installed on the virtual phone, and the system packages that come with it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import App, Dialog, Screen

if TYPE_CHECKING:
    from ..phone import VirtualPhone

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


__all__ = ["App", "Dialog", "Screen", "create_apps", "SYSTEM_PACKAGES", "ADB_KEYBOARD", "LAUNCHER", "SETTINGS",
           "CONTACTS", "MESSAGES", "NOTES", "CLOCK", "DIALER", "CALCULATOR"]
