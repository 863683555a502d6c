"""The uiautomator dump as a phone writes it: the active window only, the attributes of the Android
version the phone claims in their order, bounds, drawing order, hint, NAF and the serializer's escaping."""

from __future__ import annotations

import re

import pytest

from app.virtual_phone import hierarchy_xml, system_ui
from app.virtual_phone.views import FRAME, LINEAR, TEXT, VIEW, VIEW_STUB, View, Window

from .conftest import UI, new_phone

ANDROID9_ATTRS = ["index", "text", "resource-id", "class", "package", "content-desc", "checkable", "checked",
                  "clickable", "enabled", "focusable", "focused", "scrollable", "long-clickable", "password",
                  "selected", "bounds"]
ANDROID14_ATTRS = ANDROID9_ATTRS + ["drawing-order", "hint"]
NODE = re.compile(r"<node((?: [A-Za-z-]+=(?:\"[^\"]*\"|'[^']*'))+)( ?/?)>")


def open_notes_editor(ui: UI) -> None:
    ui.tap(text="Notes")
    ui.tap(desc="New note")


def test_header_one_line_and_no_trailing_newline(phone):
    xml = phone.dump_hierarchy()
    assert xml.startswith("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\"><node ")
    assert xml.endswith("</hierarchy>")
    assert "\n" not in xml


@pytest.mark.parametrize(("profile", "expected"), [("android14", ANDROID14_ATTRS), ("android9", ANDROID9_ATTRS)])
def test_attribute_order_of_the_android_version_and_self_closing_nodes(profile, expected):
    ui = UI(new_phone(profile=profile))
    ui.tap(text="Settings")
    ui.tap(text="Network & internet")
    xml = ui.phone.dump_hierarchy()
    opened = NODE.findall(xml)
    assert len(opened) == xml.count("<node ") > 30
    assert ui.phone.profile.dump_attributes == tuple(expected)
    nafs = 0
    for attrs, _ in opened:
        names = re.findall(r" ([A-Za-z-]+)=", attrs)
        if names[0] == "NAF":
            nafs += 1
            names = names[1:]
        assert names == expected
    assert nafs >= 1                                 # the Wi‑Fi switch: clickable, no text, no description
    assert xml.count("<node ") == xml.count(" />") + xml.count("</node>")   # childless nodes close themselves
    assert '"/>' not in xml


def test_the_dump_holds_the_active_window_only(phone, ui):
    ui.tap(text="Settings")
    hierarchy = ui.parse(phone.dump_hierarchy())
    assert len(hierarchy) == 1
    packages = {n.get("package") for n in hierarchy.iter("node")}
    assert packages == {"com.android.settings"}      # no status bar, navigation bar or keyboard
    assert ui.find(rid="com.android.systemui:id/clock") is not None    # they are on screen all the same


def test_the_keyboard_never_enters_the_dump(phone, ui):
    open_notes_editor(ui)
    assert phone.keyboard_visible and ui.find(package="com.android.inputmethod.latin") is not None
    hierarchy = ui.parse(phone.dump_hierarchy())
    assert [w.get("package") for w in hierarchy] == ["com.agentdesk.notes"]
    assert not [n for n in hierarchy.iter("node") if n.get("package") != "com.agentdesk.notes"]


def test_a_dialog_up_is_the_dump_alone(phone, ui):
    ui.tap(text="Clock")
    ui.tap(desc="Add alarm")
    (window,) = ui.parse(phone.dump_hierarchy())
    dialog = phone.active_window()
    assert dialog.role == "dialog" and ui.bounds(window) == dialog.bounds
    w, h = phone.display_size()
    assert ui.bounds(window) != (0, 0, w, h)                           # the dialog's window, not the screen
    assert window.find(".//node[@text='Enter time']") is not None
    assert window.find(".//node[@resource-id='com.android.deskclock:id/fab']") is None   # the app is behind it


def test_the_overview_is_the_launchers_window(phone, ui):
    ui.tap(text="Notes")
    phone.key(187)
    (window,) = ui.parse(phone.dump_hierarchy())
    assert window.get("package") == "com.android.launcher3"
    assert window.find(".//node[@content-desc='Notes']") is not None


@pytest.mark.parametrize(("profile", "real_size"), [("android14", True), ("android9", False)])
def test_bounds_are_clipped_to_the_display_the_dumper_reads(profile, real_size):
    """Android 9's dumper reads `display.getSize()`, which leaves the navigation bar out: the window's
    root stops above it and the bar's background is written [0,0][0,0]. Recent ones read the real size."""
    ui = UI(new_phone(profile=profile))
    ui.tap(text="Contacts")
    root = ui.parse(ui.phone.dump_hierarchy())[0]
    w, h = ui.phone.display_size()
    nav = ui.bounds(ui.find(rid="com.android.systemui:id/navigation_bar_frame"))
    assert nav[1] < h
    assert ui.bounds(root) == (0, 0, w, h if real_size else nav[1])
    nav_background = root.find(".//node[@resource-id='android:id/navigationBarBackground']")
    assert ui.bounds(nav_background) == (nav if real_size else (0, 0, 0, 0))


def test_bounds_match_the_view_tree(phone, ui):
    ui.tap(text="Contacts")
    nodes = list(ui.parse(phone.dump_hierarchy()).iter("node"))
    views = [v for v in phone.active_window().root.walk() if v.visible_bounds is not None]
    assert len(views) == len(nodes) > 20
    for view, node in zip(views, nodes, strict=True):
        assert ui.bounds(node) == view.visible_bounds
        assert node.get("class") == view.cls and node.get("content-desc") == view.desc


def test_children_lie_inside_their_parents_and_the_screen(phone, ui):
    ui.tap(text="Messages")
    ui.tap(desc="Start chat")
    root = ui.parse(phone.dump_hierarchy())
    w, h = phone.display_size()
    for node in root.iter("node"):
        left, t, r, b = ui.bounds(node)
        if (left, t, r, b) == (0, 0, 0, 0):
            continue
        assert 0 <= left < r <= w and 0 <= t < b <= h
        parent = node.getparent()
        if parent.tag == "node":
            pl, pt, pr, pb = ui.bounds(parent)
            assert pl <= left and pt <= t and r <= pr and b <= pb


def test_the_decor_views_and_their_drawing_order(phone, ui):
    """DecorView › LinearLayout (after a GONE ViewStub) › content parent › action_bar_root › content,
    as an AppCompat activity's window is built; the bar backgrounds come after the LinearLayout."""
    ui.tap(text="Settings")
    decor = ui.parse(phone.dump_hierarchy())[0]
    column, status_bg, nav_bg = list(decor)
    parent = column[0]
    bar_root = parent[0]
    content = bar_root[0]
    assert [(n.get("class"), n.get("index"), n.get("drawing-order")) for n in (decor, column, parent, bar_root,
                                                                               content)] == [
        (FRAME, "0", "0"), (LINEAR, "0", "1"), (FRAME, "0", "2"), (LINEAR, "0", "1"), (FRAME, "0", "2")]
    assert bar_root.get("resource-id") == "com.android.settings:id/action_bar_root"
    assert content.get("resource-id") == "android:id/content"
    assert [(n.get("resource-id"), n.get("index"), n.get("drawing-order")) for n in (status_bg, nav_bg)] == [
        ("android:id/statusBarBackground", "1", "2"), ("android:id/navigationBarBackground", "2", "3")]
    assert ui.bounds(status_bg) == system_ui.status_bar_rect(phone.metrics(), 0)


def test_index_gaps_and_drawing_order_count_hidden_siblings():
    """A child clipped away keeps its index; a GONE one takes no index but counts in the drawing order."""
    parent = View(FRAME, (0, 0, 100, 100),
                  View(TEXT, (0, 0, 100, 10), text="first"),
                  View(TEXT, (0, 200, 100, 210), text="off screen"),
                  View(VIEW_STUB, (0, 0, 0, 0), gone=True),
                  View(VIEW, (0, 0, 100, 1), kind="fill", dump=False),      # paint only: no view at all
                  View(TEXT, (0, 20, 100, 30), text="last"))
    xml = hierarchy_xml.dump([Window(parent, "p", "app")], 0, ANDROID14_ATTRS, (0, 0, 100, 100), (0, 0, 100, 100))
    found = re.findall(r'index="(\d+)" text="(\w+)".*?drawing-order="(\d+)"', xml)
    assert found == [("0", "first", "1"), ("2", "last", "4")]
    assert "off screen" not in xml and "ViewStub" not in xml


def test_empty_edit_text_reports_its_hint_and_focus(phone, ui):
    open_notes_editor(ui)
    title = ui.find(cls="android.widget.EditText", text="Title")
    body = ui.find(cls="android.widget.EditText", text="Note")
    assert title.get("focused") == "true" and body.get("focused") == "false"
    assert title.get("clickable") == "true" and title.get("long-clickable") == "true"
    assert (title.get("hint"), body.get("hint")) == ("Title", "Note")
    phone.input_text("Groceries")
    title = ui.find(cls="android.widget.EditText", text="Groceries")
    assert title.get("hint") == "Title"                                  # the hint stays when text is typed
    assert ui.find(text="9:41").get("hint") == ""                        # other nodes have none


def test_android9_dumps_have_no_hint_or_drawing_order():
    ui = UI(new_phone(profile="android9"))
    open_notes_editor(ui)
    xml = ui.phone.dump_hierarchy()
    assert 'text="Title"' in xml and " hint=" not in xml and "drawing-order" not in xml


def test_escaping_as_the_phones_serializer_does(phone, ui):
    open_notes_editor(ui)
    phone.input_text('a<b>&"c"')
    ui.tap(text="Note")
    phone.input_text("it's\tone\nline two \u00e9\U0001F4C1\x07")
    xml = phone.dump_hierarchy()
    assert "text='a&lt;b&gt;&amp;\"c\"'" in xml                          # a value with " is quoted with '
    assert 'text="it\'s&#9;one&#10;line two \u00e9&#128193;."' in xml   # emoji as a character reference
    assert ui.find(text="line two", contains=True).get("text") == "it's\tone\nline two \u00e9\U0001F4C1."


@pytest.mark.parametrize(("value", "written"), [
    ("plain", ' t="plain"'),
    ('say "hi"', " t='say \"hi\"'"),
    ('"it\'s"', " t='\"it&apos;s\"'"),
    ("it's", ' t="it\'s"'),
    ("a\r\nb", ' t="a&#13;&#10;b"'),
    ("\x00\x1f\x7f\x85\ufdd0\ufffe", ' t="...\x85.."'),       # stripped to '.', except NEL
    ("\u4f60\u597d", ' t="\u4f60\u597d"'),                          # other text as it is (UTF-8)
])
def test_attribute_values(value, written):
    assert hierarchy_xml.attribute("t", value) == written


def test_naf_is_the_first_attribute_of_unlabelled_clickables(phone, ui):
    ui.tap(text="Calculator")
    root = ui.parse(phone.dump_hierarchy())
    nafs = [n for n in root.iter("node") if n.get("NAF")]
    assert len(nafs) == 1                                   # the history button: an icon with no description
    naf = nafs[0]
    assert naf.get("clickable") == "true" and naf.get("text") == "" and naf.get("content-desc") == ""
    assert all(not c.get("text") and not c.get("content-desc") for c in naf.iter("node"))
    assert re.search(r'<node NAF="true" index="0"', phone.dump_hierarchy())
    keys = [n for n in root.iter("node") if n.get("clickable") == "true" and not n.get("NAF")]
    assert len(keys) == 20 and all(k[0].get("text") for k in keys)    # labelled by their child: not NAF


@pytest.mark.parametrize(("profile", "size"), [("android14", (2400, 1080)), ("android9", (1280, 720))])
def test_rotation_attribute_and_landscape_bounds(profile, size):
    ui = UI(new_phone(profile=profile))
    ui.phone.set_rotation(1)
    xml = ui.phone.dump_hierarchy()
    assert '<hierarchy rotation="1">' in xml
    nav = ui.bounds(ui.find(rid="com.android.systemui:id/navigation_bar_frame"))
    nodes = list(ui.parse(xml).iter("node"))
    right = size[0] if profile == "android14" else nav[0]          # Android 9: up to the bar on the right
    assert max(ui.bounds(n)[2] for n in nodes) == right and nav[0] < size[0]
    assert max(ui.bounds(n)[3] for n in nodes) == size[1]
