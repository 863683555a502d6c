"""Input that must arrive in order goes one way: a field tapped over scrcpy's control socket is cleared over
it too, never by `adb shell input`, which could overtake the tap and empty the field focused before."""

from __future__ import annotations

import pytest

from app.android.keycodes import KEYCODES
from app.core.device.android_device import AndroidDevice
from app.core.device.errors import DeviceError
from app.core.device.text_fields import FieldReading

pytestmark = pytest.mark.asyncio


class Channel:
    name = "test channel"

    def __init__(self, log: list, fail_keys: bool = False) -> None:
        self.log, self.fail_keys = log, fail_keys

    async def tap(self, x, y):
        self.log.append(("channel", "tap"))

    async def key(self, code):
        if self.fail_keys:
            raise DeviceError("the control socket closed")
        self.log.append(("channel", code))


class Phone(AndroidDevice):
    """A device whose shell and dumps are recorded; the field reads empty after one round of deleting."""

    def __init__(self, log: list) -> None:
        super().__init__(transport=None, serial="test")
        self.log = log

    async def shell(self, command: str, timeout: float | None = None) -> str:
        self.log.append(("shell", command))
        return ""

    async def read_field(self, target=None):
        return FieldReading(text="")


async def test_a_field_tapped_over_the_channel_is_cleared_over_it():
    log: list = []
    phone = Phone(log)
    phone.use_input_channel(Channel(log))
    await phone.tap(10, 10)
    await phone.clear_focused_field(known_length=4)
    assert log[0] == ("channel", "tap")
    assert [entry for entry in log if entry[0] == "shell"] == [], "no clearing key may take another way"
    keys = [code for way, code in log[1:]]
    assert keys[0] == KEYCODES["MOVE_END"] and keys.count(KEYCODES["DEL"]) >= 4


async def test_without_a_channel_or_when_it_breaks_the_shell_clears():
    log: list = []
    phone = Phone(log)
    await phone.clear_focused_field(known_length=4)
    assert log and all(way == "shell" for way, _ in log) and "keyevent" in log[0][1]
    broken: list = []
    phone = Phone(broken)
    phone.use_input_channel(Channel(broken, fail_keys=True))
    await phone.clear_focused_field(known_length=4)
    assert [way for way, _ in broken] == ["shell"] * len(broken) and phone.input_channel is None
