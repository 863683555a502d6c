"""Copy as: a control's locator as XPath, UiSelector, uiautomator2, Appium and adb, unique on its
screen and quoted for each language."""

from __future__ import annotations

import ast
import re

import pytest
from lxml import etree

from app.core.perception.controls import Control
from app.core.perception.hierarchy import parse_hierarchy, screen_size_from_hierarchy, select_controls
from app.core.perception.locator_formats import (
    FORMATS,
    Selector,
    choose_selector,
    copy_formats,
    describe_selector,
    java_string,
    python_string,
    screen_nodes,
)
from app.virtual_phone.phone import VirtualPhone

QUOTES = ['plain', 'say "hi"', "it's", """both ' and " here""", "back\\slash", "tab\tand\nnewline",
          "Réglages 📶 設定 שלום", "\x07bell", "line\u2028sep"]


def screen(package: str | None = None):
    phone = VirtualPhone()
    if package:
        phone.launch(package)
    xml = phone.dump_hierarchy()
    hierarchy = parse_hierarchy(xml)
    return select_controls(hierarchy, (1080, 2400)), hierarchy, xml


@pytest.fixture(scope="module")
def settings():
    return screen("com.android.settings")


@pytest.fixture(scope="module")
def contacts():
    return screen("com.android.contacts")


def by_name(controls, name):
    return next(c for c in controls if c.name == name or c.name.endswith(", " + name) or c.text == name)


@pytest.mark.parametrize("value", QUOTES)
def test_python_strings_evaluate_back_to_the_value(value):
    literal = python_string(value)
    assert ast.literal_eval(literal) == value
    assert "\n" not in literal and "\t" not in literal


def test_python_strings_prefer_double_quotes_and_keep_readable_unicode():
    assert python_string("Wi-Fi") == '"Wi-Fi"'
    assert python_string('say "hi"') == "'say \"hi\"'"
    assert python_string("Réglages 📶") == '"Réglages 📶"'


@pytest.mark.parametrize("value", QUOTES)
def test_java_strings_escape_what_java_needs(value):
    literal = java_string(value)
    assert literal.startswith('"') and literal.endswith('"')
    body = literal[1:-1]
    assert not re.search(r'(?<!\\)(\\\\)*"', body), "an unescaped quote ends the literal early"
    assert "\n" not in body and "\u2028" not in body and "\x07" not in body
    decoded = re.sub(r"\\u([0-9a-f]{4})", lambda m: chr(int(m.group(1), 16)), body)
    decoded = decoded.encode("utf-16", "surrogatepass").decode("utf-16")
    decoded = re.sub(r'\\(["\\ntrbf])', lambda m: {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}.get(
        m.group(1), m.group(1)), decoded)
    assert decoded == value


def test_a_unique_resource_id_is_used_alone_in_every_form(settings):
    controls, hierarchy, _ = settings
    title = by_name(controls, "Settings")
    forms = copy_formats(title, controls, hierarchy)
    rid = "com.android.settings:id/homepage_title"
    assert title.resource_id == rid
    assert forms["resource_id"] == rid and forms["text"] == "Settings"
    assert forms["xpath"] == f'//*[@resource-id="{rid}"]'
    assert forms["uiselector"] == f'new UiSelector().resourceId("{rid}")'
    assert forms["uiautomator2"] == f'd(resourceId="{rid}")'
    assert forms["appium"] == f'driver.find_element(AppiumBy.ID, "{rid}")'
    assert forms["appium_java"] == f'driver.findElement(AppiumBy.id("{rid}"));'
    x, y = title.center
    assert forms["adb_tap"] == f"adb shell input tap {x} {y}"
    assert set(forms) == {key for key, _ in FORMATS}


def test_a_resource_id_shared_by_rows_is_never_offered_alone(contacts):
    controls, hierarchy, xml = contacts
    row = by_name(controls, "Alex Morgan")
    shared = [c for c in controls if c.resource_id == row.resource_id]
    assert len(shared) > 3, "the contact rows share one resource-id"
    forms = copy_formats(row, controls, hierarchy)
    lone = f'd(resourceId="{row.resource_id}")'
    assert forms["uiautomator2"] != lone
    assert forms["xpath"] == f'//*[@resource-id="{row.resource_id}"][.//*[@text="Alex Morgan"]]'
    assert forms["uiautomator2"] == f"d.xpath('{forms['xpath']}')"
    assert forms["appium"] == f"driver.find_element(AppiumBy.XPATH, '{forms['xpath']}')"
    assert forms["uiselector"].endswith(f".instance({shared.index(row)})")      # UiSelector cannot say "contains"
    assert describe_selector(choose_selector(row, screen_nodes(controls, hierarchy))) == \
        "unique by the text inside it"
    assert_selects_only(xml, forms["xpath"], row)


def test_with_only_the_controls_the_rows_fall_back_to_their_position(contacts):
    controls, _, _ = contacts
    row = by_name(controls, "Alex Morgan")
    selector = choose_selector(row, screen_nodes(controls))
    rows = sorted((c for c in controls if c.resource_id == row.resource_id), key=lambda c: c.node_path)
    if selector.anchor is None:
        assert selector.instance == rows.index(row)
    assert not selector.unique


def test_text_is_quoted_for_each_language():
    dump = """<?xml version='1.0' encoding='UTF-8'?><hierarchy rotation="0">
<node index="0" text="" class="android.widget.FrameLayout" package="p" resource-id="" content-desc=""
 clickable="false" bounds="[0,0][1080,2400]">
<node index="0" text="Say &quot;hi&quot; it's me" class="android.widget.Button" package="p" resource-id=""
 content-desc="" clickable="true" bounds="[0,100][500,300]"/>
<node index="1" text="" class="android.widget.ImageButton" package="p" resource-id="" content-desc="🔍 Поиск"
 clickable="true" bounds="[0,300][200,500]"/>
</node></hierarchy>"""
    hierarchy = parse_hierarchy(dump)
    controls = select_controls(hierarchy, (1080, 2400))
    button = next(c for c in controls if c.type == "Button")
    forms = copy_formats(button, controls, hierarchy)
    assert forms["xpath"] == """//*[@text=concat("Say ", '"', "hi", '"', " it's me")]"""
    assert forms["uiautomator2"] == 'd(text="Say \\"hi\\" it\'s me")'
    assert ast.literal_eval(forms["uiautomator2"][2:-1].split("=", 1)[1]) == 'Say "hi" it\'s me'
    assert forms["uiselector"] == 'new UiSelector().text("Say \\"hi\\" it\'s me")'
    appium = forms["appium"]
    assert appium.startswith("driver.find_element(AppiumBy.ANDROID_UIAUTOMATOR, ")
    assert ast.literal_eval(appium[len("driver.find_element(AppiumBy.ANDROID_UIAUTOMATOR, "):-1]) == forms["uiselector"]
    assert forms["appium_java"] == ('driver.findElement(AppiumBy.androidUIAutomator('
                                    '"new UiSelector().text(\\"Say \\\\\\"hi\\\\\\" it\'s me\\")"));')
    search = next(c for c in controls if c.type == "ImageButton")
    forms = copy_formats(search, controls, hierarchy)
    assert forms["appium"] == 'driver.find_element(AppiumBy.ACCESSIBILITY_ID, "🔍 Поиск")'
    assert forms["uiautomator2"] == 'd(description="🔍 Поиск")'
    assert forms["resource_id"] == "" and forms["text"] == ""


def test_a_password_field_s_text_is_never_in_a_locator():
    dump = """<hierarchy rotation="0"><node class="android.widget.FrameLayout" package="p" bounds="[0,0][1080,2400]">
<node text="hunter2" class="android.widget.EditText" package="p" resource-id="p:id/pin" password="true"
 clickable="true" bounds="[0,100][500,300]"/>
<node text="hunter2" class="android.widget.EditText" package="p" resource-id="p:id/pin" password="true"
 clickable="true" bounds="[0,300][500,500]"/></node></hierarchy>"""
    hierarchy = parse_hierarchy(dump)
    controls = select_controls(hierarchy, (1080, 2400))
    for control in controls:
        forms = copy_formats(control, controls, hierarchy)
        assert not any("hunter2" in text for text in forms.values())
    assert copy_formats(controls[1], controls, hierarchy)["uiautomator2"] == 'd(resourceId="p:id/pin", instance=1)'


def assert_selects_only(xml, xpath, control: Control) -> None:
    root = etree.fromstring(xml.encode("utf-8") if isinstance(xml, str) else xml)
    found = root.xpath(xpath)
    assert len(found) == 1 and found[0].get("bounds") == "[{},{}][{},{}]".format(*control.rect), xpath


def uiselector_matches(selector: Selector, nodes) -> list:
    return [node for node in nodes if all(getattr(node, field) == value for field, value in selector.fields)]


def test_every_corpus_control_gets_locators_that_select_it_alone(corpus_dir):
    """XPath (run by lxml on the dump) and the UiSelector / uiautomator2 attribute sets (matched as
    UiAutomator matches them, instance counted in document order) find exactly the control."""
    checked = 0
    for path in sorted(corpus_dir.glob("*/*.xml")):
        try:
            hierarchy = parse_hierarchy(path.read_bytes())
        except ValueError:
            continue
        controls = select_controls(hierarchy, screen_size_from_hierarchy(hierarchy))
        nodes = screen_nodes(controls, hierarchy)
        root = etree.Element("hierarchy")
        stack = [(root, window) for window in reversed(hierarchy.windows)]
        while stack:
            parent, node = stack.pop()
            element = etree.SubElement(parent, "node", {**node.attributes, "class": node.class_name,
                                                        "path": ",".join(map(str, node.path))})
            stack.extend((element, child) for child in reversed(node.children))
        for control in controls:
            forms = copy_formats(control, controls, hierarchy, nodes)
            want = ",".join(map(str, control.node_path))
            found = root.xpath(forms["xpath"])
            assert [element.get("path") for element in found] == [want], f"{path.name} #{control.id}: {forms['xpath']}"
            selector = choose_selector(control, nodes)
            matches = uiselector_matches(selector, nodes)
            chosen = matches[0] if selector.unique else matches[selector.instance]
            assert chosen.path == control.node_path and (not selector.unique or len(matches) == 1)
            checked += 1
    assert checked > 1000
