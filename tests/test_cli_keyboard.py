"""agentdesk keyboard install APK: ADB Keyboard onto a phone from the terminal, in words."""

from __future__ import annotations

from app.cli import main
from tests.support.adb_keyboard_apk import IME, write_adb_keyboard_apk
from tests.virtual_phone.fake_apk import build_apk


def test_keyboard_install_installs_and_turns_it_on(virtual_adb, tmp_path, capsys):
    apk = write_adb_keyboard_apk(tmp_path)
    serial = virtual_adb.devices[0].serial
    assert main(["keyboard", "install", str(apk), "--device", serial]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"Installed ADB Keyboard (ADBKeyboard.apk) on {serial} and turned it on.")
    assert "Checking ADBKeyboard.apk…" in err and "Turning ADB Keyboard on…" in err     # progress on stderr
    phone = virtual_adb.devices[0].phone
    assert IME in phone.ime_ids and IME in phone.get_setting("secure", "enabled_input_methods")


def test_keyboard_install_refuses_another_app_and_names_a_missing_phone(virtual_adb, tmp_path, capsys):
    other = tmp_path / "other.apk"
    other.write_bytes(build_apk("com.example.other"))
    assert main(["keyboard", "install", str(other)]) == 3
    assert "error: other.apk is another app (com.example.other), not ADB Keyboard" in capsys.readouterr().err
    assert main(["keyboard", "install", str(other), "--serial", "R58M-NOPE"]) == 3     # the old name still works
    err = capsys.readouterr().err
    assert "Phone R58M-NOPE is not connected" in err and "--serial is now called --device" in err
