"""Install ADB Keyboard on a phone from an APK file the person downloaded, and turn it on.

Typing text `input text` cannot type (any non-ASCII letter: "café") needs ADB Keyboard on the
phone. `install_adb_keyboard` does by itself what the person would otherwise type: it reads the
file's manifest here first (an APK whose package is com.android.adbkeyboard, or nothing is sent),
installs it (`phone_files.install_apk`: streamed into the package manager, as `adb install` does),
runs `ime enable com.android.adbkeyboard/.AdbIME`, and checks that `ime list -s` lists it. It does
not make ADB Keyboard the default keyboard: the typing code switches to it only while it types.

Every failure is a `KeyboardInstallFailed` (a DeviceError) whose message says, in a sentence, what
happened and what to do; the phone's own words (INSTALL_FAILED_…) stay in `output` for a Details
view. Blocking work runs in worker threads; `on_progress` is always called on the caller's loop.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from pathlib import Path

from adbutils.errors import AdbError

from .adb_transport import translate_adb_error
from .apk_manifest import NotAnApk, apk_package_name
from .errors import CommandFailed, DeviceError
from .input_commands import ADB_KEYBOARD_IME
from .phone_files import STAGING_FOLDER, TRANSFER_TIMEOUT, FileRefused, InstallFailed, install_apk

ADB_KEYBOARD_PACKAGE = ADB_KEYBOARD_IME.split("/")[0]
DOWNLOAD_PAGE = "github.com/senzhk/ADBKeyBoard/releases"
ENABLE_BY_HAND = ("Turn it on by hand in the phone's Settings › System › Languages & input › On-screen keyboard "
                  "(or Manage keyboards) › ADB Keyboard, then type again.")
LISTED_TRIES = 5                  # `ime list -s` is asked this often (0.3 s apart) before giving up
BYPASS_SDK_BLOCK = "--bypass-low-target-sdk-block"   # Android 14+: allow an app built for an old Android

Progress = Callable[[str], None]

__all__ = ["ADB_KEYBOARD_PACKAGE", "DOWNLOAD_PAGE", "KeyboardInstallFailed", "KeyboardInstallRefused",
           "KeyboardNotEnabled", "NotAdbKeyboard", "install_adb_keyboard"]


class KeyboardInstallFailed(CommandFailed):
    """ADB Keyboard could not be installed or turned on; the message says why and what to do."""


class NotAdbKeyboard(KeyboardInstallFailed):
    """The chosen file is not ADB Keyboard's APK (no file, no APK, or another app's)."""


class KeyboardInstallRefused(KeyboardInstallFailed):
    """The phone's package manager refused the APK; `reason` is its INSTALL_FAILED_… text."""

    def __init__(self, message: str, reason: str, output: str = ""):
        super().__init__(message, "pm install", output)
        self.reason = reason


class KeyboardNotEnabled(KeyboardInstallFailed):
    """Installed, but the phone would not turn the keyboard on (`ime enable` failed or it is not listed)."""


async def install_adb_keyboard(device, apk_path: Path | str, on_progress: Progress | None = None) -> str:
    """Install ADB Keyboard from `apk_path` on `device` (an AndroidDevice) and enable it; returns what
    was done, in words. Raises a KeyboardInstallFailed subclass saying why not."""
    path = Path(apk_path)
    say = _reporter(on_progress)
    say(f"Checking {path.name}…")
    await _check_file(path)
    serial = device.serial
    newer_kept = await _install(device, path, say)
    say("Turning ADB Keyboard on…")
    answer = await device.shell(f"ime enable {ADB_KEYBOARD_IME}")
    if not await _listed(device):
        said = " ".join(answer.split()) or "nothing"
        raise KeyboardNotEnabled(
            f"ADB Keyboard was installed on {serial}, but the phone would not turn it on (it said: {said}). "
            f"{ENABLE_BY_HAND}", f"ime enable {ADB_KEYBOARD_IME}", answer)
    done = (f"{serial} already had a newer ADB Keyboard: kept it and turned it on" if newer_kept
            else f"Installed ADB Keyboard ({path.name}) on {serial} and turned it on")
    return (f"{done}. Text in any language (\"café\", \"日本\") can be typed now; Agent Desk switches to "
            "ADB Keyboard only while it types, and back afterwards.")


# ---------------------------------------------------------------------------- steps


async def _check_file(path: Path) -> None:
    if not path.is_file():
        raise NotAdbKeyboard(f"{path} is not a file. Choose the ADB Keyboard APK you downloaded "
                             f"({DOWNLOAD_PAGE}).")
    try:
        package = await asyncio.to_thread(apk_package_name, path)
    except NotAnApk as exc:
        said = str(exc).rstrip(".")
        raise NotAdbKeyboard(f"{said}. Choose ADB Keyboard's APK file (ADBKeyboard.apk from {DOWNLOAD_PAGE}).") \
            from None
    if package != ADB_KEYBOARD_PACKAGE:
        raise NotAdbKeyboard(f"{path.name} is another app ({package}), not ADB Keyboard "
                             f"({ADB_KEYBOARD_PACKAGE}); nothing was installed. Choose ADBKeyboard.apk "
                             f"from {DOWNLOAD_PAGE}.")


async def _install(device, path: Path, say: Progress) -> bool:
    """Install the APK; True when the phone kept a newer ADB Keyboard it already had (nothing to install)."""
    def sent(done: int, total: int) -> None:
        if done < total:
            say(f"Sending {path.name} to {device.serial}… {100 * done // max(total, 1)}%")
        else:
            say(f"{device.serial} is installing ADB Keyboard… (if the phone asks whether to allow the install, "
                "allow it on its screen)")

    say(f"Sending {path.name} to {device.serial}…")
    try:
        await install_apk(device, path, _every_tenth(sent))
        return False
    except FileRefused as exc:
        raise NotAdbKeyboard(str(exc)) from None
    except InstallFailed as exc:
        reason, output = exc.reason, exc.output
    code = reason.split(":")[0].strip()
    if code == "INSTALL_FAILED_VERSION_DOWNGRADE":
        return True                       # a newer one is on the phone: turn that one on
    if code == "INSTALL_FAILED_DEPRECATED_SDK_VERSION":
        say("This ADB Keyboard was built for an old Android; installing it with Android 14's allowance for that…")
        output = await _install_bypassing_sdk_block(device, path)
        if "Success" in output:
            return False
        reason = _failure_reason(output)
    raise KeyboardInstallRefused(install_refusal_in_words(reason, device.serial), reason, output)


async def _install_bypassing_sdk_block(device, path: Path) -> str:
    """Push the APK to the phone's staging folder and `pm install` it with the old-target allowance."""
    staged = f"{STAGING_FOLDER}agentdesk-adbkeyboard-{int(time.time() * 1000)}.apk"
    transport, serial = device.transport, device.serial

    def push() -> None:
        try:
            transport.client.device(serial).sync.push(str(path), staged)
        except (AdbError, OSError, EOFError) as exc:
            raise translate_adb_error(exc, serial) from exc

    await asyncio.to_thread(push)
    try:
        return await device.shell(f"pm install -r {BYPASS_SDK_BLOCK} {staged}", timeout=TRANSFER_TIMEOUT)
    finally:
        try:
            await device.shell(f"rm -f {staged}")
        except DeviceError:
            pass


async def _listed(device) -> bool:
    """Whether `ime list -s` lists ADB Keyboard (asked a few times: a phone may take a moment)."""
    for attempt in range(LISTED_TRIES):
        ime_ids, _current = await device.input_methods()
        if ADB_KEYBOARD_IME in ime_ids:
            return True
        if attempt + 1 < LISTED_TRIES:
            await asyncio.sleep(0.3)
    return False


# ---------------------------------------------------------------------------- helpers


def _failure_reason(output: str) -> str:
    start = output.find("Failure [")
    if start >= 0:
        return output[start + len("Failure ["):].split("]")[0]
    return (output.strip().splitlines() or ["no answer"])[0]


def _reporter(on_progress: Progress | None) -> Progress:
    """`on_progress`, made safe to call from worker threads: it always runs on the caller's loop."""
    if on_progress is None:
        return lambda _text: None
    loop = asyncio.get_running_loop()
    owner = threading.get_ident()

    def say(text: str) -> None:
        if threading.get_ident() == owner:
            on_progress(text)
        elif not loop.is_closed():
            loop.call_soon_threadsafe(on_progress, text)
    return say


def _every_tenth(sent: Callable[[int, int], None]) -> Callable[[int, int], None]:
    """A byte-progress callback that passes on only each new tenth of the file (and its end)."""
    last = [-1]

    def progress(done: int, total: int) -> None:
        tenth = 10 * done // max(total, 1)
        if tenth != last[0]:
            last[0] = tenth
            sent(done, total)
    return progress


# ---------------------------------------------------------------------------- the phone's refusals in words

_GET_AGAIN = f"Download ADBKeyboard.apk again from {DOWNLOAD_PAGE} and choose that file."
_REFUSALS = {      # pm's code → what happened and what to do, after "<serial> refused to install ADB Keyboard: "
    "INSTALL_FAILED_USER_RESTRICTED": (
        "it does not allow installing apps over USB. On a Xiaomi, Redmi or POCO phone turn on Developer options › "
        "Install via USB (it may ask for a Mi account); on OPPO, realme or vivo allow the install on the phone's "
        "screen. Then try again. (A work phone may forbid installing apps altogether.)"),
    "INSTALL_CANCELED_BY_USER": (
        "the install was cancelled on the phone. Try again and allow it on the phone's screen; on a Xiaomi, Redmi "
        "or POCO phone also turn on Developer options › Install via USB."),
    "INSTALL_FAILED_ABORTED": (
        "the install was cancelled on the phone (a prompt on its screen was declined, or nobody answered it). "
        "Try again and allow the install on the phone's screen."),
    "INSTALL_FAILED_VERIFICATION_FAILURE": (
        "its app check (Play Protect, or Developer options › Verify apps over USB) blocked it. Allow the app when "
        "the phone asks, or turn that check off for a moment, then try again."),
    "INSTALL_FAILED_VERIFICATION_TIMEOUT": (
        "its app check (Play Protect) did not answer in time. Unlock the phone, check it is online, then try "
        "again."),
    "INSTALL_FAILED_UPDATE_INCOMPATIBLE": (
        "another build of ADB Keyboard, signed by someone else, is already on it. Remove that one first (the "
        "phone's Settings › Apps › ADB Keyboard › Uninstall, or `adb uninstall com.android.adbkeyboard`), then "
        "try again."),
    "INSTALL_FAILED_OLDER_SDK": (
        f"this ADB Keyboard needs a newer Android than the phone has. Download an older release from {DOWNLOAD_PAGE}."),
    "INSTALL_FAILED_DEPRECATED_SDK_VERSION": (
        f"this ADB Keyboard was built for an Android older than the phone accepts. Download the latest release "
        f"from {DOWNLOAD_PAGE}."),
    "INSTALL_FAILED_INSUFFICIENT_STORAGE": "it has no room for it. Free some space on the phone, then try again.",
    "INSTALL_FAILED_TEST_ONLY": f"this is a test build of ADB Keyboard, which phones refuse. {_GET_AGAIN}",
    "INSTALL_FAILED_NO_MATCHING_ABIS": (
        f"this build of ADB Keyboard is not made for the phone's processor. {_GET_AGAIN}"),
    "INSTALL_FAILED_INVALID_APK": f"the file is damaged. {_GET_AGAIN}",
    "INSTALL_PARSE_FAILED_NO_CERTIFICATES": f"the file is not signed (or its signature is damaged). {_GET_AGAIN}",
    "INSTALL_FAILED_INTERNAL_ERROR": "its package manager failed. Restart the phone, then try again.",
}


def install_refusal_in_words(reason: str, serial: str = "The phone") -> str:
    """Why the phone refused to install ADB Keyboard and what to do, from pm's "INSTALL_FAILED_…: detail"
    (which ends the sentence, in brackets, for whoever searches for it)."""
    code = reason.split(":")[0].strip()
    if code in _REFUSALS:
        words = _REFUSALS[code]
    elif code.startswith("INSTALL_PARSE_FAILED"):
        words = f"it could not read the file: it is damaged or incomplete. {_GET_AGAIN}"
    else:
        words = "try again; if it fails again, restart the phone."
    return f"{serial} refused to install ADB Keyboard: {words} [{reason.strip() or 'no reason given'}]"
