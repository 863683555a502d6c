"""A window that pans for the keyboard (Wi-Fi › Add network): the keyboard comes up over its buttons. They stay
in the dump of every window as they were, yet a tap there reaches a key; with the keyboard closed (Back) the
same tap saves. A window that resizes (most) ends above the keyboard instead."""

from __future__ import annotations

from app.core.perception.hierarchy import extract_controls
from app.core.perception.keyboard import a_field_has_the_focus, keyboard_area, under_the_keyboard
from app.virtual_phone.apps import SETTINGS
from app.virtual_phone.apps.contacts import EditorScreen
from app.virtual_phone.apps.settings_wifi_add import AddNetworkPage
from app.virtual_phone.phone import VirtualPhone
from tests.virtual_phone.conftest import tap_node, type_keys


def _add_network(phone: VirtualPhone) -> None:
    phone.put_setting("global", "wifi_on", "1")
    phone.launch(SETTINGS, "com.android.settings.Settings$WifiSettingsActivity")
    tap_node(phone, text="Add network")
    assert isinstance(phone.apps[SETTINGS].top, AddNetworkPage)
    assert phone.keyboard_visible, "the network name has the focus"
    type_keys(phone, "Cafe")


def _save(phone: VirtualPhone):
    controls = extract_controls(phone.dump_all_windows())
    return next(c for c in controls if c.text == "Save"), controls


def test_the_keyboard_covers_save_which_stays_listed_and_a_tap_there_types_a_key():
    phone = VirtualPhone()
    _add_network(phone)
    save, controls = _save(phone)
    area = keyboard_area(controls)
    assert area is not None and under_the_keyboard(save, area)
    window = next(w.bounds for w in phone.windows() if w.role == "ime")
    assert window[1] <= area[1] and area[3] <= window[3], "the keys lie in the keyboard's window"
    from app.core.device.android_device import parse_keyboard_frame
    from app.virtual_phone.system_programs.dumpsys_window import dump_window

    assert parse_keyboard_frame(dump_window(phone, ["InputMethod"])) == window, "dumpsys window says where it is"
    assert under_the_keyboard(save, window)
    active = extract_controls(phone.dump_hierarchy())       # what `uiautomator dump` writes: no keys
    assert keyboard_area(active) is None and a_field_has_the_focus(active)
    phone.tap(*save.center)
    assert phone.state()["focused_text"] != "Cafe", "a key was typed"
    assert phone.state()["wifi_networks_added"] == []


def test_with_the_keyboard_closed_the_same_control_saves():
    phone = VirtualPhone()
    _add_network(phone)
    phone.press_back()                      # with the keyboard up, Back only closes it
    assert not phone.keyboard_visible and phone.foreground()[1].endswith("AddNetworkActivity")
    save, controls = _save(phone)
    assert keyboard_area(controls) is None and not under_the_keyboard(save, keyboard_area(controls))
    phone.tap(*save.center)
    assert phone.state()["wifi_networks_added"] == ["Cafe"]
    assert "Cafe" in [c.text for c in extract_controls(phone.dump_hierarchy())], "listed on the Wi-Fi page"


def test_a_window_that_resizes_ends_above_the_keyboard():
    phone = VirtualPhone()
    phone.launch("com.android.contacts")
    contacts = phone.apps["com.android.contacts"]
    contacts.push(EditorScreen(contacts, None))
    assert phone.keyboard_visible, "the first name has the focus"
    controls = extract_controls(phone.dump_all_windows())
    area = keyboard_area(controls)
    assert area is not None
    app_controls = [c for c in controls if c.package == "com.android.contacts"]
    assert app_controls and all(c.rect[3] <= area[1] for c in app_controls), "nothing of the app under the keys"
