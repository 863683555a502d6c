"""The scrcpy server file: shipped as package data, the pinned release, and refused when altered."""

from __future__ import annotations

import hashlib
import shutil
from importlib.resources import files

import pytest

from app.core import scrcpy_server_file
from app.core.scrcpy_server_file import (
    RESOURCE_FOLDER,
    SERVER_FILE_NAME,
    SERVER_SHA256,
    SERVER_VERSION,
    ServerFileError,
    check_server_bytes,
    server_file,
    verified_server_bytes,
)


def test_the_pinned_server_is_shipped_and_its_digest_matches():
    path = server_file()
    assert path.is_file() and path.name == f"scrcpy-server-v{SERVER_VERSION}"
    data = path.read_bytes()
    assert data[:2] == b"PK"                       # an Android package (a zip holding classes.dex)
    assert hashlib.sha256(data).hexdigest() == SERVER_SHA256
    assert verified_server_bytes() == data


def test_it_is_reachable_through_importlib_resources_with_its_licence_and_notice():
    folder = files("app.resources") / RESOURCE_FOLDER
    assert folder.joinpath(SERVER_FILE_NAME).read_bytes() == verified_server_bytes()
    assert "Apache License" in folder.joinpath("LICENSE").read_text(encoding="utf-8")
    notice = folder.joinpath("NOTICE").read_text(encoding="utf-8")
    assert SERVER_VERSION in notice and SERVER_SHA256 in notice     # the NOTICE states what the code pins


@pytest.mark.parametrize("alter", [
    pytest.param(lambda data: data[:100] + bytes([data[100] ^ 1]) + data[101:], id="one bit flipped"),
    pytest.param(lambda data: data[: len(data) // 2], id="truncated"),
    pytest.param(lambda data: data + b"\0", id="one byte appended"),
    pytest.param(lambda data: b"", id="emptied"),
])
def test_an_altered_copy_is_refused_with_a_clear_error(tmp_path, alter):
    altered = tmp_path / SERVER_FILE_NAME
    altered.write_bytes(alter(server_file().read_bytes()))
    with pytest.raises(ServerFileError) as refused:
        verified_server_bytes(altered)
    message = str(refused.value)
    assert f"not scrcpy's {SERVER_VERSION} release" in message and "not pushed to the phone" in message
    assert hashlib.sha256(altered.read_bytes()).hexdigest() in message and SERVER_SHA256 in message
    assert str(altered) in message                  # says which file


def test_an_unaltered_copy_is_accepted(tmp_path):
    copy = tmp_path / "elsewhere"
    shutil.copyfile(server_file(), copy)
    assert verified_server_bytes(copy) == copy.read_bytes()
    assert check_server_bytes(copy.read_bytes()) == copy.read_bytes()


def test_a_missing_bundled_file_is_reported_not_crashed(tmp_path, monkeypatch):
    monkeypatch.setattr(scrcpy_server_file, "server_resource", lambda: tmp_path / SERVER_FILE_NAME)
    with pytest.raises(ServerFileError, match="is missing from this installation"):
        verified_server_bytes()
    with pytest.raises(ServerFileError, match="is missing from this installation"):
        server_file()


def test_the_bundled_file_altered_in_place_is_refused(tmp_path, monkeypatch):
    """The check reads the file afresh each time: one replaced while the app runs is caught too."""
    planted = tmp_path / SERVER_FILE_NAME
    planted.write_bytes(b"PK\x03\x04 not the scrcpy server")
    monkeypatch.setattr(scrcpy_server_file, "server_resource", lambda: planted)
    with pytest.raises(ServerFileError, match=f"is not scrcpy's {SERVER_VERSION} release"):
        verified_server_bytes()


def test_an_unreadable_file_is_reported(tmp_path):
    with pytest.raises(ServerFileError, match="could not be read"):
        verified_server_bytes(tmp_path)             # a folder where the file should be
