"""Dialogs of the system over an app, as faults a test turns on (`phone.pop_ups`; off by default): a permission
request the first time an app starts, "isn't responding". Each is the window `uiautomator dump` writes (its own
package), modal over the app, worded as Android 14 words it."""

from __future__ import annotations

import adbutils
import pytest
from lxml import etree

from app.virtual_phone.phone import VirtualPhone
from tests.virtual_phone.conftest import center_of, find_node

CONTACTS = "com.android.contacts"


def dump(phone: VirtualPhone) -> etree._Element:
    return etree.fromstring(phone.dump_hierarchy().encode())


def tap(phone: VirtualPhone, text: str) -> None:
    node = find_node(phone, text=text)
    assert node is not None, f"no {text!r} on screen"
    phone.tap(*center_of(node))


def test_nothing_pops_up_unless_a_test_asks():
    phone = VirtualPhone()
    phone.launch(CONTACTS)
    assert phone.system_dialog is None


@pytest.mark.parametrize("answer, allowed", [("Allow", True), ("Don\u2019t allow", False)])
def test_the_first_start_asks_for_a_permission_and_the_answer_is_kept(answer, allowed):
    phone = VirtualPhone()
    phone.pop_ups.permission_requests = 1
    phone.launch(CONTACTS)
    root = dump(phone)
    assert {node.get("package") for node in root.iter("node")} == {"com.android.permissioncontroller"}
    assert root.xpath("//node[@text='Allow Contacts to access your contacts?']")
    tap(phone, answer)
    assert phone.pop_ups.answers == {CONTACTS: allowed}
    assert phone.system_dialog is None and phone.foreground()[0] == CONTACTS
    assert {node.get("package") for node in dump(phone).iter("node")} == {CONTACTS}
    phone.force_stop(CONTACTS)
    phone.launch(CONTACTS)
    assert phone.system_dialog is None, "asked once"


def test_a_touch_outside_is_dont_allow_and_reaches_nothing_below():
    phone = VirtualPhone()
    phone.pop_ups.permission_requests = 1
    phone.launch(CONTACTS)
    screens = len(phone.apps[CONTACTS].stack)
    phone.tap(540, 300)
    assert phone.pop_ups.answers == {CONTACTS: False}
    assert len(phone.apps[CONTACTS].stack) == screens, "the app under the dialog got no touch"


def test_back_is_dont_allow():
    phone = VirtualPhone()
    phone.pop_ups.permission_requests = 1
    phone.launch("com.android.dialer")
    assert find_node(phone, text="Allow Phone to make and manage phone calls?") is not None
    phone.press_back()
    assert phone.pop_ups.answers == {"com.android.dialer": False} and phone.system_dialog is None
    assert phone.foreground()[0] == "com.android.dialer"


def test_isnt_responding_close_app_or_wait_over_adb(virtual_adb):
    phone = virtual_adb.devices[0].phone
    device = adbutils.AdbClient("127.0.0.1", virtual_adb.port).device(virtual_adb.devices[0].serial)
    phone.pop_ups.not_responding = 2
    device.shell("monkey -p com.android.contacts -c android.intent.category.LAUNCHER 1")
    xml = device.dump_hierarchy()
    assert "Contacts isn\u2019t responding" in xml and 'package="android"' in xml
    phone.press_back()
    assert phone.system_dialog is not None, "not cancelable: Back leaves it"
    tap(phone, "Wait")
    assert phone.system_dialog is None and phone.foreground()[0] == CONTACTS
    device.shell("am force-stop com.android.contacts")
    device.shell("monkey -p com.android.contacts -c android.intent.category.LAUNCHER 1")
    tap(phone, "Close app")
    assert phone.system_dialog is None and phone.foreground()[0] != CONTACTS and not phone.apps[CONTACTS].stack
