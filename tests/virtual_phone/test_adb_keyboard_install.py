"""ADB Keyboard installed from its APK on the virtual phone behaves as on a real one, and as the
phone started with `--adb-keyboard` does: `ime list -a` lists it once an APK declares the input
method service, `ime enable` turns it on (and fails for an id no APK declares), and its broadcasts
type any text once it is the current keyboard. Checked with Debian's `adb` too: a client nobody here wrote."""

from __future__ import annotations

import base64
import shutil
import subprocess

import pytest

from app.virtual_phone.adb_server import VirtualAdbServer
from app.virtual_phone.attached_device import AttachedDevice
from tests.support.adb_keyboard_apk import IME, PACKAGE, adb_keyboard_apk, write_adb_keyboard_apk
from tests.virtual_phone.conftest import UI, new_phone
from tests.virtual_phone.program_runner import attached, sh

LATIN = "com.android.inputmethod.latin/.LatinIME"
STAGED = "/data/local/tmp/ADBKeyboard.apk"


def install(device, data: bytes, flags: str = "") -> bytes:
    assert device.storage.write(STAGED, data)
    return sh(device, f"pm install {flags} {STAGED}".replace("  ", " ")).stdout


def words(result) -> list[str]:
    return result.stdout.decode().split()


def test_an_ime_id_no_installed_apk_declares_cannot_be_enabled_as_on_a_real_phone():
    device = attached()
    refused = sh(device, f"ime enable {IME}")
    assert refused.code == 255 and refused.stdout == b""
    assert refused.stderr == f"Unknown input method {IME} cannot be enabled for user #0\n".encode()
    log = sh(device, "logcat -d -b system -s InputMethodManagerService").stdout.decode()
    assert f'"ime enable {IME}" for user #0 failed due to its unrecognized IME ID.' in log
    assert words(sh(device, "ime list -a -s")) == [LATIN]
    assert sh(device, f"ime set {IME}").code == 255


def test_installing_the_apk_lists_it_and_enable_turns_it_on():
    device = attached()
    assert install(device, adb_keyboard_apk()) == b"Success\n"
    assert words(sh(device, "ime list -a -s")) == [LATIN, IME]
    assert words(sh(device, "ime list -s")) == [LATIN], "installed, not yet enabled (as on a real phone)"
    assert sh(device, f"ime enable {IME}").stdout == f"Input method {IME}: now enabled for user #0\n".encode()
    assert words(sh(device, "ime list -s")) == [LATIN, IME]
    assert sh(device, "settings get secure default_input_method").stdout.decode().strip() == LATIN
    assert device.phone.adb_keyboard_installed
    assert f"package:{PACKAGE}" in words(sh(device, "pm list packages -3"))


def test_installed_it_answers_ime_as_the_preinstalled_one_does():
    installed = attached()
    preinstalled = AttachedDevice(new_phone(adb_keyboard_installed=True), transport_id=2)   # --adb-keyboard
    install(installed, adb_keyboard_apk())
    sh(installed, f"ime enable {IME}")
    for line in ("ime list -s", "ime list -a -s", "ime list -a", f"ime enable {IME}", f"ime set {IME}",
                 "settings get secure enabled_input_methods", "settings get secure default_input_method"):
        assert sh(installed, line).stdout == sh(preinstalled, line).stdout, line


def test_its_broadcast_types_any_text_once_it_is_the_keyboard():
    device = attached()
    phone, ui = device.phone, UI(device.phone)
    install(device, adb_keyboard_apk())
    ui.tap(text="Notes")
    ui.tap(desc="New note")
    b64 = base64.b64encode("café 日本".encode()).decode()
    sh(device, f"am broadcast -a ADB_INPUT_B64 --es msg {b64}")
    assert phone.state()["focused_text"] == "", "not the current keyboard yet: the broadcast is ignored"
    sh(device, f"ime enable {IME} >/dev/null; ime set {IME}")
    sh(device, f"am broadcast -a ADB_INPUT_B64 --es msg {b64}")
    sh(device, "am broadcast -a ADB_INPUT_TEXT --es msg ' ok'")
    assert phone.state()["focused_text"] == "café 日本 ok"
    assert ui.find(text="ADB Keyboard {ON}") is not None      # its bar replaces the keys, as the preinstalled one's


def test_uninstalling_takes_it_off_the_lists_and_back_to_the_phones_keyboard():
    device = attached()
    install(device, adb_keyboard_apk())
    sh(device, f"ime enable {IME}; ime set {IME}")
    assert sh(device, f"pm uninstall {PACKAGE}").stdout == b"Success\n"
    assert words(sh(device, "ime list -a -s")) == [LATIN]
    assert sh(device, "settings get secure default_input_method").stdout.decode().strip() == LATIN
    assert not device.phone.adb_keyboard_installed
    assert sh(device, f"ime enable {IME}").code == 255


def test_android_14_refuses_an_old_target_unless_the_install_bypasses_the_block():
    device = attached()
    old = adb_keyboard_apk(target_sdk=19)
    assert install(device, old) == (b"Failure [INSTALL_FAILED_DEPRECATED_SDK_VERSION: App package must target at "
                                    b"least SDK version 23, but found 19]\n")
    assert install(device, old, "--bypass-low-target-sdk-block") == b"Success\n"
    assert IME in words(sh(device, "ime list -a -s"))


def test_install_via_usb_turned_off_refuses_every_install_as_miui_does():
    device = attached()
    device.phone.system.properties["persist.security.adbinstall"] = "0"
    assert install(device, adb_keyboard_apk()) == (b"Failure [INSTALL_FAILED_USER_RESTRICTED: Install canceled by "
                                                   b"user]\n")
    assert words(sh(device, "ime list -a -s")) == [LATIN]


@pytest.mark.skipif(shutil.which("adb") is None, reason="Debian's adb client is not installed (apt-get install adb)")
def test_debian_adb_installs_it_and_its_shell_lists_the_keyboard(tmp_path):
    apk = write_adb_keyboard_apk(tmp_path)
    with VirtualAdbServer() as server:
        server.add_phone()

        def adb(*args: str) -> subprocess.CompletedProcess:
            return subprocess.run(["adb", "-P", str(server.port), *args], capture_output=True, text=True, timeout=60)
        refused = adb("shell", "ime", "enable", IME)
        assert f"Unknown input method {IME} cannot be enabled for user #0" in refused.stdout + refused.stderr
        installed = adb("install", str(apk))
        assert installed.returncode == 0 and "Success" in installed.stdout, installed.stdout + installed.stderr
        assert adb("shell", "ime list -a -s").stdout.split() == [LATIN, IME]
        assert adb("shell", "ime", "enable", IME).stdout.strip() == f"Input method {IME}: now enabled for user #0"
        assert adb("shell", "ime list -s").stdout.split() == [LATIN, IME]
