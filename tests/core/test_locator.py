"""Finding a control again: a target's locator, its nearby labelled anchors, and the compact control summary."""

from __future__ import annotations

import dataclasses
import json

import pytest
from lxml import etree

from app.core.perception.controls import Control
from app.core.perception.hierarchy import extract_controls
from app.core.perception.locator import (
    ANCHOR_LIMIT,
    edge_distance,
    is_labelled,
    nearby_anchors,
    relation,
    summarize_control,
    summarize_controls,
    target_locator,
)
from app.core.redaction import PASSWORD_MASK
from app.virtual_phone.phone import VirtualPhone

SCREEN = (1080, 2400)


def control(id: int, name: str, rect, *, type: str = "TextView", text: str | None = None, content_desc: str = "",
            resource_id: str = "", **flags) -> Control:
    return Control(id=id, name=name, type=type, class_name=f"android.widget.{type}", resource_id=resource_id,
                   text=name if text is None else text, content_desc=content_desc, rect=rect, **flags)


@pytest.mark.parametrize("anchor, expected", [
    ((0, 300, 500, 400), "left_of"),          # same row, to the left
    ((1000, 300, 1080, 400), "right_of"),
    ((600, 100, 900, 200), "above"),
    ((600, 500, 900, 600), "below"),
    ((620, 320, 700, 380), "inside"),
    ((0, 250, 1080, 450), "contains"),
    ((0, 0, 100, 280), "left_of"),            # diagonal: 500 px apart sideways, 20 px vertically
    ((560, 390, 960, 700), "below"),          # overlapping: its centre lies below
])
def test_relation_says_where_the_anchor_is_seen_from_the_target(anchor, expected):
    target = (600, 300, 960, 400)
    assert relation(anchor, target) == expected


def test_edge_distance_is_zero_for_touching_or_overlapping_rects():
    assert edge_distance((0, 0, 10, 10), (10, 0, 20, 10)) == 0
    assert edge_distance((0, 0, 10, 10), (5, 5, 20, 20)) == 0
    assert edge_distance((0, 0, 10, 10), (13, 14, 20, 20)) == 5


def settings_row() -> list[Control]:
    """A settings screen: a header, a row titled Wi-Fi with a switch (and a status line under the title),
    a Bluetooth row below, a password field far down."""
    return [
        control(1, "Network & internet", (40, 100, 1040, 200)),
        control(2, "Wi-Fi", (40, 300, 600, 360)),
        control(3, "switch_widget", (900, 300, 1040, 360), type="Switch", text="",
                resource_id="android:id/switch_widget", checkable=True, checked=True, clickable=True),
        control(4, "Connected", (40, 360, 600, 400)),
        control(5, "Bluetooth", (40, 450, 600, 510)),
        control(6, "Wi-Fi", (40, 1200, 600, 1260)),                       # a second "Wi-Fi": ambiguous
        control(7, "pin", (40, 1400, 1040, 1500), type="EditText", text="hunter22", password=True),
        control(8, "LinearLayout", (0, 0, 1080, 2400), type="LinearLayout", text=""),   # no label of its own
    ]


def test_anchors_are_the_nearest_labelled_controls_with_their_relation():
    controls = settings_row()
    anchors = nearby_anchors(controls[2], controls)
    assert [(a.name, a.relation) for a in anchors] == [        # its row's label first, then the nearest
        ("Wi-Fi", "left_of"), ("Network & internet", "above"), ("Connected", "left_of")]
    assert anchors[0].distance == 300 and len(anchors) == ANCHOR_LIMIT


def test_anchors_leave_out_passwords_unlabelled_containers_and_repeated_names():
    controls = settings_row()
    anchors = nearby_anchors(controls[6], controls, limit=10)      # the password field's own anchors
    names = [a.name for a in anchors]
    assert "LinearLayout" not in names and "pin" not in names
    assert names.count("Wi-Fi") == 1
    assert not is_labelled(controls[7]) and not is_labelled(controls[2]) and is_labelled(controls[1])


def test_target_locator_keeps_what_finds_the_control_again():
    controls = settings_row()
    switch = dataclasses.replace(controls[2], locator="/hierarchy/node[1]/node[3]", node_path=(0, 2),
                                 package="com.android.settings")
    locator = target_locator(switch, controls)
    assert locator.xpath == "/hierarchy/node[1]/node[3]" and locator.node_path == [0, 2]
    assert locator.package == "com.android.settings" and locator.name == "switch_widget"
    assert locator.resource_id == "android:id/switch_widget" and locator.class_name == "android.widget.Switch"
    assert locator.bounds == [900, 300, 1040, 360] and locator.checkable and locator.checked and not locator.selected
    assert locator.anchors[0].name == "Wi-Fi" and locator.anchors[0].relation == "left_of"


def test_a_password_fields_text_is_masked_in_summaries_and_locators():
    controls = settings_row()
    field = controls[6]
    assert target_locator(field, controls).text == PASSWORD_MASK
    summary = summarize_control(field)
    assert summary.text == PASSWORD_MASK and "password" in summary.flags
    assert "hunter22" not in json.dumps([c.to_dict() for c in summarize_controls(controls)], ensure_ascii=False)


def test_a_summary_is_compact_true_flags_only():
    summary = summarize_control(settings_row()[2])
    assert summary.to_dict() == {"id": 3, "name": "switch_widget", "type": "Switch",
                                 "resource_id": "android:id/switch_widget", "rect": [900, 300, 1040, 360],
                                 "flags": ["clickable", "checkable", "checked"]}
    disabled = summarize_control(control(9, "OK", (0, 0, 10, 10), enabled=False))
    assert disabled.flags == ["disabled"]


def test_on_a_real_screen_the_locator_selects_the_target_node_and_the_row_is_an_anchor():
    phone = VirtualPhone()
    for name in ("Settings", "Network & internet"):
        controls = extract_controls(phone.dump_hierarchy(), SCREEN)
        phone.tap(*next(c for c in controls if c.name.startswith(name)).center)
    xml = phone.dump_hierarchy()
    controls = extract_controls(xml, SCREEN)
    switch = next(c for c in controls if c.type == "Switch")
    locator = target_locator(switch, controls)
    tree = etree.fromstring(xml.encode("utf-8") if isinstance(xml, str) else xml)
    (node,) = tree.xpath(locator.xpath)
    left, top, right, bottom = locator.bounds
    assert node.get("class") == locator.class_name and node.get("bounds") == f"[{left},{top}][{right},{bottom}]"
    path_node = tree
    for index in locator.node_path:
        path_node = [child for child in path_node if child.tag == "node"][index]
    assert path_node is node
    assert locator.anchors[0].relation == "contains" and locator.anchors[0].name.startswith("Wi")
