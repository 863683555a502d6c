"""Tasks done the way a user (or the agent) does them: taps, typing and keys at coordinates read
from the dump. The phone's state must show that the task was really done."""

from __future__ import annotations

WIFI = "Wi\u2011Fi"


def test_turn_on_wifi_in_settings(phone, ui):
    assert phone.get_setting("global", "wifi_on") == "0"
    ui.tap(text="Settings")
    ui.tap(text="Network & internet")
    ui.tap(text=WIFI)                      # the row opens the Wi-Fi page
    assert ui.find(text=f"Use {WIFI}") is not None
    switch = ui.find(cls="android.widget.Switch")
    assert switch.get("checked") == "false"
    ui.tap(text=f"Use {WIFI}")
    assert phone.get_setting("global", "wifi_on") == "1"
    assert phone.state()["wifi"] is True
    assert ui.find(cls="android.widget.Switch").get("checked") == "true"
    assert ui.find(text="AndroidWifi") is not None
    assert ui.find(desc="Wifi signal full.") is not None   # the status bar shows it too


def test_wifi_switch_on_the_network_page_toggles_without_opening(phone, ui):
    ui.tap(text="Settings")
    ui.tap(text="Network & internet")
    switches = ui.find_all(cls="android.widget.Switch")
    phone.tap(*ui.node_center(switches[0]))
    assert phone.get_setting("global", "wifi_on") == "1"
    assert phone.foreground()[1] == "com.android.settings.SubSettings"
    assert ui.find(text="Network & internet") is not None


def test_airplane_mode_turns_radios_off_and_back(phone, ui):
    phone.put_setting("global", "wifi_on", "1")
    phone.put_setting("global", "bluetooth_on", "1")
    ui.tap(text="Settings")
    ui.tap(text="Network & internet")
    ui.tap(text="Airplane mode")
    s = phone.state()
    assert s["airplane"] and not s["wifi"] and not s["bluetooth"]
    assert ui.find(desc="Airplane mode.") is not None
    ui.tap(text="Airplane mode")
    s = phone.state()
    assert not s["airplane"] and s["wifi"] and s["bluetooth"]


def test_bluetooth_toggle(phone, ui):
    ui.tap(text="Settings")
    ui.tap(text="Connected devices")
    ui.tap(cls="android.widget.Switch")
    assert phone.get_setting("global", "bluetooth_on") == "1"
    assert ui.find(text="On") is not None


def test_brightness_slider_by_tap_and_drag(phone, ui):
    ui.tap(text="Settings")
    ui.tap(text="Display")
    bar = ui.find(cls="android.widget.SeekBar")
    left, t, r, b = ui.bounds(bar)
    phone.swipe(left + (r - left) // 2, (t + b) // 2, r - 1, (t + b) // 2, 400)
    assert phone.state()["brightness"] == 255
    assert ui.find(text="100%") is not None
    phone.tap(left + 2, (t + b) // 2)
    assert phone.state()["brightness"] == 1, "the slider's left end is the setting's minimum, 1 as on the emulator"
    assert phone.get_setting("system", "screen_brightness") == "1"


def test_create_a_note_by_typing_on_the_keyboard(phone, ui):
    ui.tap(text="Notes")
    ui.tap(desc="New note")
    assert phone.keyboard_visible
    ui.type_keys("Groceries")
    ui.tap(text="Note")
    phone.input_text("Apples and pears")
    ui.tap(desc="Save")
    assert phone.state()["notes"][0] == {"title": "Groceries", "body": "Apples and pears"}
    assert phone.foreground()[1] == "com.agentdesk.notes.NotesListActivity"
    assert ui.find(text="Groceries") is not None


def test_note_is_saved_on_back_and_can_be_edited_and_deleted(phone, ui):
    ui.tap(text="Notes")
    ui.tap(desc="New note")
    phone.input_text("Call the plumber")
    phone.key(4)          # hides the keyboard first
    assert not phone.keyboard_visible
    phone.key(4)          # then leaves the editor, saving
    assert phone.state()["notes"][0]["title"] == "Call the plumber"
    ui.tap(text="Call the plumber")
    ui.tap(text="Note")
    phone.input_text("tomorrow")
    phone.key(4)
    phone.key(4)
    assert phone.state()["notes"][0] == {"title": "Call the plumber", "body": "tomorrow"}
    ui.tap(text="Call the plumber")
    ui.tap(desc="Delete")
    windows = ui.parse(phone.dump_hierarchy())         # the dialog's own window is the active one
    assert len(windows) == 1 and windows[0].get("package") == "com.agentdesk.notes"
    assert windows[0].find(".//node[@text='Delete this note?']") is not None
    ui.tap(text="Delete", cls="android.widget.Button")
    assert all(n["title"] != "Call the plumber" for n in phone.state()["notes"])


def test_send_a_message_to_a_contact_from_messages(phone, ui):
    ui.tap(text="Messages")
    ui.tap(desc="Start chat")
    assert ui.find(desc="Send SMS").get("enabled") == "false"
    phone.input_text("Grace")
    ui.tap(text="Grace Liu")                       # the suggestion
    phone.input_text("See you at 6")
    assert ui.find(desc="Send SMS").get("enabled") == "true"
    ui.tap(desc="Send SMS")
    assert phone.state()["messages_sent"] == [{"to": "Grace Liu", "body": "See you at 6"}]
    assert phone.state()["conversations"]["Grace Liu"][-1] == {"from": "me", "body": "See you at 6"}
    assert ui.find(text="See you at 6") is not None   # the bubble


def test_send_a_message_from_contact_details_with_enter(phone, ui):
    ui.tap(text="Contacts")
    ui.tap(text="Emma Thompson")
    ui.tap(desc="Text")
    assert phone.foreground()[0] == "com.android.messaging"
    ui.tap(text="Text message")
    phone.input_text("On my way\n")                # Enter sends
    assert phone.state()["messages_sent"][-1] == {"to": "Emma Thompson", "body": "On my way"}
    phone.key(4)
    phone.key(4)                                   # Back returns to Contacts
    assert phone.foreground()[0] == "com.android.contacts"


def test_message_to_a_typed_number(phone, ui):
    ui.tap(text="Messages")
    ui.tap(desc="Start chat")
    phone.input_text("5550100777\n")               # Enter moves on to the message field
    phone.input_text("Hello stranger")
    ui.tap(desc="Send SMS")
    assert phone.state()["messages_sent"] == [{"to": "5550100777", "body": "Hello stranger"}]


def test_set_an_alarm(phone, ui):
    ui.tap(text="Clock")
    before = len(phone.state()["alarms"])
    ui.tap(desc="Add alarm")
    ui.tap(rid="com.android.deskclock:id/input_hour")
    phone.input_text("6")                           # replaces the selected hour
    phone.key(66)                                   # Enter → minute field
    phone.input_text("45")
    ui.tap(text="PM")
    ui.tap(text="OK")
    alarms = phone.state()["alarms"]
    assert len(alarms) == before + 1
    assert {"hour": 18, "minute": 45, "label": "", "enabled": True} in alarms
    assert ui.find(text="6:45 PM") is not None


def test_alarm_switch_and_invalid_time(phone, ui):
    ui.tap(text="Clock")
    first = ui.find_all(cls="android.widget.Switch")[0]
    phone.tap(*ui.node_center(first))
    assert phone.state()["alarms"][0]["enabled"] is True
    ui.tap(desc="Add alarm")
    ui.tap(rid="com.android.deskclock:id/input_hour")
    phone.input_text("13")
    ui.tap(text="OK")
    assert ui.find(text="Enter a valid time") is not None
    ui.tap(text="Cancel")
    assert len(phone.state()["alarms"]) == 2


def test_scroll_contacts(phone, ui):
    ui.tap(text="Contacts")
    before = [n.get("text") for n in ui.find_all(rid="cliv_name_textview")]
    assert "Aisha Khan" in before and "Zoe Martin" not in before
    lst = ui.find(rid="contact_list")
    assert lst.get("scrollable") == "true"
    left, t, r, b = ui.bounds(lst)
    for _ in range(6):
        phone.swipe((left + r) // 2, b - 100, (left + r) // 2, t + 100, 600)   # finger up → list scrolls down
    after = [n.get("text") for n in ui.find_all(rid="cliv_name_textview")]
    assert "Zoe Martin" in after and "Aisha Khan" not in after
    ui.tap(text="Zoe Martin")
    assert ui.find(text="(555) 010-7392") is not None
    phone.key(4)
    phone.swipe((left + r) // 2, t + 100, (left + r) // 2, b - 100, 200)        # fling down → back up
    phone.swipe((left + r) // 2, t + 100, (left + r) // 2, b - 100, 200)
    phone.swipe((left + r) // 2, t + 100, (left + r) // 2, b - 100, 200)
    assert ui.find(text="Aisha Khan") is not None


def test_search_and_create_contact(phone, ui):
    ui.tap(text="Contacts")
    ui.tap(text="Search contacts")
    phone.input_text("pat")
    assert [n.get("text") for n in ui.find_all(rid="cliv_name_textview")] == ["Dev Patel"]
    phone.key(4)
    ui.tap(desc="Create contact")
    phone.input_text("Ada")
    ui.tap(text="Last name")
    phone.input_text("Lovelace")
    ui.tap(text="Phone")
    phone.input_text("5550109876")
    ui.tap(text="Save")
    assert {"name": "Ada Lovelace", "phone": "5550109876"} in phone.state()["contacts"]
    assert ui.find(text="Ada Lovelace") is not None


def test_call_from_the_dial_pad(phone, ui):
    ui.tap(text="Phone")
    for digit in "5550100001":
        ui.tap(desc=digit)
    assert ui.find(text="Mom") is not None
    ui.tap(desc="dial")
    assert phone.foreground()[1] == "com.android.incallui.InCallActivity"
    assert phone.state()["calls"] == [{"to": "Mom", "number": "5550100001"}]
    ui.tap(desc="End call")
    assert phone.foreground()[1] == "com.android.dialer.main.impl.MainActivity"


def test_calculator(phone, ui):
    ui.tap(text="Calculator")
    for key in ("1", "2", "multiply", "3", "equals"):
        ui.tap(desc=key) if not key.isdigit() else ui.tap(text=key, desc="")
    assert ui.find(rid="formula").get("text") == "36"        # a Compose test tag: a bare resource-id
