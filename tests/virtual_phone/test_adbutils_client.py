"""adbutils, a client nobody here wrote, against the virtual phone: every device helper it offers
reads the phone's outputs as it reads a real phone's, on both phone generations."""

from __future__ import annotations

import datetime

import adbutils
import pytest
from PIL import Image

from app.virtual_phone.adb_server import VirtualAdbServer
from tests.virtual_phone.conftest import node_center
from tests.virtual_phone.fake_apk import build_apk

SIZES = {"android14": (1080, 2400), "android9": (720, 1280)}


@pytest.fixture(params=["android14", "android9"])
def served(request):
    """(adbutils device, the phone behind it) for each phone generation."""
    with VirtualAdbServer() as server:
        attached = server.add_phone(profile=request.param)
        client = adbutils.AdbClient(host="127.0.0.1", port=server.port)
        yield client.device(attached.serial), attached.phone


def test_window_size_and_rotation_follow_the_phone(served):
    device, phone = served
    width, height = SIZES[phone.profile.name]
    assert device.window_size() == (width, height)
    assert device.rotation() == 0
    phone.set_rotation(1)
    assert device.rotation() == 1
    assert device.window_size() == (height, width)
    device.shell("wm size 600x1000")
    phone.set_rotation(0)
    assert device.window_size() == (600, 1000)


def test_app_current_start_stop_and_clear(served):
    device, phone = served
    assert device.app_current().package == "com.android.launcher3"
    device.app_start("com.android.settings")
    current = device.app_current()
    assert current.package == "com.android.settings"
    assert current.activity in (".Settings", "com.android.settings.Settings")
    device.app_start("com.agentdesk.notes", ".NoteEditorActivity")
    assert device.app_current().activity.endswith("NoteEditorActivity")
    device.app_stop("com.agentdesk.notes")   # a task started from the shell returns to the home screen
    assert device.app_current().package == "com.android.launcher3"
    device.app_start("com.android.settings")
    device.app_clear("com.android.settings")
    assert device.app_current().package == "com.android.launcher3"
    assert not phone.apps["com.android.settings"].stack


def test_screen_battery_properties_and_packages(served):
    device, phone = served
    assert device.is_screen_on()
    device.keyevent("SLEEP")
    assert not device.is_screen_on()
    device.keyevent("WAKEUP")
    battery = device.battery()
    assert (battery.level, battery.scale, battery.usb_powered, battery.present) == (100, 100, True, True)
    assert device.getprop("ro.build.version.release") == phone.profile.release
    assert device.prop.model == phone.model
    packages = device.list_packages()
    assert "com.android.settings" in packages and packages == sorted(packages)
    assert device.list_packages(["-3"]) == ["com.agentdesk.calculator", "com.agentdesk.notes"]
    info = device.app_info("com.agentdesk.notes")
    assert (info.version_name, info.version_code) == ("1.0", 1)
    assert info.path.endswith("/base.apk") and info.first_install_time is not None
    assert device.app_info("com.nope") is None


def test_install_launch_and_uninstall_an_apk(served, tmp_path):
    device, phone = served
    apk = tmp_path / "shop.apk"
    apk.write_bytes(build_apk("com.example.shop", version_code=12, version_name="1.2", label="Shop",
                              min_sdk=24 if phone.profile.sdk < 29 else 26))
    device.install(str(apk), silent=True)
    info = device.app_info("com.example.shop")
    assert (info.version_name, info.version_code) == ("1.2", 12)
    assert abs(info.last_update_time - datetime.datetime.now()) < datetime.timedelta(minutes=5)
    device.app_start("com.example.shop")
    assert device.app_current().package == "com.example.shop"
    # The APK is where `pm path` says (as Appium's pullApk expects), readable though /data/app is not listable.
    apk_path = device.shell("pm path com.example.shop").strip().removeprefix("package:")
    pulled = tmp_path / "pulled.apk"
    device.sync.pull(apk_path, pulled)
    assert pulled.read_bytes() == apk.read_bytes()
    device.uninstall("com.example.shop")
    assert "com.example.shop" not in device.list_packages()
    assert device.shell2(f"ls {apk_path}").returncode != 0
    assert device.app_current().package == "com.android.launcher3"


def test_a_corrupt_apk_raises_the_install_error(served, tmp_path):
    device, _ = served
    apk = tmp_path / "broken.apk"
    apk.write_bytes(b"this is not a zip file" * 50)
    with pytest.raises(adbutils.AdbInstallError) as failure:
        device.install(str(apk), silent=True)
    assert "INSTALL_PARSE_FAILED_NOT_APK" in str(failure.value)


def test_click_swipe_keys_text_and_screenshot(served):
    device, phone = served
    x, y = node_center(phone, desc="Notes")
    device.click(x, y)
    assert phone.foreground()[0] == "com.agentdesk.notes"
    width, height = SIZES[phone.profile.name]
    device.swipe(width // 2, height * 3 // 4, width // 2, height // 4, 0.2)
    device.keyevent("BACK")
    device.app_start("com.agentdesk.notes", ".NoteEditorActivity")
    device.send_keys("hello")
    assert "hello" in [f.text for f in phone.foreground_app.top.fields.values()]
    image = device.screenshot()
    assert isinstance(image, Image.Image) and image.size == SIZES[phone.profile.name]


def test_shell2_carries_exit_codes_and_stderr(served):
    device, _ = served
    ok = device.shell2("getprop ro.build.version.sdk")
    assert ok.returncode == 0 and ok.output.strip().isdigit()
    failed = device.shell2("am start -n com.android.settings/.Nope")
    assert failed.returncode == 0 and "Error type 3" in failed.output   # am reports and still exits 0
    refused = device.shell2(["pm", "uninstall", "com.nope"])
    assert refused.returncode == 1 and "Failure [DELETE_FAILED_INTERNAL_ERROR]" in refused.output


def test_wlan_ip_is_there_while_wifi_is_on(served):
    device, _ = served
    device.switch_wifi(True)
    assert device.wlan_ip() == "192.168.1.42"
    device.switch_wifi(False)
    with pytest.raises(adbutils.AdbError):
        device.wlan_ip()
