"""Back, Home, Recents (keys and navigation-bar buttons), launching and force-stopping, as on Android."""

from __future__ import annotations

HOME, BACK, RECENTS = 3, 4, 187
LAUNCHER = "com.android.launcher3"


def test_launcher_icons_are_labelled_text_views(ui):
    icons = [n for n in ui.nodes() if n.get("package") == LAUNCHER and n.get("clickable") == "true"]
    labels = {n.get("text") for n in icons}
    assert {"Settings", "Contacts", "Messages", "Notes", "Clock", "Phone", "Calculator"} <= labels
    for n in icons:
        assert n.get("class") == "android.widget.TextView"
        assert n.get("content-desc") == n.get("text")
        assert n.get("long-clickable") == "true"


def test_back_pops_the_stack_then_leaves_the_app_keeping_it(phone, ui):
    ui.tap(text="Settings")
    ui.tap(text="Display")
    assert phone.foreground() == ("com.android.settings", "com.android.settings.SubSettings")
    phone.key(BACK)
    assert phone.foreground() == ("com.android.settings", "com.android.settings.Settings")
    phone.key(BACK)
    assert phone.foreground()[0] == LAUNCHER
    assert "com.android.settings" in phone.state()["recents"]


def test_home_keeps_the_app_state(phone, ui):
    ui.tap(text="Settings")
    ui.tap(text="Display")
    phone.key(HOME)
    assert phone.foreground()[0] == LAUNCHER
    ui.tap(text="Settings")
    assert ui.find(text="Brightness level") is not None     # resumed where it was


def test_navigation_bar_buttons_act_like_the_keys(phone, ui):
    ui.tap(text="Notes")
    ui.tap(desc="Overview")
    assert phone.state()["recents"] == ["com.agentdesk.notes"]
    assert ui.find(desc="Notes", rid="com.android.launcher3:id/task_view") is not None
    ui.tap(desc="Home")
    assert phone.foreground()[0] == LAUNCHER
    ui.tap(text="Clock")
    ui.tap(desc="Back")
    assert phone.foreground()[0] == LAUNCHER


def test_recents_resumes_a_task_and_clear_all(phone, ui):
    ui.tap(text="Notes")
    phone.key(HOME)
    ui.tap(text="Clock")
    ui.tap(text="Timer")
    phone.key(RECENTS)
    assert phone.state()["recents"] == ["com.android.deskclock", "com.agentdesk.notes"]
    ui.tap(desc="Clock", rid="com.android.launcher3:id/task_view")
    assert phone.foreground()[0] == "com.android.deskclock"
    assert ui.find(text="00h 00m 00s") is not None
    phone.key(RECENTS)
    ui.tap(text="Clear all")
    assert phone.foreground()[0] == LAUNCHER and phone.state()["recents"] == []
    ui.tap(text="Clock")
    assert ui.find(rid="com.android.deskclock:id/alarm_recycler_view") is not None   # a fresh start: Alarm tab


def test_back_in_recents_returns(phone, ui):
    phone.key(RECENTS)
    assert ui.find(text="No recent items") is not None
    phone.key(BACK)
    assert phone.foreground()[0] == LAUNCHER


def test_back_hides_the_keyboard_first(phone, ui):
    ui.tap(text="Messages")
    ui.tap(desc="Start chat")
    assert phone.keyboard_visible
    phone.key(BACK)
    assert not phone.keyboard_visible
    assert [n.get("resource-id") for n in ui.find_all(cls="android.widget.EditText") if n.get("focused") == "true"] == [
        "com.android.messaging:id/recipient_text_view"]            # the field keeps its focus
    assert ui.find(package="com.android.inputmethod.latin") is None
    assert phone.foreground()[1] == "com.android.messaging.ui.conversation.ConversationActivity"
    phone.key(BACK)
    assert phone.foreground()[1] == "com.android.messaging.ui.conversationlist.ConversationListActivity"


def test_launch_and_force_stop(phone, ui):
    assert phone.launch("com.android.settings", "com.android.settings.Settings$WifiSettingsActivity")
    assert phone.foreground() == ("com.android.settings", "com.android.settings.Settings$WifiSettingsActivity")
    assert ui.find(text="Use Wi\u2011Fi") is not None
    phone.key(BACK)
    assert phone.foreground()[0] == LAUNCHER
    assert not phone.launch("com.example.missing")
    assert not phone.launch("com.android.settings", ".NoSuchActivity")
    assert not phone.launch("com.android.shell")
    assert phone.launch("com.agentdesk.notes", ".NotesListActivity")
    ui.tap(desc="New note")
    phone.input_text("unsaved")
    phone.force_stop("com.agentdesk.notes")
    assert phone.foreground()[0] == LAUNCHER
    assert all(n["title"] != "unsaved" for n in phone.state()["notes"])
    assert phone.launch("com.agentdesk.notes")
    assert phone.foreground()[1] == "com.agentdesk.notes.NotesListActivity"


def test_packages_and_labels(phone):
    everything = phone.installed_packages()
    for pkg in ("android", "com.android.systemui", "com.android.settings", "com.android.launcher3",
                "com.android.contacts", "com.android.messaging", "com.android.deskclock", "com.agentdesk.notes",
                "com.android.inputmethod.latin", "com.android.shell", "com.android.phone"):
        assert pkg in everything
    assert phone.installed_packages(third_party_only=True) == ["com.agentdesk.calculator", "com.agentdesk.notes"]
    assert phone.app_label("com.android.deskclock") == "Clock"
    assert phone.app_label("com.example.none") is None


def test_rotation_lays_out_landscape(phone, ui):
    phone.set_rotation(1)
    assert phone.display_size() == (2400, 1080)
    assert phone.screenshot().size == (2400, 1080)
    home = ui.find(desc="Home")
    left, t, r, b = ui.bounds(home)
    assert left >= 2400 - 200                            # the navigation bar moved to the side
    ui.tap(text="Settings")
    assert phone.foreground()[0] == "com.android.settings"
    phone.set_rotation(0)
    assert phone.screenshot().size == (1080, 2400)
