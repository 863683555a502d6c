"""A control's locator in the forms test tools take: XPath, UiSelector (Java), uiautomator2,
Appium (Python and Java), and `adb shell input tap`, each string quoted for its language.

The locator is chosen once (`choose_selector`) and written in every form: the first of these
attribute sets that selects this node alone on the screen wins — resource-id; text;
content-desc; resource-id + text; resource-id + content-desc; class + text; class +
content-desc; resource-id + text + content-desc — so a resource-id shared by every row of a
list is never offered alone. When none is unique, the most telling set is kept with the
node's position among its matches (UiSelector's `instance`, XPath's `(…)[n]`), and — for a list
row that has no words of its own but holds a unique text — that text as an anchor inside it
(`//*[@resource-id="…row"][.//*[@text="Alex Morgan"]]`), which XPath, uiautomator2's `d.xpath`
and Appium's XPath take; UiSelector cannot say "contains", so it keeps the instance.

Uniqueness is counted over every node of the dump when the hierarchy is given (what a test
tool sees), else over the screen's controls. A password field's text is never used, and
values longer than LOCATOR_TEXT_LIMIT are left out (they change too often to find anything again).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from app.core.perception.controls import Control
from app.core.perception.hierarchy import UiHierarchy
from app.core.perception.locator import LOCATOR_TEXT_LIMIT, xpath_literal

FIELDS = ("resource_id", "text", "content_desc", "class_name")
CANDIDATES: tuple[tuple[str, ...], ...] = (
    ("resource_id",), ("text",), ("content_desc",),
    ("resource_id", "text"), ("resource_id", "content_desc"),
    ("class_name", "text"), ("class_name", "content_desc"),
    ("resource_id", "text", "content_desc"),
)
_XPATH_ATTRIBUTE = {"resource_id": "resource-id", "text": "text", "content_desc": "content-desc",
                    "class_name": "class"}
_UISELECTOR_METHOD = {"resource_id": "resourceId", "text": "text", "content_desc": "description",
                      "class_name": "className"}
_U2_KEYWORD = {"resource_id": "resourceId", "text": "text", "content_desc": "description",
               "class_name": "className"}

FORMATS: tuple[tuple[str, str], ...] = (
    ("resource_id", "resource-id"),
    ("text", "Text"),
    ("content_desc", "content-desc"),
    ("xpath", "XPath"),
    ("uiselector", "UiSelector (Java)"),
    ("uiautomator2", "uiautomator2 (Python)"),
    ("appium", "Appium (Python)"),
    ("appium_java", "Appium (Java)"),
    ("adb_tap", "adb tap"),
)
"""Every form `copy_formats` writes, as (key, what a menu calls it)."""


class NodeAttributes(NamedTuple):
    """The attributes a locator may use, of one node, and where the node is (document order)."""

    path: tuple[int, ...]
    resource_id: str
    text: str
    content_desc: str
    class_name: str
    clickable: bool = False


@dataclass(frozen=True)
class Selector:
    """Attribute values that find a control, and its position among their matches when they are
    not unique (`instance`, 0-based in document order; None when unique)."""

    fields: tuple[tuple[str, str], ...]      # (field, value) in CANDIDATES' order
    instance: int | None = None
    matches: int = 1
    anchor: tuple[str, str] | None = None     # (field, value) of a descendant that makes it unique
    anchor_clickable: bool = False            # …among the clickable matches only

    @property
    def unique(self) -> bool:
        return self.instance is None

    def value(self, field: str) -> str:
        return dict(self.fields).get(field, "")


def screen_nodes(controls: Sequence[Control], hierarchy: UiHierarchy | None = None) -> list[NodeAttributes]:
    """What uniqueness is counted over: every node of the dump, else the controls (by node path)."""
    if hierarchy is not None and hierarchy.windows:
        return [NodeAttributes(node.path, node.attributes.get("resource-id", ""),
                               "" if node.attributes.get("password") == "true" else node.attributes.get("text", ""),
                               node.attributes.get("content-desc", ""), node.class_name,
                               node.attributes.get("clickable") == "true")
                for node in hierarchy.iter_nodes()]
    ordered = sorted(controls, key=lambda c: (c.node_path or (1 << 30,), c.id))
    return [_control_attributes(c) for c in ordered]


def _control_attributes(control: Control) -> NodeAttributes:
    return NodeAttributes(control.node_path, control.resource_id, "" if control.password else control.text,
                          control.content_desc, control.class_name, control.clickable)


def _usable(field: str, value: str) -> bool:
    return bool(value) and (field == "class_name" or len(value) <= LOCATOR_TEXT_LIMIT)


def choose_selector(control: Control, nodes: Sequence[NodeAttributes]) -> Selector:
    """The first unique candidate set of attributes, else the best one with an instance."""
    own = _control_attributes(control)
    fallback: tuple[tuple[tuple[str, str], ...], list[NodeAttributes]] | None = None
    for candidate in CANDIDATES:
        values = tuple((field, getattr(own, field)) for field in candidate)
        if not all(_usable(field, value) for field, value in values):
            continue
        matches = [node for node in nodes if all(getattr(node, field) == value for field, value in values)]
        if len(matches) <= 1:
            return Selector(tuple(values))
        if fallback is None or len(matches) < len(fallback[1]):
            fallback = (values, matches)
    if fallback is None:          # nothing but its class: which of that class it is
        values = (("class_name", own.class_name or "android.view.View"),)
        fallback = (values, [node for node in nodes if node.class_name == values[0][1]])
    values, matches = fallback
    anchor, clickable_only = _anchor(control, matches, nodes)
    return Selector(values, _position(control, own, matches), max(len(matches), 1), anchor, clickable_only)


ANCHOR_TRIES = 12
"""Labelled descendants tried as an anchor, in document order."""


def _anchor(control: Control, matches: list[NodeAttributes], nodes: Sequence[NodeAttributes]
            ) -> tuple[tuple[str, str] | None, bool]:
    """A text or content-desc inside the control that no other of `matches` holds (or no other
    clickable one, for a clickable row whose inner layouts match too), and whether it needs the
    clickable condition. Short values (a section letter) are tried last."""
    path = control.node_path
    if not path or len(matches) < 2:
        return None, False
    depth = len(path)
    matching = {node.path for node in matches}
    clickable = {node.path for node in matches if node.clickable} if control.clickable else set()
    inside = [(field, getattr(node, field)) for node in nodes
              if len(node.path) > depth and node.path[:depth] == path for field in ("text", "content_desc")]
    inside = [(field, value) for field, value in inside if _usable(field, value)]
    inside.sort(key=lambda item: len(item[1].strip()) < 3)
    for field, value in inside[:ANCHOR_TRIES]:
        holders = {other.path[:k] for other in nodes if getattr(other, field) == value
                   for k in range(1, len(other.path))}
        if holders & matching == {path}:
            return (field, value), False
        if clickable and holders & clickable == {path}:
            return (field, value), True
    return None, False


def _position(control: Control, own: NodeAttributes, matches: list[NodeAttributes]) -> int:
    """The control's 0-based position among `matches` (document order), found by node path."""
    if control.node_path:
        for position, node in enumerate(matches):
            if node.path == control.node_path:
                return position
    return next((position for position, node in enumerate(matches) if node == own), 0)


# ---------------------------------------------------------------- quoting

_JAVA_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def java_string(value: str) -> str:
    """`value` as a Java string literal: backslash, quote and control characters escaped
    (`\\uXXXX` for the rest, and for line and paragraph separators, which end a Java line)."""
    out = []
    for ch in value:
        if ch in _JAVA_ESCAPES:
            out.append(_JAVA_ESCAPES[ch])
        elif ord(ch) < 0x20 or ch in "\u2028\u2029\x7f":
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def python_string(value: str) -> str:
    """`value` as a Python string literal: double quotes, unless it holds `"` and no `'`;
    printable Unicode kept as it is, everything else escaped."""
    quote = "'" if '"' in value and "'" not in value else '"'
    out = []
    for ch in value:
        if ch == "\\" or ch == quote:
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif not ch.isprintable():
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
        else:
            out.append(ch)
    return quote + "".join(out) + quote


# ---------------------------------------------------------------- the forms


def xpath_for(selector: Selector) -> str:
    """`//*[@a="…" and @b="…"]`; when the attributes are not unique, with the anchor inside
    (`//*[…][.//*[@text="…"]]`), else `(//*[…])[n]`."""
    conditions = [f"@{_XPATH_ATTRIBUTE[field]}={xpath_literal(value)}" for field, value in selector.fields]
    path = f"//*[{' and '.join(conditions)}]"
    if selector.instance is None:                         # unique
        return path
    if selector.anchor is not None:
        if selector.anchor_clickable:
            conditions.append('@clickable="true"')
            path = f"//*[{' and '.join(conditions)}]"
        field, value = selector.anchor
        return f"{path}[.//*[@{_XPATH_ATTRIBUTE[field]}={xpath_literal(value)}]]"
    return f"({path})[{selector.instance + 1}]"


def uiselector_for(selector: Selector) -> str:
    """`new UiSelector().resourceId("…").text("…")`, with `.instance(n)` when not unique."""
    calls = "".join(f".{_UISELECTOR_METHOD[field]}({java_string(value)})" for field, value in selector.fields)
    if not selector.unique:
        calls += f".instance({selector.instance})"
    return f"new UiSelector(){calls}"


def uiautomator2_for(selector: Selector) -> str:
    """`d(resourceId="…", text="…")`; when not unique, `d.xpath(…)` with the anchor, else `instance=n`."""
    if not selector.unique and selector.anchor is not None:
        return f"d.xpath({python_string(xpath_for(selector))})"
    arguments = [f"{_U2_KEYWORD[field]}={python_string(value)}" for field, value in selector.fields]
    if not selector.unique:
        arguments.append(f"instance={selector.instance}")
    return f"d({', '.join(arguments)})"


def appium_for(selector: Selector, *, java: bool = False) -> str:
    """By resource-id (AppiumBy.ID) or content-desc (ACCESSIBILITY_ID) when one alone is unique,
    by XPath with the anchor, else by the UiSelector (ANDROID_UIAUTOMATOR)."""
    fields = dict(selector.fields)
    if not selector.unique and selector.anchor is not None:
        how, value = ("xpath", "XPATH"), xpath_for(selector)
    elif selector.unique and list(fields) == ["resource_id"]:
        how, value = ("id", "ID"), fields["resource_id"]
    elif selector.unique and list(fields) == ["content_desc"]:
        how, value = ("accessibilityId", "ACCESSIBILITY_ID"), fields["content_desc"]
    else:
        how, value = ("androidUIAutomator", "ANDROID_UIAUTOMATOR"), uiselector_for(selector)
    if java:
        return f"driver.findElement(AppiumBy.{how[0]}({java_string(value)}));"
    return f"driver.find_element(AppiumBy.{how[1]}, {python_string(value)})"


def adb_tap_for(control: Control) -> str:
    x, y = control.center
    return f"adb shell input tap {x} {y}"


def copy_formats(control: Control, controls: Sequence[Control], hierarchy: UiHierarchy | None = None,
                 nodes: Sequence[NodeAttributes] | None = None) -> dict[str, str]:
    """Every form of FORMATS for `control` ("" where the control has no such attribute).
    `nodes` (from `screen_nodes`) saves counting the screen again for each control."""
    if nodes is None:
        nodes = screen_nodes(controls, hierarchy)
    selector = choose_selector(control, nodes)
    single_attribute = control.locator.startswith("//*[@") and " and " not in control.locator
    return {
        "resource_id": control.resource_id,
        "text": "" if control.password else control.text,
        "content_desc": control.content_desc,
        # the dump's own locator when it names one attribute (unique over the whole dump by construction)
        "xpath": control.locator if single_attribute else xpath_for(selector),
        "uiselector": uiselector_for(selector),
        "uiautomator2": uiautomator2_for(selector),
        "appium": appium_for(selector),
        "appium_java": appium_for(selector, java=True),
        "adb_tap": adb_tap_for(control),
    }


def describe_selector(selector: Selector) -> str:
    """A few words on how sure the locator is: "unique on this screen" or "3rd of 5 matches"."""
    if selector.instance is None:                         # unique
        return "unique on this screen"
    if selector.anchor is not None:
        return f"unique by the {'text' if selector.anchor[0] == 'text' else 'content-desc'} inside it"
    return f"{_ordinal(selector.instance + 1)} of {selector.matches} matches"


def _ordinal(number: int) -> str:
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"

