"""The phone lock is per machine (issue 25 §5): not in the data folder, one server under two names, and a
lock folder another user could tamper with is refused with a sentence."""

from __future__ import annotations

import os

import pytest

from app.core.device import phone_lock
from app.core.device.phone_id import PhoneId
from app.core.device.phone_lock import LockFolderUntrusted, PhoneLock, checked_locks_dir, locks_dir


def test_the_lock_folder_does_not_follow_the_data_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path / "one"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-one"))
    first = locks_dir()
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path / "two"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-two"))
    assert locks_dir() == first and tmp_path not in first.parents


def test_localhost_and_127_0_0_1_lock_the_same_phone(tmp_path):
    first = PhoneLock(PhoneId("127.0.0.1:5037", "emulator-5554"), tmp_path)
    second = PhoneLock(PhoneId("localhost:5037", "emulator-5554"), tmp_path)
    assert first.try_acquire("first run")
    try:
        assert not second.try_acquire("second run")
        assert PhoneLock(PhoneId("127.0.0.2:5037", "emulator-5554"), tmp_path).try_acquire("another host")
    finally:
        first.release()


def test_a_lock_folder_of_another_user_is_refused_with_a_sentence(monkeypatch, tmp_path):
    folder = tmp_path / "agentdesk-locks"
    folder.mkdir()
    os.chmod(folder, 0o777)                                          # writable by all, no sticky bit
    monkeypatch.setattr(phone_lock, "_uid", lambda: os.getuid() + 1)  # ... and owned by someone else
    with pytest.raises(LockFolderUntrusted, match="does not trust its phone-lock folder"):
        checked_locks_dir(folder)


def test_a_lock_folder_that_is_a_link_is_refused(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    link = tmp_path / "agentdesk-locks"
    link.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(LockFolderUntrusted, match="not a folder"):
        checked_locks_dir(link)


def test_a_new_lock_folder_is_shared_safely(tmp_path):
    folder = checked_locks_dir(tmp_path / "agentdesk-locks")
    assert oct(os.stat(folder).st_mode & 0o7777) == oct(0o1777)
