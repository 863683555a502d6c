"""The phone lock is per machine (issue 25 §5): not in the data folder, one server under two names, and a
lock folder another user could tamper with is refused with a sentence."""

from __future__ import annotations

import os

import pytest

from app.core.device import phone_lock
from app.core.device.adb_transport import AdbTransport
from app.core.device.android_device import AndroidDevice
from app.core.device.phone_id import PhoneId
from app.core.device.phone_lock import (
    LockFolderUntrusted,
    PhoneBusy,
    PhoneLock,
    checked_locks_dir,
    hardware_lock_name,
    locks_dir,
)
from app.core.device.phone_session import PhoneSession
from app.virtual_phone.adb_server import VirtualAdbServer


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


# ---------------------------------------------------------------- keyed by the phone itself (ro.serialno)

def _session_on_its_own_server(server: VirtualAdbServer, serial: str, folder) -> PhoneSession:
    transport = AdbTransport("127.0.0.1", server.port)
    phone_id = PhoneId(transport.address, serial)
    return PhoneSession(phone_id, AndroidDevice(transport, serial, timeout=10), lock=PhoneLock(phone_id, folder))


@pytest.fixture
def two_servers():
    servers = [VirtualAdbServer().start(), VirtualAdbServer().start()]
    yield servers
    for server in servers:
        server.stop()


@pytest.mark.asyncio
async def test_one_physical_phone_through_two_adb_servers_is_one_lock(two_servers, tmp_path):
    """A USB phone (ro.serialno R58M1234ABC) seen by two ADB servers, once as itself and once over Wi-Fi:
    a run through the second server is refused while a run through the first drives it."""
    for server, serial in zip(two_servers, ("R58M1234ABC", "192.168.1.5:5555"), strict=True):
        attached = server.add_phone(serial=serial)
        attached.phone.system.properties.update({"ro.serialno": "R58M1234ABC", "ro.hardware": "qcom"})
    first, second = (_session_on_its_own_server(server, serial, tmp_path)
                     for server, serial in zip(two_servers, ("R58M1234ABC", "192.168.1.5:5555"), strict=True))
    try:
        async with first.drive("first run", wait=False):
            with pytest.raises(PhoneBusy, match="busy with run “first run”"):
                async with second.drive("second run", wait=False):
                    pass
        async with second.drive("second run", wait=False):       # released: the other server's turn
            pass
    finally:
        await first.close()
        await second.close()


@pytest.mark.asyncio
async def test_virtual_phones_and_emulators_of_one_name_on_two_servers_are_two_phones(two_servers, tmp_path):
    """The virtual phone's and an emulator's ro.serialno name no phone (an emulator's is one per system
    image): emulator-5554 on two servers is two phones, locked by server and serial."""
    for server, hardware in zip(two_servers, ("virtual", "ranchu"), strict=True):
        attached = server.add_phone(serial="emulator-5554")
        attached.phone.system.properties.update({"ro.hardware": hardware, "ro.serialno": "EMULATOR34X1X10X0"})
    first, second = (_session_on_its_own_server(server, "emulator-5554", tmp_path) for server in two_servers)
    try:
        async with first.drive("first run", wait=False), second.drive("second run", wait=False):
            assert first.busy and second.busy
    finally:
        await first.close()
        await second.close()


def test_a_shared_or_emulated_serial_number_does_not_name_the_lock():
    assert hardware_lock_name("R58M1234ABC\nqcom\n\n\n") == "serialno_R58M1234ABC"
    assert hardware_lock_name("0123456789ABCDEF\nmt6765\n\n\n") is None
    assert hardware_lock_name("R58M1234ABC\nqcom\n1\n\n") is None          # ro.kernel.qemu=1: an emulator
    assert hardware_lock_name("") is None


@pytest.mark.parametrize("planted", ["lock", "owner"])
def test_a_lock_file_planted_as_a_link_is_refused_and_its_target_left_alone(tmp_path, planted):
    """Another user plants `<phone>.lock` or `.owner` in the shared folder as a link to a file of ours:
    locking refuses with a sentence and never truncates or writes through the link."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    folder = tmp_path / "locks"
    folder.mkdir()
    lock = PhoneLock(PhoneId("127.0.0.1:5037", "emulator-5554"), folder)
    (folder / f"{lock.name}.{planted}").symlink_to(victim)
    with pytest.raises(LockFolderUntrusted, match="is a link"):
        lock.try_acquire("a run")
    assert victim.read_text(encoding="utf-8") == "precious" and not lock.held


def test_a_lock_file_can_be_taken_by_every_user_of_the_machine(tmp_path):
    """Two users driving one USB phone is a conflict too: the lock file one user makes, another can lock."""
    lock = PhoneLock(PhoneId("127.0.0.1:5037", "R58M1234ABC"), tmp_path)
    assert lock.try_acquire("a run")
    try:
        assert os.stat(tmp_path / f"{lock.name}.lock").st_mode & 0o666 == 0o666
    finally:
        lock.release()
