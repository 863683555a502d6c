"""Parsing uiautomator dumps and choosing controls: one small inline dump per rule."""

from __future__ import annotations

import json
from xml.sax.saxutils import quoteattr

import pytest
from lxml import etree

from app.core.perception.controls import Control
from app.core.perception.hierarchy import (
    HierarchyError,
    extract_controls,
    parse_bounds,
    parse_hierarchy,
    screen_size_from_hierarchy,
    select_controls,
)
from app.core.perception.locator import xpath_literal
from tests.core.conftest import element_path

SCREEN = (1080, 1920)


def node(*children: str, cls: str = "android.widget.FrameLayout", bounds: str = "[0,0][1080,1920]", **attrs) -> str:
    """A `<node>` as uiautomator writes it; keyword names use _ for - (content_desc…)."""
    attributes = {"class": cls, "package": "com.example", "bounds": bounds}
    for key, value in attrs.items():
        attributes[key.replace("_", "-")] = ("true" if value else "false") if isinstance(value, bool) else value
    rendered = " ".join(f"{key}={quoteattr(value)}" for key, value in attributes.items())
    return f"<node {rendered}>{''.join(children)}</node>"


def dump(*windows: str, rotation: int = 0) -> str:
    return (
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
        f'<hierarchy rotation="{rotation}">{"".join(windows)}</hierarchy>'
    )


def button(name: str, bounds: str, **attrs) -> str:
    return node(cls="android.widget.Button", text=name, clickable=True, bounds=bounds, **attrs)


def names(controls: list[Control]) -> list[str]:
    return [c.name for c in controls]


# --- parsing -----------------------------------------------------------------------------


def test_junk_before_the_declaration_and_after_the_hierarchy_is_ignored():
    xml = (
        "WARNING: linker: app_process has text relocations.\n"
        "UI hierchary dumped to: /dev/tty\n"
        + dump(node(button("OK", "[10,10][200,100]")))
        + "UI hierchary dumped to: /sdcard/window_dump.xml\n"
    )
    assert names(extract_controls(xml)) == ["OK"]
    assert names(extract_controls(xml.encode("utf-8"))) == ["OK"]


def test_byte_order_marks_and_utf16_are_decoded():
    xml = dump(node(button("Отправить 发送 ✓", "[10,10][200,100]")))
    for data in (b"\xef\xbb\xbf" + xml.encode("utf-8"), xml.encode("utf-16"), xml.encode("utf-16-le")):
        assert names(extract_controls(data)) == ["Отправить 发送 ✓"]


def test_escaped_and_unusual_characters_survive():
    text = 'Tom & "Jerry" <3\tשלום 😀 \ue68c'
    xml = dump(node(button(text, "[0,0][500,100]")))
    control = extract_controls(xml)[0]
    assert control.text == text
    assert control.name == 'Tom & "Jerry" <3 שלום 😀'  # whitespace collapsed, icon-font glyph dropped


def test_pretty_printed_dump_and_non_node_elements():
    xml = (
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n<hierarchy rotation=\"0\">\n"
        "  <!-- comment -->\n  <node class=\"a.B\" bounds=\"[0,0][100,100]\">\n"
        "    <extra><node class=\"a.Hidden\" text=\"nope\" bounds=\"[0,0][9,9]\"/></extra>\n"
        "    <node class=\"a.TextView\" text=\"Hi\" bounds=\"[0,0][50,50]\"/>\n  </node>\n</hierarchy>\n"
    )
    hierarchy = parse_hierarchy(xml)
    assert [n.class_name for n in hierarchy.iter_nodes()] == ["a.B", "a.TextView"]
    assert hierarchy.windows[0].children[0].path == (0, 0)


def test_truncated_dump_keeps_what_was_written():
    xml = dump(node(button("One", "[0,0][100,100]"), button("Two", "[0,100][100,200]")))
    truncated = xml[: xml.index("Two") + 20]
    assert "One" in names(extract_controls(truncated))


def test_illegal_control_characters_are_recovered():
    xml = dump(node(button("bad\x01char", "[0,0][100,100]"), button("fine", "[0,100][100,200]")))
    assert names(extract_controls(xml)) == ["bad?char", "fine"]


@pytest.mark.parametrize(
    ("output", "phrase"),
    [
        ("", "empty"),
        ("  \n ", "empty"),
        ("ERROR: could not get idle state.\n", "idle"),
        ("ERROR: null root node returned by UiTestAutomationBridge.", "no window"),
        ("hello world, this is not a dump", "not a uiautomator dump"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "not a uiautomator dump"),
    ],
)
def test_unusable_output_raises_a_clear_error(output, phrase):
    with pytest.raises(HierarchyError, match=phrase):
        parse_hierarchy(output)


def test_hierarchy_without_windows_has_no_controls():
    hierarchy = parse_hierarchy('<hierarchy rotation="0"/>')
    assert (hierarchy.windows, select_controls(hierarchy), screen_size_from_hierarchy(hierarchy)) == ([], [], (0, 0))


def test_hierarchy_error_is_a_value_error():
    assert issubclass(HierarchyError, ValueError)


@pytest.mark.parametrize(("attribute", "expected"), [(' rotation="1"', 1), (' rotation="3"', 3), ("", 0)])
def test_rotation_is_read(attribute, expected):
    xml = f"<hierarchy{attribute}>{node(bounds='[0,0][1920,1080]')}</hierarchy>"
    assert parse_hierarchy(xml).rotation == expected


def test_several_windows():
    xml = dump(
        node(button("App", "[0,100][500,300]"), bounds="[0,0][1080,2400]"),
        node(button("Status", "[0,0][300,60]"), bounds="[0,0][1080,60]"),
        node(button("Keyboard", "[0,2000][1080,2300]"), bounds="[0,1800][1080,2340]"),
    )
    hierarchy = parse_hierarchy(xml)
    assert len(hierarchy.windows) == 3
    assert screen_size_from_hierarchy(hierarchy) == (1080, 2400)
    controls = select_controls(hierarchy)
    assert [(c.name, c.window) for c in controls] == [("Status", 1), ("App", 0), ("Keyboard", 2)]
    assert controls[0].node_path == (1, 0)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("[0,0][1080,1920]", (0, 0, 1080, 1920)),
        ("[-20,5][30,40]", (-20, 5, 30, 40)),
        ("[1.5, 2][3 ,4]", (1, 2, 3, 4)),
        ("[1,2][3]", None),
        ("", None),
        ("null", None),
    ],
)
def test_parse_bounds(value, expected):
    assert parse_bounds(value) == expected


# --- selection ---------------------------------------------------------------------------


def test_selection_criteria():
    xml = dump(
        node(
            node(cls="android.widget.LinearLayout", bounds="[0,0][10,10]"),  # plain layout: no
            node(cls="android.widget.TextView", text="Label", bounds="[0,100][200,150]"),
            node(cls="android.widget.ImageView", content_desc="Photo", bounds="[0,200][200,300]"),
            node(cls="android.widget.EditText", bounds="[0,300][500,400]"),
            node(cls="android.widget.ImageButton", bounds="[0,400][100,500]"),
            node(cls="android.view.View", long_clickable=True, bounds="[0,500][100,600]"),
            node(cls="android.widget.ListView", scrollable=True, bounds="[0,600][1080,1000]"),
            node(cls="android.widget.CheckBox", checkable=True, bounds="[0,1000][100,1100]"),
            node(cls="android.view.View", text="   ", bounds="[0,1100][100,1200]"),  # blank text: no
            bounds="[0,0][1080,1920]",
        )
    )
    assert [c.type for c in extract_controls(xml)] == [
        "TextView", "ImageView", "EditText", "ImageButton", "View", "ListView", "CheckBox"
    ]


@pytest.mark.parametrize("bounds", ["[100,100][100,200]", "[100,100][200,100]", "[300,100][200,200]", "garbage"])
def test_empty_negative_and_malformed_rects_are_dropped(bounds):
    xml = dump(node(button("Ghost", bounds), button("Real", "[0,0][50,50]")))
    assert names(extract_controls(xml)) == ["Real"]


def test_children_of_a_node_with_bad_bounds_are_still_found():
    xml = dump(node(node(button("Inner", "[0,0][50,50]"), bounds="[bad]")))
    assert names(extract_controls(xml)) == ["Inner"]


def test_clipping_to_the_screen():
    xml = dump(node(button("Wide", "[-50,100][1200,300]"), button("Below", "[0,2000][100,2100]"),
                    bounds="[0,0][1080,2400]"))
    clipped = extract_controls(xml, SCREEN)
    assert [(c.name, c.rect) for c in clipped] == [("Wide", (0, 100, 1080, 300))]
    unclipped = extract_controls(xml)
    assert [(c.name, c.rect) for c in unclipped] == [("Wide", (-50, 100, 1200, 300)), ("Below", (0, 2000, 100, 2100))]


def test_nodes_not_visible_to_user_are_dropped():
    xml = dump(node(button("Shown", "[0,0][50,50]"), button("Hidden", "[0,60][50,90]", visible_to_user=False)))
    assert names(extract_controls(xml)) == ["Shown"]


def test_duplicate_rect_keeps_the_tappable_one_with_the_label():
    xml = dump(
        node(
            node(
                node(cls="android.widget.ImageView", content_desc="Settings", bounds="[900,50][1000,150]"),
                cls="android.widget.FrameLayout",
                clickable=True,
                bounds="[900,50][1000,150]",
            ),
            node(cls="android.widget.TextView", text="Title", scrollable=True, bounds="[0,50][800,150]"),
            node(cls="android.widget.TextView", text="Title", clickable=True, bounds="[0,50][800,150]"),
        )
    )
    controls = extract_controls(xml)
    assert [(c.name, c.type, c.clickable) for c in controls] == [
        ("Title", "TextView", True),
        ("Settings", "FrameLayout", True),
    ]
    assert controls[0].scrollable  # flags of the dropped same-rect twin are kept
    assert len({c.rect for c in controls}) == len(controls)


def test_unlabelled_tappable_container_is_named_by_its_texts():
    row = node(
        node(cls="android.widget.ImageView", bounds="[20,220][100,300]"),
        node(cls="android.widget.TextView", text="Wi-Fi", bounds="[120,210][600,260]"),
        node(cls="android.widget.TextView", text="Connected to Home", bounds="[120,260][600,300]"),
        node(cls="android.widget.Switch", checkable=True, checked=True, bounds="[900,220][1000,300]"),
        cls="android.widget.LinearLayout",
        clickable=True,
        bounds="[0,200][1080,320]",
    )
    controls = extract_controls(dump(node(row)))
    assert [(c.name, c.type) for c in controls] == [
        ("Wi-Fi, Connected to Home", "LinearLayout"),
        ("Switch", "Switch"),
    ]
    assert controls[1].checked


def test_container_with_many_texts_keeps_them_separate():
    texts = [
        node(cls="android.widget.TextView", text=f"Line {i}", bounds=f"[0,{i * 50}][500,{i * 50 + 40}]")
        for i in range(6)
    ]
    xml = dump(node(node(*texts, clickable=True, bounds="[0,0][1080,400]")))
    controls = extract_controls(xml)
    assert names(controls) == ["FrameLayout"] + [f"Line {i}" for i in range(6)]


def test_labelled_container_drops_only_repeated_texts():
    card = node(
        node(cls="android.widget.TextView", text="Sustainable News", bounds="[10,110][500,150]"),
        node(cls="android.widget.TextView", text="3 hours ago", bounds="[10,160][500,190]"),
        content_desc="Sustainable News",
        clickable=True,
        bounds="[0,100][1080,200]",
    )
    assert names(extract_controls(dump(node(card)))) == ["Sustainable News", "3 hours ago"]


def test_password_text_is_never_exposed():
    secret = "hunter2-secret"
    field = node(
        cls="android.widget.EditText", text=secret, password=True, hint="Password",
        resource_id="com.example:id/pwd", clickable=True, bounds="[0,500][1080,600]",
    )
    unhinted = node(cls="android.widget.EditText", text=secret, password=True,
                    resource_id="com.example:id/pin", bounds="[0,700][1080,800]")
    controls = extract_controls(dump(node(field, unhinted)))
    assert names(controls) == ["Password", "pin"]
    assert all(c.password and c.text == "" for c in controls)
    rendered = json.dumps([c.to_dict() for c in controls]) + "".join(c.to_prompt_line() + c.locator for c in controls)
    assert secret not in rendered


def test_password_text_is_not_used_to_name_a_container():
    field = node(cls="android.view.View", text="s3cr3t", password=True, bounds="[0,0][100,50]")
    xml = dump(node(node(field, clickable=True, bounds="[0,0][200,100]")))
    assert "s3cr3t" not in json.dumps([c.to_dict() for c in extract_controls(xml)])


def test_reading_order_rows_then_left_to_right():
    xml = dump(
        node(
            node(cls="android.widget.ListView", scrollable=True, bounds="[0,300][1080,1900]"),
            button("Item 2", "[0,600][1080,900]"),
            button("Item 1", "[0,300][1080,600]"),
            button("Menu", "[933,63][1080,210]"),
            node(cls="android.widget.TextView", text="Title", bounds="[189,100][600,173]"),
            button("Back", "[0,63][147,210]"),
            button("Right", "[600,1000][1080,1100]"),
            button("Left", "[0,1004][500,1096]"),
        )
    )
    assert names(extract_controls(xml)) == ["Back", "Title", "Menu", "ListView", "Item 1", "Item 2", "Left", "Right"]
    assert [c.id for c in extract_controls(xml)] == list(range(1, 9))


@pytest.mark.parametrize(
    ("attrs", "expected"),
    [
        ({"text": "Send", "content_desc": "Send message", "resource_id": "com.x:id/send"}, "Send"),
        ({"content_desc": "Send message", "resource_id": "com.x:id/send"}, "Send message"),
        ({"hint": "Search", "resource_id": "com.x:id/query"}, "Search"),
        ({"resource_id": "com.x:id/send_button"}, "send_button"),
        ({"resource_id": "submit-btn"}, "submit-btn"),
        ({}, "ImageButton"),
        ({"text": "  two\nlines  "}, "two lines"),
    ],
)
def test_name_fallback_chain(attrs, expected):
    xml = dump(node(node(cls="android.widget.ImageButton", clickable=True, bounds="[0,0][100,100]", **attrs)))
    assert extract_controls(xml)[0].name == expected




def test_locator_rules_and_each_locator_finds_its_node():
    xml = dump(
        node(
            button("A", "[0,0][100,100]", resource_id="com.x:id/unique"),
            button("Same", "[0,100][100,200]", resource_id="com.x:id/row"),
            button("Same", "[0,200][100,300]", resource_id="com.x:id/row", content_desc="third"),
            button("Same", "[0,300][100,400]", resource_id="com.x:id/row"),
            button('Say "hi" it\'s', "[0,400][100,500]"),
        )
    )
    controls = extract_controls(xml)
    assert [c.locator for c in controls] == [
        '//*[@resource-id="com.x:id/unique"]',
        "/hierarchy/node[1]/node[2]",
        '//*[@content-desc="third"]',
        "/hierarchy/node[1]/node[4]",
        """//*[@text=concat("Say ", '"', "hi", '"', " it's")]""",
    ]
    tree = etree.fromstring(xml.encode())
    for control in controls:
        (found,) = tree.xpath(control.locator)
        assert element_path(found) == control.node_path


@pytest.mark.parametrize("value", ["plain", 'with "double"', "with 'single'", """both ' and " """, ""])
def test_xpath_literal_round_trips(value):
    assert etree.XPath(f"string({xpath_literal(value)})")(etree.Element("x")) == value


def test_to_dict_has_exactly_the_guide_fields():
    xml = dump(node(button("Go", "[10,20][110,220]", resource_id="com.x:id/go", checkable=True, checked=True)))
    data = extract_controls(xml)[0].to_dict()
    assert set(data) == {
        "id", "name", "type", "resource_id", "text", "content_desc", "rect",
        "clickable", "long_clickable", "scrollable", "checkable", "checked",
        "enabled", "focused", "selected", "password", "package", "locator",
    }
    assert data["rect"] == [10, 20, 110, 220]
    assert data["id"] == 1 and data["checked"] is True and data["long_clickable"] is False
    assert json.loads(json.dumps(data)) == data


def test_control_geometry_and_prompt_line():
    xml = dump(node(button("Send", "[440,2150][640,2250]", enabled=False, selected=True), bounds="[0,0][1080,2400]"))
    control = extract_controls(xml)[0]
    assert (control.center, control.width, control.height) == ((540, 2200), 200, 100)
    assert control.to_prompt_line() == '1 button "Send" tap,selected,disabled @540,2200'


def test_prompt_line_truncates_and_omits_a_name_that_repeats_the_type():
    long_text = "Sustainable living through the latest developments in housing and energy"
    switch = node(cls="a.Switch", checkable=True, bounds="[0,200][9,209]")
    xml = dump(node(button(long_text, "[0,0][1080,100]"), switch))
    first, second = extract_controls(xml)
    assert first.to_prompt_line() == '1 button "Sustainable living through the…" tap @540,50'
    assert second.to_prompt_line() == "2 switch unchecked @4,204"

