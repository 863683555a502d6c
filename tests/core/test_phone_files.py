"""Files onto the phone, against the virtual phone over real ADB: APKs installed (streamed to the
package manager), other files pushed into Download under a free name, and each failure in a sentence."""

from __future__ import annotations

import zipfile

import pytest

from app.core.device.apk_manifest import NotAnApk, apk_package_name
from app.core.device.phone_files import FileRefused, InstallFailed, PushFailed, install_apk, push_file, safe_name
from tests.virtual_phone.fake_apk import build_apk


@pytest.fixture
def attached(virtual_adb):
    return virtual_adb.devices[0]


def write(tmp_path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("utf8", [True, False])
def test_the_package_name_is_read_from_the_apk(tmp_path, utf8):
    path = write(tmp_path, "x.apk", build_apk("com.example.reader", utf8=utf8))
    assert apk_package_name(path) == "com.example.reader"


@pytest.mark.parametrize("data, words", [
    (b"plain text, no zip", "zip"),
    (build_apk()[:200], "zip"),
])
def test_a_file_that_is_no_apk_is_named_as_such(tmp_path, data, words):
    path = write(tmp_path, "broken.apk", data)
    with pytest.raises(NotAnApk, match="broken.apk is not an Android app") as failure:
        apk_package_name(path)
    assert words in str(failure.value)


def test_a_zip_without_a_manifest_is_no_apk(tmp_path):
    path = tmp_path / "archive.apk"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("readme.txt", "hello")
    with pytest.raises(NotAnApk, match="has no AndroidManifest.xml"):
        apk_package_name(path)


@pytest.mark.asyncio
async def test_an_apk_is_streamed_to_the_package_manager_and_installed(phone_device, attached, tmp_path):
    apk = build_apk("com.example.dropped", label="Dropped")
    seen: list[tuple[int, int]] = []
    package = await install_apk(phone_device, write(tmp_path, "dropped.apk", apk),
                                progress=lambda sent, total: seen.append((sent, total)))
    assert package == "com.example.dropped"
    assert "com.example.dropped" in attached.phone.installed_packages(third_party_only=True)
    assert ["cmd", "package", "install", "-r", "-S", str(len(apk))] in attached.command_lines()
    assert seen and seen[-1] == (len(apk), len(apk))
    assert "com.example.dropped" in await phone_device.installed_apps()


@pytest.mark.asyncio
async def test_pm_s_refusal_is_raised_with_its_reason(phone_device, attached, tmp_path):
    old = write(tmp_path, "old.apk", build_apk("com.example.strict", test_only=True))
    with pytest.raises(InstallFailed) as failure:
        await install_apk(phone_device, old)
    assert failure.value.reason.startswith("INSTALL_FAILED_TEST_ONLY")
    assert str(failure.value) == f"The phone refused to install old.apk: {failure.value.reason}"
    assert "com.example.strict" not in attached.phone.installed_packages(third_party_only=True)


@pytest.mark.asyncio
async def test_a_file_that_is_no_apk_is_refused_before_anything_is_sent(phone_device, attached, tmp_path):
    before = len(attached.command_lines())
    with pytest.raises(FileRefused, match="notes.apk is not an Android app"):
        await install_apk(phone_device, write(tmp_path, "notes.apk", b"just some notes"))
    with pytest.raises(FileRefused, match="is not a file"):
        await install_apk(phone_device, tmp_path / "missing.apk")
    assert len(attached.command_lines()) == before


@pytest.mark.asyncio
async def test_a_file_is_pushed_into_download_without_overwriting_one_there(phone_device, attached, tmp_path):
    path = write(tmp_path, "report.txt", b"first")
    assert await push_file(phone_device, path) == "/sdcard/Download/report.txt"
    path.write_bytes(b"second")
    seen: list[tuple[int, int]] = []
    second = await push_file(phone_device, path, progress=lambda sent, total: seen.append((sent, total)))
    assert second == "/sdcard/Download/report (2).txt"
    assert attached.storage.read("/sdcard/Download/report.txt") == b"first"
    assert attached.storage.read("/sdcard/Download/report (2).txt") == b"second"
    assert seen[-1] == (6, 6)


@pytest.mark.asyncio
async def test_a_big_file_gets_the_phones_reason_and_leaves_nothing(phone_device, attached, tmp_path):
    attached.storage.capacity = attached.storage.used + 100_000
    path = write(tmp_path, "movie.mp4", bytes(300_000))
    with pytest.raises(PushFailed, match=r"refused to store movie.mp4 at /sdcard/Download/movie.mp4: "
                                         r"write failed: No space left on device"):
        await push_file(phone_device, path)
    assert attached.storage.read("/sdcard/Download/movie.mp4") in (None, b"")


@pytest.mark.parametrize("name", ["..", ".", "", "a/b", "a\\b", "bad\nname", "x" * 300])
def test_names_that_would_leave_the_folder_are_refused(name):
    with pytest.raises(FileRefused):
        safe_name(name)


@pytest.mark.asyncio
async def test_a_folder_is_not_pushed(phone_device, tmp_path):
    with pytest.raises(FileRefused, match="folders cannot be sent"):
        await push_file(phone_device, tmp_path)
