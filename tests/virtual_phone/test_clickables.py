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
        assert after[1:] != before[1:] or fresh.phone.screenshot() is not None, (screen, node.attrib)
        assert fresh.phone.last_target is view or fresh.phone.last_target.visible_bounds == view.visible_bounds


def test_disabled_send_button_does_nothing(make_ui):
    ui = make_ui()
    go({"text": "Messages"}, {"text": "Mom"})(ui)
    send = ui.find(desc="Send SMS")
    assert send.get("clickable") == "true" and send.get("enabled") == "false"
    state = repr(ui.phone.state())
    ui.tap(desc="Send SMS")
    assert repr(ui.phone.state()) == state
