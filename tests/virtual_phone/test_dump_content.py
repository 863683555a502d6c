"""Trees as real apps produce them: a Compose app (Calculator), a WebView page (Settings › Tips &
support), NAF nodes, and controls that still work when driven from such dumps."""

from __future__ import annotations

import pytest

from app.virtual_phone.views import COMPOSE_VIEW, WEBVIEW

from .conftest import UI, new_phone

HELP = "com.android.settings.Settings$SupportDashboardActivity"


def app_nodes(ui: UI) -> list:
    """The nodes `uiautomator dump` gives (the active window)."""
    return list(ui.parse(ui.phone.dump_hierarchy()).iter("node"))


def open_help(ui: UI) -> None:
    ui.tap(text="Settings")
    w, h = ui.phone.display_size()
    while ui.find(text="Tips & support") is None:
        ui.phone.swipe(w // 2, h * 3 // 4, w // 2, h // 4, 300)
    ui.tap(text="Tips & support")


def test_calculator_is_a_compose_tree(phone, ui):
    ui.tap(text="Calculator")
    nodes = app_nodes(ui)
    (compose,) = [n for n in nodes if n.get("class") == COMPOSE_VIEW]
    below = list(compose.iter("node"))[1:]
    assert {n.get("class") for n in below} == {"android.view.View", "android.widget.TextView"}
    assert {n.get("resource-id") for n in below} == {"", "formula", "result"}     # test tags, bare
    seven = ui.find(text="7", package="com.agentdesk.calculator")
    key = seven.getparent()
    assert seven.get("clickable") == "false" and key.get("clickable") == "true"    # text on the clickable's child
    assert key.get("text") == "" and key.get("class") == "android.view.View"
    assert ui.find(desc="multiply").getparent().get("clickable") == "true"


def test_the_calculators_unlabelled_history_button_is_naf_and_works(phone, ui):
    ui.tap(text="Calculator")
    for key in ("1", "2", "multiply", "3", "equals"):
        ui.tap(desc=key) if not key.isdigit() else ui.tap(text=key, desc="")
    (naf,) = [n for n in app_nodes(ui) if n.get("NAF") == "true"]
    assert naf.get("text") == naf.get("content-desc") == "" and len(naf) == 1    # an icon with no description
    ui.phone.tap(*ui.node_center(naf))
    assert ui.find(text="12×3 = 36") is not None                                   # the history panel
    ui.phone.tap(*ui.node_center(naf))
    assert ui.find(text="12×3 = 36") is None


@pytest.mark.parametrize("profile", ["android14", "android9"])
def test_help_page_is_a_webview_subtree(profile):
    ui = UI(new_phone(profile=profile))
    open_help(ui)
    nodes = app_nodes(ui)
    outer, inner = [n for n in nodes if n.get("class") == WEBVIEW]
    assert inner.getparent() is outer and outer.get("text") == "" and inner.get("text") == "Tips & support"
    assert inner.get("focusable") == "true" and outer.get("focusable") == "false"
    ids = {n.get("resource-id") for n in outer.iter("node")}
    assert {"main", "topics"} <= ids and not any(":id/" in i for i in ids)          # bare HTML ids
    topics = ui.find(rid="topics")
    assert topics.get("class") == "android.widget.ListView"
    item = topics[0]
    marker, question = item[0], item[1]
    assert marker.get("text") == "\u2022 " and question.get("class") == "android.widget.Button"
    assert ui.bounds(marker)[2] <= ui.bounds(item)[0]     # left of its item, as Chromium reports


def test_a_help_question_opens_its_answer(ui):
    open_help(ui)
    answer = "Open Settings, tap Security & privacy, then Screen lock, and choose a PIN of at least 4 digits."
    assert ui.find(text=answer) is None
    ui.tap(text="How do I set a screen lock?")
    assert ui.find(text=answer).get("class") == "android.widget.TextView"
    ui.tap(text="How do I set a screen lock?")
    assert ui.find(text=answer) is None


def test_every_clickable_node_of_the_new_screens_reaches_its_view():
    """As test_clickables does for the older screens: a tap at each clickable node's centre hits it."""
    for open_screen in (open_help, lambda ui: ui.tap(text="Calculator")):
        ui = UI(new_phone())
        open_screen(ui)
        targets = [n for n in app_nodes(ui) if n.get("clickable") == "true"]
        assert len(targets) >= 4
        for node in targets:
            view = ui.phone.hit_test(*ui.node_center(node))
            assert view is not None and view.visible_bounds == ui.bounds(node), node.attrib
