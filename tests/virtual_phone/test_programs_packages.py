"""`pm` / `cmd package` on the virtual phone: installing real APK files (built here as aapt would),
listing, resolving, launching and removing them, with the phone's own messages and exit codes."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess

import adbutils
import pytest

from app.virtual_phone.adb_server import VirtualAdbServer
from app.virtual_phone.apk import ApkError, read_apk
from app.virtual_phone.attached_device import AttachedDevice
from app.virtual_phone.programs import run_program
from tests.virtual_phone.conftest import find_node
from tests.virtual_phone.fake_apk import build_apk
from tests.virtual_phone.program_runner import attached, sh

PUSHED = "/data/local/tmp/demo.apk"


def push(device: AttachedDevice, data: bytes, path: str = PUSHED) -> None:
    assert device.storage.write(path, data)


@pytest.fixture
def device() -> AttachedDevice:
    return attached()


@pytest.mark.parametrize("utf8", [True, False])
def test_the_manifest_is_read_from_binary_xml_in_either_string_encoding(utf8):
    apk = build_apk("com.example.reader", utf8=utf8, version_code=42, version_name="4.2.0", label="Reader",
                    min_sdk=26, target_sdk=33, permissions=("android.permission.CAMERA",),
                    activities=((".Main", True), (".Hidden", False)))
    info = read_apk(apk, "/data/app/vmdl1.tmp/base.apk")
    assert (info.package, info.version_code, info.version_name) == ("com.example.reader", 42, "4.2.0")
    assert info.label == "Reader"
    assert (info.min_sdk, info.target_sdk, info.permissions) == (26, 33, ("android.permission.CAMERA",))
    assert info.launcher_activity == "com.example.reader.Main"
    assert [a.exported for a in info.activities] == [True, False]


@pytest.mark.parametrize("data, code", [
    (b"", "INSTALL_PARSE_FAILED_NOT_APK"),
    (b"PK\x03\x04 this is not really a zip", "INSTALL_PARSE_FAILED_NOT_APK"),
    (build_apk()[:200], "INSTALL_PARSE_FAILED_NOT_APK"),
    (build_apk(signed=False), "INSTALL_PARSE_FAILED_NO_CERTIFICATES"),
], ids=["empty", "zip-magic-only", "cut-off-apk", "unsigned-apk"])     # the built apks hold the time: no ids from them
def test_a_file_that_is_not_a_signed_apk_is_refused_with_the_parse_error(data, code):
    with pytest.raises(ApkError) as failure:
        read_apk(data, "/data/app/vmdl7.tmp/base.apk")
    assert failure.value.code == code
    assert "/data/app/vmdl7.tmp/base.apk" in failure.value.message


def test_install_from_a_pushed_file_then_list_path_and_dump(device):
    push(device, build_apk("com.example.demo", version_code=7, version_name="1.7", label="Demo"))
    result = sh(device, f"pm install -r -t -g {PUSHED}")
    assert (result.stdout, result.code) == (b"Success\n", 0)
    assert b"package:com.example.demo\n" in sh(device, "pm list packages -3").stdout
    assert b"com.example.demo" not in sh(device, "pm list packages -s").stdout
    path = sh(device, "pm path com.example.demo").stdout.decode()
    assert re.fullmatch(r"package:/data/app/~~[\w-]{22}==/com\.example\.demo-[\w-]{22}==/base\.apk\n", path)
    dump = sh(device, "dumpsys package com.example.demo").stdout.decode()
    assert re.search(r"^  Package \[com\.example\.demo\] \(\w+\):$", dump, re.M)
    assert "versionCode=7 minSdk=21 targetSdk=34" in dump and "versionName=1.7" in dump
    assert re.search(r"firstInstallTime=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", dump)
    assert sh(device, "pm dump com.example.demo").stdout.decode() == dump


def test_install_streamed_on_stdin_with_a_size(device):
    apk = build_apk("com.example.streamed")
    result = run_program(device, ["cmd", "package", "install", "-S", str(len(apk))], apk)
    assert (result.stdout, result.code) == (b"Success\n", 0)
    push(device, apk, "/data/local/tmp/s.apk")
    piped = sh(device, f"cat /data/local/tmp/s.apk | pm install -S {len(apk)}")
    assert piped.stdout == b"Success\n"   # an update of the same package, read from a pipe


def test_install_without_a_file_or_size_and_with_a_missing_file(device):
    assert sh(device, "pm install").stderr == b"Error: must either specify a package size or an APK file\n"
    missing = sh(device, "pm install /sdcard/nope.apk")
    assert missing.code == 255
    assert missing.stderr.startswith(b"Error: Unable to open file: /sdcard/nope.apk\n"
                                     b"Consider using a file under /data/local/tmp/\n")
    assert b"java.lang.IllegalArgumentException: Error: Can't open file: /sdcard/nope.apk" in missing.stderr


def test_a_corrupt_file_fails_as_the_phone_prints_it(device):
    push(device, b"\x00garbage" * 100)
    result = sh(device, f"pm install -r -t {PUSHED}")
    assert result.code == 1
    assert re.fullmatch(rb"Failure \[INSTALL_PARSE_FAILED_NOT_APK: Failed to parse (/data/app/vmdl\d+\.tmp/base\.apk): "
                        rb"Failed to load asset path \1\]\n", result.stdout)


@pytest.mark.parametrize("profile, min_sdk", [("android14", 35), ("android9", 29)])
def test_an_app_for_a_newer_android_is_refused(profile, min_sdk):
    device = attached(profile)
    push(device, build_apk(min_sdk=min_sdk))
    result = sh(device, f"pm install {PUSHED}")
    current = 34 if profile == "android14" else 28
    assert result.code == 1
    assert re.fullmatch(rf"Failure \[INSTALL_FAILED_OLDER_SDK: Failed parse during installPackageLI: "
                        rf"/data/app/vmdl\d+\.tmp/base\.apk \(at Binary XML file line #\d+\): Requires newer sdk "
                        rf"version #{min_sdk} \(current version is #{current}\)\]\n", result.stdout.decode())
    assert b"com.example.demo" not in sh(device, "pm list packages").stdout


def test_test_only_apps_need_t_and_downgrades_need_d(device):
    push(device, build_apk(test_only=True))
    assert sh(device, f"pm install {PUSHED}").stdout == b"Failure [INSTALL_FAILED_TEST_ONLY: installPackageLI]\n"
    assert sh(device, f"pm install -t {PUSHED}").stdout == b"Success\n"
    push(device, build_apk(version_code=5))
    assert sh(device, f"pm install {PUSHED}").stdout == b"Success\n"
    push(device, build_apk(version_code=3))
    assert sh(device, f"pm install {PUSHED}").stdout == (
        b"Failure [INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected: Update version code 3 is older than "
        b"current 5]\n")
    assert sh(device, f"pm install -d {PUSHED}").stdout == b"Success\n"
    assert b"versionCode=3 " in sh(device, "dumpsys package com.example.demo").stdout


def test_an_app_signed_by_someone_else_cannot_replace_a_built_in_one(device):
    push(device, build_apk("com.android.settings"))
    assert sh(device, f"pm install -r {PUSHED}").stdout == (
        b"Failure [INSTALL_FAILED_UPDATE_INCOMPATIBLE: Package com.android.settings signatures do not match "
        b"previously installed version; ignoring!]\n")


def test_an_installed_app_launches_on_a_plain_screen_with_its_label(device):
    push(device, build_apk("com.example.demo", label="Demo Shop"))
    sh(device, f"pm install {PUSHED}")
    result = sh(device, "monkey -p com.example.demo -c android.intent.category.LAUNCHER 1")
    assert result.code == 0 and b"Events injected: 1\n" in result.stdout
    assert device.phone.foreground() == ("com.example.demo", "com.example.demo.MainActivity")
    assert find_node(device.phone, text="Demo Shop", package="com.example.demo") is not None
    sh(device, "input keyevent KEYCODE_HOME")
    started = sh(device, "am start -n com.example.demo/.MainActivity")
    assert started.stdout.startswith(b"Starting: Intent { cmp=com.example.demo/.MainActivity }\n")
    assert device.phone.foreground()[0] == "com.example.demo"


def test_uninstall_removes_the_app_and_a_second_time_fails(device):
    push(device, build_apk("com.example.demo"))
    sh(device, f"pm install {PUSHED}")
    sh(device, "monkey -p com.example.demo 1")
    removed = sh(device, "pm uninstall com.example.demo")
    assert (removed.stdout, removed.code) == (b"Success\n", 0)
    assert device.phone.foreground()[0] == "com.android.launcher3"
    again = sh(device, "pm uninstall -k com.example.demo")
    assert (again.stdout, again.code) == (b"Failure [DELETE_FAILED_INTERNAL_ERROR]\n", 1)
    assert sh(device, "pm path com.example.demo").code == 1
    assert b"No activities found to run" in sh(device, "monkey -p com.example.demo 1").stderr
    assert sh(device, "pm uninstall com.android.settings").stdout == b"Failure [DELETE_FAILED_INTERNAL_ERROR]\n"


def test_list_packages_flags_and_filter(device):
    listing = sh(device, "pm list packages -f -i -U --show-versioncode notes").stdout.decode()
    assert re.fullmatch(r"package:/data/app/\S+/base\.apk=com\.agentdesk\.notes versionCode:1  installer=null "
                        r"uid:\d{5}\n", listing)
    framework = sh(device, "pm list packages -f android").stdout.decode()
    assert "package:/system/framework/framework-res.apk=android\n" in framework
    every = sh(device, "cmd package list packages").stdout.decode().splitlines()
    assert every == sorted(every) and "package:com.android.settings" in every
    assert sh(device, "pm list packages -z").stdout == b"Error: Unknown option: -z\n"


def test_clear_grant_and_revoke(device):
    push(device, build_apk("com.example.demo", permissions=("android.permission.CAMERA",
                                                            "android.permission.INTERNET")))
    sh(device, f"pm install {PUSHED}")
    granted = r"android\.permission\.CAMERA: granted=(\w+)"
    assert re.search(granted, sh(device, "dumpsys package com.example.demo").stdout.decode()).group(1) == "false"
    assert sh(device, "pm grant com.example.demo android.permission.CAMERA").code == 0
    assert re.search(granted, sh(device, "dumpsys package com.example.demo").stdout.decode()).group(1) == "true"
    refused = sh(device, "pm grant com.example.demo android.permission.INTERNET")
    assert refused.code == 255
    assert b"java.lang.SecurityException: Permission android.permission.INTERNET" in refused.stderr
    unknown = sh(device, "pm revoke com.nope android.permission.CAMERA")
    assert b"java.lang.IllegalArgumentException: Unknown package: com.nope" in unknown.stderr
    assert sh(device, "pm clear com.example.demo").stdout == b"Success\n"
    assert re.search(granted, sh(device, "dumpsys package com.example.demo").stdout.decode()).group(1) == "false"
    assert (sh(device, "pm clear com.nope").stderr, sh(device, "pm clear com.nope").code) == (b"Failed\n", 1)


def test_resolve_activity_in_the_format_appium_and_uiautomator2_parse(device):
    brief = sh(device, "cmd package resolve-activity --brief -c android.intent.category.LAUNCHER com.agentdesk.notes")
    assert brief.stdout == (b"priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n"
                            b"com.agentdesk.notes/.NotesListActivity\n")
    assert sh(device, "cmd package resolve-activity --brief com.nope").stdout == b"No activity found\n"
    wifi = sh(device, "cmd package resolve-activity --components -a android.settings.WIFI_SETTINGS")
    assert wifi.stdout == b"com.android.settings/.Settings$WifiSettingsActivity\n"


def test_an_installed_input_method_can_be_enabled_and_selected(device):
    push(device, build_apk("com.example.ime", input_method=".KeyboardService"))
    sh(device, f"pm install {PUSHED}")
    ime = "com.example.ime/.KeyboardService"
    assert ime in sh(device, "ime list -a -s").stdout.decode().split()
    assert ime not in sh(device, "ime list -s").stdout.decode().split()   # installed, not yet enabled
    assert sh(device, f"ime set {ime}").code == 255
    assert sh(device, f"ime enable {ime}").stdout == f"Input method {ime}: now enabled for user #0\n".encode()
    assert sh(device, f"ime set {ime}").stdout == f"Input method {ime} selected for user #0\n".encode()
    sh(device, "pm uninstall com.example.ime")
    assert sh(device, "settings get secure default_input_method").stdout == b"com.android.inputmethod.latin/.LatinIME\n"


def _exec_reads_stdin(device) -> bool:
    """Whether the server hands what a client writes to `exec:` to the command (the lead's stdin work)."""
    connection = device.open_transport()
    connection.send_command("exec:cat")
    connection.check_okay()
    connection.conn.sendall(b"ping")
    connection.conn.shutdown(socket.SHUT_WR)
    echoed = connection.read_until_close(encoding=None)
    connection.close()
    return echoed == b"ping"


@pytest.mark.skipif(shutil.which("adb") is None, reason="Debian's adb client is not installed")
def test_debian_adb_install_streams_the_apk_to_cmd_package(tmp_path):
    apk = tmp_path / "streamed.apk"
    apk.write_bytes(build_apk("com.example.streamed", label="Streamed"))
    with VirtualAdbServer() as server:
        attached_phone = server.add_phone()
        client = adbutils.AdbClient(host="127.0.0.1", port=server.port)
        if not _exec_reads_stdin(client.device(attached_phone.serial)):
            pytest.skip("the virtual ADB server does not deliver stdin to exec: services yet")
        installed = subprocess.run(["adb", "-P", str(server.port), "install", "-r", str(apk)],
                                   capture_output=True, timeout=60)
        assert installed.returncode == 0, installed.stderr
        assert b"Success" in installed.stdout
        assert ["cmd", "package", "install", "-r", "-S", str(apk.stat().st_size)] in attached_phone.command_lines()
        assert "com.example.streamed" in attached_phone.phone.installed_packages(third_party_only=True)
