"""Test support: a virtual phone attached as the ADB server attaches it, and its shell."""

from __future__ import annotations

from app.virtual_phone.attached_device import AttachedDevice
from app.virtual_phone.shell import Result
from tests.virtual_phone.conftest import new_phone


def attached(profile: str = "android14") -> AttachedDevice:
    return AttachedDevice(new_phone(profile=profile), transport_id=1)


def sh(device: AttachedDevice, line: str) -> Result:
    """Run a command line as `adb shell LINE` would."""
    return device.new_shell("shell:" + line).run_line(line)
