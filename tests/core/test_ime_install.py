"""Installing ADB Keyboard from an APK file with the core (`install_adb_keyboard`), against the virtual
phone through real adbutils: it turns typing "café" from refused into typed, and every refusal says
why in words."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from app.core.device.adb_transport import AdbTransport
from app.core.device.android_device import AndroidDevice
from app.core.device.errors import DeviceError, TextInputUnsupported
from app.core.device.ime_install import (
    KeyboardInstallRefused,
    KeyboardNotEnabled,
    NotAdbKeyboard,
    install_adb_keyboard,
    install_refusal_in_words,
)
from app.virtual_phone.adb_server import VirtualAdbServer
from tests.core.test_android_device import focus_new_note_title
from tests.support.adb_keyboard_apk import IME, PACKAGE, write_adb_keyboard_apk
from tests.virtual_phone.fake_apk import build_apk

pytestmark = pytest.mark.asyncio
LATIN = "com.android.inputmethod.latin/.LatinIME"


def phone_of(virtual_adb):
    return virtual_adb.devices[0]


async def enabled_imes(device: AndroidDevice) -> list[str]:
    return (await device.shell("ime list -s")).split()


async def test_installing_turns_a_refused_cafe_into_a_typed_one(phone_device, virtual_adb, tmp_path):
    attached = phone_of(virtual_adb)
    await focus_new_note_title(phone_device)
    with pytest.raises(TextInputUnsupported, match="More › Install ADB Keyboard…"):
        await phone_device.type_text("café")
    assert IME not in await enabled_imes(phone_device)

    said: list[tuple[str, bool]] = []
    loop_thread = threading.get_ident()
    done = await install_adb_keyboard(phone_device, write_adb_keyboard_apk(tmp_path),
                                      lambda text: said.append((text, threading.get_ident() == loop_thread)))
    assert done.startswith(f"Installed ADB Keyboard (ADBKeyboard.apk) on {attached.serial} and turned it on.")
    assert said and all(on_loop for _text, on_loop in said), "progress is reported on the caller's loop"
    texts = [text for text, _ in said]
    assert texts[0] == "Checking ADBKeyboard.apk…" and texts[-1] == "Turning ADB Keyboard on…"
    assert any("is installing ADB Keyboard" in text for text in texts)
    assert await enabled_imes(phone_device) == [LATIN, IME]
    assert attached.phone.current_ime == LATIN, "not made the default keyboard"
    assert (await phone_device.shell("settings get secure default_input_method")).strip() == LATIN

    await phone_device.type_text("café")
    assert attached.phone.state()["focused_text"] == "café"
    assert attached.phone.current_ime == LATIN, "typing switched back to the phone's own keyboard"


async def test_a_file_that_is_no_apk_is_refused_before_anything_is_sent(phone_device, virtual_adb, tmp_path):
    notes = tmp_path / "ADBKeyboard.apk"
    notes.write_text("<html>Not Found</html>")       # a download that went wrong
    with pytest.raises(NotAdbKeyboard) as refused:
        await install_adb_keyboard(phone_device, notes)
    assert str(refused.value).startswith("ADBKeyboard.apk is not an Android app (an APK is a zip file)")
    assert "github.com/senzhk/ADBKeyBoard/releases" in str(refused.value)
    assert isinstance(refused.value, DeviceError)
    missing = tmp_path / "gone.apk"
    with pytest.raises(NotAdbKeyboard, match="gone.apk is not a file"):
        await install_adb_keyboard(phone_device, missing)
    ran = [argv[:2] for argv in phone_of(virtual_adb).command_lines()]
    assert ["cmd", "package"] not in ran and ["pm", "install"] not in ran


async def test_an_apk_of_another_app_is_refused_with_its_name(phone_device, virtual_adb, tmp_path):
    other = tmp_path / "ADBKeyboard.apk"
    other.write_bytes(build_apk("com.example.lookalike", input_method=".AdbIME"))
    with pytest.raises(NotAdbKeyboard) as refused:
        await install_adb_keyboard(phone_device, other)
    assert str(refused.value).startswith("ADBKeyboard.apk is another app (com.example.lookalike), not ADB Keyboard "
                                         "(com.android.adbkeyboard); nothing was installed.")
    assert "com.example.lookalike" not in phone_of(virtual_adb).phone.installed_packages()


async def test_a_phone_that_forbids_installing_over_usb_says_where_the_setting_is(phone_device, virtual_adb,
                                                                                 tmp_path):
    phone_of(virtual_adb).phone.system.properties["persist.security.adbinstall"] = "0"   # MIUI: Install via USB off
    with pytest.raises(KeyboardInstallRefused) as refused:
        await install_adb_keyboard(phone_device, write_adb_keyboard_apk(tmp_path))
    message = str(refused.value)
    assert refused.value.reason == "INSTALL_FAILED_USER_RESTRICTED: Install canceled by user"
    assert "does not allow installing apps over USB" in message and "Install via USB" in message
    assert "Failure [INSTALL_FAILED_USER_RESTRICTED" in refused.value.output      # the phone's words, for Details
    assert PACKAGE not in phone_of(virtual_adb).phone.installed_packages()


async def test_another_signers_keyboard_already_installed_is_named_with_the_way_out(tmp_path):
    with VirtualAdbServer() as server:
        attached = server.add_phone(adb_keyboard_installed=True)     # a build signed by someone else
        device = AndroidDevice(AdbTransport("127.0.0.1", server.port), attached.serial)
        with pytest.raises(KeyboardInstallRefused) as refused:
            await install_adb_keyboard(device, write_adb_keyboard_apk(tmp_path))
    assert refused.value.reason.startswith("INSTALL_FAILED_UPDATE_INCOMPATIBLE")
    message = str(refused.value)
    assert "signed by someone else" in message and "adb uninstall com.android.adbkeyboard" in message


async def test_a_build_for_an_old_android_goes_in_with_android_14s_allowance(phone_device, virtual_adb, tmp_path):
    said: list[str] = []
    done = await install_adb_keyboard(phone_device, write_adb_keyboard_apk(tmp_path, target_sdk=19), said.append)
    assert done.startswith("Installed ADB Keyboard")
    assert any("built for an old Android" in text for text in said)
    lines = phone_of(virtual_adb).command_lines()
    assert any(argv[:4] == ["pm", "install", "-r", "--bypass-low-target-sdk-block"] for argv in lines)
    assert IME in await enabled_imes(phone_device)


async def test_a_newer_keyboard_on_the_phone_is_kept_and_turned_on(phone_device, tmp_path):
    await install_adb_keyboard(phone_device, write_adb_keyboard_apk(tmp_path, "new.apk", version_code=5))
    await phone_device.shell(f"ime disable {IME}")
    done = await install_adb_keyboard(phone_device, write_adb_keyboard_apk(tmp_path, "old.apk", version_code=2))
    assert "already had a newer ADB Keyboard: kept it and turned it on" in done
    assert IME in await enabled_imes(phone_device)


async def test_a_build_without_the_keyboard_service_installs_but_is_not_turned_on(phone_device, tmp_path):
    with pytest.raises(KeyboardNotEnabled) as refused:
        await install_adb_keyboard(phone_device, write_adb_keyboard_apk(tmp_path, input_method=None))
    message = str(refused.value)
    assert "ADB Keyboard was installed on emulator-5554, but the phone would not turn it on (it said: Unknown " \
           "input method com.android.adbkeyboard/.AdbIME cannot be enabled for user #0)" in message
    assert "Languages & input" in message


async def test_the_install_leaves_the_loop_free(phone_device, tmp_path, monkeypatch):
    """Blocking ADB work runs in worker threads: the loop keeps ticking while a slow phone answers."""
    transport = phone_device.transport
    for name in ("run", "open_service"):
        blocking = getattr(transport, name)

        def slow(*args, blocking=blocking, **kwargs):
            time.sleep(0.1)                   # a slow phone, on whatever thread called
            return blocking(*args, **kwargs)
        monkeypatch.setattr(transport, name, slow)
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.005)
    ticker = asyncio.ensure_future(tick())
    started = time.monotonic()
    try:
        await install_adb_keyboard(phone_device, write_adb_keyboard_apk(tmp_path))
    finally:
        ticker.cancel()
    took = time.monotonic() - started
    assert took >= 0.3 and ticks >= took / 0.005 / 4, (took, ticks)


@pytest.mark.parametrize("reason, words", [
    ("INSTALL_FAILED_USER_RESTRICTED: Install canceled by user", "Developer options › Install via USB"),
    ("INSTALL_CANCELED_BY_USER", "allow it"),
    ("INSTALL_FAILED_INSUFFICIENT_STORAGE", "Free some space on the phone"),
    ("INSTALL_FAILED_OLDER_SDK: Requires newer sdk version #35 (current version is #28)", "needs a newer Android"),
    ("INSTALL_PARSE_FAILED_NOT_APK: Failed to parse /data/app/vmdl1.tmp/base.apk", "damaged or incomplete"),
    ("INSTALL_PARSE_FAILED_NO_CERTIFICATES: Failed to collect certificates", "not signed"),
    ("INSTALL_FAILED_SOMETHING_NEW", "try again; if it fails again, restart the phone"),
])
async def test_each_refusal_is_put_in_words(reason, words):
    sentence = install_refusal_in_words(reason, "R58M123")
    assert sentence.startswith("R58M123 refused to install ADB Keyboard: ") and sentence.endswith(f"[{reason}]")
    assert words in sentence
