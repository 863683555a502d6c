"""The uiautomator dump: byte format as Android writes it, and bounds that match the view tree."""

from __future__ import annotations

import re


ATTRS = ["index", "text", "resource-id", "class", "package", "content-desc", "checkable", "checked", "clickable",
         "enabled", "focusable", "focused", "scrollable", "long-clickable", "password", "selected", "bounds"]
NODE = re.compile(r"<node ((?:[a-z-]+=\"[^\"]*\" ?)+)(/?)>")


def test_header_one_line_and_no_trailing_newline(phone, ui):
    xml = phone.dump_hierarchy()
    assert xml.startswith("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\"><node ")
    assert xml.endswith("</hierarchy>")
    assert "\n" not in xml


def test_attribute_order_and_self_closing_nodes(phone, ui):
    ui.tap(text="Settings")
    xml = phone.dump_hierarchy()
    opened = NODE.findall(xml)
    assert len(opened) > 40
    for attrs, _ in opened:
        assert re.findall(r"([a-z-]+)=\"", attrs) == ATTRS
    assert ' />' in xml and '"/>' not in xml.replace(' />', '')
    # every childless node is self-closing, every other one is closed
    assert xml.count("<node ") == xml.count(" />") + xml.count("</node>")


def test_escaping_of_text(phone, ui):
    ui.tap(text="Notes")
    ui.tap(desc="New note")
    phone.input_text('a<b>&"c"')
    ui.tap(text="Note")
    phone.input_text("line one\nline two")
    xml = phone.dump_hierarchy()
    assert 'text="a&lt;b&gt;&amp;&quot;c&quot;"' in xml
    assert 'text="line one&#10;line two"' in xml
    assert ui.find(text="line one\nline two") is not None  # a parser gets the text back


def test_bounds_match_the_view_tree(phone, ui):
    ui.tap(text="Contacts")
    nodes = ui.nodes()
    views = []

    def visit(view, visible):
        if not view.dump or view.visible_bounds is None:
            return
        views.append(view)
        for child in view.children:
            visit(child, view.visible_bounds)

    for window in phone.windows():
        visit(window.root, None)
    assert len(views) == len(nodes)
    for view, node in zip(views, nodes):
        assert ui.bounds(node) == view.visible_bounds
        assert node.get("class") == view.cls
        assert node.get("content-desc") == view.desc


def test_children_lie_inside_their_parents_and_the_screen(phone, ui):
    ui.tap(text="Messages")
    ui.tap(desc="Start chat")
    root = ui.parse(phone.dump_hierarchy())
    w, h = phone.display_size()
    for node in root.iter("node"):
        l, t, r, b = ui.bounds(node)
        assert 0 <= l < r <= w and 0 <= t < b <= h
        parent = node.getparent()
        if parent.tag == "node":
            pl, pt, pr, pb = ui.bounds(parent)
            assert pl <= l and pt <= t and r <= pr and b <= pb


def test_windows_systemui_first_keyboard_last(phone, ui):
    ui.tap(text="Notes")
    ui.tap(desc="New note")
    windows = list(ui.parse(phone.dump_hierarchy()))
    assert [w.get("package") for w in windows] == [
        "com.android.systemui", "com.agentdesk.notes", "com.android.systemui", "com.android.inputmethod.latin"]
    assert all(w.get("index") == "0" for w in windows)
    for rid in ("back", "home", "recent_apps"):
        assert ui.find(rid=f"com.android.systemui:id/{rid}") is not None
    assert ui.find(rid="com.android.systemui:id/clock").get("text") == "9:41"


def test_empty_edit_text_reports_its_hint_and_focus(phone, ui):
    ui.tap(text="Notes")
    ui.tap(desc="New note")
    title = ui.find(cls="android.widget.EditText", text="Title")
    body = ui.find(cls="android.widget.EditText", text="Note")
    assert title.get("focused") == "true" and body.get("focused") == "false"
    assert title.get("clickable") == "true" and title.get("long-clickable") == "true"


def test_switches_are_checkable(phone, ui):
    ui.tap(text="Settings")
    ui.tap(text="Network & internet")
    switches = ui.find_all(cls="android.widget.Switch")
    assert len(switches) == 2
    assert all(s.get("checkable") == "true" and s.get("checked") == "false" for s in switches)


def test_rotation_attribute_and_landscape_bounds(phone, ui):
    phone.set_rotation(1)
    xml = phone.dump_hierarchy()
    assert '<hierarchy rotation="1">' in xml
    assert max(ui.bounds(n)[2] for n in ui.nodes()) == 2400
    assert max(ui.bounds(n)[3] for n in ui.nodes()) == 1080
