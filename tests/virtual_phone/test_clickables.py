"""Every clickable node on screen (all windows: the bars and the keyboard too): its centre reaches that
very view, and tapping it does something."""

from __future__ import annotations

import pytest


def go(*steps):
    """A recipe: taps given as node queries, or key codes."""
    def run(ui):
        for step in steps:
            if isinstance(step, int):
                ui.phone.key(step)
            else:
                ui.tap(**step)
    return run


SCREENS = {
    "home": go(),
    "home_popup": lambda ui: ui.phone.long_press(*ui.center(text="Contacts")),
    "settings": go({"text": "Settings"}),
    "network": go({"text": "Settings"}, {"text": "Network & internet"}),
    "wifi_on": lambda ui: (ui.phone.put_setting("global", "wifi_on", "1"), go({"text": "Settings"},
                           {"text": "Network & internet"}, {"text": "Wi\u2011Fi"})(ui)),
    "connected": go({"text": "Settings"}, {"text": "Connected devices"}),
    "display": go({"text": "Settings"}, {"text": "Display"}),
    "notes": go({"text": "Notes"}),
    "note_editor": go({"text": "Notes"}, {"desc": "New note"}),
    "note_delete_dialog": go({"text": "Notes"}, {"text": "Shopping list"}, {"desc": "Delete"}),
    "contacts": go({"text": "Contacts"}),
    "contact_details": go({"text": "Contacts"}, {"text": "Ben Carter"}),
    "contact_editor": go({"text": "Contacts"}, {"desc": "Create contact"}),
    "messages": go({"text": "Messages"}),
    "compose": go({"text": "Messages"}, {"desc": "Start chat"}),
    "conversation": lambda ui: (go({"text": "Messages"}, {"text": "Mom"}, {"text": "Text message"})(ui),
                                ui.phone.input_text("hi")),
    "clock": go({"text": "Clock"}),
    "alarm_expanded": go({"text": "Clock"}, {"text": "Work"}),
    "time_picker": go({"text": "Clock"}, {"desc": "Add alarm"}, {"rid": "com.android.deskclock:id/input_label"}),
    "dialer": lambda ui: (go({"text": "Phone"})(ui), [ui.tap(desc=d) for d in "555"]),
    "in_call": go({"text": "Contacts"}, {"text": "Daniel Kim"}, {"desc": "Call"}),
    "calculator": go({"text": "Calculator"}),
    "recents": go({"text": "Notes"}, 3, {"text": "Clock"}, 187),
}


SYSTEM_BACK, SYSTEM_HOME, DELETE_KEY = ("com.android.systemui:id/back", "com.android.systemui:id/home",
                                       "com.android.inputmethod.latin:id/key_pos_2_8")
DOES_NOTHING_HERE = {
    # a tab, field or toggle that is already what the tap would make it
    ("clock", "com.android.deskclock:id/tab_menu_alarm"): "the Alarm tab is already shown",
    ("alarm_expanded", "com.android.deskclock:id/tab_menu_alarm"): "the Alarm tab is already shown",
    ("compose", "com.android.messaging:id/recipient_text_view"): "the field already has the focus",
    ("contact_editor", "com.android.contacts:id/first_name"): "the field already has the focus",
    ("conversation", "com.android.messaging:id/compose_message_text"): "the field already has the focus",
    ("note_editor", "com.agentdesk.notes:id/note_title"): "the field already has the focus",
    ("time_picker", "com.android.deskclock:id/input_label"): "the field already has the focus",
    ("time_picker", "com.android.deskclock:id/am_button"): "AM is already chosen",
    # keys with nothing to act on
    ("compose", DELETE_KEY): "Delete in an empty field",
    ("contact_editor", DELETE_KEY): "Delete in an empty field",
    ("note_editor", DELETE_KEY): "Delete in an empty field",
    ("time_picker", DELETE_KEY): "Delete in an empty field",
    ("calculator", "[42,1142][276,1342]"): "C on an empty display",
    ("calculator", "[42,2022][276,2222]"): "0 on a display showing 0",
    ("calculator", "[550,2022][784,2222]"): "⌫ on an empty display",
    ("calculator", "[804,2022][1038,2222]"): "= on an empty display",
    ("home", SYSTEM_BACK): "Back on the home screen",
    ("home", SYSTEM_HOME): "Home on the home screen",
}
"""Taps that reach their view and rightly change nothing a person would see (the phone still counts them);
every other clickable node must change the screen's dump, the phone's state or its picture."""


def _picture_changes(make_ui, screen: str, x: int, y: int) -> bool:
    """Whether tapping (x, y) on `screen` changes the phone's picture (a press state, a ripple, a caret)."""
    ui = make_ui()
    SCREENS[screen](ui)
    before = ui.phone.screenshot()
    ui.phone.tap(x, y)
    return ui.phone.screenshot() != before


@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_every_clickable_node_works(screen, make_ui):
    ui = make_ui()
    SCREENS[screen](ui)
    windows = list(ui.parse(ui.phone.dump_all_windows()))
    app_windows = [w for w in windows if w.get("package") not in ("com.android.systemui",
                                                                  "com.android.inputmethod.latin")]
    covered = app_windows[0] if len(app_windows) > 1 else None    # under a dialog or pop-up
    targets = [n for w in windows for n in w.iter("node")
               if n.get("clickable") == "true" and n.get("enabled") == "true"]
    assert targets, f"no clickable nodes on {screen}"
    for node in targets:
        x, y = ui.node_center(node)
        view = ui.phone.hit_test(x, y)
        if covered is not None and node in covered.iter("node"):
            dialog = ui.bounds(app_windows[1])
            if not (dialog[0] <= x < dialog[2] and dialog[1] <= y < dialog[3]):
                assert view is None, (screen, node.attrib)        # a touch there cancels the dialog instead
                fresh = make_ui()
                SCREENS[screen](fresh)
                fresh.phone.tap(x, y)
                assert len(list(fresh.parse(fresh.phone.dump_all_windows()))) < len(windows)   # the dialog is gone
            continue
        assert view is not None, (screen, node.attrib)
        assert view.visible_bounds == ui.bounds(node) and view.cls == node.get("class"), (screen, node.attrib, view)
        fresh = make_ui()
        SCREENS[screen](fresh)
        before = (fresh.phone.version, fresh.phone.dump_all_windows(), repr(fresh.phone.state()))
        fresh.phone.tap(x, y)
        after = (fresh.phone.version, fresh.phone.dump_all_windows(), repr(fresh.phone.state()))
        assert after[0] > before[0], (screen, node.attrib)
        changed = after[1:] != before[1:] or _picture_changes(make_ui, screen, x, y)
        key = node.get("resource-id") or node.get("bounds")     # a nameless view: by where it is
        if (screen, key) in DOES_NOTHING_HERE:
            assert not changed, (screen, key, "does something now: take it off DOES_NOTHING_HERE")
        else:
            assert changed, (screen, node.attrib, "the tap reached the view and nothing changed")
        assert fresh.phone.last_target is view or fresh.phone.last_target.visible_bounds == view.visible_bounds


def test_disabled_send_button_does_nothing(make_ui):
    ui = make_ui()
    go({"text": "Messages"}, {"text": "Mom"})(ui)
    send = ui.find(desc="Send SMS")
    assert send.get("clickable") == "true" and send.get("enabled") == "false"
    state = repr(ui.phone.state())
    ui.tap(desc="Send SMS")
    assert repr(ui.phone.state()) == state
