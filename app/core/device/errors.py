"""Errors of the device layer. Each message says what happened and what to do, in plain words."""

from __future__ import annotations


class DeviceError(Exception):
    """Base class: something went wrong talking to a phone."""


class AdbUnavailable(DeviceError):
    """No ADB server could be reached or started."""


class DeviceNotFound(DeviceError):
    """The phone is not (or no longer) in the list of attached devices."""


class DeviceUnauthorized(DeviceError):
    """The phone has not accepted this computer's USB-debugging key yet."""


class DeviceOffline(DeviceError):
    """The phone is attached but not answering (booting, or a bad cable)."""


class DeviceDisconnected(DeviceError):
    """The connection dropped in the middle of a command (unplugged?)."""


class DeviceTimeout(DeviceError):
    """The phone did not answer in time."""


class CommandFailed(DeviceError):
    """A command ran on the phone and reported an error."""

    def __init__(self, message: str, command: str = "", output: str = ""):
        super().__init__(message)
        self.command = command
        self.output = output


class ScreenshotFailed(CommandFailed):
    """The screenshot could not be taken or decoded."""


class HierarchyDumpFailed(CommandFailed):
    """uiautomator could not dump the screen's controls."""


class TextInputUnsupported(CommandFailed):
    """The text cannot be typed with `input text` and no ADB Keyboard is installed."""


ADB_KEYBOARD_FIX = (
    "Install ADB Keyboard on the phone (the APK from github.com/senzhk/ADBKeyBoard/releases): "
    "`adb install ADBKeyboard.apk`, then `adb shell ime enable com.android.adbkeyboard/.AdbIME`; "
    "or in the desk: More › Install ADB Keyboard… (or `agentdesk keyboard install ADBKeyboard.apk`). "
    "Agent Desk switches to it only while typing and switches back afterwards."
)
